/* kd_conn.c: see kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define EVENTS_PER_WAIT 64
#define DRAIN_IDLE 1.0          /* seconds; see kd_loop_stop_accepting */
#define LINGER 2.0              /* seconds; see kd_conn_error */

/* what the upper 32 bits of an epoll event's data say it is (0: a
 * connection, its fd in the lower bits) */
#define TAG_LISTENER 1          /* index into listen_fds */
#define TAG_QUEUE 2             /* this worker's pool queue (recv_fd) */
#define TAG_ROUTE 3             /* a route's send_fd has room again */
#define TAGGED(tag, i) ((uint64_t)(i) | ((uint64_t)(tag) << 32))

/* A connection handed to another pool: this, then the bytes read so far. */
#define HANDOFF_MAGIC 0x4b644830u
typedef struct {
    uint32_t magic;
    int32_t listener;
    int32_t requests;
    int32_t remote_port;
    char remote_addr[64];           /* NUL-terminated */
} kd_handoff;

double kd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int kd_wait(int fd, short events, double timeout)
{
    double deadline = kd_now() + timeout;
    for (;;) {
        struct pollfd p;
        double left = deadline - kd_now();
        int rv;
        if (left <= 0)
            return 0;
        p.fd = fd;
        p.events = events;
        p.revents = 0;
        /* round up so a fractional timeout never becomes a busy loop */
        rv = poll(&p, 1, (int)(left * 1000.0) + 1);
        if (rv > 0)
            return 1;                     /* ready, or an error the I/O call will report */
        if (rv == 0)
            continue;                     /* recheck the deadline */
        if (errno != EINTR)
            return -1;
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

const char *kd_reason(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 426: return "Upgrade Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "";
    }
}

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
    l->keepalive_timeout = 75;
    l->header_timeout = 30;
    l->read_timeout = 30;
    l->write_timeout = 30;
    l->max_keepalive_reqs = 10000;
    l->max_conns = 1000;
    l->max_body = (int64_t)1 << 30;   /* Apache's LimitRequestBody default since 2.4.54 */
    l->min_body_rate = 500;           /* mod_reqtimeout's MinRate */
    l->write_buffer = 1 << 20;
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
        free(c->out);
        if (c->out_fd >= 0)
            close(c->out_fd);
        free(c->buf);
        free(c);
    }
    free(l->conns);
    free(l->queue);
    free(l->spare);
    close(l->epfd);
    free(l);
}

/* Slot for fd; connection structs and their buffers are reused, so a
 * connection costs no allocation once the worker is warm. */
static kd_conn *conn_slot(kd_loop *l, int fd)
{
    kd_conn *c;
    if (fd >= l->conns_cap) {
        int cap = l->conns_cap ? l->conns_cap : 64, i;
        kd_conn **nc;
        int *nq;
        while (cap <= fd)
            cap *= 2;
        nc = realloc(l->conns, sizeof *nc * (size_t)cap);
        if (!nc)
            return NULL;
        for (i = l->conns_cap; i < cap; i++)
            nc[i] = NULL;
        l->conns = nc;
        /* the ready queue never holds more than one entry per fd */
        nq = malloc(sizeof *nq * (size_t)cap);
        if (!nq)
            return NULL;
        for (i = 0; i < l->qlen; i++)
            nq[i] = l->queue[(l->qhead + i) % l->conns_cap];
        free(l->queue);
        l->queue = nq;
        l->qhead = 0;
        l->conns_cap = cap;
    }
    c = l->conns[fd];
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        c->out_fd = -1;
        c->body_fd = -1;
        c->buf = malloc(KD_BUF_SIZE);
        if (!c->buf) {
            free(c);
            return NULL;
        }
        l->conns[fd] = c;
    }
    return c;
}

static void enqueue(kd_loop *l, kd_conn *c)
{
    if (c->queued)
        return;
    c->queued = 1;
    l->queue[(l->qhead + l->qlen) % l->conns_cap] = c->fd;
    l->qlen++;
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
static void set_listening(kd_loop *l, int on)
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

/* An unlinked temporary file in $TMPDIR (or /tmp), or -1. O_TMPFILE never
 * leaves a name behind; file systems without it (older overlayfs) get a
 * named file, unlinked at once. */
static int temp_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int fd;
    if (!dir || !*dir)
        dir = "/tmp";
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (size_t)snprintf(path, sizeof path, "%s/kamado-XXXXXX", dir) >= sizeof path)
        return fd;
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* Writes all of buf to fd: 0 or -1. */
static int write_file(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Releases what a request held beyond the connection buffer: a spooled
 * body, and deferred output, sent or not. */
static void drop_request_files(kd_loop *l, kd_conn *c)
{
    if (c->body_fd >= 0) {              /* a spooled request body, too */
        close(c->body_fd);
        c->body_fd = -1;
    }
    c->body_in_file = 0;
    if (c->out_fd >= 0) {
        l->spool_total -= c->out_len;
        close(c->out_fd);
        c->out_fd = -1;
    } else if (c->out) {
        l->out_total -= c->out_len;
        free(c->out);
        c->out = NULL;
    }
    c->flushing = 0;
}

static void unpend(kd_loop *l, kd_conn *c);
static int queue_waiting(kd_loop *l);

void kd_conn_close(kd_loop *l, kd_conn *c)
{
    if (!c->open)
        return;
    if (c->pending)
        unpend(l, c);
    close(c->fd);                     /* also leaves the epoll set */
    drop_request_files(l, c);
    c->open = 0;
    c->in_epoll = 0;
    c->serving = 0;
    l->nopen--;
    if (l->sb)
        l->sb->connections = (uint32_t)l->nopen;
    if (!l->accepting && !l->draining && l->nopen < l->max_conns)
        set_listening(l, 1);
}

static int watch(kd_loop *l, kd_conn *c)
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
static int watch_for(kd_loop *l, kd_conn *c, int out)
{
    struct epoll_event ev;
    ev.events = (out ? EPOLLOUT : EPOLLIN) | EPOLLRDHUP;
    ev.data.u64 = (uint64_t)c->fd;
    if (epoll_ctl(l->epfd, c->in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) != 0)
        return -1;
    c->in_epoll = 1;
    return 0;
}

static void finish_now(kd_loop *l, kd_conn *c, int keepalive);

/* Sends deferred output; once it is all out, finishes the request. */
static void flush_out(kd_loop *l, kd_conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n;
        if (c->out_fd >= 0) {
            off_t off = (off_t)c->out_off;
            n = sendfile(c->fd, c->out_fd, &off, c->out_len - c->out_off);
            if (n == 0)
                n = -1, errno = EIO;  /* the file cannot shrink; be safe */
        } else {
            n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        }
        if (n > 0) {
            c->out_off += (size_t)n;
            c->deadline = kd_now() + l->write_timeout;   /* progress */
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;                   /* EPOLLOUT calls again */
        kd_conn_close(l, c);
        return;
    }
    drop_request_files(l, c);
    if (watch_for(l, c, 0) != 0) {
        kd_conn_close(l, c);
        return;
    }
    finish_now(l, c, c->flush_keepalive);
}

/* Reads what is there into the connection buffer. 1 read something,
 * 0 nothing yet, -1 closed or failed. */
static int fill(kd_conn *c)
{
    ssize_t n;
    if (c->pos > 0 && c->pos == c->len)
        c->pos = c->len = 0;
    if (c->len == KD_BUF_SIZE)
        return 1;                     /* full: the parser reports the limit */
    do {
        n = read(c->fd, c->buf + c->len, KD_BUF_SIZE - c->len);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        c->len += (size_t)n;
        return 1;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    return -1;
}

/* After an error the connection is never reused, since where the next
 * request starts is unknown. */
void kd_conn_error(kd_loop *l, kd_conn *c, int status)
{
    char head[256];
    const char *reason = kd_reason(status);
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
                     "Content-Length: %d\r\nConnection: close\r\nDate: %s\r\n\r\n%s\n",
                     status, reason, (int)strlen(reason) + 1, kd_date(l), reason);
    struct iovec iov;
    iov.iov_base = head;
    iov.iov_len = (size_t)n;
    if (c->pending)
        unpend(l, c);
    c->serving = 0;
    c->pos = c->len = 0;              /* what is left unread is never parsed */
    if (kd_write_all(l, c->fd, &iov, 1) != 0 || shutdown(c->fd, SHUT_WR) != 0) {
        kd_conn_close(l, c);
        return;
    }
    /* Closing with unread input would send a reset, and the client could
     * lose the answer with it: read and drop what it still sends for a
     * little while (the sweep closes it at the deadline). */
    c->lingering = 1;
    c->deadline = kd_now() + LINGER;
    if (watch(l, c) != 0)
        kd_conn_close(l, c);
}

/* Reads and drops input on a lingering connection; closes it at EOF. At
 * most 16 buffers an event, so a client sending fast cannot hold the
 * loop (and the sweep closes it at its deadline). */
static void linger_read(kd_loop *l, kd_conn *c)
{
    int rv, i = 0;
    while ((rv = fill(c)) == 1 && ++i < 16)
        c->pos = c->len = 0;
    c->pos = c->len = 0;
    if (rv < 0)
        kd_conn_close(l, c);
}

static void flush_pending(kd_loop *l, int ri);

static void sweep(kd_loop *l, double now)
{
    int fd;
    l->last_sweep = now;
    /* retry listening paused by EMFILE even if no connection closed */
    if (!l->accepting && !l->draining && l->nopen < l->max_conns)
        set_listening(l, 1);
    for (fd = 0; fd < l->nroutes; fd++)
        if (l->routes[fd].phead >= 0)
            flush_pending(l, fd);     /* in case EPOLLOUT could not be watched */
    for (fd = 0; fd < l->conns_cap; fd++) {
        kd_conn *c = l->conns[fd];
        if (c && c->open && !c->serving && c->deadline < now) {
            /* a head or a buffered body not finished in time gets 408,
             * one its pool had no room for 503; idle and lingering
             * connections just close */
            if (c->pending)
                kd_conn_error(l, c, 503);
            else if (c->len > c->pos && !c->lingering && !c->flushing)
                kd_conn_error(l, c, 408);
            else if (!c->lingering && !c->flushing && fill(c) == 1) {
                /* idle, but a request came while the worker was busy
                 * (the event not read yet): it is served, not reset */
                c->deadline = now + l->header_timeout;
                enqueue(l, c);
            } else
                kd_conn_close(l, c);
        }
    }
}

/* A connection new to this worker, on listener li; NULL (fd closed)
 * when there is no memory for it. */
static kd_conn *conn_open(kd_loop *l, int fd, int li)
{
    kd_conn *c = conn_slot(l, fd);
    if (!c) {
        close(fd);
        return NULL;
    }
    c->fd = fd;
    c->listener = li;
    c->open = 1;
    c->in_epoll = c->queued = c->serving = 0;
    c->len = c->pos = 0;
    c->requests = 0;
    c->lingering = 0;
    c->pending = 0;
    c->body_start = 0;
    c->deadline = kd_now() + l->header_timeout;
    c->remote_addr[0] = '\0';
    c->remote_port = 0;
    l->nopen++;
    if (l->sb)
        l->sb->connections = (uint32_t)l->nopen;
    if (l->nopen >= l->max_conns)
        set_listening(l, 0);
    return c;
}

static void accept_one(kd_loop *l, int li)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    kd_conn *c;
    int fd = accept4(l->listen_fds[li], (struct sockaddr *)&ss, &sl,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        /* out of descriptors: the listener would stay readable and spin
         * the loop; listen again once a connection closes */
        if (errno == EMFILE || errno == ENFILE)
            set_listening(l, 0);
        return;                       /* or another worker took it */
    }
    if (!(c = conn_open(l, fd, li)))
        return;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, c->remote_addr, sizeof c->remote_addr);
        c->remote_port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &a->sin6_addr, c->remote_addr, sizeof c->remote_addr);
        c->remote_port = ntohs(a->sin6_port);
    }
    c->remote_addr_len = strlen(c->remote_addr);
    /* with TCP_DEFER_ACCEPT the request is usually here already: reading
     * now saves a trip through epoll for one-request connections */
    switch (fill(c)) {
    case 1:
        enqueue(l, c);
        break;
    case 0:
        if (watch(l, c) != 0)
            kd_conn_close(l, c);
        break;
    default:
        kd_conn_close(l, c);
    }
}

/* Pools (see kd_loop_set_pools). */

int kd_loop_set_pools(kd_loop *l, const kd_route *routes, int n, int my_route,
                      int recv_fd, int listen)
{
    int i;
    if (n < 1 || n > KD_MAX_ROUTES || my_route < 0 || my_route >= n || recv_fd < 0) {
        errno = EINVAL;
        return -1;
    }
    if (!l->spare && !(l->spare = malloc(KD_BUF_SIZE)))
        return -1;
    set_listening(l, 0);
    for (i = 0; i < n; i++) {
        l->routes[i] = routes[i];
        l->routes[i].watching = 0;
        l->routes[i].phead = l->routes[i].ptail = -1;
    }
    l->nroutes = n;
    l->my_route = my_route;
    l->recv_fd = recv_fd;
    l->listen = listen;
    set_listening(l, 1);
    return 0;
}

/* The route of a request: the longest prefix of its path as sent. */
static int route_of(const kd_loop *l, const kd_request *req)
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
    struct msghdr m;
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
    struct cmsghdr *cm;
    ssize_t n;

    memset(&h, 0, sizeof h);
    h.magic = HANDOFF_MAGIC;
    h.listener = c->listener;
    h.requests = c->requests;
    h.remote_port = c->remote_port;
    memcpy(h.remote_addr, c->remote_addr, c->remote_addr_len);
    iov[0].iov_base = &h;
    iov[0].iov_len = sizeof h;
    iov[1].iov_base = c->buf + c->pos;
    iov[1].iov_len = c->len - c->pos;
    memset(&m, 0, sizeof m);
    memset(&ctl, 0, sizeof ctl);
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    m.msg_control = ctl.buf;
    m.msg_controllen = sizeof ctl.buf;
    cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &c->fd, sizeof(int));
    do {
        n = sendmsg(r->send_fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    /* The receiver shares the open file description, and epoll
     * registrations belong to that: close() alone would leave ours. No
     * shutdown either: the connection lives on over there. */
    if (c->in_epoll)
        epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    c->in_epoll = 0;
    kd_conn_close(l, c);
    return 1;
}

static void unpend(kd_loop *l, kd_conn *c)
{
    kd_route *r = &l->routes[c->pending - 1];
    if (c->pend_prev >= 0)
        l->conns[c->pend_prev]->pend_next = c->pend_next;
    else
        r->phead = c->pend_next;
    if (c->pend_next >= 0)
        l->conns[c->pend_next]->pend_prev = c->pend_prev;
    else
        r->ptail = c->pend_prev;
    c->pending = 0;
}

/* Hands over the connections waiting for route ri, in order, until its
 * queue is full again; watches its send end for room meanwhile. */
static void flush_pending(kd_loop *l, int ri)
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
static void route_to(kd_loop *l, kd_conn *c, int ri)
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
    c->pending = ri + 1;
    c->pend_next = -1;
    c->pend_prev = r->ptail;
    if (r->ptail >= 0)
        l->conns[r->ptail]->pend_next = c->fd;
    else
        r->phead = c->fd;
    r->ptail = c->fd;
    c->deadline = kd_now() + l->header_timeout;
    flush_pending(l, ri);             /* starts watching for room */
}

/* Takes one connection from this worker's pool queue (one per wakeup, so
 * the pool's idle workers share them) and queues it for parsing. */
static void receive_one(kd_loop *l)
{
    kd_handoff h;
    struct iovec iov[2];
    struct msghdr m;
    union { char buf[CMSG_SPACE(sizeof(int) * 4)]; struct cmsghdr align; } ctl;
    struct cmsghdr *cm;
    ssize_t n;
    int fd = -1;
    kd_conn *c;
    char *buf;

    iov[0].iov_base = &h;
    iov[0].iov_len = sizeof h;
    iov[1].iov_base = l->spare;
    iov[1].iov_len = KD_BUF_SIZE;
    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    m.msg_control = ctl.buf;
    m.msg_controllen = sizeof ctl.buf;
    do {
        n = recvmsg(l->recv_fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return;                       /* another worker took it */
    for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        size_t k, nfds;
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (k = 0; k < nfds; k++) {
            int x;
            memcpy(&x, CMSG_DATA(cm) + k * sizeof(int), sizeof x);
            if (fd < 0)
                fd = x;
            else
                close(x);             /* never more than one: malformed */
        }
    }
    if (fd < 0)
        return;
    if ((size_t)n < sizeof h || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
        h.magic != HANDOFF_MAGIC || h.listener < 0 || h.listener >= l->nlisteners ||
        h.requests < 0 || !memchr(h.remote_addr, '\0', sizeof h.remote_addr)) {
        close(fd);
        return;
    }
    if (!(c = conn_open(l, fd, h.listener)))
        return;
    buf = c->buf;                     /* the bytes are in spare: swap */
    c->buf = l->spare;
    l->spare = buf;
    c->len = (size_t)n - sizeof h;
    c->requests = h.requests;
    c->remote_port = h.remote_port;
    memcpy(c->remote_addr, h.remote_addr, sizeof c->remote_addr);
    c->remote_addr_len = strlen(c->remote_addr);
    enqueue(l, c);
}

/* Moves the unconsumed bytes to the start of the buffer, making room for
 * more behind them. */
static void compact(kd_conn *c)
{
    if (c->pos > 0) {
        memmove(c->buf, c->buf + c->pos, c->len - c->pos);
        c->len -= c->pos;
        c->pos = 0;
    }
}

/* When a body that has delivered `got` bytes times out: --read-timeout
 * after the last read, and never later than --read-timeout plus the time
 * the bytes so far are worth at --min-body-rate (mod_reqtimeout's rule), so
 * a body trickled a byte at a time cannot hold on for ever. */
static double body_deadline(const kd_loop *l, const kd_conn *c, double now, int64_t got)
{
    double d = now + l->read_timeout;
    if (l->min_body_rate > 0) {
        double total = c->body_start + l->read_timeout + (double)got / l->min_body_rate;
        if (total < d)
            d = total;
    }
    return d;
}

/* Spools a request body to a temporary file as it arrives (a chunked one
 * decoded), the head (head_len bytes) staying at the start of the buffer;
 * what follows the body (a pipelined request) stays behind the head. 1
 * when the whole body is in the file; 0 when more is to come (the
 * connection is watched, its deadline set) or the request was answered
 * with an error (400 malformed chunk, 413 over --max-request-body, 500
 * the file failed); 2 when no temporary file can be made (the worker then
 * reads the body itself). */
static int spool_body(kd_loop *l, kd_conn *c, size_t head_len)
{
    double now = kd_now();
    size_t have, take;
    if (c->body_in_file)
        return 1;
    compact(c);
    if (c->body_fd < 0) {
        if ((c->body_fd = temp_file()) < 0)
            return 2;
        c->body_got = 0;
        if (c->req.chunked)
            kd_chunked_init(&c->chunk);
        if (c->body_start == 0)
            c->body_start = now;
    }
    have = c->len - head_len;
    if (c->req.chunked) {
        /* decoded in place (output never overtakes input), then saved */
        size_t out_len = 0;
        long used = kd_chunked_decode(&c->chunk, c->buf + head_len, have, c->buf + head_len, &out_len);
        if (used < 0) {
            kd_conn_error(l, c, 400);
            return 0;
        }
        if (l->max_body > 0 && c->body_got + (int64_t)out_len > l->max_body) {
            kd_conn_error(l, c, 413);
            return 0;
        }
        if (write_file(c->body_fd, c->buf + head_len, out_len) != 0) {
            kd_conn_error(l, c, 500);
            return 0;
        }
        c->body_got += (int64_t)out_len;
        take = (size_t)used;
    } else {
        take = (int64_t)have > c->req.content_length - c->body_got ?
               (size_t)(c->req.content_length - c->body_got) : have;
        if (write_file(c->body_fd, c->buf + head_len, take) != 0) {
            kd_conn_error(l, c, 500);
            return 0;
        }
        c->body_got += (int64_t)take;
    }
    memmove(c->buf + head_len, c->buf + head_len + take, have - take);
    c->len -= take;
    if (c->req.chunked ? c->chunk.done : c->body_got == c->req.content_length) {
        c->body_in_file = 1;
        return 1;
    }
    c->deadline = body_deadline(l, c, now, c->body_got);
    if (watch(l, c) != 0)
        kd_conn_close(l, c);
    return 0;
}

int kd_conn_body_file(kd_conn *c)
{
    return c->body_in_file ? c->body_fd : -1;
}

/* Parses a queued connection. 1 when a head is complete. */
static int try_parse(kd_loop *l, kd_conn *c)
{
    int rv = kd_parse_request(c->buf + c->pos, c->len - c->pos, &c->req);
    if (rv == KD_INCOMPLETE) {
        compact(c);                   /* room for the rest of the head */
        if (watch(l, c) != 0)
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
        int ri = route_of(l, &c->req);
        if (ri != l->my_route) {
            route_to(l, c, ri);
            return 0;
        }
    }
    /* Chunked bodies, and Content-Length ones too large for the buffer,
     * go to a temporary file. (A head over half the buffer leaves the body
     * to the worker: the head stays in the buffer while the body passes
     * through it.) */
    if (c->body_fd >= 0 ||
        (!c->req.expect_continue && rv <= KD_BUF_SIZE / 2 &&
         (c->req.chunked || c->req.content_length > (int64_t)(KD_BUF_SIZE - (size_t)rv)))) {
        size_t head_at = c->pos;
        if (spool_body(l, c, (size_t)rv) == 0)
            return 0;                 /* more to come, or answered */
        /* 1: the body is in the file; 2: no file, the worker reads it */
        if (c->pos != head_at)        /* the head moved: its pointers with it */
            kd_parse_request(c->buf + c->pos, c->len - c->pos, &c->req);
    }
    if (!c->body_in_file && !c->req.chunked && c->req.content_length > 0 && !c->req.expect_continue &&
        c->req.content_length <= (int64_t)(KD_BUF_SIZE - (size_t)rv) &&
        c->len - c->pos < (size_t)rv + (size_t)c->req.content_length) {
        /* The body fits the buffer: wait for it here, where waiting costs
         * a descriptor, rather than in a worker's blocking read. Each
         * arrival re-parses the head (cheap) and moves the deadline on:
         * --read-timeout is the longest pause between body reads, and
         * --min-body-rate the slowest average (body_deadline). With
         * Expect: 100-continue the body is not sent before it is asked
         * for, so those requests go to the app at once. */
        double now = kd_now();
        compact(c);
        if (c->body_start == 0)
            c->body_start = now;
        c->deadline = body_deadline(l, c, now, (int64_t)(c->len - (size_t)rv));
        if (watch(l, c) != 0)
            kd_conn_close(l, c);
        return 0;
    }
    c->pos += (size_t)rv;
    c->serving = 1;
    c->req_id = ++l->last_req_id;
    c->keepalive = c->req.keepalive && !l->draining &&
                   c->requests + 1 < l->max_keepalive_reqs;
    c->is_head = c->req.is_head;
    c->minor_version = c->req.minor_version;
    c->chunked_body = c->req.chunked && !c->body_in_file;
    c->body_left = c->req.chunked || c->body_in_file ? 0 :
                   (c->req.content_length > 0 ? c->req.content_length : 0);
    c->resp_chunked = 0;
    c->resp_no_body = 0;
    c->expect_continue = c->req.expect_continue && (c->body_left > 0 || c->chunked_body);
    c->body_read = 0;
    /* the body's clock starts with the head (or, after Expect, with the
     * 100 Continue), unless the loop started it while buffering */
    if (c->body_start == 0 && (c->body_left > 0 || c->chunked_body))
        c->body_start = kd_now();
    if (c->chunked_body)
        kd_chunked_init(&c->chunk);
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

        while ((c = dequeue(l)) != NULL) {
            if (c->open && try_parse(l, c)) {
                if (l->sb) {
                    kd_sb_set_request(l->sb, c->req.method, c->req.method_len,
                                      c->req.target, c->req.target_len);
                    /* a body the worker reads before the app, unless the
                     * app asks for it (Expect) */
                    kd_sb_set_state(l->sb, (c->body_left > 0 || c->chunked_body) &&
                                    !c->expect_continue ? KD_SB_READING : KD_SB_APP);
                }
                *out = c;
                return 1;
            }
        }
        if (l->draining && l->nopen == 0) {
            if (l->drain_queue && queue_waiting(l)) {
                receive_one(l);
                continue;
            }
            return 0;
        }
        n = epoll_wait(l->epfd, evs, EVENTS_PER_WAIT,
                       timeout_ms < 0 || timeout_ms > 1000 ? 1000 :
                       l->draining && timeout_ms > 50 ? 50 : timeout_ms);
        now = kd_now();
        if (now - l->last_sweep >= (l->draining ? 0.05 : 1.0))
            sweep(l, now);
        if (n < 0)
            return errno == EINTR ? 0 : -1;
        if (n == 0)
            return 0;
        for (i = 0; i < n; i++) {
            uint64_t d = evs[i].data.u64;
            if (d >> 32) {
                int i32 = (int)(d & 0xffffffffu);
                if (d >> 32 == TAG_LISTENER)
                    accept_one(l, i32);
                else if (d >> 32 == TAG_QUEUE)
                    receive_one(l);
                else
                    flush_pending(l, i32);
                continue;
            }
            c = l->conns[(int)d];
            if (!c || !c->open)
                continue;
            if (c->lingering) {
                linger_read(l, c);
                continue;
            }
            if (c->flushing) {
                flush_out(l, c);
                continue;
            }
            switch (fill(c)) {
            case 1:
                /* the head deadline runs from the first byte of a request */
                if (c->len - c->pos > 0 && c->requests > 0 && c->deadline > now + l->header_timeout)
                    c->deadline = now + l->header_timeout;
                enqueue(l, c);
                break;
            case -1:
                kd_conn_close(l, c);
                break;
            }
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

/* Whether this worker's pool queue holds a connection now. */
static int queue_waiting(kd_loop *l)
{
    struct pollfd p;
    if (l->recv_fd < 0)
        return 0;
    p.fd = l->recv_fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

int kd_loop_drained(kd_loop *l)
{
    return l->draining && l->nopen == 0 && !(l->drain_queue && queue_waiting(l));
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
    set_listening(l, 0);
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
            unpend(l, c);
            enqueue(l, c);
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
        if (c && c->open && !c->serving && !c->flushing && c->pos == c->len) {
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
    if (!c->open)
        return;
    c->serving = 0;
    c->requests++;
    c->body_start = 0;
    if (c->flushing) {
        /* the loop sends the rest first (flush_out), then finishes */
        c->flush_keepalive = keepalive;
        c->deadline = kd_now() + l->write_timeout;
        if (watch_for(l, c, 1) != 0)
            kd_conn_close(l, c);
        return;
    }
    finish_now(l, c, keepalive);
}

static void finish_now(kd_loop *l, kd_conn *c, int keepalive)
{
    if (c->body_fd >= 0) {
        close(c->body_fd);
        c->body_fd = -1;
        c->body_in_file = 0;
    }
    /* a body the app left unread would be parsed as the next request */
    if (!keepalive || l->draining || c->body_left > 0 ||
        (c->chunked_body && !c->chunk.done)) {
        kd_conn_close(l, c);
        return;
    }
    if (c->pos < c->len) {
        enqueue(l, c);                /* pipelined request already here */
        c->deadline = kd_now() + l->header_timeout;
    } else {
        c->pos = c->len = 0;
        c->deadline = kd_now() + l->keepalive_timeout;
        if (watch(l, c) != 0)
            kd_conn_close(l, c);
    }
}

/* Waits for more body bytes: 0, or -1 with errno set. */
static int fill_body(kd_loop *l, kd_conn *c)
{
    for (;;) {
        int rv = fill(c);
        double now, wait;
        if (rv == 1)
            return 0;
        if (rv < 0) {
            errno = ECONNRESET;
            return -1;
        }
        now = kd_now();
        wait = body_deadline(l, c, now, c->chunked_body ? c->body_read :
                             c->req.content_length - c->body_left) - now;
        rv = wait > 0 ? kd_wait(c->fd, POLLIN, wait) : 0;
        if (rv == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (rv < 0)
            return -1;
    }
}

/* The body has been read: the app has it. */
static void body_done(kd_loop *l)
{
    if (l->sb && l->sb->state == KD_SB_READING)
        kd_sb_set_state(l->sb, KD_SB_APP);
}

ssize_t kd_conn_read_body(kd_loop *l, kd_conn *c, char *dst, size_t max)
{
    if (l->sb && l->sb->state == KD_SB_APP && (c->body_left > 0 || (c->chunked_body && !c->chunk.done)))
        kd_sb_set_state(l->sb, KD_SB_READING);     /* the app reads it (Expect) */
    if (c->expect_continue) {
        /* the body is wanted: tell the client to send it (RFC 9110 10.1.1) */
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        struct iovec iov;
        c->expect_continue = 0;
        iov.iov_base = (void *)cont;
        iov.iov_len = sizeof cont - 1;
        if (c->pos == c->len && kd_write_all(l, c->fd, &iov, 1) != 0)
            return -1;
        c->body_start = kd_now();
    }
    if (!c->chunked_body) {
        size_t n;
        if (c->body_left == 0 || max == 0) {
            if (c->body_left == 0)
                body_done(l);
            return 0;
        }
        if (c->pos == c->len && fill_body(l, c) != 0)
            return -1;
        n = c->len - c->pos;
        if ((int64_t)n > c->body_left)
            n = (size_t)c->body_left;
        if (n > max)
            n = max;
        memcpy(dst, c->buf + c->pos, n);
        c->pos += n;
        c->body_left -= (int64_t)n;
        if (c->body_left == 0)
            body_done(l);
        return (ssize_t)n;
    }
    for (;;) {
        size_t avail, out_len = 0;
        long used;
        if (c->chunk.done || max == 0) {
            if (c->chunk.done)
                body_done(l);
            return 0;
        }
        if (c->pos == c->len && fill_body(l, c) != 0)
            return -1;
        avail = c->len - c->pos;
        if (avail > max)
            avail = max;              /* decoded output never exceeds input */
        used = kd_chunked_decode(&c->chunk, c->buf + c->pos, avail, dst, &out_len);
        if (used < 0) {
            errno = EINVAL;
            return -1;
        }
        c->pos += (size_t)used;
        c->body_read += (int64_t)out_len;
        if (l->max_body > 0 && c->body_read > l->max_body) {
            errno = EFBIG;
            return -1;
        }
        if (c->chunk.done)
            body_done(l);
        if (out_len > 0 || c->chunk.done)
            return (ssize_t)out_len;
    }
}

int kd_write_all(kd_loop *l, int fd, struct iovec *iov, int iovcnt)
{
    while (iovcnt > 0) {
        struct msghdr m;
        ssize_t n;
        memset(&m, 0, sizeof m);
        m.msg_iov = iov;
        m.msg_iovlen = (size_t)(iovcnt > 1024 ? 1024 : iovcnt);
        n = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            int rv;
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return -1;
            rv = kd_wait(fd, POLLOUT, l->write_timeout);
            if (rv == 0)
                errno = ETIMEDOUT;
            if (rv <= 0)
                return -1;
            continue;
        }
        while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            iov++;
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* Writes the unsent rest of a response to an unlinked temporary file for
 * flush_out() to sendfile. 0, or -1 when no file could take it. */
static int spool_out(kd_loop *l, kd_conn *c, const struct iovec *iov, int iovcnt, size_t left)
{
    int fd = temp_file(), i;
    if (fd < 0)
        return -1;
    for (i = 0; i < iovcnt; i++) {
        if (write_file(fd, iov[i].iov_base, iov[i].iov_len) != 0) {
            close(fd);                /* a full disk: write it the slow way */
            return -1;
        }
    }
    c->out_fd = fd;
    c->out_len = left;
    c->out_off = 0;
    l->spool_total += left;
    c->flushing = 1;
    return 0;
}

int kd_write_last(kd_loop *l, kd_conn *c, struct iovec *iov, int iovcnt)
{
    struct msghdr m;
    ssize_t n;
    size_t left = 0;
    int i;
    char *p;

    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = (size_t)(iovcnt > 1024 ? 1024 : iovcnt);
    do {
        n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        return -1;
    if (n < 0)
        n = 0;
    while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
        n -= (ssize_t)iov->iov_len;
        iov++;
        iovcnt--;
    }
    if (iovcnt == 0)
        return 0;                     /* the usual case: all taken at once */
    iov->iov_base = (char *)iov->iov_base + n;
    iov->iov_len -= (size_t)n;
    for (i = 0; i < iovcnt; i++)
        left += iov[i].iov_len;
    if (left > l->write_buffer || l->out_total + left > 32 * l->write_buffer ||
        !(p = malloc(left))) {
        if (l->write_buffer > 0 && l->spool_total + left <= 256 * l->write_buffer &&
            spool_out(l, c, iov, iovcnt, left) == 0)
            return 0;
        return kd_write_all(l, c->fd, iov, iovcnt);
    }
    c->out = p;
    c->out_len = left;
    c->out_off = 0;
    for (i = 0; i < iovcnt; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    l->out_total += left;
    c->flushing = 1;
    return 0;
}

int kd_sendfile_all(kd_loop *l, int out_fd, int in_fd, off_t off, size_t len)
{
    while (len > 0) {
        ssize_t n = sendfile(out_fd, in_fd, &off, len);
        if (n > 0) {
            len -= (size_t)n;
            continue;
        }
        if (n == 0) {
            errno = EIO;              /* the file shrank under us */
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int rv = kd_wait(out_fd, POLLOUT, l->write_timeout);
            if (rv == 0)
                errno = ETIMEDOUT;
            if (rv <= 0)
                return -1;
            continue;
        }
        return -1;
    }
    return 0;
}
