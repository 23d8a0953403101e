/* t/c/test_spawn.c: C unit tests for src/sys/kd_spawn.c, printed as TAP.
 * Run by t/c-spawn.t (system compiler, then clang ASan+UBSan).
 *
 * This process is the subreaper; a child is the template, in the fork
 * loop. Each worker it forks comes back as this process's own child (it
 * reaps it and gets its exit status), is given its ask, and starts only
 * once its first child is gone (its parent is then this process). A
 * signal returns -1 with EINTR; closing the asks ends the template's loop.
 */

#include "../../src/kd_engine.c"
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tap.h"

static int ask_w, tell_r;
static pid_t template_pid;

static void on_usr1(int sig)
{
    (void)sig;
}

/* The template: the loop; a worker exits with 100 + pool * 10 + slot when
 * its parent is this test's process, 1 otherwise. */
static void run_template(int ask_r, int tell_w, pid_t reaper)
{
    struct sigaction sa;
    int eintr = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1; /* no SA_RESTART: the read is interrupted */
    sigaction(SIGUSR1, &sa, NULL);
    for (;;) {
        kd_spawn_ask got;
        int r = kd_spawn_next(ask_r, tell_w, SIGTERM, &got);
        if (r == 1)
            _exit(getppid() == reaper ? 100 + got.pool * 10 + (got.slot < 0 ? 9 : got.slot) : 1);
        if (r < 0 && errno == EINTR) {
            int32_t said = -EINTR; /* (the test waits for it) */
            eintr++;
            if (write(tell_w, &said, sizeof said) != (ssize_t)sizeof said)
                _exit(3);
            continue;
        }
        /* the asks closed: the exit status says how many signals came */
        _exit(r == 0 ? 50 + eintr : 2);
    }
}

static int32_t spawn(int32_t pool, int32_t slot)
{
    kd_spawn_ask a = {pool, slot};
    int32_t pid = 0;
    if (write(ask_w, &a, sizeof a) != (ssize_t)sizeof a)
        return -1000;
    if (read(tell_r, &pid, sizeof pid) != (ssize_t)sizeof pid)
        return -1001;
    return pid;
}

int main(void)
{
    int ask[2], tell[2], status;
    int32_t pid;

    prctl(PR_SET_CHILD_SUBREAPER, 1UL);
    if (pipe(ask) < 0 || pipe(tell) < 0)
        return 2;
    template_pid = fork();
    if (template_pid == 0) {
        close(ask[1]);
        close(tell[0]);
        run_template(ask[0], tell[1], getppid());
    }
    close(ask[0]);
    close(tell[1]);
    ask_w = ask[1];
    tell_r = tell[0];

    pid = spawn(0, 3);
    ok(pid > 0 && pid != template_pid, "a worker forked: %d", (int)pid);
    ok(waitpid(pid, &status, 0) == pid, "reaped by this process: it is its child");
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 103,
       "given its ask (pool 0, slot 3), with this process as its parent (status %d)", WEXITSTATUS(status));

    pid = spawn(2, -1);
    ok(pid > 0 && waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 129, "pool 2, no slot");

    {
        /* many in a row, reaped after: none lost, each its own */
        pid_t pids[20];
        int i, good = 0;
        for (i = 0; i < 20; i++)
            pids[i] = spawn(1, i % 9);
        for (i = 0; i < 20; i++)
            good +=
                pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] && WEXITSTATUS(status) == 110 + i % 9;
        ok(good == 20, "20 workers in a row, each reaped with its own ask (%d)", good);
    }

    /* a signal while the template waits for an ask (seen in its read) */
    {
        char path[64], buf[64];
        int i, waiting = 0;
        snprintf(path, sizeof path, "/proc/%d/syscall", (int)template_pid);
        for (i = 0; i < 5000 && !waiting; i++) {
            FILE *f = fopen(path, "r");
            if (f && fgets(buf, sizeof buf, f))
                waiting = buf[0] >= '0' && buf[0] <= '9' && atol(buf) == SYS_read; /* not "running" */
            if (f)
                fclose(f);
            if (!waiting)
                usleep(1000);
        }
        ok(waiting, "the template waits in read()");
    }
    kill(template_pid, SIGUSR1);
    {
        int32_t said = 0;
        ok(read(tell_r, &said, sizeof said) == (ssize_t)sizeof said && said == -EINTR,
           "a signal interrupts the wait: -1, EINTR");
    }
    pid = spawn(0, 1);
    ok(pid > 0 && waitpid(pid, &status, 0) == pid && WEXITSTATUS(status) == 101,
       "and the next call still forks");

    close(ask_w);
    status = 0;
    pid = waitpid(template_pid, &status, 0);
    ok(pid == template_pid && WIFEXITED(status) && WEXITSTATUS(status) == 51,
       "the asks closed: the loop returns 0, after one EINTR (status %d)", WEXITSTATUS(status));
    ok(waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD, "no process is left");
    return done_testing();
}
