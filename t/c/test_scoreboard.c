/* t/c/test_scoreboard.c: C unit tests for src/kd_scoreboard.c, printed as
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
 */
#include "../../src/kd_scoreboard.c"

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
    ok(sizeof(kd_sb_header) == 64 && sizeof(kd_sb_slot) == 128, "header 64 bytes, slot 128");
    ok(offsetof(kd_sb_slot, pid) == 0 && offsetof(kd_sb_slot, generation) == 4 &&
       offsetof(kd_sb_slot, state) == 8 && offsetof(kd_sb_slot, connections) == 12 &&
       offsetof(kd_sb_slot, requests) == 16 && offsetof(kd_sb_slot, since) == 24 &&
       offsetof(kd_sb_slot, request) == 32, "slot offsets as documented in Kamado::Scoreboard");
    errno = 0;
    ok(kd_sb_create(&sb, 0) == -1 && errno == EINVAL, "0 slots: EINVAL");
    ok(kd_sb_create(&sb, 4) == 0, "an anonymous board of 4 slots");
    ok(memcmp(sb.header->magic, KD_SB_MAGIC, 8) == 0 && sb.header->version == KD_SB_VERSION &&
       sb.header->nslots == 4 && sb.header->slot_size == 128 && sb.header->header_size == 64 &&
       sb.header->generation_pid == (int32_t)getpid(), "its header");
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
    kd_sb_claim(&sb, 2, 1);
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
        char junk[64 + 128];
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
    if (kd_sb_create(&sb, 1) != 0) {
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
    return done_testing();
}
