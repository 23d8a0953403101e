/* kd_sys.h: system helpers every layer may use (kd_sys.c): the one
 * clock, a bounded wait on a descriptor, and temporary files.
 *
 * Plain C99 + Linux, no perl.h. */
#ifndef KD_SYS_H
#define KD_SYS_H

#include <stddef.h>

/* Seconds on CLOCK_MONOTONIC, for deadlines and durations. */
double kd_now(void);

/* Epoch seconds (CLOCK_REALTIME), for logs. */
double kd_wall(void);

/* Waits for fd to become ready for events (POLLIN/POLLOUT) for at most
 * timeout seconds, resuming after signals. 1 ready, 0 timed out, -1 error. */
int kd_wait(int fd, short events, double timeout);

/* Where temporary files go: $TMPDIR, or /tmp. */
const char *kd_temp_dir(void);

/* An unlinked temporary file in kd_temp_dir(), or -1 with errno set. */
int kd_temp_file(void);

/* Writes all of buf to fd: 0, or -1 with errno set. */
int kd_write_file(int fd, const char *buf, size_t n);

#endif
