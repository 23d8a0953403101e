/* kd_myreset.c: the MariaDB/MySQL session reset's packets (kd_myreset.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                    /* MSG_DONTWAIT, MSG_NOSIGNAL */
#endif
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include "kd_myreset.h"

/* A packet: 3 bytes of length (little-endian), a sequence number (0: each
 * command starts its own exchange), the payload. */
static size_t put_packet(char *out, size_t cap, size_t at, unsigned char command, const char *arg,
                         size_t arglen)
{
    size_t len = 1 + arglen;
    if (len > 0xffffff || at > cap || cap - at < 4 + len)
        return 0;
    out[at] = (char)(len & 0xff);
    out[at + 1] = (char)((len >> 8) & 0xff);
    out[at + 2] = (char)((len >> 16) & 0xff);
    out[at + 3] = 0;
    out[at + 4] = (char)command;
    if (arglen)
        memcpy(out + at + 5, arg, arglen);
    return at + 4 + len;
}

size_t kd_myreset_build(char *out, size_t cap, const char *db, size_t dblen, const char *const *sql,
                        const size_t *sqllen, unsigned nsql, unsigned *count)
{
    size_t at = put_packet(out, cap, 0, KD_MY_COM_RESET_CONNECTION, NULL, 0);
    unsigned n = 1, i;
    if (at && dblen) {
        at = put_packet(out, cap, at, KD_MY_COM_INIT_DB, db, dblen);
        n++;
    }
    for (i = 0; at && i < nsql; i++) {
        at = put_packet(out, cap, at, KD_MY_COM_QUERY, sql[i], sqllen[i]);
        n++;
    }
    *count = at ? n : 0;
    return at;
}

long kd_myreset_answers(const char *buf, size_t len, unsigned *want)
{
    const unsigned char *b = (const unsigned char *)buf;
    size_t at = 0;
    while (*want && len - at >= 4) {
        size_t size = (size_t)b[at] | (size_t)b[at + 1] << 8 | (size_t)b[at + 2] << 16;
        if (len - at - 4 < size)
            break;
        /* an OK packet starts with 0x00 (an ERR with 0xff) */
        if (size == 0 || b[at + 4] != 0x00)
            return -1;
        at += 4 + size;
        (*want)--;
    }
    return (long)at;
}

static int wait_for(int fd, short events, int timeout_ms)
{
    struct pollfd p;
    int n;
    p.fd = fd;
    p.events = events;
    p.revents = 0;
    do
        n = poll(&p, 1, timeout_ms);
    while (n < 0 && errno == EINTR);
    return n == 1 ? 0 : -1;
}

int kd_myreset_send(int fd, const char *buf, size_t len, int timeout_ms)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_for(fd, POLLOUT, timeout_ms) != 0)
                return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

int kd_myreset_settle(int fd, unsigned want, int timeout_ms)
{
    /* (each answer is an OK packet of a few bytes; an ERR carries a message) */
    char buf[4096];
    size_t have = 0;
    while (want) {
        ssize_t n = recv(fd, buf + have, sizeof buf - have, MSG_DONTWAIT);
        if (n > 0) {
            long used;
            have += (size_t)n;
            used = kd_myreset_answers(buf, have, &want);
            if (used < 0)
                return -1;
            memmove(buf, buf + used, have - (size_t)used);
            have -= (size_t)used;
            if (want && have == sizeof buf)
                return -1;    /* an answer larger than an OK can be */
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_for(fd, POLLIN, timeout_ms) != 0)
                return -1;
        } else {
            return -1;    /* the end of the stream: the server closed it */
        }
    }
    /* nothing the server sent may be left: the driver reads next */
    return have ? -1 : 0;
}
