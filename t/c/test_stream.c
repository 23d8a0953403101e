/* t/c/test_stream.c: C unit tests for streams, src/loop/kd_stream.c,
 * printed as TAP. Run by t/c-stream.t (system compiler, then clang
 * ASan+UBSan).
 *
 * A real loop on a loopback listener, in one thread, polled as an async
 * worker polls it (zero timeouts): a stream's writes to a client that does
 * not read are held, in order, and sent as it reads, a drain posted then;
 * its end sends what is held before the pipelined request behind it; a
 * stream holding more than write_buffer is cut when written again; a
 * client that closes an idle stream is posted as gone; max_streams holds
 * the next request until a stream ends; a released connection is the
 * caller's.
 */
#include "../../src/kd_engine.c"

#include <signal.h>

#include "tap.h"
#include "loop_test.h"

static int client(const struct sockaddr_in *a, const char *req)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), size = 8192;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    if (connect(fd, (const struct sockaddr *)a, sizeof *a) != 0 ||
        write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
        printf("Bail out! client\n");
        exit(1);
    }
    return fd;
}

/* Polls the loop for up to `seconds`: 1 with a request head in *c, 0
 * when events were posted (or nothing came). */
static int poll_loop(kd_loop *l, kd_conn **c, double seconds)
{
    double end = kd_now() + seconds;
    do {
        int rv = kd_loop_next(l, 0, c);
        if (rv == 1)
            return 1;
        if (l->nevents)
            return 0;
        usleep(2000);
    } while (kd_now() < end);
    return 0;
}

/* Reads what the client has, up to max, for up to `seconds`, polling
 * the loop meanwhile (it sends as the client reads); a request head it
 * returns goes to *next. */
static size_t drain_client(int fd, char *buf, size_t max, double seconds, kd_loop *l, kd_conn **next)
{
    size_t got = 0;
    double end = kd_now() + seconds;
    kd_conn *c;
    while (got < max && kd_now() < end) {
        ssize_t n = recv(fd, buf + got, max - got, MSG_DONTWAIT);
        if (n > 0)
            got += (size_t)n;
        else if (n == 0)
            break;
        if (kd_loop_next(l, 0, &c) == 1)
            *next = c;
        usleep(500);
    }
    return got;
}

#define PIECE 4096
#define PIECES 64

int main(void)
{
    struct sockaddr_in a;
    int lfd = test_listener(&a, 8), cl, cl2, cl3, i, n, bad = 0;
    kd_loop *l;
    kd_conn *c = NULL, *c2 = NULL, *c3 = NULL;
    kd_stream_ev *ev;
    static char piece[PIECE], got[PIECE * PIECES + 4096];
    struct iovec iov;
    ssize_t held = 0;
    size_t len;
    uint64_t id;

    signal(SIGPIPE, SIG_IGN);
    l = test_loop(&lfd);
    l->max_conns = 1000;
    l->min_body_rate = 500;
    l->write_buffer = 64 * 1024;

    /* held in order, sent as the client reads, a drain posted */
    cl = client(&a, "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n");
    ok(poll_loop(l, &c, 5) && c->req.path_len == 4, "a request");
    ok(kd_stream_begin(l, c) == 0 && c->stream.on && l->nserving == 1, "becomes a stream");
    ok(c->in.buf != NULL && c->in.pos < c->in.len, "the request behind it keeps the read buffer");
    {
        int size = 8192;
        setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    }
    for (i = 0; i < PIECES && held >= 0; i++) {
        memset(piece, 'a' + i % 26, PIECE);
        iov.iov_base = piece;
        iov.iov_len = PIECE;
        held = kd_stream_write(l, c, &iov, 1);
        if (held > (ssize_t)l->write_buffer)
            break;
    }
    ok(held > 0 && c->open, "writes to a client that does not read are held (%zd bytes after %d pieces)", held, i);
    ok(kd_stream_want_drain(l, c) == 0 && l->nevents == 0, "a drain asked for while bytes are held");
    len = drain_client(cl, got, (size_t)i * PIECE, 10, l, &c2);
    ok(len == (size_t)i * PIECE, "the client reads all %d pieces (%zu bytes)", i, len);
    for (n = 0; (size_t)n < len; n++)
        bad += got[n] != 'a' + (n / PIECE) % 26;
    ok(bad == 0, "in order");
    poll_loop(l, &c2, 1);
    n = kd_loop_stream_events(l, &ev);
    ok(n == 1 && ev[0].kind == KD_STREAM_DRAINED && ev[0].fd == c->fd && ev[0].req_id == c->req_id,
       "the drain is posted");

    /* the end: what is held goes, then the pipelined request */
    memset(piece, 'z', PIECE);
    for (i = 0; i < 8; i++)
        kd_stream_write(l, c, &iov, 1);
    kd_stream_end(l, c, 1);
    ok(!c->stream.on && l->nserving == 0, "ended: no longer a stream");
    c2 = NULL;
    len = drain_client(cl, got, 8 * PIECE, 10, l, &c2);
    ok(len == 8 * PIECE && got[len - 1] == 'z', "what was held is sent after the end");
    ok((c2 || poll_loop(l, &c2, 5)) && c2 == c && c->req.path_len == 4 && memcmp(c->req.path, "/two", 4) == 0,
       "then the pipelined request");

    /* more than write_buffer held: cut when written again */
    kd_stream_begin(l, c);
    id = c->req_id;
    memset(piece, 'b', PIECE);
    for (i = 0, held = 0; i < 200 && held >= 0; i++)
        held = kd_stream_write(l, c, &iov, 1);
    ok(held < 0 && errno == ENOBUFS, "past write_buffer held, the next write fails (after %d pieces)", i);
    ok(l->nopen == 0 && l->nserving == 0 && l->out_total == 0, "the connection is closed, nothing held");
    n = kd_loop_stream_events(l, &ev);
    ok(n == 1 && ev[0].kind == KD_STREAM_GONE && ev[0].req_id == id, "and posted as gone");
    close(cl);

    /* an idle stream whose client closes */
    l->max_streams = 2;
    cl3 = client(&a, "");               /* connected first, its request later */
    poll_loop(l, &c3, 0.2);
    cl = client(&a, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    cl2 = client(&a, "GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    c = c2 = NULL;
    ok(poll_loop(l, &c, 5) && kd_stream_begin(l, c) == 0, "a first stream");
    ok(poll_loop(l, &c2, 5) && kd_stream_begin(l, c2) == 0, "a second");
    ok(c->in.buf == NULL && c2->in.buf == NULL, "a stream with nothing behind it holds no read buffer");
    {
        const char *req = "GET /c HTTP/1.1\r\nHost: x\r\n\r\n";
        if (write(cl3, req, strlen(req)) != (ssize_t)strlen(req))
            printf("Bail out! client\n");
    }
    ok(!poll_loop(l, &c3, 0.3) && l->nserving == 2, "max_streams 2: the third request waits");
    {
        /* more than its buffer holds, behind the waiting request: the
         * loop must not be woken by it at every wait */
        static char junk[100000];
        size_t sent = 0;
        memset(junk, 'j', sizeof junk);
        while (sent < sizeof junk) {
            ssize_t w = send(cl3, junk + sent, sizeof junk - sent, MSG_DONTWAIT);
            if (w <= 0)
                break;
            sent += (size_t)w;
        }
        ok(!poll_loop(l, &c3, 0.3), "bytes behind a waiting request do not spin the loop (%zu sent)", sent);
    }
    id = c->req_id;
    close(cl);
    c3 = NULL;
    ok(poll_loop(l, &c3, 5) && c3 && c3->req.path_len == 2 && c3->req.path[1] == 'c',
       "the first client closes: the third request comes");
    n = kd_loop_stream_events(l, &ev);
    ok(n == 1 && ev[0].kind == KD_STREAM_GONE && ev[0].req_id == id, "and the first stream is posted gone");

    /* a released connection: the loop forgets it, the caller's dup stays */
    {
        int dup_fd = dup(c2->fd), before = l->nopen;
        char b[16];
        kd_conn_release(l, c2);
        ok(l->nopen == before - 1 && l->nserving == 1 && !c2->open, "released: forgotten by the loop");
        ok(write(dup_fd, "101!", 4) == 4 && recv(cl2, b, sizeof b, 0) == 4 && memcmp(b, "101!", 4) == 0,
           "the caller's descriptor talks to the client");
        close(dup_fd);
    }
    if (c3) {
        kd_stream_begin(l, c3);
        kd_stream_end(l, c3, 0);
    }
    ok(l->nserving == 0, "nothing served");
    close(cl2);
    close(cl3);
    kd_loop_free(l);
    close(lfd);
    return done_testing();
}
