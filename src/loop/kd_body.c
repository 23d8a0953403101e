/* kd_body.c: request bodies: spooled by the loop, or read by the worker (chunked decoded). See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

/* Moves the unconsumed bytes to the start of the buffer, making room for
 * more behind them. */
void kd_compact(kd_conn *c)
{
    if (c->in.pos > 0) {
        memmove(c->in.buf, c->in.buf + c->in.pos, c->in.len - c->in.pos);
        c->in.len -= c->in.pos;
        c->in.pos = 0;
    }
}

/* When a body that has delivered `got` bytes times out: --read-timeout
 * after the last read, and never later than --read-timeout plus the time
 * the bytes so far are worth at --min-body-rate (mod_reqtimeout's rule), so
 * a body trickled a byte at a time cannot hold on for ever. */
double kd_body_deadline(const kd_loop *l, const kd_conn *c, double now, int64_t got)
{
    double d = now + l->read_timeout;
    if (l->min_body_rate > 0) {
        double total = c->body.start + l->read_timeout + (double)got / l->min_body_rate;
        if (total < d)
            d = total;
    }
    return d;
}

/* Spools a request body to a temporary file as it arrives (a chunked one
 * decoded), the head (head_len bytes) staying at the start of the buffer;
 * what follows the body (a pipelined request) stays behind the head. 1
 * when the whole body is in the file; 0 when more is to come (the
 * connection is watched, its deadline set) or the request was answered
 * with an error (400 malformed chunk, 413 over --max-request-body, 500
 * the file failed); 2 when no temporary file can be made (the worker then
 * reads the body itself). */
#define SPOOL_FAILED "can't write the request body to a temporary file"

int kd_spool_body(kd_loop *l, kd_conn *c, size_t head_len)
{
    double now = kd_now();
    size_t have, take;
    if (c->body.in_file)
        return 1;
    kd_compact(c);
    if (c->body.fd < 0) {
        if ((c->body.fd = kd_temp_file()) < 0)
            return 2;
        c->body.got = 0;
        if (c->req.chunked)
            kd_chunked_init(&c->body.chunk);
        if (c->body.start == 0)
            c->body.start = now;
    }
    have = c->in.len - head_len;
    if (c->req.chunked) {
        /* decoded in place (output never overtakes input), then saved */
        size_t out_len = 0;
        long used = kd_chunked_decode(&c->body.chunk, c->in.buf + head_len, have, c->in.buf + head_len, &out_len);
        if (used < 0) {
            kd_conn_error(l, c, 400);
            return 0;
        }
        if (l->max_body > 0 && c->body.got + (int64_t)out_len > l->max_body) {
            kd_conn_error(l, c, 413);
            return 0;
        }
        if (kd_write_file(c->body.fd, c->in.buf + head_len, out_len) != 0) {
            kd_note_fault(l, c, SPOOL_FAILED, errno, kd_temp_dir());
            kd_conn_error(l, c, 500);
            return 0;
        }
        c->body.got += (int64_t)out_len;
        take = (size_t)used;
    } else {
        take = (int64_t)have > c->req.content_length - c->body.got ?
               (size_t)(c->req.content_length - c->body.got) : have;
        if (kd_write_file(c->body.fd, c->in.buf + head_len, take) != 0) {
            kd_note_fault(l, c, SPOOL_FAILED, errno, kd_temp_dir());
            kd_conn_error(l, c, 500);
            return 0;
        }
        c->body.got += (int64_t)take;
    }
    memmove(c->in.buf + head_len, c->in.buf + head_len + take, have - take);
    c->in.len -= take;
    if (c->req.chunked ? c->body.chunk.done : c->body.got == c->req.content_length) {
        c->body.in_file = 1;
        return 1;
    }
    c->deadline = kd_body_deadline(l, c, now, c->body.got);
    if (kd_watch(l, c) != 0)
        kd_conn_close(l, c);
    return 0;
}

int kd_conn_body_file(kd_conn *c)
{
    return c->body.in_file ? c->body.fd : -1;
}

/* Waits for more body bytes: 0, or -1 with errno set. */
static int fill_body(kd_loop *l, kd_conn *c)
{
    for (;;) {
        int rv = kd_fill(l, c);
        double now, wait;
        if (rv == 1)
            return 0;
        if (rv < 0) {
            errno = ECONNRESET;
            return -1;
        }
        now = kd_now();
        wait = kd_body_deadline(l, c, now, c->body.chunked ? c->body.read :
                             c->req.content_length - c->body.left) - now;
        rv = wait > 0 ? kd_wait(c->fd, POLLIN, wait) : 0;
        if (rv == 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        if (rv < 0)
            return -1;
    }
}

/* The body has been read: the app has it. */
static void body_done(kd_loop *l)
{
    if (l->sb && l->sb->state == KD_SB_READING)
        kd_sb_set_state(l->sb, KD_SB_APP);
}

ssize_t kd_conn_read_body(kd_loop *l, kd_conn *c, char *dst, size_t max)
{
    if (l->sb && l->sb->state == KD_SB_APP && (c->body.left > 0 || (c->body.chunked && !c->body.chunk.done)))
        kd_sb_set_state(l->sb, KD_SB_READING);     /* the app reads it (Expect) */
    if (c->body.expect_continue) {
        /* the body is wanted: tell the client to send it (RFC 9110 10.1.1) */
        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
        struct iovec iov;
        c->body.expect_continue = 0;
        iov.iov_base = (void *)cont;
        iov.iov_len = sizeof cont - 1;
        if (c->in.pos == c->in.len && kd_write_all(l, c->fd, &iov, 1) != 0)
            return -1;
        c->body.start = kd_now();
    }
    if (!c->body.chunked) {
        size_t n;
        if (c->body.left == 0 || max == 0) {
            if (c->body.left == 0)
                body_done(l);
            return 0;
        }
        if (c->in.pos == c->in.len && fill_body(l, c) != 0)
            return -1;
        n = c->in.len - c->in.pos;
        if ((int64_t)n > c->body.left)
            n = (size_t)c->body.left;
        if (n > max)
            n = max;
        memcpy(dst, c->in.buf + c->in.pos, n);
        c->in.pos += n;
        c->body.left -= (int64_t)n;
        if (c->body.left == 0)
            body_done(l);
        return (ssize_t)n;
    }
    for (;;) {
        size_t avail, out_len = 0;
        long used;
        if (c->body.chunk.done || max == 0) {
            if (c->body.chunk.done)
                body_done(l);
            return 0;
        }
        if (c->in.pos == c->in.len && fill_body(l, c) != 0)
            return -1;
        avail = c->in.len - c->in.pos;
        if (avail > max)
            avail = max;              /* decoded output never exceeds input */
        used = kd_chunked_decode(&c->body.chunk, c->in.buf + c->in.pos, avail, dst, &out_len);
        if (used < 0) {
            errno = EINVAL;
            return -1;
        }
        c->in.pos += (size_t)used;
        c->body.read += (int64_t)out_len;
        if (l->max_body > 0 && c->body.read > l->max_body) {
            errno = EFBIG;
            return -1;
        }
        if (c->body.chunk.done)
            body_done(l);
        if (out_len > 0 || c->body.chunk.done)
            return (ssize_t)out_len;
    }
}
