/* kd_sys.c: the one clock, waits and temporary files. See kd_sys.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double kd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double kd_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int kd_wait(int fd, short events, double timeout)
{
    double deadline = kd_now() + timeout;
    for (;;) {
        struct pollfd p;
        double left = deadline - kd_now();
        int rv;
        if (left <= 0)
            return 0;
        p.fd = fd;
        p.events = events;
        p.revents = 0;
        /* round up so a fractional timeout never becomes a busy loop */
        rv = poll(&p, 1, (int)(left * 1000.0) + 1);
        if (rv > 0)
            return 1;                     /* ready, or an error the I/O call will report */
        if (rv == 0)
            continue;                     /* recheck the deadline */
        if (errno != EINTR)
            return -1;
    }
}

/* Where temporary files go: $TMPDIR, or /tmp. */
const char *kd_temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* An unlinked temporary file in kd_temp_dir(), or -1. O_TMPFILE never
 * leaves a name behind; file systems without it (older overlayfs) get a
 * named file, unlinked at once. */
int kd_temp_file(void)
{
    const char *dir = kd_temp_dir();
    char path[4096];
    int fd;
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (size_t)snprintf(path, sizeof path, "%s/kamado-XXXXXX", dir) >= sizeof path)
        return fd;
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* Writes all of buf to fd: 0 or -1. */
int kd_write_file(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}
