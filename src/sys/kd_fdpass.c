/* kd_fdpass.c: a message with at most one descriptor. See kd_fdpass.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

ssize_t kd_fdpass_send(int sock, struct iovec *iov, int iovcnt, int fd)
{
    struct msghdr m;
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
    ssize_t n;

    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = iovcnt;
    if (fd >= 0) {
        struct cmsghdr *cm;
        memset(&ctl, 0, sizeof ctl);
        m.msg_control = ctl.buf;
        m.msg_controllen = sizeof ctl.buf;
        cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    }
    do {
        n = sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
}

ssize_t kd_fdpass_recv(int sock, struct iovec *iov, int iovcnt, int *fd, int *flags)
{
    struct msghdr m;
    /* room for a few, so that extra ones arrive and are closed, not leaked */
    union { char buf[CMSG_SPACE(sizeof(int) * 4)]; struct cmsghdr align; } ctl;
    struct cmsghdr *cm;
    ssize_t n;

    *fd = -1;
    *flags = 0;
    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = iovcnt;
    m.msg_control = ctl.buf;
    m.msg_controllen = sizeof ctl.buf;
    do {
        n = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        size_t k, nfds;
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (k = 0; k < nfds; k++) {
            int x;
            memcpy(&x, CMSG_DATA(cm) + k * sizeof(int), sizeof x);
            if (*fd < 0)
                *fd = x;
            else
                close(x);
        }
    }
    *flags = m.msg_flags;
    return n;
}
