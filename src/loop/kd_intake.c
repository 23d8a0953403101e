/* kd_intake.c: connection intake: accept, a connection's slot, the
 * PROXY protocol stage and whether the peer is a trusted proxy
 * (kd_loop_set_proxies). See kd_conn.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_intake.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* *list (of *n) becomes a copy of the nblocks blocks: 0, or -1 (the list
 * unchanged) */
static int set_blocks(kd_cidr **list, int *n, const kd_cidr *blocks, int nblocks)
{
    kd_cidr *copy = NULL;
    if (nblocks < 0) {
        errno = EINVAL;
        return -1;
    }
    if (nblocks > 0) {
        if (!(copy = malloc(sizeof *copy * (size_t)nblocks)))
            return -1;
        memcpy(copy, blocks, sizeof *copy * (size_t)nblocks);
    }
    free(*list);
    *list = copy;
    *n = nblocks;
    return 0;
}

int kd_loop_set_proxies(kd_loop *l, const kd_cidr *blocks, int nblocks, int trust_unix,
                        const unsigned char *proxy_protocol, int n)
{
    if (n < 0 || n > l->nlisteners) {
        errno = EINVAL;
        return -1;
    }
    if (set_blocks(&l->trusted, &l->ntrusted, blocks, nblocks) != 0)
        return -1;
    l->trust_unix = trust_unix;
    memset(l->proxy_protocol, 0, sizeof l->proxy_protocol);
    if (n > 0)
        memcpy(l->proxy_protocol, proxy_protocol, (size_t)n);
    return 0;
}

int kd_loop_set_proxy_sources(kd_loop *l, const kd_cidr *blocks, int nblocks, int unix_ok)
{
    if (set_blocks(&l->proxy_from, &l->nproxy_from, blocks, nblocks) != 0)
        return -1;
    l->proxy_from_unix = unix_ok;
    l->proxy_from_set = 1;
    return 0;
}

/* Slot for fd; connection structs are reused, and read buffers come from
 * the worker's free ones (kd_bufs.c), so a connection costs no allocation
 * once the worker is warm. */
static kd_conn *conn_slot(kd_loop *l, int fd)
{
    kd_conn *c;
    if (fd >= l->conns_cap) {
        int cap = l->conns_cap ? l->conns_cap : 64, i;
        kd_conn **nc;
        int *nq;
        while (cap <= fd)
            cap *= 2;
        nc = realloc(l->conns, sizeof *nc * (size_t)cap);
        if (!nc)
            return NULL;
        for (i = l->conns_cap; i < cap; i++)
            nc[i] = NULL;
        l->conns = nc;
        /* the ready queue never holds more than one entry per fd */
        nq = malloc(sizeof *nq * (size_t)cap);
        if (!nq)
            return NULL;
        for (i = 0; i < l->qlen; i++)
            nq[i] = l->queue[(l->qhead + i) % l->conns_cap];
        free(l->queue);
        l->queue = nq;
        l->qhead = 0;
        l->conns_cap = cap;
    }
    c = l->conns[fd];
    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return NULL;
        c->out.fd = -1;
        c->body.fd = -1;
        l->conns[fd] = c;
    }
    return c;
}


/* A connection new to this worker, on listener li; NULL (fd closed)
 * when there is no memory for it. */
kd_conn *kd_conn_open(kd_loop *l, int fd, int li)
{
    kd_conn *c = conn_slot(l, fd);
    if (!c) {
        close(fd);
        return NULL;
    }
    c->fd = fd;
    c->listener = li;
    c->open = 1;
    c->in_epoll = c->queued = c->unread = c->serving = 0;
    c->in.len = c->in.pos = 0;
    c->in.scan.seen = 0;
    c->requests = 0;
    c->lingering = 0;
    c->pend.route = 0;
    c->body.start = 0;
    c->body.continued = 0;
    c->deadline = kd_now() + l->header_timeout;
    c->remote_addr[0] = '\0';
    c->remote_port = 0;
    c->proxy_wait = l->proxy_protocol[li];
    c->proxied = 0;
    c->trusted = 0;
    l->nopen++;
    if (l->sb)
        l->sb->connections = (uint32_t)l->nopen;
    if (l->nopen >= l->max_conns && !l->evict_when_full)
        kd_set_listening(l, 0);
    return c;
}

/* At max_conns with evict_when_full: closes the connection nearest its
 * deadline of those that wait for the client (a head not complete, an
 * idle keep-alive, a lingering close), so that clients that hold
 * connections without sending never keep out one that sends its request
 * at once. 0 when every connection is busy. */
static int evict_one(kd_loop *l)
{
    kd_conn *victim = NULL;
    int fd;
    for (fd = 0; fd < l->conns_cap; fd++) {
        kd_conn *c = l->conns[fd];
        if (c && c->open && !c->serving && !c->queued && !c->out.flushing && !c->pend.route &&
            (!victim || c->deadline < victim->deadline))
            victim = c;
    }
    if (!victim)
        return 0;
    kd_conn_close(l, victim);
    return 1;
}

/* Whether c's peer (REMOTE_ADDR as it stands) is a trusted proxy. */
static int peer_trusted(const kd_loop *l, const kd_conn *c, int on_unix)
{
    kd_addr a;
    if (on_unix)
        return l->trust_unix;
    return l->ntrusted && kd_addr_parse(c->remote_addr, c->remote_addr_len, &a) == 0 &&
           kd_cidr_match(l->trusted, l->ntrusted, &a);
}

/* Whether c's peer may send a PROXY header. */
static int proxy_source(const kd_loop *l, const kd_conn *c, int on_unix)
{
    kd_addr a;
    if (on_unix)
        return l->proxy_from_unix;
    return l->nproxy_from && kd_addr_parse(c->remote_addr, c->remote_addr_len, &a) == 0 &&
           kd_cidr_match(l->proxy_from, l->nproxy_from, &a);
}

/* The PROXY header due on c. 1 when it is read (its source address is
 * now c's), 0 when there is nothing more to do now: more bytes are
 * awaited, or the connection was closed. The bytes are a proxy's, not an
 * HTTP client's: no HTTP answer to them is ever sent. */
int kd_proxy_stage(kd_loop *l, kd_conn *c)
{
    kd_proxy_hdr h;
    int n = kd_proxy_parse(c->in.buf + c->in.pos, c->in.len - c->in.pos, &h);
    if (n == KD_PROXY_INCOMPLETE) {
        kd_compact(c);
        if (kd_watch(l, c) != 0)
            kd_conn_close(l, c);
        return 0;
    }
    if (n < 0) {
        kd_conn_close(l, c);
        return 0;
    }
    c->in.pos += (size_t)n;
    c->proxy_wait = 0;
    c->proxied = 1;
    memcpy(c->peer_addr, c->remote_addr, sizeof c->peer_addr);
    c->peer_addr_len = c->remote_addr_len;
    c->peer_port = c->remote_port;
    if (!h.local) {
        c->remote_addr_len = kd_addr_format(&h.src, c->remote_addr);
        c->remote_port = h.src_port;
    }
    if (l->ntrusted || l->trust_unix)
        c->trusted = peer_trusted(l, c, c->remote_addr_len == 0);
    if (c->in.pos == c->in.len) {
        kd_buf_give(l, c);
        if (kd_watch(l, c) != 0)
            kd_conn_close(l, c);
        return 0;
    }
    return 1;
}

void kd_accept_one(kd_loop *l, int li)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    kd_conn *c;
    int fd;
    if (l->nopen >= l->max_conns && !evict_one(l)) {
        kd_set_listening(l, 0);       /* until a connection closes */
        return;
    }
    fd = accept4(l->listen_fds[li], (struct sockaddr *)&ss, &sl,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        /* out of descriptors: the listener would stay readable and spin
         * the loop; listen again once a connection closes */
        if (errno == EMFILE || errno == ENFILE)
            kd_set_listening(l, 0);
        return;                       /* or another worker took it */
    }
    if (!(c = kd_conn_open(l, fd, li)))
        return;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, c->remote_addr, sizeof c->remote_addr);
        c->remote_port = ntohs(a->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &a->sin6_addr, c->remote_addr, sizeof c->remote_addr);
        c->remote_port = ntohs(a->sin6_port);
    }
    c->remote_addr_len = strlen(c->remote_addr);
    /* a PROXY header names the client: only the proxies named may send one */
    if (c->proxy_wait && l->proxy_from_set && !proxy_source(l, c, ss.ss_family == AF_UNIX)) {
        kd_conn_close(l, c);
        return;
    }
    /* behind a proxy (the PROXY header, when one is due, decides instead) */
    if ((l->ntrusted || l->trust_unix) && !c->proxy_wait)
        c->trusted = peer_trusted(l, c, ss.ss_family == AF_UNIX);
    /* with TCP_DEFER_ACCEPT the request is usually here already: read
     * without a trip through epoll, when its turn in the queue comes */
    kd_enqueue_unread(l, c);
}
