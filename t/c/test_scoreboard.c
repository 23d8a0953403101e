/* t/c/test_scoreboard.c: C unit tests for src/board/kd_scoreboard.c, printed as
 * TAP. Run by t/c-scoreboard.t (system compiler, then clang ASan+UBSan).
 *
 * The layout outside tools rely on; claim and clear; the request line cut
 * to fit and always NUL-terminated; a board published to a file (over a
 * planted file or link, never reusing or following it), refreshed in
 * place, unharmed by writes to or truncation of the copy, seen by attach,
 * and attach refusing what is not a board; a slot written by a forked
 * child seen by the parent; and a reader racing a writer that changes the
 * request line and the state without pause: every read sees a valid
 * state and a terminated line (torn, perhaps, but never unterminated).
 * The counters by status class and duration bucket, moved to the header
 * when a slot is cleared; memory from smaps_rollup; a board in a memfd
 * handed over a socket.
 */

#include "../../src/kd_engine.c"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tap.h"

static void test_layout(void)
{
    kd_sb sb;
    unsigned i;
    int all_free = 1;
    ok(sizeof(kd_sb_header) == 1024 && sizeof(kd_sb_slot) == 640 && sizeof(kd_sb_counts) == 456,
       "header 1024 bytes, slot 640, counters 456");
    ok(offsetof(kd_sb_slot, pid) == 0 && offsetof(kd_sb_slot, generation) == 4 &&
       offsetof(kd_sb_slot, state) == 8 && offsetof(kd_sb_slot, connections) == 12 &&
       offsetof(kd_sb_slot, requests) == 16 && offsetof(kd_sb_slot, since) == 24 &&
       offsetof(kd_sb_slot, request) == 32 && offsetof(kd_sb_slot, started) == 128 &&
       offsetof(kd_sb_slot, pool) == 136 && offsetof(kd_sb_slot, mem_private) == 144 &&
       offsetof(kd_sb_slot, mem_shared) == 152 && offsetof(kd_sb_slot, mem_pss) == 160 &&
       offsetof(kd_sb_slot, counts) == 168, "slot offsets as documented in Kamado::Scoreboard");
    ok(offsetof(kd_sb_header, generation) == 28 && offsetof(kd_sb_header, started) == 32 &&
       offsetof(kd_sb_header, npools) == 40 && offsetof(kd_sb_header, exits) == 48 &&
       offsetof(kd_sb_header, reaped) == 176, "header offsets as documented");
    ok(offsetof(kd_sb_counts, buckets) == 40 && offsetof(kd_sb_counts, seconds) == 160 &&
       offsetof(kd_sb_counts, bytes_in) == 168 && offsetof(kd_sb_counts, taken) == 184 &&
       offsetof(kd_sb_counts, queued) == 192 && offsetof(kd_sb_counts, blocked) == 448 &&
       offsetof(kd_sb_slot, streams) == 140, "counter offsets as documented");
    errno = 0;
    ok(kd_sb_create(&sb, 0) == -1 && errno == EINVAL, "0 slots: EINVAL");
    ok(kd_sb_create(&sb, 4) == 0, "an anonymous board of 4 slots");
    ok(memcmp(sb.header->magic, KD_SB_MAGIC, 8) == 0 && sb.header->version == KD_SB_VERSION &&
       sb.header->nslots == 4 && sb.header->slot_size == 640 && sb.header->header_size == 1024 &&
       sb.header->generation_pid == (int32_t)getpid(), "its header");
    for (i = 0; i < 4; i++)
        if (sb.slots[i].state != KD_SB_FREE || sb.slots[i].pid != 0)
            all_free = 0;
    ok(all_free, "every slot free");

    sb.slots[1].requests = 5;
    kd_sb_claim(&sb, 1, 7, 0);
    ok(sb.slots[1].state == KD_SB_STARTING && sb.slots[1].generation == 7 &&
       sb.slots[1].requests == 0 && sb.slots[1].since > 0, "claim: starting, generation, counters reset");
    ok(sb.slots[0].state == KD_SB_FREE && sb.slots[2].state == KD_SB_FREE, "claim touches no other slot");
    kd_sb_set_request(&sb.slots[1], "GET", 3, "/x", 2);
    kd_sb_set_state(&sb.slots[1], KD_SB_APP);
    kd_sb_clear(&sb, 1);
    ok(sb.slots[1].state == KD_SB_FREE && sb.slots[1].generation == 0 && sb.slots[1].request[0] == '\0',
       "clear: free, request line gone");
    ok(strcmp(kd_sb_state_name(KD_SB_IDLE), "idle") == 0 && strcmp(kd_sb_state_name(KD_SB_WRITING), "writing") == 0 &&
       strcmp(kd_sb_state_name(KD_SB_DRAINING), "draining") == 0 &&
       strcmp(kd_sb_state_name(99), "unknown") == 0, "state names");
    kd_sb_unmap(&sb);
}

static void test_request_line(void)
{
    kd_sb_slot s;
    char target[300], want[KD_SB_REQUEST_LEN];
    memset(&s, 'x', sizeof s);
    memset(target, 'a', sizeof target);
    kd_sb_set_request(&s, "GET", 3, "/", 1);
    ok(strcmp(s.request, "GET /") == 0, "a short line whole");
    kd_sb_set_request(&s, "POST", 4, target, sizeof target);
    snprintf(want, sizeof want, "POST %.*s", 90, target);
    ok(strlen(s.request) == KD_SB_REQUEST_LEN - 1 && strcmp(s.request, want) == 0,
       "a long target cut at %d bytes", KD_SB_REQUEST_LEN - 1);
    kd_sb_set_request(&s, target, sizeof target, "/", 1);
    ok(strnlen(s.request, KD_SB_REQUEST_LEN) == KD_SB_REQUEST_LEN - 1 && s.request[KD_SB_REQUEST_LEN - 2] == ' ',
       "a long method cut, with its space");
    kd_sb_set_request(&s, "GET", 3, "", 0);
    ok(strcmp(s.request, "GET ") == 0, "an empty target");
}

static void test_file(void)
{
    char dir[] = "/tmp/kamado-sb-test-XXXXXX";
    char path[sizeof dir + 8], target[sizeof dir + 8];
    kd_sb sb, rd;
    struct stat st, planted;
    int fd;
    if (!mkdtemp(dir)) {
        ok(0, "a temporary directory");
        return;
    }
    snprintf(path, sizeof path, "%s/sb", dir);
    snprintf(target, sizeof target, "%s/target", dir);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    close(fd);
    errno = 0;
    ok(kd_sb_attach(&rd, path) == -1 && errno == EINVAL, "attach: an empty file is no board");

    ok(kd_sb_create(&sb, 3) == 0, "a board");
    /* a planted file, writable by all: replaced, never reused */
    ok(chmod(path, 0666) == 0 && stat(path, &planted) == 0, "a planted file, mode 0666");
    ok(kd_sb_publish(&sb, path) == 0, "published over it");
    ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600 && st.st_ino != planted.st_ino,
       "a new file of mode 0600 in its place");
    kd_sb_claim(&sb, 2, 1, 0);
    sb.slots[2].pid = 1234;
    kd_sb_set_request(&sb.slots[2], "GET", 3, "/file", 5);
    kd_sb_set_state(&sb.slots[2], KD_SB_IDLE);
    ok(kd_sb_attach(&rd, path) == 0 && !rd.writable && rd.slots[2].state == KD_SB_FREE,
       "attach: read-only, the board as published");
    ok(kd_sb_refresh(&sb) == 0 && rd.header->nslots == 3 && rd.slots[2].pid == 1234 &&
       rd.slots[2].state == KD_SB_IDLE && strcmp(rd.slots[2].request, "GET /file") == 0,
       "a refresh reaches a reader already attached");

    /* what others write to the copy never reaches the board */
    fd = open(path, O_WRONLY);
    {
        int32_t fake = -1;
        ok(pwrite(fd, &fake, sizeof fake, (off_t)(sizeof(kd_sb_header) + 2 * sizeof(kd_sb_slot))) == sizeof fake &&
           rd.slots[2].pid == -1 && sb.slots[2].pid == 1234, "a pid written to the copy is not in the board");
    }
    kd_sb_unmap(&rd);
    ok(ftruncate(fd, 0) == 0 && kd_sb_refresh(&sb) == 0 && stat(path, &st) == 0 &&
       (size_t)st.st_size == sb.map_len, "truncated: the refresh writes it whole again");
    close(fd);
    ok(kd_sb_attach(&rd, path) == 0 && rd.slots[2].pid == 1234, "and the reader sees the board");
    kd_sb_unmap(&rd);

    /* a symbolic link planted at the path: replaced, its target untouched */
    fd = open(target, O_CREAT | O_WRONLY, 0644);
    ok(fd >= 0 && write(fd, "keep", 4) == 4, "a target file");
    close(fd);
    unlink(path);
    ok(symlink(target, path) == 0 && kd_sb_publish(&sb, path) == 0, "published over a symbolic link");
    ok(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && stat(target, &st) == 0 && st.st_size == 4,
       "the link replaced, its target untouched");
    {
        /* a second master on the same path (a hot deploy): a new file, the
         * first keeps its own */
        kd_sb sb2;
        ok(kd_sb_create(&sb2, 5) == 0 && kd_sb_publish(&sb2, path) == 0, "a second board on the same path");
        sb.slots[0].requests = 77;
        ok(kd_sb_refresh(&sb) == 0 && kd_sb_attach(&rd, path) == 0 && rd.header->nslots == 5 &&
           rd.slots[0].requests == 0, "attach sees the second; the first writes to its own file");
        kd_sb_unmap(&rd);
        kd_sb_unmap(&sb2);
    }
    kd_sb_unmap(&sb);
    fd = open(path, O_WRONLY | O_TRUNC);
    if (fd >= 0) {
        char junk[1024 + 640];
        memset(junk, 'j', sizeof junk);
        ok(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk, "overwritten with junk");
        close(fd);
    }
    errno = 0;
    ok(kd_sb_attach(&rd, path) == -1 && errno == EINVAL, "attach: junk is no board");
    unlink(path);
    unlink(target);
    errno = 0;
    ok(kd_sb_attach(&rd, path) == -1 && errno == ENOENT, "attach: a missing file, ENOENT");
    rmdir(dir);
}

static void test_fork(void)
{
    kd_sb sb;
    pid_t pid;
    int status = -1;
    if (kd_sb_create(&sb, 2) != 0) {
        ok(0, "an anonymous board for fork");
        return;
    }
    kd_sb_claim(&sb, 0, 3, 0);
    pid = fork();
    if (pid == 0) {
        sb.slots[0].connections = 2;
        sb.slots[0].requests = 41;
        kd_sb_set_request(&sb.slots[0], "PUT", 3, "/child", 6);
        kd_sb_set_state(&sb.slots[0], KD_SB_WRITING);
        _exit(0);
    }
    waitpid(pid, &status, 0);
    ok(status == 0 && sb.slots[0].state == KD_SB_WRITING && sb.slots[0].connections == 2 &&
       sb.slots[0].requests == 41 && strcmp(sb.slots[0].request, "PUT /child") == 0,
       "a child's stores reach the parent");
    kd_sb_unmap(&sb);
}

static void test_race(void)
{
    kd_sb sb;
    pid_t pid;
    long i, bad_state = 0, unterminated = 0, reads = 0;
    char target[200];
    if (kd_sb_create(&sb, 1) != 0) {
        ok(0, "an anonymous board for the race");
        return;
    }
    memset(target, 'b', sizeof target);
    kd_sb_claim(&sb, 0, 1, 0);
    pid = fork();
    if (pid == 0) {
        /* a writer that never pauses: long and short lines, every state */
        for (i = 0;; i++) {
            kd_sb_set_request(&sb.slots[0], "GET", 3, target, (size_t)(i % 3 ? 1 + i % 150 : 0));
            kd_sb_set_state(&sb.slots[0], KD_SB_IDLE + (unsigned)(i % 4));
        }
    }
    for (i = 0; i < 2000000; i++) {
        unsigned state = __atomic_load_n(&sb.slots[0].state, __ATOMIC_ACQUIRE);
        if (state < KD_SB_STARTING || state >= KD_SB_STATES)
            bad_state++;
        if (strnlen(sb.slots[0].request, KD_SB_REQUEST_LEN) >= KD_SB_REQUEST_LEN)
            unterminated++;
        reads++;
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ok(bad_state == 0, "racing a writer: every state read is valid (%ld reads)", reads);
    ok(unterminated == 0, "racing a writer: every request line read is terminated");
    kd_sb_unmap(&sb);
}

/* The counters: a done request lands in its class and bucket; clear adds
 * a slot's counters to the header's, and the totals hold both. */
static void test_counters(void)
{
    kd_sb sb;
    kd_sb_counts t;
    unsigned k;
    uint64_t n = 0;
    if (kd_sb_create(&sb, 2) != 0) {
        ok(0, "a board for the counters");
        return;
    }
    kd_sb_claim(&sb, 0, 1, 0);
    kd_sb_claim(&sb, 1, 1, 2);
    kd_sb_set_state(&sb.slots[0], KD_SB_IDLE);
    kd_sb_set_state(&sb.slots[1], KD_SB_IDLE);
    kd_sb_done(&sb.slots[0], 200, 0.0005);
    kd_sb_done(&sb.slots[0], 204, 0.001);     /* the bound is in its bucket */
    kd_sb_done(&sb.slots[0], 404, 0.02);
    kd_sb_done(&sb.slots[0], 503, 100);
    kd_sb_done(&sb.slots[0], 0, -1);          /* no class; a negative time is 0 */
    kd_sb_done(&sb.slots[0], 700, 3);
    ok(sb.slots[0].counts.status[1] == 2 && sb.slots[0].counts.status[3] == 1 &&
       sb.slots[0].counts.status[4] == 1 && sb.slots[0].counts.status[0] == 0 &&
       sb.slots[0].counts.status[2] == 0, "status classes: 2xx 2, 4xx 1, 5xx 1; 0 and 700 in none");
    ok(sb.slots[0].counts.buckets[0] == 3 && sb.slots[0].counts.buckets[3] == 1 &&
       sb.slots[0].counts.buckets[10] == 1 && sb.slots[0].counts.buckets[KD_SB_BUCKETS - 1] == 1,
       "durations: <= 1 ms 3, <= 25 ms 1, <= 5 s 1, +Inf 1");
    for (k = 0; k < KD_SB_BUCKETS; k++)
        n += sb.slots[0].counts.buckets[k];
    ok(n == 6 && sb.slots[0].counts.seconds > 103.02 && sb.slots[0].counts.seconds < 103.03,
       "every request in one bucket; the sum of durations");
    for (k = 0; k + 1 < KD_SB_BUCKETS - 1; k++)
        if (!(kd_sb_bounds[k] < kd_sb_bounds[k + 1]))
            break;
    ok(k + 1 == KD_SB_BUCKETS - 1 && kd_sb_bounds[0] == 0.001 && kd_sb_bounds[KD_SB_BUCKETS - 2] == 60,
       "bounds rise from 1 ms to 60 s");
    sb.slots[0].counts.bytes_in = 100;
    sb.slots[1].counts.bytes_out = 7;
    sb.slots[0].counts.queued[2] = 3;          /* handed three to pool 2 */
    sb.slots[1].counts.queued[2] = -1;         /* pool 2's worker took one */
    kd_sb_totals(&sb, &t);
    ok(t.status[1] == 2 && t.bytes_in == 100 && t.bytes_out == 7 && t.queued[2] == 2,
       "totals: both slots; pool 2's queue 2 deep");
    kd_sb_clear(&sb, 0);
    ok(sb.slots[0].counts.status[1] == 0 && sb.header->reaped.status[1] == 2 &&
       sb.header->reaped.bytes_in == 100 && sb.header->reaped.queued[2] == 3,
       "clear: the slot's counters move to the header");
    kd_sb_totals(&sb, &t);
    ok(t.status[1] == 2 && t.bytes_in == 100 && t.queued[2] == 2, "totals unchanged by the clear");
    kd_sb_claim(&sb, 0, 1, 0);
    ok(sb.slots[0].counts.bytes_in == 0 && sb.slots[1].pool == 2, "claim: counters from 0, the pool kept");
    kd_sb_unmap(&sb);
}

static void test_memory(void)
{
    const char *text =
        "55d4c2a4d000-7ffd6b5f3000 ---p 00000000 00:00 0                          [rollup]\n"
        "Rss:               15016 kB\n"
        "Pss:                3521 kB\n"
        "Pss_Anon:            776 kB\n"
        "Shared_Clean:      13892 kB\n"
        "Shared_Dirty:         12 kB\n"
        "Private_Clean:       100 kB\n"
        "Private_Dirty:      1012 kB\n"
        "Referenced:        15016 kB\n";
    uint64_t priv = 1, shared = 1, pss = 1;
    kd_sb sb;
    ok(kd_sb_parse_memory(text, strlen(text), &priv, &shared, &pss) == 0 && priv == 1112 * 1024 &&
       shared == 13904 * 1024 && pss == 3521 * 1024, "smaps_rollup: private, shared, Pss (not Pss_Anon)");
    ok(kd_sb_parse_memory("Rss: 5 kB\n", 10, &priv, &shared, &pss) == -1 && priv == 0 && pss == 0,
       "no line of them: -1, zeros");
    ok(kd_sb_parse_memory("Pss: junk\nPrivate_Dirty:", 23, &priv, &shared, &pss) == -1,
       "no number: -1");
    if (kd_sb_create(&sb, 1) != 0) {
        ok(0, "a board for memory");
        return;
    }
    ok(kd_sb_read_memory(&sb, 0, (int)getpid()) == 0 && sb.slots[0].mem_private > 0 &&
       sb.slots[0].mem_pss > 0, "this process's own smaps_rollup read");
    ok(kd_sb_read_memory(&sb, 0, 0x7ffffff0) == -1 && sb.slots[0].mem_private == 0,
       "a missing process: -1, zeros");
    kd_sb_unmap(&sb);
}

/* A board in a memfd, sent over a seqpacket socket and mapped read-only
 * by the receiver, sees the sender's stores. */
static void test_shared(void)
{
    kd_sb sb, rd;
    int sv[2], fd = -1;
    char buf[64];
    ssize_t n;
    if (kd_sb_create_shared(&sb, 3) != 0 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) {
        ok(0, "a shared board and a socket pair");
        return;
    }
    ok(sb.mem_fd >= 0 && (fcntl(sb.mem_fd, F_GETFD) & FD_CLOEXEC), "a memfd, close-on-exec");
    ok(kd_sb_send_fd(sv[0], "board 1 2 start", 15, sb.mem_fd) == 0 && kd_sb_send_fd(sv[0], "gone 2", 6, -1) == 0,
       "sent: a board, then a word alone");
    n = kd_sb_recv_fd(sv[1], buf, sizeof buf, &fd);
    ok(n == 15 && strcmp(buf, "board 1 2 start") == 0 && fd >= 0 && fd != sb.mem_fd, "received with a descriptor");
    ok(kd_sb_attach_fd(&rd, fd) == 0 && !rd.writable && rd.header->nslots == 3, "mapped read-only");
    close(fd);
    kd_sb_claim(&sb, 1, 4, 0);
    sb.slots[1].counts.bytes_out = 99;
    ok(rd.slots[1].generation == 4 && rd.slots[1].counts.bytes_out == 99, "the receiver sees the sender's stores");
    n = kd_sb_recv_fd(sv[1], buf, sizeof buf, &fd);
    ok(n == 6 && strcmp(buf, "gone 2") == 0 && fd == -1, "a word without a descriptor");
    errno = 0;
    ok(kd_sb_recv_fd(sv[1], buf, sizeof buf, &fd) == -1 && errno == EAGAIN, "none waiting: EAGAIN");
    ok(kd_sb_send_fd(sv[0], "", 0, -1) == -1 && errno == EINVAL, "an empty word: EINVAL");
    kd_sb_unmap(&rd);
    kd_sb_unmap(&sb);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    test_layout();
    test_counters();
    test_memory();
    test_shared();
    test_request_line();
    test_file();
    test_fork();
    test_race();
    return done_testing();
}
