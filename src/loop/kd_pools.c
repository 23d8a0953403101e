/* kd_pools.c: pools: routing a request, handing its connection over, receiving one. See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"
#include "kd_intake.h"
#include "../sys/kd_fdpass.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/* A connection handed to another pool: this, then the bytes read so far. */
#define HANDOFF_MAGIC 0x4b644830u
typedef struct {
    uint32_t magic;
    int32_t listener;
    int32_t requests;
    int32_t remote_port;
    char remote_addr[64];           /* NUL-terminated */
    int32_t proxied, trusted, peer_port;   /* as in kd_conn */
    char peer_addr[64];             /* NUL-terminated */
} kd_handoff;

int kd_loop_set_pools(kd_loop *l, const kd_route *routes, int n, int my_route,
                      int recv_fd, int listen)
{
    int i;
    if (n < 1 || n > KD_MAX_ROUTES || my_route < 0 || my_route >= n || recv_fd < 0) {
        errno = EINVAL;
        return -1;
    }
    kd_set_listening(l, 0);
    for (i = 0; i < n; i++) {
        l->routes[i] = routes[i];
        l->routes[i].watching = 0;
        l->routes[i].phead = l->routes[i].ptail = -1;
    }
    l->nroutes = n;
    l->my_route = my_route;
    l->recv_fd = recv_fd;
    l->listen = listen;
    kd_set_listening(l, 1);
    return 0;
}

/* The route of a request: the longest prefix of its path as sent. */
int kd_route_of(const kd_loop *l, const kd_request *req)
{
    int i, best = -1;
    size_t best_len = 0;
    for (i = 0; i < l->nroutes; i++) {
        const kd_route *r = &l->routes[i];
        if (r->prefix_len <= req->path_len && (best < 0 || r->prefix_len > best_len) &&
            (r->prefix_len == 0 || memcmp(req->path, r->prefix, r->prefix_len) == 0))
            best = i, best_len = r->prefix_len;
    }
    return best < 0 ? l->my_route : best;
}

/* Sends the connection and its unconsumed bytes to route r's queue and
 * lets go of it here. 1 sent; 0 no room in the queue yet; -1 failed. */
static int hand_over(kd_loop *l, kd_conn *c, const kd_route *r)
{
    kd_handoff h;
    struct iovec iov[2];
    ssize_t n;

    memset(&h, 0, sizeof h);
    h.magic = HANDOFF_MAGIC;
    h.listener = c->listener;
    h.requests = c->requests;
    h.remote_port = c->remote_port;
    memcpy(h.remote_addr, c->remote_addr, c->remote_addr_len);
    h.proxied = c->proxied;
    h.trusted = c->trusted;
    if (c->proxied) {
        h.peer_port = c->peer_port;
        memcpy(h.peer_addr, c->peer_addr, c->peer_addr_len);
    }
    iov[0].iov_base = &h;
    iov[0].iov_len = sizeof h;
    iov[1].iov_base = c->in.buf + c->in.pos;
    iov[1].iov_len = c->in.len - c->in.pos;
    n = kd_fdpass_send(r->send_fd, iov, 2, c->fd);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    if (l->sb)
        l->sb->counts.queued[r - l->routes]++;
    /* The receiver shares the open file description, and epoll
     * registrations belong to that: close() alone would leave ours. No
     * shutdown either: the connection lives on over there. */
    if (c->in_epoll)
        epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    c->in_epoll = 0;
    kd_conn_close(l, c);
    return 1;
}

void kd_unpend(kd_loop *l, kd_conn *c)
{
    kd_route *r = &l->routes[c->pend.route - 1];
    if (c->pend.prev >= 0)
        l->conns[c->pend.prev]->pend.next = c->pend.next;
    else
        r->phead = c->pend.next;
    if (c->pend.next >= 0)
        l->conns[c->pend.next]->pend.prev = c->pend.prev;
    else
        r->ptail = c->pend.prev;
    c->pend.route = 0;
}

/* Hands over the connections waiting for route ri, in order, until its
 * queue is full again; watches its send end for room meanwhile. */
void kd_flush_pending(kd_loop *l, int ri)
{
    kd_route *r = &l->routes[ri];
    struct epoll_event ev;
    while (r->phead >= 0) {
        kd_conn *c = l->conns[r->phead];
        int rv = hand_over(l, c, r);
        if (rv == 0)
            break;
        if (rv < 0)
            kd_conn_error(l, c, 503);
    }
    if ((r->phead >= 0) == r->watching)
        return;
    /* unix seqpacket poll reports writable once the queue has drained */
    ev.events = EPOLLOUT;
    ev.data.u64 = TAGGED(TAG_ROUTE, ri);
    if (epoll_ctl(l->epfd, r->watching ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, r->send_fd, &ev) == 0)
        r->watching = !r->watching;
}

/* A complete head that belongs to route ri's pool: off it goes, or, when
 * the pool's queue is full, it waits in line here (input unwatched) for up
 * to header_timeout. */
void kd_route_to(kd_loop *l, kd_conn *c, int ri)
{
    kd_route *r = &l->routes[ri];
    int rv = r->phead < 0 ? hand_over(l, c, r) : 0;   /* never ahead of those waiting */
    if (rv > 0)
        return;
    if (rv < 0) {
        kd_conn_error(l, c, 503);
        return;
    }
    if (c->in_epoll && epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL) == 0)
        c->in_epoll = 0;
    c->pend.route = ri + 1;
    c->pend.next = -1;
    c->pend.prev = r->ptail;
    if (r->ptail >= 0)
        l->conns[r->ptail]->pend.next = c->fd;
    else
        r->phead = c->fd;
    r->ptail = c->fd;
    c->deadline = kd_now() + l->header_timeout;
    kd_flush_pending(l, ri);             /* starts watching for room */
}

/* Takes one connection from this worker's pool queue (one per wakeup, so
 * the pool's idle workers share them) and queues it for parsing. */
void kd_receive_one(kd_loop *l)
{
    kd_handoff h;
    struct iovec iov[2];
    ssize_t n;
    int fd, flags;
    kd_conn *c;
    char *buf = kd_buf_get(l);

    if (!buf)
        return;
    iov[0].iov_base = &h;
    iov[0].iov_len = sizeof h;
    iov[1].iov_base = buf;
    iov[1].iov_len = KD_BUF_SIZE;
    n = kd_fdpass_recv(l->recv_fd, iov, 2, &fd, &flags);
    if (n < 0 || fd < 0) {
        kd_buf_put(l, buf); /* another worker took it */
        return;
    }
    if ((size_t)n < sizeof h || (flags & (MSG_TRUNC | MSG_CTRUNC)) ||
        h.magic != HANDOFF_MAGIC || h.listener < 0 || h.listener >= l->nlisteners ||
        h.requests < 0 || !memchr(h.remote_addr, '\0', sizeof h.remote_addr) ||
        !memchr(h.peer_addr, '\0', sizeof h.peer_addr)) {
        kd_buf_put(l, buf);
        close(fd);
        return;
    }
    if (l->sb) {
        l->sb->counts.taken++;
        l->sb->counts.queued[l->my_route]--;
    }
    if (!(c = kd_conn_open(l, fd, h.listener))) {
        kd_buf_put(l, buf);
        return;
    }
    kd_buf_give(l, c); /* (none: a closed slot holds none) */
    kd_buf_attach(c, buf); /* the bytes are in it */
    c->in.len = (size_t)n - sizeof h;
    c->requests = h.requests;
    c->remote_port = h.remote_port;
    memcpy(c->remote_addr, h.remote_addr, sizeof c->remote_addr);
    c->remote_addr_len = strlen(c->remote_addr);
    /* its PROXY header, if one was due, was read over there */
    c->proxy_wait = 0;
    c->proxied = h.proxied != 0;
    c->trusted = h.trusted != 0;
    c->peer_port = h.peer_port;
    memcpy(c->peer_addr, h.peer_addr, sizeof c->peer_addr);
    c->peer_addr_len = strlen(c->peer_addr);
    kd_enqueue(l, c);
}

/* Whether this worker's pool queue holds a connection now. */
int kd_queue_waiting(kd_loop *l)
{
    struct pollfd p;
    if (l->recv_fd < 0)
        return 0;
    p.fd = l->recv_fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}
