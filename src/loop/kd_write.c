/* kd_write.c: responses: blocking writes, and the rests the loop sends for slow readers. See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"
#include "kd_keepalive.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

/* Releases the response bytes c holds for the loop to send, sent or not. */
static void out_release(kd_loop *l, kd_conn *c)
{
    if (c->out.fd >= 0) {
        l->spool_total -= c->out.spooled;
        c->out.spooled = 0;
        close(c->out.fd);
        c->out.fd = -1;
    }
    if (c->out.buf) {
        l->out_total -= c->out.len;
        free(c->out.buf);
        c->out.buf = NULL;
    }
    c->stream.cap = 0;
    c->out.len = c->out.off = 0;
    c->out.flushing = 0;
}

/* Releases what a request held beyond the connection buffer: a spooled
 * body, and deferred output, sent or not. */
void kd_drop_request_files(kd_loop *l, kd_conn *c)
{
    if (c->body.fd >= 0) {              /* a spooled request body, too */
        close(c->body.fd);
        c->body.fd = -1;
    }
    c->body.in_file = 0;
    out_release(l, c);
}

/* sendfile(2) moves at most about 2 GiB a call */
#define SENDFILE_MAX ((int64_t)1 << 30)

static size_t file_left(int64_t off, int64_t end)
{
    return (size_t)(end - off > SENDFILE_MAX ? SENDFILE_MAX : end - off);
}

/* Sends what the socket takes now of the bytes c holds, without waiting,
 * and releases them once all are sent (c->out.flushing is then 0).
 * Returns the bytes sent, or -1 when the client is gone (errno set). */
static int64_t out_send_now(kd_loop *l, kd_conn *c)
{
    int64_t total = 0;
    for (;;) {
        ssize_t n;
        if (c->out.off < c->out.len) {
            n = send(c->fd, c->out.buf + c->out.off, c->out.len - c->out.off, MSG_NOSIGNAL);
            if (n > 0)
                c->out.off += (size_t)n;
        } else if (c->out.fd >= 0 && c->out.file_off < c->out.file_end) {
            off_t off = (off_t)c->out.file_off;
            n = sendfile(c->fd, c->out.fd, &off, file_left(c->out.file_off, c->out.file_end));
            if (n == 0)
                n = -1, errno = EIO;  /* the file shrank: the body cannot be whole */
            if (n > 0)
                c->out.file_off += n;
        } else {
            out_release(l, c);
            return total;
        }
        kd_count_out(l, n);
        if (n > 0) {
            total += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return total;             /* the socket is full */
        return -1;
    }
}

static int out_drain(kd_loop *l, kd_conn *c);

/* Sends deferred output; once it is all out, finishes the request (unless
 * it is still being served: a streamed response's next piece or its end
 * comes from the worker). */
void kd_flush_out(kd_loop *l, kd_conn *c)
{
    int64_t n = out_send_now(l, c);
    if (n < 0) {
        kd_conn_close(l, c);
        return;
    }
    if (n > 0)
        c->deadline = kd_now() + l->write_timeout;   /* progress */
    if (c->out.flushing || c->serving)
        return;                       /* EPOLLOUT calls again */
    kd_drop_request_files(l, c);
    if (kd_watch_for(l, c, 0) != 0) {
        kd_conn_close(l, c);
        return;
    }
    kd_finish_now(l, c, c->out.keepalive);
}

/* The pieces of a small write copied together, sent with send(): the
 * kernel takes one buffer for less than several (sendmsg copies in the
 * iovec and walks it), more than the copy here costs. */
#define COALESCE_MAX 8192

ssize_t kd_send_iov(int fd, const struct iovec *iov, int iovcnt, int flags)
{
    struct msghdr m;
    if (iovcnt == 1)
        return send(fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL | flags);
    if (iovcnt <= 8) {
        char buf[COALESCE_MAX], *p = buf;
        size_t total = 0;
        int i;
        for (i = 0; i < iovcnt; i++)
            total += iov[i].iov_len;
        if (total <= COALESCE_MAX) {
            for (i = 0; i < iovcnt; i++) {
                memcpy(p, iov[i].iov_base, iov[i].iov_len);
                p += iov[i].iov_len;
            }
            return send(fd, buf, total, MSG_NOSIGNAL | flags);
        }
    }
    memset(&m, 0, sizeof m);
    m.msg_iov = (struct iovec *)iov;
    m.msg_iovlen = (size_t)(iovcnt > 1024 ? 1024 : iovcnt);
    return sendmsg(fd, &m, MSG_NOSIGNAL | flags);
}

int kd_write_all(kd_loop *l, int fd, struct iovec *iov, int iovcnt)
{
    while (iovcnt > 0) {
        ssize_t n = kd_send_iov(fd, iov, iovcnt, 0);
        kd_count_out(l, n);
        if (n > 0)
            l->sent += (uint64_t)n;
        if (n < 0) {
            int rv;
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return -1;
            rv = kd_wait(fd, POLLOUT, l->write_timeout);
            if (rv == 0)
                errno = ETIMEDOUT;
            if (rv <= 0)
                return -1;
            continue;
        }
        while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            iov++;
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

static int write_more(kd_loop *l, kd_conn *c, struct iovec *iov, int iovcnt, int flags);

/* A response's last bytes are held as kd_write_more holds any: after
 * what the connection holds already, in the same bounds. When the
 * connection closes after them (kd_conn_finish follows, and closes at
 * once what it does not keep), they go with MSG_MORE: the close's FIN
 * then leaves in their last packet instead of one of its own. (What
 * the socket does not take now is sent later without it, pushing all.) */
int kd_write_last(kd_loop *l, kd_conn *c, struct iovec *iov, int iovcnt)
{
    kd_stream_off(l, c);
    return write_more(l, c, iov, iovcnt, kd_frame_keep(&c->frame) ? 0 : MSG_MORE);
}

/* Waits (up to write_timeout without progress) until c holds no bytes.
 * 0, or -1 with errno set. */
static int out_drain(kd_loop *l, kd_conn *c)
{
    while (c->out.flushing) {
        int64_t n = out_send_now(l, c);
        int rv;
        if (n < 0)
            return -1;
        if (!c->out.flushing)
            break;
        rv = kd_wait(c->fd, POLLOUT, l->write_timeout);
        if (rv == 0)
            errno = ETIMEDOUT;
        if (rv <= 0)
            return -1;
    }
    return 0;
}

/* Adds left bytes of iov to what c holds: in memory while c's share fits
 * write_buffer and the worker's 32 of them, else in c's temporary file
 * (the worker's 256 of them). -1 when neither has room. */
static int out_hold(kd_loop *l, kd_conn *c, const struct iovec *iov, int iovcnt, size_t left)
{
    size_t held = c->out.len - c->out.off;
    int i;
    if (c->out.fd < 0 && held + left <= l->write_buffer && l->out_total + left <= 32 * l->write_buffer) {
        char *p;
        if (c->out.off > 0) {
            memmove(c->out.buf, c->out.buf + c->out.off, held);
            l->out_total -= c->out.off;
            c->out.len = held;
            c->out.off = 0;
        }
        p = realloc(c->out.buf, held + left);
        if (p) {
            c->out.buf = p;
            for (p += held, i = 0; i < iovcnt; i++) {
                memcpy(p, iov[i].iov_base, iov[i].iov_len);
                p += iov[i].iov_len;
            }
            c->out.len = held + left;
            l->out_total += left;
            return 0;
        }
    }
    /* (a descriptor without spooled bytes is the app's file: it ends a
     * response, nothing follows it) */
    if (l->write_buffer > 0 && l->spool_total + left <= 256 * l->write_buffer &&
        (c->out.fd < 0 || c->out.spooled > 0)) {
        int fresh = c->out.fd < 0;
        if (fresh) {
            if ((c->out.fd = kd_temp_file()) < 0)
                return -1;
            c->out.file_off = c->out.file_end = 0;
        }
        for (i = 0; i < iovcnt; i++)
            if (kd_write_file(c->out.fd, iov[i].iov_base, iov[i].iov_len) != 0)
                break;
        if (i == iovcnt) {
            c->out.file_end += (int64_t)left;
            c->out.spooled += left;
            l->spool_total += left;
            return 0;
        }
        /* a full disk: what was written is taken back */
        if (fresh) {
            close(c->out.fd);
            c->out.fd = -1;
        } else if (ftruncate(c->out.fd, (off_t)c->out.file_end) != 0 ||
                   lseek(c->out.fd, (off_t)c->out.file_end, SEEK_SET) < 0) {
            return -1;
        }
    }
    return -1;
}

int kd_write_more(kd_loop *l, kd_conn *c, struct iovec *iov, int iovcnt)
{
    return write_more(l, c, iov, iovcnt, 0);
}

static int write_more(kd_loop *l, kd_conn *c, struct iovec *iov, int iovcnt, int flags)
{
    size_t left = 0;
    int i;

    if (c->out.flushing && out_send_now(l, c) < 0)
        return -1;
    if (!c->out.flushing) {
        ssize_t n;
        do {
            n = kd_send_iov(c->fd, iov, iovcnt, flags);
        } while (n < 0 && errno == EINTR);
        kd_count_out(l, n);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        if (n < 0)
            n = 0;
        l->sent += (uint64_t)n;
        while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            iov++;
            iovcnt--;
        }
        if (iovcnt == 0)
            return 0;                 /* the usual case: all taken at once */
        iov->iov_base = (char *)iov->iov_base + n;
        iov->iov_len -= (size_t)n;
    }
    for (i = 0; i < iovcnt; i++)
        left += iov[i].iov_len;
    if (out_hold(l, c, iov, iovcnt, left) == 0) {
        l->sent += left;              /* the loop's to send now */
        c->out.flushing = 1;
        return 0;
    }
    /* past the bounds: the worker waits, as kd_write_all does */
    if (out_drain(l, c) != 0)
        return -1;
    return kd_write_all(l, c->fd, iov, iovcnt);
}

int kd_write_file_last(kd_loop *l, kd_conn *c, const char *head, size_t hlen,
                       int in_fd, int64_t off, int64_t len)
{
    size_t sent = 0;
    ssize_t n;
    int fd;
    char *rest = NULL;

    kd_stream_off(l, c);
    if (c->out.flushing && out_drain(l, c) != 0)
        return -1;                    /* (what is held goes first) */

    /* the head marked as more to come: it shares a packet with the file's
     * first bytes */
    while (sent < hlen) {
        n = send(c->fd, head + sent, hlen - sent, MSG_NOSIGNAL | (len > 0 ? MSG_MORE : 0));
        kd_count_out(l, n);
        if (n > 0) {
            sent += (size_t)n;
            l->sent += (uint64_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        return -1;
    }
    while (sent == hlen && len > 0) {
        off_t o = (off_t)off;
        n = sendfile(c->fd, in_fd, &o, file_left(off, off + len));
        kd_count_out(l, n);
        if (n > 0) {
            off += n;
            len -= n;
            l->sent += (uint64_t)n;
            continue;
        }
        if (n == 0) {
            errno = EIO;              /* the file is shorter than its length */
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        return -1;
    }
    if (sent == hlen && len == 0)
        return 0;                     /* all taken at once */
    /* the rest goes to the loop: the file as a descriptor of its own */
    fd = len > 0 ? fcntl(in_fd, F_DUPFD_CLOEXEC, 0) : -1;
    if ((len > 0 && fd < 0) || (sent < hlen && !(rest = malloc(hlen - sent)))) {
        struct iovec iov;
        if (fd >= 0)
            close(fd);
        iov.iov_base = (char *)head + sent;
        iov.iov_len = hlen - sent;
        if (sent < hlen && kd_write_all(l, c->fd, &iov, 1) != 0)
            return -1;
        return len > 0 ? kd_sendfile_all(l, c->fd, in_fd, (off_t)off, (size_t)len) : 0;
    }
    l->sent += (hlen - sent) + (uint64_t)len;   /* the loop's to send now */
    if (rest) {
        memcpy(rest, head + sent, hlen - sent);
        c->out.buf = rest;
        c->out.len = hlen - sent;
        c->out.off = 0;
        l->out_total += c->out.len;
    }
    if (fd >= 0) {
        c->out.fd = fd;
        c->out.file_off = off;
        c->out.file_end = off + len;
        c->out.spooled = 0;           /* the app's file: no temporary space */
    }
    c->out.flushing = 1;
    return 0;
}

int kd_sendfile_all(kd_loop *l, int out_fd, int in_fd, off_t off, size_t len)
{
    while (len > 0) {
        ssize_t n = sendfile(out_fd, in_fd, &off, len);
        kd_count_out(l, n);
        if (n > 0) {
            len -= (size_t)n;
            l->sent += (uint64_t)n;
            continue;
        }
        if (n == 0) {
            errno = EIO;              /* the file shrank under us */
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int rv = kd_wait(out_fd, POLLOUT, l->write_timeout);
            if (rv == 0)
                errno = ETIMEDOUT;
            if (rv <= 0)
                return -1;
            continue;
        }
        return -1;
    }
    return 0;
}
