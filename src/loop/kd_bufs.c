/* kd_bufs.c: read buffers. A connection borrows one when it has bytes to
 * read and gives it back once they are consumed, so an idle keep-alive
 * connection holds none; the worker keeps its last KD_BUF_KEEP free ones,
 * the last given back lent first: its pages are the ones already touched.
 * The request's header table comes with the buffer, behind its
 * KD_BUF_SIZE bytes: the headers point into those bytes and are dropped
 * with them, so a connection that holds no bytes holds no table either.
 * See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"

#include <errno.h>
#include <stdlib.h>

/* the table behind the bytes is aligned: a struct's alignment divides its size */
typedef char kd_table_aligned[KD_BUF_SIZE % sizeof(kd_header) == 0 ? 1 : -1];

char *kd_buf_get(kd_loop *l)
{
    char *b;
    if (l->nbufs > 0)
        return l->bufs[--l->nbufs];
    b = malloc(KD_BUF_SIZE + KD_MAX_HEADERS * sizeof(kd_header));
    if (!b)
        errno = ENOMEM;
    return b;
}

void kd_buf_put(kd_loop *l, char *buf)
{
    if (l->nbufs < KD_BUF_KEEP)
        l->bufs[l->nbufs++] = buf;
    else
        free(buf);
}

void kd_buf_attach(kd_conn *c, char *buf)
{
    c->in.buf = buf;
    c->req.headers = (kd_header *)(void *)(buf + KD_BUF_SIZE);
}

int kd_buf_take(kd_loop *l, kd_conn *c)
{
    char *b;
    if (c->in.buf)
        return 0;
    if (!(b = kd_buf_get(l)))
        return -1;
    kd_buf_attach(c, b);
    c->in.len = c->in.pos = 0;
    return 0;
}

void kd_buf_give(kd_loop *l, kd_conn *c)
{
    c->in.len = c->in.pos = 0;
    c->req.num_headers = 0;
    c->req.headers = NULL;
    if (!c->in.buf)
        return;
    kd_buf_put(l, c->in.buf);
    c->in.buf = NULL;
}
