/* kd_keepalive.c: connections between requests: the end of a response
 * (kd_conn_finish: the next request, or the close), the sweep of
 * deadlines, and draining (kd_loop_stop_accepting). See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_keepalive.h"

#include <sys/epoll.h>
#include <unistd.h>

#define DRAIN_IDLE 1.0          /* seconds; see kd_loop_stop_accepting */

void kd_sweep(kd_loop *l, double now)
{
    int fd;
    l->last_sweep = now;
    /* retry listening paused by EMFILE even if no connection closed */
    if (!l->accepting && !l->draining && kd_room(l))
        kd_set_listening(l, 1);
    for (fd = 0; fd < l->nroutes; fd++)
        if (l->routes[fd].phead >= 0)
            kd_flush_pending(l, fd);     /* in case EPOLLOUT could not be watched */
    for (fd = 0; fd < l->conns_cap; fd++) {
        kd_conn *c = l->conns[fd];
        if (c && c->open && c->stream.on && c->out.off < c->out.len && c->deadline < now) {
            kd_conn_close(l, c);         /* a stream's client took nothing for write_timeout */
            continue;
        }
        if (c && c->open && !c->serving && c->deadline < now) {
            /* a head or a buffered body not finished in time gets 408,
             * one its pool had no room for 503; idle and lingering
             * connections just close, and so does one whose PROXY
             * header did not come in time (its sender is a proxy, not
             * an HTTP client) */
            if (c->proxy_wait)
                kd_conn_close(l, c);
            else if (c->pend.route)
                kd_conn_error(l, c, 503);
            else if (c->in.len > c->in.pos && !c->lingering && !c->out.flushing)
                kd_conn_error(l, c, 408);
            else if (!c->lingering && !c->out.flushing && kd_fill(l, c) == 1) {
                /* idle, but a request came while the worker was busy
                 * (the event not read yet): it is served, not reset */
                c->deadline = now + l->header_timeout;
                kd_enqueue(l, c);
            } else
                kd_conn_close(l, c);
        }
    }
}

int kd_loop_drained(kd_loop *l)
{
    return l->draining && l->nopen == 0 && !(l->drain_queue && kd_queue_waiting(l));
}

void kd_loop_stop_accepting(kd_loop *l, int keep_queue)
{
    /* Connections stay open: each gets one more response, marked
     * Connection: close, so a client that is about to send on an idle
     * keep-alive connection is answered instead of reset. */
    int fd, ri;
    double now = kd_now();
    if (l->draining)
        return;                       /* the grace below is granted once */
    kd_set_listening(l, 0);
    l->draining = 1;
    if (keep_queue && l->recv_fd >= 0) {
        /* a stop: the queue's connections were accepted by the server,
         * and no replacement will take them */
        struct epoll_event ev;
        ev.events = EPOLLIN;
        ev.data.u64 = TAGGED(TAG_QUEUE, 0);
        if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->recv_fd, &ev) == 0)
            l->drain_queue = 1;
    }
    /* Requests waiting to be handed to another pool are served here:
     * parsed again, they are no longer routed. */
    for (ri = 0; ri < l->nroutes; ri++) {
        kd_route *r = &l->routes[ri];
        while (r->phead >= 0) {
            kd_conn *c = l->conns[r->phead];
            kd_unpend(l, c);
            kd_enqueue(l, c);
        }
        if (r->watching && epoll_ctl(l->epfd, EPOLL_CTL_DEL, r->send_fd, NULL) == 0)
            r->watching = 0;
    }
    if (l->sb && l->sb->state == KD_SB_IDLE)
        kd_sb_set_state(l->sb, KD_SB_DRAINING);   /* else once the request is done */
    /* A connection idle for a while is a pooled one, as unlikely to send
     * now as at any keep-alive expiry: it gets DRAIN_IDLE more seconds,
     * not its whole keep-alive timeout. */
    for (fd = 0; fd < l->conns_cap; fd++) {
        kd_conn *c = l->conns[fd];
        if (c && c->open && !c->serving && !c->out.flushing && c->in.pos == c->in.len) {
            /* (a new connection's clock runs from its accept: its client
             * is about to send the first request, so it too gets
             * DRAIN_IDLE, not a close now) */
            double idle_since = c->deadline - (c->requests > 0 ? l->keepalive_timeout : l->header_timeout);
            if (idle_since + DRAIN_IDLE < c->deadline)
                c->deadline = idle_since + DRAIN_IDLE > now ? idle_since + DRAIN_IDLE : now;
        }
    }
}

void kd_conn_finish(kd_loop *l, kd_conn *c, int keepalive)
{
    /* counted whether or not the client took it */
    if (l->sb)
        kd_sb_done(l->sb, c->resp_status, kd_now() - l->sb->started);
    if (!c->open)
        return;
    kd_unserve(l, c);
    c->requests++;
    c->body.start = 0;
    c->body.continued = 0;
    if (c->out.flushing) {
        /* the loop sends the rest first (flush_out), then finishes */
        c->out.keepalive = keepalive;
        c->deadline = kd_now() + l->write_timeout;
        if (kd_watch_for(l, c, 1) != 0)
            kd_conn_close(l, c);
        return;
    }
    kd_finish_now(l, c, keepalive);
}

void kd_finish_now(kd_loop *l, kd_conn *c, int keepalive)
{
    if (c->body.fd >= 0) {
        close(c->body.fd);
        c->body.fd = -1;
        c->body.in_file = 0;
    }
    /* a body the app left unread would be parsed as the next request */
    if (kd_frame_close_before(keepalive, 0, l->draining, kd_conn_body_unread(c)) != KD_KEEP) {
        kd_conn_close(l, c);
        return;
    }
    if (c->in.pos < c->in.len) {
        kd_enqueue(l, c);                /* pipelined request already here */
        c->deadline = kd_now() + l->header_timeout;
    } else {
        kd_buf_give(l, c); /* idle: no buffer until bytes come */
        c->deadline = kd_now() + l->keepalive_timeout;
        if (kd_watch(l, c) != 0)
            kd_conn_close(l, c);
    }
}
