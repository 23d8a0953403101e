/* kd_answer.c: the answers the loop gives itself: a canned error
 * (kd_conn_error), the access log's record of it, and the lingering
 * close after it. See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_answer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define LINGER 2.0              /* seconds; see kd_conn_error */

int kd_loop_log_answers(kd_loop *l)
{
    if (!l->answers && !(l->answers = malloc(sizeof *l->answers * KD_MAX_ANSWERS)))
        return -1;
    return 0;
}

/* c's request line as far as it came, at most cap bytes, into out: its length. */
static size_t request_line(const kd_conn *c, char *out, size_t cap)
{
    const char *p, *e;
    size_t n = 0;
    if (!c->in.buf)
        return 0;
    p = c->in.buf + c->in.pos;
    e = c->in.buf + c->in.len;
    while (p + n < e && n < cap && p[n] != '\r' && p[n] != '\n')
        n++;
    memcpy(out, p, n);
    return n;
}

/* Keeps what the access log says of a request the loop answers itself. */
static void keep_answer(kd_loop *l, const kd_conn *c, int status, int64_t bytes)
{
    kd_answer *a;
    if (l->nanswers == KD_MAX_ANSWERS) {
        l->answers_lost++;
        return;
    }
    a = &l->answers[l->nanswers++];
    a->status = status;
    a->listener = c->listener;
    a->remote_port = c->remote_port;
    a->bytes = bytes;
    a->time = kd_wall();
    memcpy(a->remote_addr, c->remote_addr, sizeof a->remote_addr);
    a->line_len = request_line(c, a->line, KD_ANSWER_LINE);
}

void kd_note_fault(kd_loop *l, const kd_conn *c, const char *what, int err, const char *path)
{
    kd_fault *f;
    if (l->nfaults == KD_MAX_FAULTS) {
        l->faults_lost++;
        return;
    }
    f = &l->faults[l->nfaults++];
    f->what = what;
    f->err = err;
    memcpy(f->remote_addr, c->remote_addr, sizeof f->remote_addr);
    snprintf(f->path, sizeof f->path, "%s", path ? path : "");
    f->line_len = request_line(c, f->line, KD_FAULT_TEXT);
}

/* After an error the connection is never reused, since where the next
 * request starts is unknown. */
void kd_conn_error(kd_loop *l, kd_conn *c, int status)
{
    char head[256];
    const char *reason = kd_reason(status);
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
                     "Content-Length: %d\r\nConnection: close\r\nDate: %s\r\n\r\n%s\n",
                     status, reason, (int)strlen(reason) + 1, kd_date(l), reason);
    struct iovec iov;
    iov.iov_base = head;
    iov.iov_len = (size_t)n;
    if (c->pend.route)
        kd_unpend(l, c);
    kd_stream_off(l, c);
    if (l->sb)                              /* (a head the loop refused took no time) */
        kd_sb_done(l->sb, status, c->serving ? kd_now() - l->sb->started : 0);
    if (l->answers && !c->serving)          /* (the worker logs its own requests) */
        keep_answer(l, c, status, (int64_t)strlen(reason) + 1);
    kd_unserve(l, c);
    c->in.pos = c->in.len = 0;              /* what is left unread is never parsed */
    if (kd_write_all(l, c->fd, &iov, 1) != 0 || shutdown(c->fd, SHUT_WR) != 0) {
        kd_conn_close(l, c);
        return;
    }
    /* Closing with unread input would send a reset, and the client could
     * lose the answer with it: read and drop what it still sends for a
     * little while (the sweep closes it at the deadline). */
    c->lingering = 1;
    c->deadline = kd_now() + LINGER;
    if (kd_watch(l, c) != 0)
        kd_conn_close(l, c);
}

/* Reads and drops input on a lingering connection; closes it at EOF. At
 * most 16 buffers an event, so a client sending fast cannot hold the
 * loop (and the sweep closes it at its deadline). */
void kd_linger_read(kd_loop *l, kd_conn *c)
{
    int rv, i = 0;
    while ((rv = kd_fill(l, c)) == 1 && ++i < 16)
        c->in.pos = c->in.len = 0;
    kd_buf_give(l, c);
    if (rv < 0)
        kd_conn_close(l, c);
}
