/* kd_scoreboard.h: what each worker is doing, in shared memory.
 *
 * Plain C99 + Linux, no perl.h.
 *
 * The generation maps one anonymous shared region before it forks, with one
 * fixed-size slot per possible worker: only it and its workers can write
 * it, so what the generation acts on is never in a file another user can
 * truncate or write. Outside tools read a copy the generation publishes
 * (kd_sb_publish) and rewrites in place (kd_sb_refresh), as Apache's
 * ScoreBoardFile is read. Each worker writes only its own slot, with
 * plain stores and no lock: the state is stored last (release order), so a
 * reader that sees a state also sees the fields written before it; the
 * request line may be read torn while it changes, and is always
 * NUL-terminated. The generation writes a slot only before the worker exists
 * (kd_sb_claim) and after it is reaped (kd_sb_clear).
 *
 * Each worker also keeps counters in its slot (kd_sb_counts: responses by
 * status class, a histogram of request durations, bytes in and out, pool
 * queues), the same plain stores on its own request path. When the
 * generation reaps a worker it adds the slot's counters to the header's
 * (kd_sb_clear), so the board's totals only grow while it lives; it also
 * counts worker exits by cause (Perl names the causes) and stores each
 * worker's memory (kd_sb_read_memory, from /proc/PID/smaps_rollup).
 *
 * kd_sb_create_shared makes the same board in a memfd: the supervisor
 * makes each generation's so, and hands the descriptor to its status
 * process (kd_sb_send_fd), which maps it read-only (kd_sb_attach_fd).
 *
 * Layout (native byte order; a reader checks magic, version and sizes):
 *   header, 1024 bytes: kd_sb_header below
 *   nslots slots of slot_size (640) bytes: kd_sb_slot below
 */
#ifndef KD_SCOREBOARD_H
#define KD_SCOREBOARD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define KD_SB_MAGIC "KAMADOSB"
#define KD_SB_VERSION 3
#define KD_SB_BUCKETS 15            /* request-duration buckets, the last one +Inf */
#define KD_SB_POOLS 32              /* pools whose queues are counted (KD_MAX_ROUTES) */
#define KD_SB_EXITS 16              /* worker exit causes the header can count */
#define KD_SB_REQUEST_LEN 96        /* method SP target, truncated, NUL included */
#define KD_SB_MAX_SLOTS 65536

enum kd_sb_state {
    KD_SB_FREE = 0,                 /* no worker */
    KD_SB_STARTING,                 /* forked, not in its event loop yet */
    KD_SB_IDLE,                     /* in epoll: no request (may hold keep-alive connections) */
    KD_SB_READING,                  /* reading a request body for the app */
    KD_SB_APP,                      /* in the app */
    KD_SB_WRITING,                  /* writing the response */
    KD_SB_DRAINING,                 /* stopped accepting: no request, finishing its connections */
    KD_SB_STATES
};

/* Counters a worker keeps in its slot, and the header's sum of reaped
 * workers' counters. */
typedef struct {
    uint64_t status[5];             /* responses by class: 1xx to 5xx */
    uint64_t buckets[KD_SB_BUCKETS];/* requests by duration (not cumulative) */
    double seconds;                 /* the durations' sum */
    uint64_t bytes_in, bytes_out;   /* read from and written to clients */
    uint64_t taken;                 /* connections taken from its pool's queue */
    /* each pool's queue: +1 for a connection handed to it, -1 for one
     * taken from it; summed over every slot and the header, its depth */
    int64_t queued[KD_SB_POOLS];
    uint64_t blocked;               /* an async worker's loop held half a second or more */
} kd_sb_counts;

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t nslots;
    uint32_t slot_size;
    uint32_t header_size;
    int32_t generation_pid;
    uint32_t generation;            /* the supervisor's number of it */
    double started;                 /* CLOCK_REALTIME seconds */
    uint32_t npools;                /* pools, the default one included */
    uint32_t pad0;
    uint64_t exits[KD_SB_EXITS];    /* workers that exited, by cause */
    kd_sb_counts reaped;            /* counters of the workers reaped */
    char pad[392];
} kd_sb_header;

typedef struct {
    int32_t pid;
    uint32_t generation;
    uint32_t state;                 /* enum kd_sb_state; written last */
    uint32_t connections;           /* open client connections */
    uint64_t requests;              /* finished (answered or failed) */
    double since;                   /* when the state began: CLOCK_MONOTONIC seconds */
    char request[KD_SB_REQUEST_LEN];
    double started;                 /* when the current request began: CLOCK_MONOTONIC */
    uint32_t pool;                  /* the pool it serves (0: the default one) */
    uint32_t streams;               /* requests being served: more than one in an async worker */
    uint64_t mem_private;           /* bytes: Private_Clean + Private_Dirty */
    uint64_t mem_shared;            /* bytes: Shared_Clean + Shared_Dirty */
    uint64_t mem_pss;               /* bytes: Pss */
    kd_sb_counts counts;
    char pad[16];
} kd_sb_slot;

typedef struct {
    kd_sb_header *header;
    kd_sb_slot *slots;
    size_t map_len;
    int writable;
    int pub_fd;                     /* the published copy, or -1 */
    int mem_fd;                     /* the memfd of a shared board, or -1 */
} kd_sb;

/* Maps a new anonymous shared scoreboard of nslots free slots, shared with
 * the processes forked after. 0 or -1 with errno. */
int kd_sb_create(kd_sb *sb, unsigned nslots);

/* The same in a memfd (close-on-exec), whose descriptor (sb->mem_fd) can
 * be handed to another process. 0 or -1 with errno. */
int kd_sb_create_shared(kd_sb *sb, unsigned nslots);

/* Maps a board's memfd read-only (fd stays the caller's). 0, or -1 with
 * errno (EINVAL: not a board of this version). */
int kd_sb_attach_fd(kd_sb *sb, int fd);

/* Sends msg (up to 255 bytes) and, unless fd is -1, a descriptor over a
 * SOCK_SEQPACKET socket, without waiting. Receives one such message: its
 * length (NUL-terminated in buf), *fd the descriptor or -1; -1 with errno
 * (EAGAIN: none waiting). */
int kd_sb_send_fd(int sock, const char *msg, size_t len, int fd);
ssize_t kd_sb_recv_fd(int sock, char *buf, size_t cap, int *fd);

/* Publishes a copy of the board at path for outside readers: a new file
 * (O_CREAT|O_EXCL under a random name in the same directory, mode 0600:
 * request lines can carry secrets in their query strings), filled, then
 * renamed over path. Whatever was at path (a file or a symbolic link
 * planted by another user) is replaced, never opened or followed. The
 * board keeps the file's descriptor for kd_sb_refresh; another one
 * published before is closed. 0 or -1 with errno. */
int kd_sb_publish(kd_sb *sb, const char *path);

/* Rewrites the published copy in place from the board (pwrite, never a
 * mapping of the file: a file truncated or replaced by someone else
 * cannot fault the writer, and what is written to it never reaches the
 * board). 0 (also when nothing is published) or -1 with errno. */
int kd_sb_refresh(const kd_sb *sb);

/* Maps an existing scoreboard file read-only. 0, or -1 with errno
 * (EINVAL: not a scoreboard of this version). */
int kd_sb_attach(kd_sb *sb, const char *path);

void kd_sb_unmap(kd_sb *sb);

/* The generation: a slot for a worker about to be forked (state starting),
 * and the slot of one reaped (free). */
void kd_sb_claim(kd_sb *sb, unsigned i, uint32_t generation, uint32_t pool);
void kd_sb_clear(kd_sb *sb, unsigned i);

const char *kd_sb_state_name(unsigned state);

/* Adds a's counters to *to. */
void kd_sb_add_counts(kd_sb_counts *to, const kd_sb_counts *a);

/* The board's totals: the reaped workers' and every slot's. */
void kd_sb_totals(const kd_sb *sb, kd_sb_counts *out);

/* The memory of a process from the text of its /proc/PID/smaps_rollup
 * (kB lines): private, shared and proportional bytes. 0, or -1 when no
 * line was found. */
int kd_sb_parse_memory(const char *text, size_t len, uint64_t *priv, uint64_t *shared, uint64_t *pss);

/* Reads /proc/pid/smaps_rollup into slot i's memory fields (zeros when it
 * cannot be read). 0 or -1 with errno. */
int kd_sb_read_memory(kd_sb *sb, unsigned i, int pid);

/* The upper bounds of the duration buckets, in seconds (the last bucket,
 * +Inf, has none). */
extern const double kd_sb_bounds[KD_SB_BUCKETS - 1];

/* The worker's hot path: a clock read (the coarse clock, a few ns) and
 * two stores. */
static inline double kd_sb_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void kd_sb_set_state(kd_sb_slot *s, unsigned state)
{
    s->since = kd_sb_clock();
    __atomic_store_n(&s->state, state, __ATOMIC_RELEASE);
}

/* method SP target, truncated to fit */
static inline void kd_sb_set_request(kd_sb_slot *s, const char *method, size_t mlen,
                                     const char *target, size_t tlen)
{
    size_t n = 0;
    if (mlen > KD_SB_REQUEST_LEN - 2)
        mlen = KD_SB_REQUEST_LEN - 2;
    __builtin_memcpy(s->request, method, mlen);
    n = mlen;
    s->request[n++] = ' ';
    if (tlen > KD_SB_REQUEST_LEN - 1 - n)
        tlen = KD_SB_REQUEST_LEN - 1 - n;
    __builtin_memcpy(s->request + n, target, tlen);
    s->request[n + tlen] = '\0';
}

/* A request begins (its head is complete): when, for its age and its
 * duration. */
static inline void kd_sb_begin(kd_sb_slot *s, double now)
{
    s->started = now;
}

/* A response is done: its status class and duration counted. A linear
 * search: most requests end in the first buckets. */
static inline void kd_sb_done(kd_sb_slot *s, int status, double seconds)
{
    unsigned b = 0, cls = (unsigned)(status / 100 - 1);
    if (seconds < 0)
        seconds = 0;
    while (b < KD_SB_BUCKETS - 1 && seconds > kd_sb_bounds[b])
        b++;
    if (cls < 5)
        s->counts.status[cls]++;
    s->counts.buckets[b]++;
    s->counts.seconds += seconds;
}

#endif
