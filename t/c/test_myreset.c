/* t/c/test_myreset.c: C unit tests for src/proto/kd_myreset.c, as TAP. Run by
 * t/c-myreset.t (system compiler, then clang ASan+UBSan if present).
 *
 * The commands a reset writes, byte for byte; the answers read from
 * buffers of exactly their length, at every prefix (incomplete: nothing
 * consumed past the last whole packet), with ERR and empty packets
 * refused; then the write and the reads over a socket pair: answers in
 * one piece and a byte at a time, an ERR, bytes beyond the answers, a
 * closed peer and a silent one (the timeout).
 */
#include "../../src/kd_engine.c"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define OKP "\x07\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00"    /* an OK packet, 11 bytes */
#define ERRP "\x17\x00\x00\x01\xff\x48\x04#HY000No database selected"

static void test_build(void)
{
    char out[256];
    unsigned n = 9;
    const char *sql[] = { "SET ROLE NONE", "SET autocommit=0" };
    const size_t sqllen[] = { 13, 16 };
    size_t len = kd_myreset_build(out, sizeof out, "kamado", 6, sql, sqllen, 2, &n);
    static const char want[] = "\x01\x00\x00\x00\x1f"
                               "\x07\x00\x00\x00\x02kamado"
                               "\x0e\x00\x00\x00\x03SET ROLE NONE"
                               "\x11\x00\x00\x00\x03SET autocommit=0";
    ok(len == sizeof want - 1 && memcmp(out, want, len) == 0 && n == 4,
       "reset, database, two statements: four packets, byte for byte, in order");
    len = kd_myreset_build(out, sizeof out, NULL, 0, NULL, NULL, 0, &n);
    ok(len == 5 && memcmp(out, "\x01\x00\x00\x00\x1f", 5) == 0 && n == 1, "no database, no statement: the reset alone");
    len = kd_myreset_build(out, 15, "kamado", 6, NULL, NULL, 0, &n);
    ok(len == 0 && n == 0, "a buffer one byte short: nothing");
    len = kd_myreset_build(out, 16, "kamado", 6, NULL, NULL, 0, &n);
    ok(len == 16 && n == 2, "... and exactly long enough: both");
    len = kd_myreset_build(out, sizeof want - 2, "kamado", 6, sql, sqllen, 2, &n);
    ok(len == 0 && n == 0, "a buffer one byte short of the last statement: nothing");
}

/* ANS read from a heap buffer of exactly LEN bytes, wanting WANT */
static long answers_of(const char *ans, size_t len, unsigned *want)
{
    char *copy = malloc(len ? len : 1);
    long r;
    memcpy(copy, ans, len);
    r = kd_myreset_answers(copy, len, want);
    free(copy);
    return r;
}

static void test_answers(void)
{
    static const char three[] = OKP OKP OKP;
    size_t len = sizeof three - 1, cut;
    unsigned want = 3;
    long r = answers_of(three, len, &want);
    ok(r == 33 && want == 0, "three OK packets: all read");
    for (cut = 0; cut < len; cut++) {
        unsigned w = 3;
        long got = answers_of(three, cut, &w);
        if (got != (long)(cut / 11 * 11) || w != 3 - cut / 11)
            diag("prefix of %zu bytes: %ld read, %u wanted", cut, got, w);
    }
    tap("every prefix: the whole packets in it, no more");
    want = 2;
    r = answers_of(three, len, &want);
    ok(r == 22 && want == 0, "only as many packets as wanted");
    want = 3;
    r = answers_of(OKP ERRP OKP, 11 + 27 + 11, &want);
    ok(r == -1, "an ERR packet: refused");
    want = 1;
    r = answers_of("\x00\x00\x00\x01", 4, &want);
    ok(r == -1, "an empty packet: refused");
    want = 1;
    r = answers_of("\xff\xff\xff\x01\x00", 5, &want);
    ok(r == 0 && want == 1, "a packet longer than what came: incomplete");
}

static int pair[2];

static int settle_with(const char *bytes, size_t len, unsigned want, int one_at_a_time, int close_after)
{
    size_t i;
    int r;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
        return -2;
    if (one_at_a_time) {
        /* (a byte at a time from a child, read as it comes) */
        pid_t pid = fork();
        if (pid == 0) {
            for (i = 0; i < len; i++) {
                if (write(pair[1], bytes + i, 1) != 1)
                    _exit(1);
                nanosleep(&(struct timespec){ 0, 200000 }, NULL);
            }
            _exit(0);
        }
        r = kd_myreset_settle(pair[0], want, 2000);
        waitpid(pid, NULL, 0);
    } else {
        if (len && write(pair[1], bytes, len) != (ssize_t)len)
            return -2;
        if (close_after)
            close(pair[1]);
        r = kd_myreset_settle(pair[0], want, 100);
    }
    close(pair[0]);
    if (!close_after)
        close(pair[1]);
    return r;
}

static void test_io(void)
{
    char out[64], got[64];
    unsigned n;
    const char *sql[] = { "SET autocommit=0" };
    const size_t sqllen[] = { 16 };
    size_t len = kd_myreset_build(out, sizeof out, "db", 2, sql, sqllen, 1, &n);
    ssize_t r;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0)
        return;
    ok(kd_myreset_send(pair[0], out, len, 100) == 0, "the commands written");
    r = read(pair[1], got, sizeof got);
    ok(r == (ssize_t)len && memcmp(got, out, len) == 0, "... and read whole at the other end");
    close(pair[0]);
    close(pair[1]);

    ok(settle_with(OKP OKP OKP, 33, 3, 0, 0) == 0, "three answers at once: settled");
    ok(settle_with(OKP OKP OKP, 33, 3, 1, 0) == 0, "a byte at a time: settled");
    ok(settle_with(OKP ERRP, 11 + 27, 2, 0, 0) == -1, "an ERR: not");
    ok(settle_with(OKP OKP OKP, 33, 2, 0, 0) == -1, "more than the answers: not (the driver reads next)");
    ok(settle_with(OKP, 11, 2, 0, 1) == -1, "the peer closed before the last answer: not");
    ok(settle_with(OKP, 11, 2, 0, 0) == -1, "a silent peer: not, after the timeout");
    ok(settle_with("", 0, 0, 0, 0) == 0, "nothing wanted, nothing there: settled");
}

int main(void)
{
    test_build();
    test_answers();
    test_io();
    return done_testing();
}
