/* t/c/test_bufs.c: C unit tests for the read buffers (src/loop/kd_bufs.c),
 * printed as TAP. Run by t/c-bufs.t (system compiler, then clang
 * ASan+UBSan if present).
 *
 * A real loop on a loopback listener, in one thread: a connection idle
 * in keep-alive holds no read buffer, one with bytes to read or being
 * served holds one, a head that arrives in pieces keeps its buffer
 * between them, pipelined requests and a body in the buffer are read
 * from it, and the worker keeps at most KD_BUF_KEEP free buffers, lending
 * the last one given back first.
 */
#include "../../src/kd_engine.c"

#include <poll.h>
#include <signal.h>

#include "tap.h"

#define CLIENTS 8

static int dial(const struct sockaddr_in *a)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)a, sizeof *a) != 0) {
        printf("Bail out! client\n");
        exit(1);
    }
    return fd;
}

static void say(int fd, const char *s)
{
    if (write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
        printf("Bail out! write\n");
        exit(1);
    }
}

/* Runs the loop for up to `seconds`: 1 with a request head in *c. */
static int next_head(kd_loop *l, kd_conn **c, double seconds)
{
    double until = kd_now() + seconds;
    while (kd_now() < until) {
        if (kd_loop_next(l, 20, c) == 1)
            return 1;
    }
    return 0;
}

/* Open connections holding a read buffer. */
static int holding(const kd_loop *l)
{
    int fd, n = 0;
    for (fd = 0; fd < l->conns_cap; fd++)
        if (l->conns[fd] && l->conns[fd]->open && l->conns[fd]->in.buf)
            n++;
    return n;
}

static int path_is(const kd_conn *c, const char *path)
{
    return c->req.path_len == strlen(path) && memcmp(c->req.path, path, c->req.path_len) == 0;
}

int main(void)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int lfd, fds[CLIENTS], i, served = 0, fd;
    kd_loop *l;
    kd_conn *c = NULL;
    char *last, got[16];
    ssize_t n;

    signal(SIGPIPE, SIG_IGN);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 16) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) != 0 || !(l = kd_loop_new(&lfd, 1))) {
        printf("Bail out! listener\n");
        exit(1);
    }
    /* (a new loop has no limits: the caller's) */
    l->keepalive_timeout = 75;
    l->header_timeout = l->read_timeout = l->write_timeout = 30;
    l->max_keepalive_reqs = 10000;
    l->max_body = (int64_t)1 << 30;
    l->write_buffer = 1 << 20;
    l->max_conns = 100;

    /* CLIENTS connections, a request each, all kept alive */
    for (i = 0; i < CLIENTS; i++) {
        fds[i] = dial(&a);
        say(fds[i], "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    while (served < CLIENTS && next_head(l, &c, 2)) {
        if (!c->in.buf)
            diag("request %d served without its buffer", served);
        kd_conn_finish(l, c, 1);
        served++;
    }
    tap("%d requests served from their buffers", served);
    ok(served == CLIENTS && l->nopen == CLIENTS && holding(l) == 0,
       "%d connections idle in keep-alive hold no buffer (%d do)", l->nopen, holding(l));
    ok(l->nbufs <= KD_BUF_KEEP && l->nbufs > 0, "the worker keeps %d free buffers (at most %d)", l->nbufs,
       KD_BUF_KEEP);

    /* a head in pieces keeps its buffer between them */
    last = l->bufs[l->nbufs - 1];
    say(fds[0], "GET /pie");
    ok(!next_head(l, &c, 0.3) && holding(l) == 1, "half a head holds a buffer (%d)", holding(l));
    fd = -1;
    for (i = 0; i < l->conns_cap; i++)
        if (l->conns[i] && l->conns[i]->open && l->conns[i]->in.buf)
            fd = i;
    ok(fd >= 0 && l->conns[fd]->in.buf == last, "it is the last buffer given back");
    say(fds[0], "ces HTTP/1.1\r\nHost: x\r\n\r\n");
    ok(next_head(l, &c, 2) && path_is(c, "/pieces") && c->in.buf,
       "the rest completes it, parsed from the same buffer");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 0, "then it is idle and holds none");

    /* two pipelined requests, then a body read from the buffer */
    say(fds[1], "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n");
    ok(next_head(l, &c, 2) && path_is(c, "/one"), "the first pipelined request");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 1, "its connection keeps the buffer for the second (%d)", holding(l));
    ok(next_head(l, &c, 2) && path_is(c, "/two"), "the second");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 0, "then none is held (%d)", holding(l));
    say(fds[2], "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
    ok(next_head(l, &c, 2) && path_is(c, "/body"), "a request with a body");
    n = kd_conn_read_body(l, c, got, sizeof got);
    ok(n == 5 && memcmp(got, "hello", 5) == 0 && kd_conn_read_body(l, c, got, sizeof got) == 0,
       "its body is read from the buffer");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 0, "then none is held (%d)", holding(l));

    /* closed connections give theirs back too; still at most KD_BUF_KEEP free */
    for (i = 0; i < CLIENTS; i++)
        say(fds[i], "GET /h");
    next_head(l, &c, 0.3);
    ok(holding(l) == CLIENTS, "%d half heads hold %d buffers", CLIENTS, holding(l));
    for (i = 0; i < CLIENTS; i++)
        close(fds[i]);
    for (i = 0; i < 20 && l->nopen > 0; i++)
        next_head(l, &c, 0.1);
    ok(l->nopen == 0 && l->nbufs == KD_BUF_KEEP, "closed: %d open, %d free buffers kept", l->nopen, l->nbufs);
    kd_loop_free(l);
    close(lfd);
    return done_testing();
}
