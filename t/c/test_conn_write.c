/* t/c/test_conn_write.c: C unit tests for the file hand-over of
 * src/loop/kd_write.c (kd_write_file_last), printed as TAP. Run by
 * t/c-conn-write.t (system compiler, then clang ASan+UBSan).
 *
 * A real loop on a loopback listener and one client, in one thread: a
 * 4 MB file body from an offset, to a client with small socket buffers,
 * is mostly left to the loop (the call returns at once); the loop sends
 * it as the client reads, intact, and only then parses the request
 * pipelined behind it; a HEAD sends the head alone; a client that stops
 * reading is closed at the write timeout, and the loop's descriptor on the
 * file with it. Then a streamed response (kd_write_more) to a client that
 * does not read yet: every piece returns at once, held in memory up to
 * write_buffer and in a temporary file past it, after what is held
 * already; the loop sends the rest after kd_conn_finish, all in order,
 * and nothing is held after.
 */
#include "../../src/kd_engine.c"

#include <signal.h>
#include <stdarg.h>

#include "tap.h"
#include "loop_test.h"

#define FILE_SIZE (4 * 1024 * 1024)
#define OFFSET 1000

static unsigned char expect_byte(size_t i) { return (unsigned char)((i * 7 + i / 4093) & 0xff); }

static int make_file(void)
{
    static unsigned char buf[FILE_SIZE];
    size_t i;
    int fd = kd_temp_file();
    for (i = 0; i < FILE_SIZE; i++)
        buf[i] = expect_byte(i);
    if (fd < 0 || kd_write_file(fd, (const char *)buf, FILE_SIZE) != 0) {
        printf("Bail out! temporary file\n");
        exit(1);
    }
    return fd;
}

static int small_buffers(int fd)
{
    int size = 16384;
    return setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size) |
           setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

/* Runs the loop until a request head is ready (1) or `seconds` pass (0),
 * reading up to `budget` bytes of the client's input meanwhile, a little
 * at a time, into got (NULL: the client does not read). */
static int run_loop(kd_loop *l, kd_conn **c, int client, char *got, size_t *got_len,
                    size_t budget, double seconds)
{
    double end = kd_now() + seconds;
    while (kd_now() < end) {
        if (got && *got_len < budget) {
            size_t want = budget - *got_len < 32768 ? budget - *got_len : 32768;
            ssize_t n = recv(client, got + *got_len, want, MSG_DONTWAIT);
            if (n > 0)
                *got_len += (size_t)n;
        }
        if (kd_loop_next(l, 5, c) == 1)
            return 1;
    }
    return 0;
}

/* A streamed response of `pieces` pieces of 10000 bytes to a new client
 * that reads only once the response is finished. */
static void streamed(kd_loop *l, int lfd, struct sockaddr_in *a)
{
    enum { PIECE = 10000, PIECES = 300 };
    static char piece[PIECE], got[PIECES * PIECE + 1000];
    const char *req = "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n";
    int client = socket(AF_INET, SOCK_STREAM, 0), all_at_once = 1, in_order = 1, i;
    size_t got_len = 0, memory_seen = 0;
    kd_conn *c = NULL;
    double t0;

    small_buffers(client);
    if (connect(client, (struct sockaddr *)a, sizeof *a) != 0 ||
        write(client, req, strlen(req)) != (ssize_t)strlen(req)) {
        printf("Bail out! client\n");
        exit(1);
    }
    (void)lfd;
    ok(run_loop(l, &c, client, NULL, NULL, 0, 5) == 1, "a request for a streamed response");
    small_buffers(c->fd);
    l->write_buffer = 65536;
    l->write_timeout = 30;
    t0 = kd_now();
    for (i = 0; i < PIECES; i++) {
        struct iovec v = { piece, PIECE };
        memset(piece, 'a' + i % 26, PIECE);
        if (kd_write_more(l, c, &v, 1) != 0)
            all_at_once = 0;
        if (c->out.fd < 0 && c->out.len > memory_seen)
            memory_seen = c->out.len;
    }
    ok(all_at_once && kd_now() - t0 < 5, "%d pieces written while the client does not read", PIECES);
    ok(memory_seen > 0 && memory_seen <= l->write_buffer, "held in memory up to write_buffer (%zu bytes)", memory_seen);
    ok(c->out.flushing && c->out.fd >= 0 && c->out.spooled > 0 && l->spool_total == c->out.spooled,
       "then in a temporary file (%zu bytes)", c->out.spooled);
    kd_conn_finish(l, c, 0);
    t0 = kd_now();
    while (got_len < sizeof got && kd_now() - t0 < 30) {
        ssize_t n = recv(client, got + got_len, sizeof got - got_len, MSG_DONTWAIT);
        if (n > 0)
            got_len += (size_t)n;
        else if (n == 0)
            break;
        kd_loop_next(l, 5, &c);
    }
    ok(got_len == (size_t)PIECES * PIECE, "the client has every byte (%zu), then the close", got_len);
    for (i = 0; i < PIECES && (size_t)(i + 1) * PIECE <= got_len; i++)
        if (got[(size_t)i * PIECE] != 'a' + i % 26 || got[(size_t)i * PIECE + PIECE - 1] != 'a' + i % 26)
            in_order = 0;
    ok(in_order, "in order");
    ok(l->out_total == 0 && l->spool_total == 0 && l->nopen == 0, "nothing held, the connection closed");
    close(client);
}

int main(void)
{
    struct sockaddr_in a;
    int lfd, client, file, fd_seen;
    kd_loop *l;
    kd_conn *c = NULL;
    char *got = malloc(2 * FILE_SIZE);
    size_t got_len = 0, hlen, i, bad = 0;
    const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 4193304\r\n\r\n";
    const char *reqs = "GET /file HTTP/1.1\r\nHost: x\r\n\r\n"
                       "HEAD /file HTTP/1.1\r\nHost: x\r\n\r\n"
                       "GET /stall HTTP/1.1\r\nHost: x\r\n\r\n";

    signal(SIGPIPE, SIG_IGN);
    if (!got) {
        printf("Bail out! malloc\n");
        return 1;
    }
    lfd = test_listener(&a, 8);
    l = test_loop(&lfd);
    l->max_conns = 1000;
    l->min_body_rate = 500;
    l->write_buffer = 1 << 20;
    client = socket(AF_INET, SOCK_STREAM, 0);
    small_buffers(client);
    if (connect(client, (struct sockaddr *)&a, sizeof a) != 0 ||
        write(client, reqs, strlen(reqs)) != (ssize_t)strlen(reqs)) {
        printf("Bail out! client\n");
        return 1;
    }
    file = make_file();

    ok(run_loop(l, &c, client, NULL, NULL, 0, 5) && c->req.path_len == 5, "the first request head");
    small_buffers(c->fd);
    hlen = strlen(head);
    ok(kd_write_file_last(l, c, head, hlen, file, OFFSET, FILE_SIZE - OFFSET) == 0,
       "kd_write_file_last returns at once");
    ok(c->out.flushing && c->out.fd >= 0 && c->out.fd != file, "the rest is the loop's, on a descriptor of its own");
    ok(c->out.file_end == FILE_SIZE && c->out.spooled == 0 && l->spool_total == 0,
       "to the end of the file, not counted as spooled");
    kd_conn_finish(l, c, 1);
    c = NULL;

    ok(run_loop(l, &c, client, got, &got_len, hlen + FILE_SIZE - OFFSET, 30) == 1,
       "the pipelined request comes");
    /* (what the socket buffers hold is sent, not yet read) */
    ok(got_len > FILE_SIZE / 2, "once the file is sent: the client has read %zu bytes of it", got_len);
    while (got_len < hlen + FILE_SIZE - OFFSET) {
        struct pollfd p = { client, POLLIN, 0 };
        ssize_t n;
        if (poll(&p, 1, 5000) != 1 || (n = recv(client, got + got_len, 2 * FILE_SIZE - got_len, 0)) <= 0)
            break;
        got_len += (size_t)n;
    }
    ok(got_len == hlen + FILE_SIZE - OFFSET, "the client has the head and the body (%zu bytes)", got_len);
    ok(memcmp(got, head, hlen) == 0, "the head first");
    for (i = 0; i + hlen < got_len; i++)
        bad += (unsigned char)got[hlen + i] != expect_byte(OFFSET + i);
    ok(bad == 0, "every byte of the file from the offset");
    ok(c && c->req.is_head, "then the HEAD");

    /* HEAD: kd_write_file_last is given no body */
    kd_frame_start(&c->frame, KD_FRAME_NONE, -1, KD_KEEP, 0);
    ok(kd_write_file_last(l, c, head, hlen, file, 0, 0) == 0 && !c->out.flushing, "HEAD: the head alone, at once");
    kd_conn_finish(l, c, 1);
    c = NULL;
    got_len = 0;
    ok(run_loop(l, &c, client, got, &got_len, hlen, 5) == 1 && got_len == hlen && c->req.path_len == 6,
       "then the last request");

    /* a client that stops reading */
    l->write_timeout = 0.3;
    ok(kd_write_file_last(l, c, head, hlen, file, 0, FILE_SIZE) == 0 && c->out.flushing, "a file for a client that stalls");
    fd_seen = c->out.fd;
    kd_conn_finish(l, c, 1);
    close(file);
    run_loop(l, &c, client, NULL, NULL, 0, 2.5);
    ok(l->nopen == 0, "closed at the write timeout");
    ok(fcntl(fd_seen, F_GETFD) == -1 && errno == EBADF, "the loop's descriptor on the file is closed");
    ok(l->out_total == 0 && l->spool_total == 0, "nothing held");
    close(client);

    streamed(l, lfd, &a);

    kd_loop_free(l);
    close(lfd);
    free(got);
    return done_testing();
}
