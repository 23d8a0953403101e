/* t/c/test_evict.c: C unit tests for evict_when_full (src/loop/kd_intake.c),
 * printed as TAP. Run by t/c-evict.t (system compiler, then clang
 * ASan+UBSan if present).
 *
 * A real loop on a loopback listener, in one thread, max_conns 3: three
 * clients send half a head and stop. Without evict_when_full a fourth
 * client's whole request is not taken (the loop stops accepting); with
 * it, the fourth is taken and served, the oldest half head is closed (its
 * client reads EOF) and the two others are kept.
 */
#include "../../src/kd_engine.c"

#include <poll.h>
#include <signal.h>

#include "tap.h"
#include "loop_test.h"

/* Whether the server closed fd: EOF within `seconds`. */
static int closed(int fd, double seconds)
{
    struct pollfd p = { fd, POLLIN, 0 };
    char b[64];
    return poll(&p, 1, (int)(seconds * 1000)) == 1 && read(fd, b, sizeof b) == 0;
}

static void run(int evict)
{
    struct sockaddr_in a;
    int lfd, slow[3], fast, i;
    kd_loop *l;
    kd_conn *c = NULL;
    const char *half = "GET /slow HTTP/1.1\r\nHost: x\r\n";

    lfd = test_listener(&a, 8);
    l = test_loop(&lfd);
    l->min_body_rate = 500;
    l->write_buffer = 1 << 20;
    l->max_conns = 3;
    l->evict_when_full = evict;
    for (i = 0; i < 3; i++) {
        slow[i] = test_dial(&a, half);
        ok(!test_next_head(l, &c, 0.2) && l->nopen == i + 1, "%s: half a head %d, held (%d open)",
           evict ? "evict" : "no evict", i + 1, l->nopen);
    }
    fast = test_dial(&a, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
    if (!evict) {
        ok(!test_next_head(l, &c, 0.5), "no evict: a whole request waits while the loop is full");
        ok(!closed(slow[0], 0.1), "no evict: the half heads are kept");
    } else {
        ok(test_next_head(l, &c, 2) && c->req.path_len == 5 && memcmp(c->req.path, "/fast", 5) == 0,
           "evict: the whole request is taken at once");
        ok(closed(slow[0], 2), "evict: the oldest half head is closed");
        ok(!closed(slow[1], 0.1) && !closed(slow[2], 0.1), "evict: the two others are kept");
        ok(l->nopen == 3, "evict: still 3 open (%d)", l->nopen);
        kd_conn_finish(l, c, 0);
    }
    for (i = 0; i < 3; i++)
        close(slow[i]);
    close(fast);
    kd_loop_free(l);
    close(lfd);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    run(0);
    run(1);
    return done_testing();
}
