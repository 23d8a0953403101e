/* kd_bufs.c: read buffers. A connection borrows one when it has bytes to
 * read and gives it back once they are consumed, so an idle keep-alive
 * connection holds none; the worker keeps its last KD_BUF_KEEP free ones,
 * the last given back lent first: its pages are the ones already touched.
 * See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_conn_int.h"

#include <errno.h>
#include <stdlib.h>

char *kd_buf_get(kd_loop *l)
{
    char *b;
    if (l->nbufs > 0)
        return l->bufs[--l->nbufs];
    b = malloc(KD_BUF_SIZE);
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

int kd_buf_take(kd_loop *l, kd_conn *c)
{
    if (c->in.buf)
        return 0;
    if (!(c->in.buf = kd_buf_get(l)))
        return -1;
    c->in.len = c->in.pos = 0;
    return 0;
}

void kd_buf_give(kd_loop *l, kd_conn *c)
{
    c->in.len = c->in.pos = 0;
    if (!c->in.buf)
        return;
    kd_buf_put(l, c->in.buf);
    c->in.buf = NULL;
}
