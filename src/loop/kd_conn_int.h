/* kd_conn_int.h: what the parts of the connection engine (kd_loop.c,
 * kd_pools.c, kd_body.c, kd_write.c) share among themselves;
 * not part of its interface (kd_conn.h). Parts with a header of their own
 * (kd_intake.h, kd_answer.h, kd_keepalive.h) declare their shared functions there. */
#ifndef KD_CONN_INT_H
#define KD_CONN_INT_H

#include "kd_conn.h"

/* what the upper 32 bits of an epoll event's data say it is (0: a
 * connection, its fd in the lower bits) */
#define TAG_LISTENER 1          /* index into listen_fds */
#define TAG_QUEUE 2             /* this worker's pool queue (recv_fd) */
#define TAG_ROUTE 3             /* a route's send_fd has room again */
#define TAGGED(tag, i) ((uint64_t)(i) | ((uint64_t)(tag) << 32))

/* Bytes written to a client, counted in the worker's slot. */
static inline void kd_count_out(kd_loop *l, ssize_t n)
{
    if (l->sb && n > 0)
        l->sb->counts.bytes_out += (uint64_t)n;
}

/* kd_loop.c */
void kd_enqueue(kd_loop *l, kd_conn *c);
void kd_enqueue_unread(kd_loop *l, kd_conn *c);
void kd_set_listening(kd_loop *l, int on);
int kd_watch(kd_loop *l, kd_conn *c);
int kd_watch_for(kd_loop *l, kd_conn *c, int out);
int kd_fill(kd_loop *l, kd_conn *c);

/* kd_pools.c */
int kd_route_of(const kd_loop *l, const kd_request *req);
void kd_route_to(kd_loop *l, kd_conn *c, int ri);
void kd_unpend(kd_loop *l, kd_conn *c);
void kd_flush_pending(kd_loop *l, int ri);
void kd_receive_one(kd_loop *l);
int kd_queue_waiting(kd_loop *l);

/* kd_bufs.c: a connection's read buffer (c->in.buf) and header table
 * (c->req.headers), lent while it has bytes to read or a request is
 * served. take: 0, or -1 (ENOMEM); give: back to the worker's free ones,
 * what it held dropped; attach: a buffer from kd_buf_get made the
 * connection's. */
int kd_buf_take(kd_loop *l, kd_conn *c);
void kd_buf_attach(kd_conn *c, char *buf);
void kd_buf_give(kd_loop *l, kd_conn *c);
char *kd_buf_get(kd_loop *l);
void kd_buf_put(kd_loop *l, char *buf);

/* kd_body.c */
void kd_compact(kd_conn *c);
double kd_body_deadline(const kd_loop *l, const kd_conn *c, double now, int64_t got);
int kd_spool_body(kd_loop *l, kd_conn *c, size_t head_len);

/* kd_stream.c */
int kd_room(const kd_loop *l);          /* below max_conns and max_streams */
void kd_serve(kd_loop *l, kd_conn *c);  /* a head returned: counted as served */
void kd_unserve(kd_loop *l, kd_conn *c);   /* its end; a stream cut is posted */
void kd_stream_ready(kd_loop *l, kd_conn *c, uint32_t events);

/* kd_write.c */
/* as sendmsg() with MSG_NOSIGNAL and flags, small pieces copied and sent as one */
ssize_t kd_send_iov(int fd, const struct iovec *iov, int iovcnt, int flags);
void kd_drop_request_files(kd_loop *l, kd_conn *c);
void kd_flush_out(kd_loop *l, kd_conn *c);

#endif
