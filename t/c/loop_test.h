/* loop_test.h: what the C tests of the loop share, included after the
 * engine and tap.h: a listener on an ephemeral loopback port, a loop on
 * it with the limits every such test runs under (a new loop has none:
 * the caller's; a test sets the others it needs), a client, and the
 * loop run until a request head comes. Each bails out on a failure. */
#ifndef KD_LOOP_TEST_H
#define KD_LOOP_TEST_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A listening socket on 127.0.0.1, its address in *a. */
static inline int test_listener(struct sockaddr_in *a, int backlog)
{
    socklen_t al = sizeof *a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof *a) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)a, &al) != 0) {
        printf("Bail out! listener\n");
        exit(1);
    }
    return fd;
}

/* A loop on *lfd with the limits the tests share. */
static inline kd_loop *test_loop(int *lfd)
{
    kd_loop *l = kd_loop_new(lfd, 1);
    if (!l) {
        printf("Bail out! loop\n");
        exit(1);
    }
    l->keepalive_timeout = 75;
    l->header_timeout = l->read_timeout = l->write_timeout = 30;
    l->max_keepalive_reqs = 10000;
    l->max_body = (int64_t)1 << 30;
    return l;
}

/* A client connected to a, having sent `send` (NULL: nothing). */
static inline int test_dial(const struct sockaddr_in *a, const char *send)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)a, sizeof *a) != 0 ||
        (send && write(fd, send, strlen(send)) != (ssize_t)strlen(send))) {
        printf("Bail out! client\n");
        exit(1);
    }
    return fd;
}

/* Runs the loop for up to `seconds`: 1 with a request head in *c. */
static inline int test_next_head(kd_loop *l, kd_conn **c, double seconds)
{
    double until = kd_now() + seconds;
    while (kd_now() < until) {
        if (kd_loop_next(l, 20, c) == 1)
            return 1;
    }
    return 0;
}

#endif
