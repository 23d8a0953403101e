/* kd_fdpass.h: a message with at most one descriptor over a unix socket.
 *
 * Plain C99 + Linux, no perl.h. The pools hand connections to other
 * workers this way, and the supervisor hands scoreboards to the status
 * process. Both calls are non-blocking and retried on EINTR.
 */
#ifndef KD_FDPASS_H
#define KD_FDPASS_H

#include <sys/types.h>
#include <sys/uio.h>

/* sendmsg of iov, with fd attached by SCM_RIGHTS unless fd < 0. */
ssize_t kd_fdpass_send(int sock, struct iovec *iov, int iovcnt, int fd);

/* recvmsg into iov. *fd is the descriptor received, close-on-exec, or -1;
 * any more than one are closed (a peer never sends more). *flags gets
 * the message's flags (MSG_TRUNC, MSG_CTRUNC). */
ssize_t kd_fdpass_recv(int sock, struct iovec *iov, int iovcnt, int *fd, int *flags);

#endif
