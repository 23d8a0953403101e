/* t/c/test_bufs.c: C unit tests for the read buffers (src/loop/kd_bufs.c),
 * printed as TAP. Run by t/c-bufs.t (system compiler, then clang
 * ASan+UBSan if present).
 *
 * A real loop on a loopback listener, in one thread: a connection idle
 * in keep-alive holds no read buffer, one with bytes to read or being
 * served holds one, a head that arrives in pieces keeps its buffer
 * between them, pipelined requests and a body in the buffer are read
 * from it, and the worker keeps at most KD_BUF_KEEP free buffers, lending
 * the last one given back first. The header table comes with the buffer,
 * and connections ready at once are read one at a time, as each is
 * served.
 */
#include "../../src/kd_engine.c"

#include <poll.h>
#include <signal.h>

#include "tap.h"
#include "loop_test.h"

#define CLIENTS 8

static void say(int fd, const char *s)
{
    if (write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
        printf("Bail out! write\n");
        exit(1);
    }
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
    int lfd, fds[CLIENTS], i, served = 0, fd, most;
    kd_loop *l;
    kd_conn *c = NULL;
    char *last, got[16];
    ssize_t n;

    signal(SIGPIPE, SIG_IGN);
    lfd = test_listener(&a, 16);
    l = test_loop(&lfd);
    l->write_buffer = 1 << 20;
    l->max_conns = 100;

    /* CLIENTS connections, a request each, all kept alive */
    for (i = 0; i < CLIENTS; i++) {
        fds[i] = test_dial(&a, NULL);
        say(fds[i], "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    while (served < CLIENTS && test_next_head(l, &c, 2)) {
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
    for (fd = 0, i = 0; fd < l->conns_cap; fd++)
        if (l->conns[fd] && l->conns[fd]->open && l->conns[fd]->req.headers)
            i++;
    ok(i == 0 && sizeof(kd_conn) < 1024,
       "nor a header table: the table comes with the buffer (%d hold one), a connection is %zu bytes", i,
       sizeof(kd_conn));

    /* a request on each at once: each read when its turn comes */
    for (i = 0; i < CLIENTS; i++)
        say(fds[i], "GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    served = most = 0;
    while (served < CLIENTS && test_next_head(l, &c, 2)) {
        if (holding(l) > most)
            most = holding(l);
        kd_conn_finish(l, c, 1);
        served++;
    }
    ok(served == CLIENTS && most == 1,
       "%d requests ready at once, served holding one buffer at a time (at most %d)", served, most);

    /* a head in pieces keeps its buffer between them */
    last = l->bufs[l->nbufs - 1];
    say(fds[0], "GET /pie");
    ok(!test_next_head(l, &c, 0.3) && holding(l) == 1, "half a head holds a buffer (%d)", holding(l));
    fd = -1;
    for (i = 0; i < l->conns_cap; i++)
        if (l->conns[i] && l->conns[i]->open && l->conns[i]->in.buf)
            fd = i;
    ok(fd >= 0 && l->conns[fd]->in.buf == last, "it is the last buffer given back");
    say(fds[0], "ces HTTP/1.1\r\nHost: x\r\n\r\n");
    ok(test_next_head(l, &c, 2) && path_is(c, "/pieces") && c->in.buf,
       "the rest completes it, parsed from the same buffer");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 0, "then it is idle and holds none");

    /* two pipelined requests, then a body read from the buffer */
    say(fds[1], "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n");
    ok(test_next_head(l, &c, 2) && path_is(c, "/one"), "the first pipelined request");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 1, "its connection keeps the buffer for the second (%d)", holding(l));
    ok(test_next_head(l, &c, 2) && path_is(c, "/two"), "the second");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 0, "then none is held (%d)", holding(l));
    say(fds[2], "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
    ok(test_next_head(l, &c, 2) && path_is(c, "/body"), "a request with a body");
    n = kd_conn_read_body(l, c, got, sizeof got);
    ok(n == 5 && memcmp(got, "hello", 5) == 0 && kd_conn_read_body(l, c, got, sizeof got) == 0,
       "its body is read from the buffer");
    kd_conn_finish(l, c, 1);
    ok(holding(l) == 0, "then none is held (%d)", holding(l));

    /* closed connections give theirs back too; still at most KD_BUF_KEEP free */
    for (i = 0; i < CLIENTS; i++)
        say(fds[i], "GET /h");
    test_next_head(l, &c, 0.3);
    ok(holding(l) == CLIENTS, "%d half heads hold %d buffers", CLIENTS, holding(l));
    for (i = 0; i < CLIENTS; i++)
        close(fds[i]);
    for (i = 0; i < 20 && l->nopen > 0; i++)
        test_next_head(l, &c, 0.1);
    ok(l->nopen == 0 && l->nbufs == KD_BUF_KEEP, "closed: %d open, %d free buffers kept", l->nopen, l->nbufs);
    kd_loop_free(l);
    close(lfd);
    return done_testing();
}
