/* kd_stream.c: streams, the requests an async worker answers later: the
 * requests being served counted against max_streams, writes that never
 * block (buffered, sent as the client reads), the socket watched for a
 * client that leaves, and what the worker is told of them (kd_stream_ev).
 * See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"
#include "kd_keepalive.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/* a drained stream's buffer is kept up to this size, freed past it */
#define STREAM_KEEP_BUF 16384

int kd_room(const kd_loop *l)
{
    return l->nopen < l->max_conns && (l->max_streams == 0 || l->nserving < l->max_streams);
}

void kd_serve(kd_loop *l, kd_conn *c)
{
    c->serving = 1;
    l->nserving++;
    if (l->sb)
        l->sb->streams = (uint32_t)l->nserving;
    if (l->max_streams && l->nserving >= l->max_streams)
        kd_set_listening(l, 0);
}

/* Tells the worker (kd_loop_stream_events) what became of a stream. */
static void post(kd_loop *l, kd_conn *c, int kind)
{
    if (l->nevents == l->events_cap) {
        int cap = l->events_cap ? l->events_cap * 2 : 64;
        kd_stream_ev *e = realloc(l->events, sizeof *e * (size_t)cap);
        if (!e)
            return;                     /* the writer finds the stream gone as it writes */
        l->events = e;
        l->events_cap = cap;
    }
    l->events[l->nevents].fd = c->fd;
    l->events[l->nevents].kind = kind;
    l->events[l->nevents].req_id = c->req_id;
    l->nevents++;
}

void kd_unserve(kd_loop *l, kd_conn *c)
{
    if (!c->serving)
        return;
    c->serving = 0;
    l->nserving--;
    if (l->sb)
        l->sb->streams = (uint32_t)l->nserving;
    if (c->stream.on) {
        /* cut before the worker ended it: the client left, or a write failed */
        c->stream.on = 0;
        post(l, c, KD_STREAM_GONE);
    }
    if (!l->accepting && !l->draining && kd_room(l))
        kd_set_listening(l, 1);
}

/* What a stream waits for: the peer's close always (EPOLLRDHUP; errors
 * and hang-ups come unasked), room to write while bytes are held. Not
 * EPOLLIN: a pipelined request stays in the socket until the response
 * ends. */
static int stream_watch(kd_loop *l, kd_conn *c)
{
    struct epoll_event ev;
    ev.events = EPOLLRDHUP | (c->out.off < c->out.len ? EPOLLOUT : 0);
    ev.data.u64 = (uint64_t)c->fd;
    if (epoll_ctl(l->epfd, c->in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) != 0)
        return -1;
    c->in_epoll = 1;
    return 0;
}

void kd_stream_off(kd_loop *l, kd_conn *c)
{
    if (!c->stream.on)
        return;
    c->stream.on = 0;
    c->stream.want_drain = 0;
    if (c->out.off == c->out.len)
        kd_drop_request_files(l, c);    /* (the buffer: the response takes its own) */
    if (kd_watch_for(l, c, 0) != 0)
        kd_conn_close(l, c);
}

int kd_stream_begin(kd_loop *l, kd_conn *c)
{
    if (!c->open || !c->serving)
        return -1;
    if (c->stream.on)
        return 0;
    c->stream.on = 1;
    /* A stream may last minutes: its read buffer goes back to the pool
     * unless a pipelined request or the body's rest is in it (the head's
     * fields were taken when the request was dispatched). The next read
     * borrows one again. */
    if (c->in.pos == c->in.len && !kd_conn_body_unread(c))
        kd_buf_give(l, c);
    if (stream_watch(l, c) != 0) {
        kd_conn_close(l, c);
        return -1;
    }
    return 0;
}

/* Sends what the stream holds; tells the worker once it has all gone if
 * it asked (kd_stream_want_drain). */
static void stream_flush(kd_loop *l, kd_conn *c)
{
    while (c->out.off < c->out.len) {
        ssize_t n = send(c->fd, c->out.buf + c->out.off, c->out.len - c->out.off, MSG_NOSIGNAL);
        kd_count_out(l, n);
        if (n > 0) {
            c->out.off += (size_t)n;
            c->deadline = kd_now() + l->write_timeout;   /* progress */
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        kd_conn_close(l, c);
        return;
    }
    l->out_total -= c->out.len;
    c->out.off = c->out.len = 0;
    if (c->stream.cap > STREAM_KEEP_BUF) {
        free(c->out.buf);
        c->out.buf = NULL;
        c->stream.cap = 0;
    }
    if (stream_watch(l, c) != 0) {
        kd_conn_close(l, c);
        return;
    }
    if (c->stream.want_drain) {
        c->stream.want_drain = 0;
        post(l, c, KD_STREAM_DRAINED);
    }
}

void kd_stream_ready(kd_loop *l, kd_conn *c, uint32_t events)
{
    if (events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) {
        kd_conn_close(l, c);            /* the client left: the worker hears of it */
        return;
    }
    if (events & EPOLLOUT)
        stream_flush(l, c);
}

/* Keeps the n pieces of iov (from byte skip on) behind what is held. */
static int hold(kd_loop *l, kd_conn *c, const struct iovec *iov, int n, size_t skip)
{
    size_t need = 0, held;
    int i;
    for (i = 0; i < n; i++)
        need += iov[i].iov_len;
    need -= skip;
    if (c->out.off > 0) {               /* the sent part goes first */
        memmove(c->out.buf, c->out.buf + c->out.off, c->out.len - c->out.off);
        l->out_total -= c->out.off;
        c->out.len -= c->out.off;
        c->out.off = 0;
    }
    held = c->out.len;
    if (held + need > c->stream.cap) {
        size_t cap = c->stream.cap ? c->stream.cap : 4096;
        char *p;
        while (cap < held + need)
            cap *= 2;
        if (!(p = realloc(c->out.buf, cap)))
            return -1;
        c->out.buf = p;
        c->stream.cap = cap;
    }
    for (i = 0; i < n; i++) {
        size_t len = iov[i].iov_len;
        const char *p = iov[i].iov_base;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        memcpy(c->out.buf + c->out.len, p + skip, len - skip);
        c->out.len += len - skip;
        skip = 0;
    }
    l->out_total += need;
    return 0;
}

ssize_t kd_stream_write(kd_loop *l, kd_conn *c, const struct iovec *iov, int n)
{
    size_t sent = 0, total = 0;
    int i, was_idle = c->out.off == c->out.len;

    if (!c->open || !c->serving || !c->stream.on) {
        errno = EPIPE;
        return -1;
    }
    for (i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (!was_idle && c->out.len - c->out.off > l->write_buffer) {
        /* the client reads slower than the app writes, and the app did
         * not wait for the drain: it is cut, as a write timeout would */
        kd_conn_close(l, c);
        errno = ENOBUFS;
        return -1;
    }
    if (was_idle) {
        ssize_t w;
        do {
            w = kd_send_iov(c->fd, iov, n, 0);
        } while (w < 0 && errno == EINTR);
        kd_count_out(l, w);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            int e = errno;
            kd_conn_close(l, c);
            errno = e;
            return -1;
        }
        sent = w > 0 ? (size_t)w : 0;
        l->sent += sent;
        if (sent == total)
            return 0;
    }
    if (hold(l, c, iov, n, sent) != 0) {
        kd_conn_close(l, c);
        errno = ENOMEM;
        return -1;
    }
    l->sent += total - sent;            /* the loop's to send now */
    if (was_idle) {
        c->deadline = kd_now() + l->write_timeout;
        if (stream_watch(l, c) != 0) {
            kd_conn_close(l, c);
            errno = EPIPE;
            return -1;
        }
    }
    return (ssize_t)(c->out.len - c->out.off);
}

int kd_stream_want_drain(kd_loop *l, kd_conn *c)
{
    if (!c->open || !c->serving || !c->stream.on)
        return -1;
    if (c->out.off == c->out.len)
        post(l, c, KD_STREAM_DRAINED);
    else
        c->stream.want_drain = 1;
    return 0;
}

void kd_stream_end(kd_loop *l, kd_conn *c, int keepalive)
{
    c->stream.on = 0;
    c->stream.want_drain = 0;
    if (c->out.off < c->out.len) {
        c->out.flushing = 1;            /* kd_conn_finish waits for it */
    } else {
        kd_drop_request_files(l, c);    /* (the buffer: a plain response takes its own) */
        if (c->in_epoll && kd_watch_for(l, c, 0) != 0) {
            kd_conn_close(l, c);
            return;
        }
    }
    kd_conn_finish(l, c, keepalive);
}

void kd_conn_release(kd_loop *l, kd_conn *c)
{
    if (!c->open)
        return;
    /* out of the set before the close: the app's duplicate keeps the
     * socket, and with it the registration, alive */
    if (c->in_epoll)
        epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->stream.on = 0;
    kd_drop_request_files(l, c);
    c->open = 0;
    c->in_epoll = 0;
    kd_buf_give(l, c);
    l->nopen--;
    if (l->sb)
        l->sb->connections = (uint32_t)l->nopen;
    kd_unserve(l, c);
}

int kd_loop_stream_events(kd_loop *l, kd_stream_ev **events)
{
    int n = l->nevents;
    *events = l->events;
    l->nevents = 0;
    return n;
}

