/* kd_loop.c: the event loop: epoll, the ready queue, parse, next, close;
 * connections come in through kd_intake.c, and kd_keepalive.c has them
 * between requests. See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"
#include "kd_intake.h"
#include "kd_answer.h"
#include "kd_keepalive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define EVENTS_PER_WAIT 64

/* Idle connections cost a descriptor each: use what the hard limit allows. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

kd_loop *kd_loop_new(const int *listen_fds, int n)
{
    kd_loop *l;
    int i;

    if (n < 1 || n > KD_MAX_LISTENERS) {
        errno = EINVAL;
        return NULL;
    }
    l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (l->epfd < 0) {
        free(l);
        return NULL;
    }
    l->nlisteners = n;
    l->listen = 1;
    l->recv_fd = -1;
    memcpy(l->listen_fds, listen_fds, sizeof(int) * (size_t)n);
    l->date_sec = -1;
    l->last_sweep = kd_now();
    for (i = 0; i < n; i++) {
        struct epoll_event ev;
        /* Several workers may wake for one connection: the losers must get
         * EAGAIN from accept4, not block in it while their own clients wait. */
        int flags = fcntl(listen_fds[i], F_GETFL);
        if (flags < 0 || fcntl(listen_fds[i], F_SETFL, flags | O_NONBLOCK) != 0) {
            int e = errno;
            close(l->epfd);
            free(l);
            errno = e;
            return NULL;
        }
        ev.events = EPOLLIN | EPOLLEXCLUSIVE;  /* wake few workers per connection */
        ev.data.u64 = TAGGED(TAG_LISTENER, i);
        if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, listen_fds[i], &ev) != 0) {
            int e = errno;
            close(l->epfd);
            free(l);
            errno = e;
            return NULL;
        }
    }
    l->accepting = 1;
    raise_fd_limit();
    return l;
}

void kd_loop_free(kd_loop *l)
{
    int fd;
    for (fd = 0; fd < l->conns_cap; fd++) {
        kd_conn *c = l->conns[fd];
        if (!c)
            continue;
        if (c->open)
            close(c->fd);
        free(c->out.buf);
        if (c->out.fd >= 0)
            close(c->out.fd);
        free(c->in.buf);
        free(c);
    }
    free(l->answers);
    free(l->events);
    free(l->conns);
    free(l->queue);
    while (l->nbufs > 0)
        free(l->bufs[--l->nbufs]);
    free(l->trusted);
    free(l->proxy_from);
    close(l->epfd);
    free(l);
}

void kd_enqueue(kd_loop *l, kd_conn *c)
{
    if (c->queued)
        return;
    c->queued = 1;
    l->queue[(l->qhead + l->qlen) % l->conns_cap] = c->fd;
    l->qlen++;
}

/* A connection with bytes to read, read when its turn comes: it borrows a
 * read buffer only then, so however many are ready at once, the worker
 * touches one buffer at a time (the one the pool gave last, still in the
 * cache) instead of one for each waiting connection. */
void kd_enqueue_unread(kd_loop *l, kd_conn *c)
{
    c->unread = 1;
    kd_enqueue(l, c);
}

/* Reads a queued connection whose bytes are still in its socket. 0, or
 * -1 when it has closed (a connection without bytes, and so without a
 * buffer, is watched again by try_parse). */
static int read_turn(kd_loop *l, kd_conn *c)
{
    c->unread = 0;
    return kd_fill(l, c) < 0 ? -1 : 0;
}

static kd_conn *dequeue(kd_loop *l)
{
    kd_conn *c;
    if (l->qlen == 0)
        return NULL;
    c = l->conns[l->queue[l->qhead]];
    l->qhead = (l->qhead + 1) % l->conns_cap;
    l->qlen--;
    c->queued = 0;
    return c;
}

/* Taking new connections: from the listeners (unless this worker serves
 * a pool of its own) and from its pool's queue. */
void kd_set_listening(kd_loop *l, int on)
{
    struct epoll_event ev;
    int i;
    if (l->accepting == on)
        return;
    for (i = 0; l->listen && i < l->nlisteners; i++) {
        ev.events = EPOLLIN | EPOLLEXCLUSIVE;
        ev.data.u64 = TAGGED(TAG_LISTENER, i);
        epoll_ctl(l->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, l->listen_fds[i], &ev);
    }
    if (l->recv_fd >= 0) {
        /* not EPOLLEXCLUSIVE: every idle worker of the pool wakes for a
         * message and one gets it, so none waits while a worker idles */
        ev.events = EPOLLIN;
        ev.data.u64 = TAGGED(TAG_QUEUE, 0);
        epoll_ctl(l->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, l->recv_fd, &ev);
    }
    l->accepting = on;
}

void kd_conn_close(kd_loop *l, kd_conn *c)
{
    if (!c->open)
        return;
    if (c->pend.route)
        kd_unpend(l, c);
    close(c->fd);                     /* also leaves the epoll set */
    kd_drop_request_files(l, c);
    kd_buf_give(l, c);
    c->open = 0;
    c->in_epoll = 0;
    l->nopen--;
    if (l->sb)
        l->sb->connections = (uint32_t)l->nopen;
    kd_unserve(l, c);
    if (!l->accepting && !l->draining && kd_room(l))
        kd_set_listening(l, 1);
}

int kd_watch(kd_loop *l, kd_conn *c)
{
    struct epoll_event ev;
    if (c->in_epoll)
        return 0;
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = (uint64_t)c->fd;
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0)
        return -1;
    c->in_epoll = 1;
    return 0;
}

/* Switches the connection's epoll interest between reading (0) and
 * writing deferred output (1). */
int kd_watch_for(kd_loop *l, kd_conn *c, int out)
{
    struct epoll_event ev;
    ev.events = (out ? EPOLLOUT : EPOLLIN) | EPOLLRDHUP;
    ev.data.u64 = (uint64_t)c->fd;
    if (epoll_ctl(l->epfd, c->in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) != 0)
        return -1;
    c->in_epoll = 1;
    return 0;
}

/* Reads what is there into the connection buffer (borrowed for it). 1
 * read something, 0 nothing yet (an idle connection gives the buffer
 * back), -1 closed or failed. */
int kd_fill(kd_loop *l, kd_conn *c)
{
    ssize_t n;
    if (c->in.pos > 0 && c->in.pos == c->in.len)
        c->in.pos = c->in.len = 0;
    if (!c->in.buf && kd_buf_take(l, c) != 0)
        return -1;
    if (c->in.len == KD_BUF_SIZE)
        return 1;                     /* full: the parser reports the limit */
    do {
        n = read(c->fd, c->in.buf + c->in.len, KD_BUF_SIZE - c->in.len);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        c->in.len += (size_t)n;
        if (l->sb)
            l->sb->counts.bytes_in += (uint64_t)n;
        return 1;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (c->in.len == 0 && !c->serving)
            kd_buf_give(l, c);
        return 0;
    }
    return -1;
}

/* Parses a queued connection. 1 when a head is complete. */
static int try_parse(kd_loop *l, kd_conn *c)
{
    int rv;
    /* nothing to parse (the buffer was given back meanwhile) */
    if (!c->in.buf) {
        if (kd_watch(l, c) != 0)
            kd_conn_close(l, c);
        return 0;
    }
    if (c->proxy_wait && !kd_proxy_stage(l, c))
        return 0;
    rv = kd_parse_more(c->in.buf + c->in.pos, c->in.len - c->in.pos, &c->in.scan, &c->req);
    if (rv == KD_INCOMPLETE) {
        kd_compact(c);                   /* room for the rest of the head */
        if (kd_watch(l, c) != 0)
            kd_conn_close(l, c);
        return 0;
    }
    if (rv == KD_ERROR) {
        kd_conn_error(l, c, c->req.error_status);
        return 0;
    }
    /* 413 before reading any of it, and before any 100 Continue */
    if (l->max_body > 0 && c->req.content_length > l->max_body) {
        kd_conn_error(l, c, 413);
        return 0;
    }
    /* --pool: a request for another pool goes there before its body
     * (a draining worker serves it itself: the last request on its
     * connection, and the other pool may be draining too) */
    if (l->nroutes && !l->draining) {
        int ri = kd_route_of(l, &c->req);
        if (ri != l->my_route) {
            kd_route_to(l, c, ri);
            return 0;
        }
    }
    /* Expect: 100-continue, unless the app decides (--expect-to-app): the
     * loop asks for the body itself and holds it as any other, as nginx
     * does in front of an upstream, so a slow upload never reaches a
     * worker. The 100 goes once, and not when body bytes came without
     * waiting for it (RFC 9110 10.1.1). */
    if (c->req.expect_continue && !l->expect_to_app && !c->body.continued &&
        (c->req.chunked || c->req.content_length > 0)) {
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        c->body.continued = 1;
        if (c->in.len - c->in.pos == (size_t)rv) {
            ssize_t n;
            do {
                n = send(c->fd, cont, sizeof cont - 1, MSG_NOSIGNAL);
            } while (n < 0 && errno == EINTR);
            if (n != (ssize_t)(sizeof cont - 1)) {
                kd_conn_close(l, c);  /* a fresh socket takes 25 bytes, or is gone */
                return 0;
            }
            c->body.start = kd_now();
        }
    }
    /* Chunked bodies, and Content-Length ones too large for the buffer,
     * go to a temporary file. (A head over half the buffer leaves the body
     * to the worker: the head stays in the buffer while the body passes
     * through it.) */
    if (c->body.fd >= 0 ||
        ((!c->req.expect_continue || c->body.continued) && rv <= KD_BUF_SIZE / 2 &&
         (c->req.chunked || c->req.content_length > (int64_t)(KD_BUF_SIZE - (size_t)rv)))) {
        size_t head_at = c->in.pos;
        if (kd_spool_body(l, c, (size_t)rv) == 0)
            return 0;                 /* more to come, or answered */
        /* 1: the body is in the file; 2: no file, the worker reads it */
        if (c->in.pos != head_at)        /* the head moved: its pointers with it */
            kd_parse_request(c->in.buf + c->in.pos, c->in.len - c->in.pos, &c->req);
    }
    if (!c->body.in_file && !c->req.chunked && c->req.content_length > 0 &&
        (!c->req.expect_continue || c->body.continued) &&
        c->req.content_length <= (int64_t)(KD_BUF_SIZE - (size_t)rv) &&
        c->in.len - c->in.pos < (size_t)rv + (size_t)c->req.content_length) {
        /* The body fits the buffer: wait for it here, where waiting costs
         * a descriptor, rather than in a worker's blocking read. Each
         * arrival re-parses the head (cheap) and moves the deadline on:
         * --read-timeout is the longest pause between body reads, and
         * --min-body-rate the slowest average (body_deadline). With
         * Expect: 100-continue and --expect-to-app the body is not sent
         * before the app asks for it, so those requests go to it at once. */
        double now = kd_now();
        kd_compact(c);
        if (c->body.start == 0)
            c->body.start = now;
        c->deadline = kd_body_deadline(l, c, now, (int64_t)(c->in.len - (size_t)rv));
        if (kd_watch(l, c) != 0)
            kd_conn_close(l, c);
        return 0;
    }
    c->in.pos += (size_t)rv;
    kd_serve(l, c);
    c->resp_status = 0;             /* no head of this request has gone out */
    c->req_id = ++l->last_req_id;
    c->is_head = c->req.is_head;
    c->minor_version = c->req.minor_version;
    c->body.chunked = c->req.chunked && !c->body.in_file;
    c->body.left = c->req.chunked || c->body.in_file ? 0 :
                   (c->req.content_length > 0 ? c->req.content_length : 0);
    kd_frame_start(&c->frame, KD_FRAME_NONE, -1, KD_KEEP, 0);
    c->body.expect_continue = c->req.expect_continue && !c->body.continued &&
                              (c->body.left > 0 || c->body.chunked);
    c->body.read = 0;
    /* the body's clock starts with the head (or, after Expect, with the
     * 100 Continue), unless the loop started it while buffering */
    if (c->body.start == 0 && (c->body.left > 0 || c->body.chunked))
        c->body.start = kd_now();
    if (c->body.chunked)
        kd_chunked_init(&c->body.chunk);
    return 1;
}

int kd_loop_next(kd_loop *l, int timeout_ms, kd_conn **out)
{
    struct epoll_event evs[EVENTS_PER_WAIT];
    int n, i;

    if (l->sb && l->sb->state != (l->draining ? KD_SB_DRAINING : KD_SB_IDLE)) {
        /* back from a request (or, the first time, from starting) */
        if (l->sb->state >= KD_SB_READING && l->sb->state <= KD_SB_WRITING)
            l->sb->requests++;
        kd_sb_set_state(l->sb, l->draining ? KD_SB_DRAINING : KD_SB_IDLE);
    }
    for (;;) {
        kd_conn *c;
        double now;

        /* at max_streams, requests wait (and others go to the pool's
         * other workers: listening stopped) until a stream ends */
        while ((!l->max_streams || l->nserving < l->max_streams) && (c = dequeue(l)) != NULL) {
            if (c->open && c->unread && read_turn(l, c) < 0) {
                kd_conn_close(l, c);
                continue;
            }
            if (c->open && try_parse(l, c)) {
                if (l->sb) {
                    kd_sb_begin(l->sb, kd_now());
                    kd_sb_set_request(l->sb, c->req.method, c->req.method_len,
                                      c->req.target, c->req.target_len);
                    /* a body the worker reads before the app, unless the
                     * app asks for it (Expect) */
                    kd_sb_set_state(l->sb, (c->body.left > 0 || c->body.chunked) &&
                                    !c->body.expect_continue ? KD_SB_READING : KD_SB_APP);
                }
                *out = c;
                return 1;
            }
        }
        if (l->nanswers || l->nfaults || l->nevents)
            return 0;                 /* the worker logs them, or tells its app, now */
        if (l->draining && l->nopen == 0) {
            if (l->drain_queue && kd_queue_waiting(l)) {
                kd_receive_one(l);
                continue;
            }
            return 0;
        }
        n = epoll_wait(l->epfd, evs, EVENTS_PER_WAIT,
                       timeout_ms < 0 || timeout_ms > 1000 ? 1000 :
                       l->draining && timeout_ms > 50 ? 50 : timeout_ms);
        now = kd_now();
        if (now - l->last_sweep >= (l->draining ? 0.05 : 1.0))
            kd_sweep(l, now);
        if (n < 0)
            return errno == EINTR ? 0 : -1;
        if (n == 0)
            return 0;
        for (i = 0; i < n; i++) {
            uint64_t d = evs[i].data.u64;
            if (d >> 32) {
                int i32 = (int)(d & 0xffffffffu);
                if (d >> 32 == TAG_LISTENER)
                    kd_accept_one(l, i32);
                else if (d >> 32 == TAG_QUEUE)
                    kd_receive_one(l);
                else
                    kd_flush_pending(l, i32);
                continue;
            }
            c = l->conns[(int)d];
            if (!c || !c->open)
                continue;
            if (c->stream.on) {
                kd_stream_ready(l, c, evs[i].events);
                continue;
            }
            if (c->lingering) {
                kd_linger_read(l, c);
                continue;
            }
            if (c->out.flushing) {
                kd_flush_out(l, c);
                continue;
            }
            if (c->queued && l->max_streams && l->nserving >= l->max_streams) {
                /* waiting for a stream to end, its bytes still in the
                 * socket: out of the set until its turn (they, or a close,
                 * would be reported again at every wait) */
                if (epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL) == 0)
                    c->in_epoll = 0;
                continue;
            }
            /* the head deadline runs from the first byte of a request (or
             * the end of input, which closes it at its turn) */
            if (c->requests > 0 && c->deadline > now + l->header_timeout)
                c->deadline = now + l->header_timeout;
            kd_enqueue_unread(l, c);
        }
    }
}

void kd_loop_scoreboard(kd_loop *l, kd_sb_slot *slot)
{
    l->sb = slot;
    if (slot) {
        slot->connections = (uint32_t)l->nopen;
        kd_sb_set_state(slot, l->draining ? KD_SB_DRAINING : KD_SB_IDLE);
    }
}

const char *kd_date(kd_loop *l)
{
    time_t now = time(NULL);
    if ((long)now != l->date_sec) {
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(l->date, sizeof l->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        l->date_sec = (long)now;
    }
    return l->date;
}
