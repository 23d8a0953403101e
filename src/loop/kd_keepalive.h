/* kd_keepalive.h: connections between requests (kd_keepalive.c), as the
 * event loop and the writes use it. kd_conn_finish,
 * kd_loop_stop_accepting and kd_loop_drained are in kd_conn.h. */
#ifndef KD_KEEPALIVE_H
#define KD_KEEPALIVE_H

#include "kd_conn_int.h"

/* Past-deadline connections answered (408, 503) or closed, pending
 * hand-overs flushed, listening resumed when there is room again. The
 * loop calls it about once a second (more often while draining). */
void kd_sweep(kd_loop *l, double now);

/* The end of c's response, its output all sent: the next request (read
 * already, or awaited for the keep-alive timeout), or the close. */
void kd_finish_now(kd_loop *l, kd_conn *c, int keepalive);

#endif
