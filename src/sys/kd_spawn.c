/* kd_spawn.c: the worker template's fork loop (see kd_spawn.h). */
#include "kd_spawn.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A read or write of exactly n bytes, retried on EINTR: 1, or 0 at an
 * end or error. */
static int spawn_io(int fd, void *buf, size_t n, int writing)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        p += r;
        n -= (size_t)r;
    }
    return 1;
}

/* Forks the worker through a first child, with every signal blocked
 * meanwhile. Returns 0 in the worker (once its parent is the subreaper:
 * see kd_spawn_next), its pid in the template, -errno. */
static int32_t spawn_orphan(int deathsig)
{
    int sv[2];
    int32_t pid = 0;
    sigset_t all, old;
    pid_t first, reaper = getppid();

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -errno;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    first = fork();
    if (first < 0)
        pid = -errno;
    if (first == 0) {
        pid_t worker;
        close(sv[0]);
        worker = fork();
        if (worker != 0) {
            int32_t said = worker > 0 ? (int32_t)worker : -errno;
            _exit(spawn_io(sv[1], &said, sizeof said, 1) ? 0 : 1);
        }
        /* the worker: on once the template has reaped the first child */
        {
            char go;
            int ok = spawn_io(sv[1], &go, 1, 0);
            close(sv[1]);
            if (!ok)
                _exit(0); /* the template went */
        }
        /* the template's parent, now this process's: the worker goes with
         * it, and at once if it went already */
        if (prctl(PR_SET_PDEATHSIG, (unsigned long)deathsig) != 0 || getppid() != reaper)
            _exit(0);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 0;
    }
    close(sv[1]);
    if (first > 0) {
        if (!spawn_io(sv[0], &pid, sizeof pid, 0))
            pid = -ECHILD;
        while (waitpid(first, NULL, 0) < 0 && errno == EINTR)
            ;
        if (pid > 0 && !spawn_io(sv[0], "g", 1, 1))
            pid = -EPIPE;
    }
    close(sv[0]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return pid;
}

int kd_spawn_next(int ask, int tell, int deathsig, kd_spawn_ask *got)
{
    for (;;) {
        ssize_t r = read(ask, got, sizeof *got);
        int32_t pid;
        if (r < 0 && errno == EINTR)
            return -1;
        if (r != (ssize_t)sizeof *got)
            return 0; /* the generation's end closed (asks are written whole) */
        pid = spawn_orphan(deathsig);
        if (pid == 0) {
            close(ask);
            close(tell);
            return 1;
        }
        if (!spawn_io(tell, &pid, sizeof pid, 1))
            return 0;
    }
}
