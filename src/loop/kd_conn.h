/* kd_conn.h: a worker's connections, its event loop and socket I/O.
 *
 * Plain C99 + Linux (epoll, accept4, sendfile), no perl.h.
 *
 * Each worker owns an epoll set holding the listening sockets and every
 * connection it has accepted. Idle keep-alive connections and connections
 * still sending their head cost a file descriptor and a buffer, never a
 * worker: kd_loop_next() returns only when a whole request head is in
 * (an idle one holds no read buffer: one is lent from the worker's few
 * free ones when bytes come, and given back once they are consumed). The
 * request is then served synchronously (body, app, response) with blocking
 * I/O bounded by deadlines (kd_wait), and kd_conn_finish() puts the
 * connection back in the set or closes it. A Content-Length body is read
 * here too before the head is returned (into the connection buffer when it
 * fits, else into an unlinked temporary file), so a client trickling its
 * body also costs a descriptor, not a worker; so is a body sent after
 * Expect: 100-continue, the loop sending the 100 itself (unless
 * expect_to_app). What a slow reader does not take of a response (bytes, or
 * a file body's descriptor) the loop sends too (kd_write_last,
 * kd_write_file_last).
 *
 * Behind a proxy (kd_loop_set_proxies), a listener may expect a PROXY
 * protocol header before the first request: the loop reads it (kd_proxy.c
 * parses it) as it reads heads, a descriptor's worth of waiting, and the
 * header's source becomes the connection's address; whether that address
 * (or the socket's peer) is a trusted proxy is decided once per connection
 * too, for the XS to read X-Forwarded-* by.
 *
 * The loop is one module, src/loop/, and this header is its interface;
 * its parts call each other freely and share kd_conn_int.h, which nothing
 * outside src/loop/ includes: kd_loop.c (epoll, the ready queue, parse,
 * next, the Date text), kd_intake.c (accept, connection slots, the PROXY
 * stage), kd_keepalive.c (finish, keep-alive, the sweep of deadlines,
 * draining), kd_answer.c (the loop's own error answers, their access-log
 * records, the lingering close), kd_pools.c (routing to other pools,
 * hand-over, receiving), kd_body.c (spooling and reading request bodies),
 * kd_write.c (writes, and the rests the loop sends for slow readers),
 * kd_bufs.c (the read buffers connections borrow while they have bytes),
 * kd_lastwords.c (what a worker dying mid-request finishes). It
 * stands on the layers below it: src/proto/ (parsers and builders of
 * bytes, no I/O), src/sys/ (the clock, waits, descriptor passing) and
 * src/board/ (the scoreboard).
 */
#ifndef KD_CONN_H
#define KD_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "../proto/kd_head.h"
#include "../proto/kd_parser.h"
#include "../proto/kd_proxy.h"
#include "../board/kd_scoreboard.h"
#include "../sys/kd_sys.h"

#define KD_BUF_SIZE 65536          /* read size and head limit */
#define KD_MAX_LISTENERS 32
#define KD_MAX_ROUTES 32           /* pools, the default one included */
typedef char kd_routes_fit_the_scoreboard[KD_MAX_ROUTES <= KD_SB_POOLS ? 1 : -1];

/* read buffers a worker keeps free (kd_bufs.c) */
#define KD_BUF_KEEP 4

#define KD_MAX_PREFIX 256
#define KD_MAX_ANSWERS 256         /* loop-answered requests kept for the access log */
#define KD_ANSWER_LINE 1024        /* of each one's request line, at most */
#define KD_MAX_FAULTS 8            /* failures kept for the error log */
#define KD_FAULT_TEXT 256          /* of each one's request line and path, at most */

/* What the loop keeps for the request body (c->body). */
typedef struct {
    int64_t left;                   /* Content-Length bytes not read yet */
    int chunked;                    /* a chunked body the worker decodes */
    kd_chunked chunk;
    int expect_continue;            /* send 100 Continue before reading */
    int continued;                  /* the loop asked for the body itself */
    int64_t read;                   /* decoded body bytes so far */
    double start;                   /* when the head was complete; 0: not yet */
    int fd;                         /* temporary file the loop spools a body to; -1 */
    int64_t got;                    /* bytes of it spooled so far */
    int in_file;                    /* the whole body is in fd */
} kd_conn_body;

/* Response bytes the loop sends for a slow reader (c->out): bytes in
 * memory first, then a file's (a temporary one holding a response's rest,
 * or the app's own file body). */
typedef struct {
    char *buf;                      /* in memory; NULL: none */
    size_t len, off;                /* buf's length, and how much is sent */
    int fd;                         /* then this file from file_off to file_end; -1 */
    int64_t file_off, file_end;
    size_t spooled;                 /* the temporary file's share of spool_total */
    int flushing;                   /* holds bytes; finish when sent */
    int keepalive;                  /* what kd_conn_finish decided meanwhile */
} kd_conn_out;

typedef struct kd_conn {
    int fd;
    int listener;                   /* index into kd_loop.listen_fds */
    int open;
    int in_epoll;
    int queued;                     /* in the ready queue */
    int unread;                     /* readable: read when its turn in the queue comes */
    int serving;                    /* head returned, not finished yet */
    uint64_t req_id;                /* which request it is serving */
    struct {
        char *buf;                  /* KD_BUF_SIZE bytes while it has bytes to
                                     * read or is served; NULL when idle */
        size_t len;                 /* bytes in buf */
        size_t pos;                 /* start of unconsumed bytes */
        kd_head_scan scan;          /* of the head at pos, while incomplete */
    } in;
    kd_conn_body body;
    /* the response being served */
    int is_head;
    int minor_version;
    kd_frame frame;                 /* its body's framing, and whether the connection is kept */
    int resp_status;                /* the response's status, for the scoreboard */
    kd_conn_out out;
    int requests;                   /* served on this connection */
    int lingering;                  /* answered with an error, draining input */
    double deadline;                /* for idle or partial heads */
    char remote_addr[64];           /* REMOTE_ADDR: the peer, or the PROXY header's source */
    size_t remote_addr_len;
    int remote_port;
    /* behind a proxy (--proxy-protocol, --trusted-proxy) */
    int proxy_wait;                 /* a PROXY header is due before the first request */
    int proxied;                    /* a PROXY header came: peer_addr holds the socket's peer */
    int trusted;                    /* the peer (or the header's source) is a trusted proxy */
    char peer_addr[64];
    size_t peer_addr_len;
    int peer_port;
    struct {
        int on;                     /* an async worker answers later: writes held, socket watched */
        int want_drain;             /* the worker waits for the held bytes to go */
        size_t cap;                 /* out.buf's size while streaming */
    } stream;
    struct {
        int route;                  /* route + 1 while waiting to be handed over */
        int prev, next;             /* that route's FIFO, by fd; -1 at the ends */
    } pend;
    kd_request req;
} kd_conn;

/* How the request being served brings its body; the XS exports these to
 * Perl as Kamado::BODY_NONE and so on. */
enum {
    KD_BODY_NONE = 0,               /* none */
    KD_BODY_LENGTH = 1,             /* Content-Length, read with kd_conn_read_body */
    KD_BODY_CHUNKED = 2,            /* chunked, decoded by kd_conn_read_body */
    KD_BODY_FILE = 3                /* whole in a temporary file (kd_conn_body_file) */
};

static inline int kd_conn_body_kind(const kd_conn *c)
{
    return c->body.in_file ? KD_BODY_FILE : c->body.chunked ? KD_BODY_CHUNKED :
           c->body.left > 0 ? KD_BODY_LENGTH : KD_BODY_NONE;
}

/* Whether the request being served has body bytes no one has read: the
 * next request's start is then unknown. */
static inline int kd_conn_body_unread(const kd_conn *c)
{
    return c->body.left > 0 || (c->body.chunked && !c->body.chunk.done);
}

/* --pool: where a request whose path starts with prefix goes. send_fd is
 * the sending end of the pool's queue, a SOCK_SEQPACKET socketpair the
 * generation holds and every worker inherits. */
typedef struct {
    char prefix[KD_MAX_PREFIX];
    size_t prefix_len;
    int send_fd;
    int watching;                   /* send_fd is in the epoll set for EPOLLOUT */
    int phead, ptail;               /* connections waiting for room; -1: none */
} kd_route;

/* What became of a stream (kd_loop_stream_events). */
enum {
    KD_STREAM_GONE = 1,             /* closed before the worker ended it: the client left,
                                     * a write failed or timed out */
    KD_STREAM_DRAINED = 2           /* what it held is sent (kd_stream_want_drain) */
};

typedef struct {
    int fd;
    int kind;                       /* KD_STREAM_* */
    uint64_t req_id;                /* the request the stream served */
} kd_stream_ev;

/* A request the loop answered itself (kd_conn_error: a malformed head,
 * 413, 408, a pool's 503), kept for the worker's access log. */
typedef struct {
    int status;
    int listener;
    int remote_port;
    int64_t bytes;                  /* body bytes of the canned answer */
    double time;                    /* epoch seconds */
    char remote_addr[64];
    size_t line_len;
    char line[KD_ANSWER_LINE];      /* the request line as far as it came */
} kd_answer;

/* A system call that failed for a request the loop then answered itself
 * (a 500), kept for the worker's error log (kd_loop_take_faults). */
typedef struct {
    const char *what;               /* what failed, a static string */
    int err;                        /* its errno */
    char remote_addr[64];
    char path[KD_FAULT_TEXT];       /* the file or directory it was about */
    size_t line_len;
    char line[KD_FAULT_TEXT];       /* the request line as far as it came */
} kd_fault;

typedef struct {
    int epfd;
    int nlisteners;
    int listen_fds[KD_MAX_LISTENERS];
    int accepting;
    int draining;
    int drain_queue;                /* draining, still taking its pool queue's connections */
    int listen;                     /* takes new connections from the listeners */
    /* pools (kd_loop_set_pools); nroutes 0: none, the hot path's one test */
    int nroutes;
    int my_route;                   /* the route this worker serves */
    int recv_fd;                    /* its pool's queue; -1 */
    kd_route routes[KD_MAX_ROUTES];
    /* free read buffers, the last given back on top */
    char *bufs[KD_BUF_KEEP];
    int nbufs;
    kd_conn **conns;                /* by fd */
    int conns_cap;
    int *queue;                     /* ring of fds with bytes to parse */
    int qhead, qlen;
    int nopen;
    double last_sweep;
    uint64_t last_req_id;           /* numbers the requests this loop serves */
    /* settings, in seconds */
    double keepalive_timeout;
    double header_timeout;
    double read_timeout;
    double write_timeout;
    int max_keepalive_reqs;
    int max_conns;
    int evict_when_full;            /* at max_conns, a new connection closes the
                                     * waiting one nearest its deadline */
    int64_t max_body;               /* request body limit in bytes; 0: none */
    double min_body_rate;           /* bytes/s a body must average; 0: none */
    int expect_to_app;              /* Expect: 100-continue is the app's to answer */
    size_t write_buffer;            /* response bytes one connection may defer */
    size_t out_total;               /* deferred bytes held now, all connections */
    size_t spool_total;             /* deferred bytes in temporary files */
    kd_sb_slot *sb;                 /* this worker's scoreboard slot, or NULL */
    /* requests served at once: one in a blocking worker, up to
     * max_streams (0: no cap but max_conns) in an async one */
    int nserving;
    int max_streams;
    kd_stream_ev *events;           /* for the worker to take (kd_loop_stream_events) */
    int nevents, events_cap;
    /* behind a proxy; ntrusted 0 and no proxy_protocol: none, and no cost */
    kd_cidr *trusted;               /* --trusted-proxy blocks */
    int ntrusted;
    int trust_unix;                 /* peers on unix sockets are trusted too */
    unsigned char proxy_protocol[KD_MAX_LISTENERS];  /* listener expects PROXY headers */
    int proxy_from_set;             /* only these peers may send one: */
    kd_cidr *proxy_from;
    int nproxy_from;
    int proxy_from_unix;
    int forwarded_host;             /* a trusted peer's X-Forwarded-Host and
                                     * -Port are believed too */
    uint64_t sent;                  /* response bytes the sockets took, or the loop
                                     * took over to send later: what %b counts */
    /* --access-log: the requests kd_conn_error answered without the
     * worker, until it takes them (kd_loop_next returns 0 with some) */
    int nanswers;
    unsigned answers_lost;          /* past KD_MAX_ANSWERS */
    kd_answer *answers;             /* KD_MAX_ANSWERS, allocated when logging */
    /* failures behind the loop's own 500s, until the worker takes them
     * (kd_loop_next returns 0 with some) */
    int nfaults;
    unsigned faults_lost;           /* past KD_MAX_FAULTS */
    kd_fault faults[KD_MAX_FAULTS];
    /* cached Date header value */
    long date_sec;
    char date[40];
} kd_loop;

/* The limits (the timeouts, max_keepalive_reqs, max_conns, max_body,
 * min_body_rate, write_buffer) are zero in a new loop: the caller sets
 * them, from the values the options give (Kamado::Options has the
 * defaults). */
kd_loop *kd_loop_new(const int *listen_fds, int n);
void kd_loop_free(kd_loop *l);

/* Behind a proxy: the peers whose X-Forwarded-* fields are believed
 * (blocks, and with trust_unix every peer on a unix socket), decided once
 * per connection into c->trusted; and the listeners whose connections
 * start with a PROXY protocol header (proxy_protocol[i] for listener i,
 * n of them), whose source address becomes the connection's REMOTE_ADDR.
 * A connection that sends a malformed header, or none within
 * header_timeout, is closed without an answer. 0, or -1 with errno set. */
int kd_loop_set_proxies(kd_loop *l, const kd_cidr *blocks, int nblocks, int trust_unix,
                        const unsigned char *proxy_protocol, int n);

/* The peers whose PROXY header is taken (blocks, and with unix_ok every
 * peer on a unix socket); a connection from another peer on a PROXY
 * listener is closed at once, unread. Not called: every peer. 0, or -1
 * with errno set. */
int kd_loop_set_proxy_sources(kd_loop *l, const kd_cidr *blocks, int nblocks, int unix_ok);

/* Pools: routes[] (prefix, send_fd; the default pool's prefix is empty),
 * my_route the one this worker serves, recv_fd its queue, listen whether
 * it also accepts on the listeners (the default pool's workers do). A
 * request whose longest matching prefix is another route's is handed to
 * that pool's queue with its connection (SCM_RIGHTS) and the bytes read
 * so far; one that cannot go yet waits here, in order, up to
 * header_timeout (then 503). 0, or -1 with errno set. */
int kd_loop_set_pools(kd_loop *l, const kd_route *routes, int n, int my_route,
                      int recv_fd, int listen);

/* Waits up to timeout_ms for a complete request head. Returns 1 and sets
 * *out when one is ready; 0 on timeout or signal (so the caller can act on
 * its flags); -1 on a failure of epoll itself (errno set). Malformed heads
 * are answered here with their 4xx/5xx status and closed. */
int kd_loop_next(kd_loop *l, int timeout_ms, kd_conn **out);

/* --access-log: keeps a kd_answer for each request the loop answers
 * itself from now on (0, or -1 without memory); kd_loop_next returns 0
 * once it has some, so they are taken early. */
int kd_loop_log_answers(kd_loop *l);

/* Reports this loop's state in a scoreboard slot from now on (NULL: no
 * longer): idle in kd_loop_next (draining once kd_loop_stop_accepting was
 * called), reading in kd_conn_read_body, app from a returned head, writing
 * from kd_loop_writing; the open connections, and the requests served. */
void kd_loop_scoreboard(kd_loop *l, kd_sb_slot *slot);

/* The response has started: the state becomes writing. */
static inline void kd_loop_writing(kd_loop *l)
{
    if (l->sb)
        kd_sb_set_state(l->sb, KD_SB_WRITING);
}

/* Stops accepting; open connections get one more request, answered with
 * Connection: close, and requests are no longer handed to other pools.
 * With keep_queue (a stop, not a recycling: no replacement will take
 * them), the connections already in this worker's pool queue are still
 * taken and served. kd_loop_next() returns 0 at once when none is left. */
void kd_loop_stop_accepting(kd_loop *l, int keep_queue);

/* Draining and nothing left: no connection, nothing in the queue. */
int kd_loop_drained(kd_loop *l);

/* After the response: keeps the connection for its next request, or
 * closes it. */
void kd_conn_finish(kd_loop *l, kd_conn *c, int keepalive);

/* Answers with a canned error (4xx/5xx, Connection: close) and closes:
 * the write side at once, the read side once the client stops sending or
 * after a short linger, so the client reads the answer instead of a reset
 * caused by the bytes it was still sending. */
void kd_conn_error(kd_loop *l, kd_conn *c, int status);

/* Keeps, for the error log, that `what` failed with errno err for c's
 * request, about path (NULL: none); l->faults, until the worker takes
 * them (and empties l->nfaults). */
void kd_note_fault(kd_loop *l, const kd_conn *c, const char *what, int err, const char *path);
void kd_conn_close(kd_loop *l, kd_conn *c);

/* The temporary file holding the whole body of the request being served,
 * or -1 when the body (if any) is read with kd_conn_read_body. */
int kd_conn_body_file(kd_conn *c);

/* Request body. Returns bytes copied to dst (0 at end of body), or -1 on
 * error with errno set (ETIMEDOUT, ECONNRESET for EOF, EINVAL for a
 * malformed chunk, EFBIG for a chunked body over max_body). */
ssize_t kd_conn_read_body(kd_loop *l, kd_conn *c, char *dst, size_t max);

/* Writes all of iov, waiting up to write_timeout for a stalled client.
 * Returns 0 or -1 with errno set. Never raises SIGPIPE. */
int kd_write_all(kd_loop *l, int fd, struct iovec *iov, int iovcnt);

/* Writes a whole response (iov ends it). What the socket does not take at
 * once is handed to the event loop to send, so a client that reads slowly
 * holds a descriptor, not the worker: copied in memory when it fits
 * write_buffer (and the worker's total of 32 of them), else written to an
 * unlinked temporary file the loop sends with sendfile (up to 256 times
 * write_buffer per worker); beyond both, it is written as kd_write_all
 * does. kd_conn_finish() then waits for the loop to send it before
 * reusing or closing the connection. 0 or -1. */
int kd_write_last(kd_loop *l, kd_conn *c, struct iovec *iov, int iovcnt);

/* Writes a piece of a response that goes on (a streamed head or body
 * piece, or its end before kd_conn_finish): what the socket does not take
 * at once is held for the loop in the same bounds as kd_write_last's,
 * after what the connection already holds, so the worker does not wait
 * on a slow reader; held bytes go out as the next pieces are written, and
 * after kd_conn_finish as the client reads. Past the bounds the worker
 * waits, as kd_write_all does, for what is held to go first. 0 or -1
 * with errno set (the client went away, or write_timeout passed). */
int kd_write_more(kd_loop *l, kd_conn *c, struct iovec *iov, int iovcnt);

/* Writes a response whose body is len bytes of in_fd from offset off,
 * head (hlen bytes) first. What the socket does not take at once is handed
 * to the event loop, which sends it as the client reads, from a duplicate
 * of in_fd (the caller may close its own): a client that does not read
 * holds a descriptor, not the worker, and is closed at write_timeout
 * without progress. kd_conn_finish() then waits for the loop to send it.
 * Without a descriptor to spare it is written as kd_write_all does. 0 or
 * -1 with errno set. */
int kd_write_file_last(kd_loop *l, kd_conn *c, const char *head, size_t hlen,
                       int in_fd, int64_t off, int64_t len);

/* Sends len bytes of in_fd from offset off. 0 or -1 with errno set. */
int kd_sendfile_all(kd_loop *l, int out_fd, int in_fd, off_t off, size_t len);

/* Streams (kd_stream.c), for an async worker, which calls kd_loop_next
 * with a zero timeout from its own event loop (the epoll descriptor, epfd,
 * is watched there) while requests are being served. A request whose app
 * answers later becomes a stream with kd_stream_begin: its socket is
 * watched for the client's close (EPOLLRDHUP, errors), and its writes
 * (kd_stream_write) never block: what the socket does not take is held and
 * sent as the client reads. A stream closed before the worker ends it
 * (the client left, a write failed, nothing taken for write_timeout, more
 * than write_buffer held when the app writes again) is posted as
 * KD_STREAM_GONE; kd_loop_next returns 0 while events wait. At max_streams
 * streams, listening stops and queued requests wait. */
int kd_stream_begin(kd_loop *l, kd_conn *c);

/* The response is written another way after all (a whole one, or the
 * blocking way): no longer a stream. */
void kd_stream_off(kd_loop *l, kd_conn *c);

/* Sends or holds the n pieces. Returns the bytes held (0: all sent), or
 * -1 with errno set when the stream is gone (now closed). */
ssize_t kd_stream_write(kd_loop *l, kd_conn *c, const struct iovec *iov, int n);

/* Posts KD_STREAM_DRAINED once nothing is held (at once if nothing is).
 * 0, or -1 when c is not a stream. */
int kd_stream_want_drain(kd_loop *l, kd_conn *c);

/* The worker ends the stream: the held bytes are sent, then the request
 * finishes as kd_conn_finish does. */
void kd_stream_end(kd_loop *l, kd_conn *c, int keepalive);

/* Hands the connection to the app (an upgrade), which holds a duplicate
 * of its descriptor (psgix.io): the loop forgets it and closes its own. */
void kd_conn_release(kd_loop *l, kd_conn *c);

/* The events posted since the last call: *events (the loop's, valid until
 * the next kd_loop_next), and their count. */
int kd_loop_stream_events(kd_loop *l, kd_stream_ev **events);

/* Last words of a worker that dies in the middle of a request (the
 * request timeout's kill, a crash, an exit in the app), async-signal-
 * safe: the request being served gets status (504 or 500; 0: none) when
 * no head of it went out, else its body is cut; a child of the worker, the
 * finisher, holding only the connections (its other descriptors closed:
 * listeners, the app's database connections), sends what the loop held
 * for slow readers as the clients read (write_timeout without progress
 * bounds each), and closes every connection cleanly: its output shut
 * down, then what the client sends read for up to 2 s before the close,
 * so that an idle keep-alive client reads an end, not a reset. What is
 * lost: a response being written when the worker died (cut), requests
 * received but not yet served (their connection closed unanswered, as
 * an idle one), and descriptors numbered past 65535 the finisher
 * neither sorts nor closes. 0, or -1 when the finisher could not start
 * (the connections then close with the worker). */
int kd_loop_last_words(kd_loop *l, int status);

/* From now on (l; NULL: no longer) VTALRM (the request timeout's kill:
 * 504) and SEGV, BUS, FPE, ILL, ABRT (500) say l's last words in this
 * process, then end it by the same signal at its default action. 0, or
 * -1 with errno set. */
int kd_loop_last_words_on_signals(kd_loop *l);

/* Whether l, armed in this process, holds a request being served or
 * bytes for a slow reader: a process that exits now should say its last
 * words. */
int kd_loop_last_words_pending(const kd_loop *l);

/* "Sun, 06 Nov 1994 08:49:37 GMT", refreshed once a second */
const char *kd_date(kd_loop *l);

#endif
