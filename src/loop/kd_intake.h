/* kd_intake.h: connection intake (kd_intake.c), as the event loop and
 * the pools' queue use it: a connection taken from a listener or handed
 * over from another worker, and the PROXY protocol header read before its
 * first request. kd_loop_set_proxies, which configures both, is in
 * kd_conn.h. */
#ifndef KD_INTAKE_H
#define KD_INTAKE_H

#include "kd_conn_int.h"

/* A connection new to this worker on listener li, its slot reused; NULL
 * (fd closed) when there is no memory for it. */
kd_conn *kd_conn_open(kd_loop *l, int fd, int li);

/* Accepts one connection on listener li, reads what it sent already and
 * queues or watches it. Stops listening when out of descriptors. */
void kd_accept_one(kd_loop *l, int li);

/* The PROXY header due on c (c->proxy_wait). 1 when it is read and c's
 * addresses are the ones it gives; 0 when more bytes are awaited or the
 * connection was closed. */
int kd_proxy_stage(kd_loop *l, kd_conn *c);

#endif
