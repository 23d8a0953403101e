/* kd_lastwords.c: a worker that dies in the middle of a request (the
 * --request-timeout kill, a crash in C, an exit in the app) finishes what
 * its loop holds for its other connections. See kd_conn.h.
 *
 * Everything here may run in a signal handler of a process whose memory is
 * not to be trusted: only async-signal-safe calls (send, sendfile, recv,
 * shutdown, close, fork, poll, clock_gettime, _exit), no malloc, no
 * Perl. What the loop holds is read as it is; a structure caught half
 * changed by the signal costs at worst that one connection. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

/* how long a connection that is done with is read from before its close,
 * so that a request its client sent meanwhile does not turn the close
 * into a reset */
#define LINGER 2.0

/* the descriptors below this the finisher sorts, kept or closed */
#define FD_MAP 65536

/* the connections the finisher waits on at once (the others are tried
 * at each pass too) */
#define POLL_MAX 256

static kd_loop *armed_loop;
static pid_t armed_pid;

/* The canned answer to the request the worker was serving, unless its
 * head went out: into buf (room for 256 bytes); its length. */
static size_t last_answer(const kd_loop *l, int status, char *buf)
{
    const char *line = status == 504 ? "HTTP/1.1 504 Gateway Timeout\r\n" : "HTTP/1.1 500 Internal Server Error\r\n";
    const char *body = status == 504 ? "Gateway Timeout" : "Internal Server Error";
    const char *type = "Content-Type: text/plain\r\nConnection: close\r\nContent-Length: ";
    size_t n = 0, bl = strlen(body);
    char digits[4];
    int k = 0;
#define ADD(p, len) (memcpy(buf + n, (p), (len)), n += (len))
    ADD(line, strlen(line));
    if (l->date[0]) {
        ADD("Date: ", 6);
        ADD(l->date, strlen(l->date));
        ADD("\r\n", 2);
    }
    ADD(type, strlen(type));
    do
        digits[k++] = (char)('0' + bl % 10);
    while ((bl /= 10) > 0 && k < 4);
    while (k > 0)
        buf[n++] = digits[--k];
    ADD("\r\n\r\n", 4);
    ADD(body, strlen(body));
#undef ADD
    return n;
}

/* Ends the output of c: the client reads the close after what it got;
 * what it sends meanwhile is read, up to LINGER. */
static void linger(kd_conn *c, double now)
{
    shutdown(c->fd, SHUT_WR);
    c->out.flushing = 0;
    c->lingering = 1;
    c->deadline = now + LINGER;
}

/* One pass over c in the finisher: 1 when it moved, 0 when it waits, -1
 * when it is done with (closed). */
static int finish_one(const kd_loop *l, kd_conn *c, double now)
{
    char sink[4096];
    ssize_t n;
    if (!c->lingering) {
        if (c->out.off < c->out.len) {
            n = send(c->fd, c->out.buf + c->out.off, c->out.len - c->out.off, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0)
                c->out.off += (size_t)n;
        } else if (c->out.fd >= 0 && c->out.file_off < c->out.file_end) {
            off_t off = (off_t)c->out.file_off;
            int64_t left = c->out.file_end - c->out.file_off;
            n = sendfile(c->fd, c->out.fd, &off, (size_t)(left > (1 << 30) ? (1 << 30) : left));
            if (n == 0)
                n = -1, errno = EIO;
            if (n > 0)
                c->out.file_off += n;
        } else {
            linger(c, now);         /* all of it sent */
            return 1;
        }
        if (n > 0) {
            c->deadline = now + l->write_timeout;
            return 1;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) && now < c->deadline)
            return 0;
    } else {
        n = recv(c->fd, sink, sizeof sink, MSG_DONTWAIT);
        if (n > 0)
            return 1;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) && now < c->deadline)
            return 0;
    }
    close(c->fd);
    c->open = 0;
    return -1;
}

/* The finisher: a child of the dying worker holding only its connections
 * (and the files it sends from), until each is sent and closed. */
static void finisher(kd_loop *l)
{
    unsigned char keep[FD_MAP / 8];
    struct rlimit rl;
    int fd, max = FD_MAP, left;
    memset(keep, 0, sizeof keep);
    for (fd = 0; fd < l->conns_cap; fd++) {
        kd_conn *c = l->conns[fd];
        if (!c || !c->open)
            continue;
        if (fd < FD_MAP)
            keep[fd / 8] |= (unsigned char)(1 << (fd % 8));
        if (c->out.fd >= 0 && c->out.fd < FD_MAP)
            keep[c->out.fd / 8] |= (unsigned char)(1 << (c->out.fd % 8));
    }
    /* nothing else of the worker's: not its listeners, not the app's
     * database connections (their locks go with the worker) */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)FD_MAP)
        max = (int)rl.rlim_cur;
    for (fd = 0; fd < max; fd++)
        if (!(keep[fd / 8] & (1 << (fd % 8))))
            close(fd);
    do {
        struct pollfd pf[POLL_MAX];
        double now = kd_now();
        int moved = 0, np = 0;
        left = 0;
        for (fd = 0; fd < l->conns_cap; fd++) {
            kd_conn *c = l->conns[fd];
            int r;
            if (!c || !c->open)
                continue;
            r = finish_one(l, c, now);
            moved |= r > 0;
            left += r >= 0;
            if (r == 0 && np < POLL_MAX) {
                pf[np].fd = c->fd;
                pf[np].events = c->lingering ? POLLIN : POLLOUT;
                pf[np++].revents = 0;
            }
        }
        /* (woken by any of them, or a tenth of a second for the rest
         * and the deadlines) */
        if (left && !moved)
            poll(pf, (nfds_t)np, 100);
    } while (left);
}

int kd_loop_last_words(kd_loop *l, int status)
{
    double now = kd_now();
    int fd, any = 0;
    pid_t pid;
    for (fd = 0; fd < l->conns_cap; fd++) {
        kd_conn *c = l->conns[fd];
        if (!c || !c->open)
            continue;
        any = 1;
        if (c->serving) {
            /* the request that ends the worker: its answer when no head
             * went out, else its body is cut; nothing it held goes */
            if (!c->resp_status && status) {
                char buf[256];
                size_t n = last_answer(l, status, buf);
                (void)!send(c->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
            }
            c->out.len = c->out.off = 0;
            c->out.fd = -1;
            linger(c, now);
        } else if (c->out.flushing) {
            c->deadline = now + l->write_timeout;
        } else {
            /* idle, or between requests: closed, not reset */
            linger(c, now);
        }
    }
    if (!any)
        return 0;
    pid = fork();
    if (pid == 0) {
        /* what ps and the generation's children show: not a worker */
        prctl(PR_SET_NAME, "kamado finisher");
        finisher(l);
        _exit(0);
    }
    return pid > 0 ? 0 : -1;
}

/* The handler of the signals that end a worker mid-request: last words,
 * then the signal again, at its default action, so the worker's exit
 * status still says why it ended. */
static void last_words_signal(int sig)
{
    int saved = errno;
    if (armed_loop && getpid() == armed_pid)
        kd_loop_last_words(armed_loop, sig == SIGVTALRM ? 504 : 500);
    errno = saved;
    raise(sig);
}

int kd_loop_last_words_on_signals(kd_loop *l)
{
    static const int signals[] = { SIGVTALRM, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    struct sigaction sa;
    size_t i;
    armed_loop = l;
    armed_pid = getpid();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = l ? last_words_signal : SIG_DFL;
    sa.sa_flags = l ? SA_RESETHAND | SA_NODEFER : 0;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof signals / sizeof signals[0]; i++)
        if (sigaction(signals[i], &sa, NULL) != 0)
            return -1;
    return 0;
}

int kd_loop_last_words_pending(const kd_loop *l)
{
    int fd;
    if (l != armed_loop || getpid() != armed_pid)
        return 0;
    for (fd = 0; fd < l->conns_cap; fd++)
        if (l->conns[fd] && l->conns[fd]->open && (l->conns[fd]->serving || l->conns[fd]->out.flushing))
            return 1;
    return 0;
}
