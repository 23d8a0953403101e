/* t/c/test_scoreboard.c: C unit tests for src/kd_scoreboard.c, printed as
 * TAP. Run by t/c-scoreboard.t (system compiler, then clang ASan+UBSan).
 *
 * The layout outside tools rely on; claim and clear; the request line cut
 * to fit and always NUL-terminated; a file-backed board seen by attach,
 * and attach refusing what is not a board; a slot written by a forked
 * child seen by the parent; and a reader racing a writer that changes the
 * request line and the state without pause: every read sees a valid
 * state and a terminated line (torn, perhaps, but never unterminated).
 */
#include "../../src/kd_scoreboard.c"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int test_no = 0, failures = 0;

static void ok(int cond, const char *fmt, ...)
{
    va_list ap;
    test_no++;
    printf("%sok %d - ", cond ? "" : "not ", test_no);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond)
        failures++;
}

static void test_layout(void)
{
    kd_sb sb;
    unsigned i;
    int all_free = 1;
    ok(sizeof(kd_sb_header) == 64 && sizeof(kd_sb_slot) == 128, "header 64 bytes, slot 128");
    ok(offsetof(kd_sb_slot, pid) == 0 && offsetof(kd_sb_slot, generation) == 4 &&
       offsetof(kd_sb_slot, state) == 8 && offsetof(kd_sb_slot, connections) == 12 &&
       offsetof(kd_sb_slot, requests) == 16 && offsetof(kd_sb_slot, since) == 24 &&
       offsetof(kd_sb_slot, request) == 32, "slot offsets as documented in Kamado::Scoreboard");
    errno = 0;
    ok(kd_sb_create(&sb, 0, NULL) == -1 && errno == EINVAL, "0 slots: EINVAL");
    ok(kd_sb_create(&sb, 4, NULL) == 0, "an anonymous board of 4 slots");
    ok(memcmp(sb.header->magic, KD_SB_MAGIC, 8) == 0 && sb.header->version == KD_SB_VERSION &&
       sb.header->nslots == 4 && sb.header->slot_size == 128 && sb.header->header_size == 64 &&
       sb.header->master_pid == (int32_t)getpid(), "its header");
    for (i = 0; i < 4; i++)
        if (sb.slots[i].state != KD_SB_FREE || sb.slots[i].pid != 0)
            all_free = 0;
    ok(all_free, "every slot free");

    sb.slots[1].requests = 5;
    kd_sb_claim(&sb, 1, 7);
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
    char path[] = "/tmp/kamado-sb-test-XXXXXX";
    kd_sb sb, rd;
    int fd = mkstemp(path);
    ok(fd >= 0, "a temporary file");
    if (fd < 0)
        return;
    close(fd);
    errno = 0;
    ok(kd_sb_attach(&rd, path) == -1 && errno == EINVAL, "attach: an empty file is no board");
    {
        char link[sizeof path + 5];
        snprintf(link, sizeof link, "%s.link", path);
        errno = 0;
        ok(symlink(path, link) == 0 && kd_sb_create(&sb, 3, link) == -1 && errno == ELOOP,
           "create: no symbolic link");
        unlink(link);
    }
    ok(kd_sb_create(&sb, 3, path) == 0, "a file-backed board");
    kd_sb_claim(&sb, 2, 1);
    sb.slots[2].pid = 1234;
    kd_sb_set_request(&sb.slots[2], "GET", 3, "/file", 5);
    kd_sb_set_state(&sb.slots[2], KD_SB_IDLE);
    ok(kd_sb_attach(&rd, path) == 0 && !rd.writable, "attach: read-only");
    ok(rd.header->nslots == 3 && rd.slots[2].pid == 1234 && rd.slots[2].state == KD_SB_IDLE &&
       strcmp(rd.slots[2].request, "GET /file") == 0,
       "attach sees the writer's slot");
    sb.slots[2].connections = 9;
    ok(rd.slots[2].connections == 9, "and its later stores (one shared mapping)");
    kd_sb_unmap(&rd);
    {
        /* a second master on the same path (a hot deploy): a new file, the
         * first keeps its own; the mode of the replaced file is kept */
        kd_sb sb2;
        struct stat st;
        ok(chmod(path, 0640) == 0 && kd_sb_create(&sb2, 5, path) == 0, "a second board on the same path");
        sb.slots[0].requests = 77;
        ok(kd_sb_attach(&rd, path) == 0 && rd.header->nslots == 5 && rd.slots[0].requests == 0,
           "attach sees the second; the first writes to its own file");
        ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640, "the replaced file's mode kept");
        kd_sb_unmap(&rd);
        kd_sb_unmap(&sb2);
    }
    kd_sb_unmap(&sb);
    fd = open(path, O_WRONLY | O_TRUNC);
    if (fd >= 0) {
        char junk[64 + 128];
        memset(junk, 'j', sizeof junk);
        ok(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk, "overwritten with junk");
        close(fd);
    }
    errno = 0;
    ok(kd_sb_attach(&rd, path) == -1 && errno == EINVAL, "attach: junk is no board");
    unlink(path);
    errno = 0;
    ok(kd_sb_attach(&rd, path) == -1 && errno == ENOENT, "attach: a missing file, ENOENT");
}

static void test_fork(void)
{
    kd_sb sb;
    pid_t pid;
    int status = -1;
    if (kd_sb_create(&sb, 2, NULL) != 0) {
        ok(0, "an anonymous board for fork");
        return;
    }
    kd_sb_claim(&sb, 0, 3);
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
    if (kd_sb_create(&sb, 1, NULL) != 0) {
        ok(0, "an anonymous board for the race");
        return;
    }
    memset(target, 'b', sizeof target);
    kd_sb_claim(&sb, 0, 1);
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

int main(void)
{
    test_layout();
    test_request_line();
    test_file();
    test_fork();
    test_race();
    printf("1..%d\n", test_no);
    return failures ? 1 : 0;
}
