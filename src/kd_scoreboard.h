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
 * Layout (native byte order; a reader checks magic, version and sizes):
 *   header, 64 bytes: "KAMADOSB", u32 version, u32 nslots, u32 slot_size,
 *     u32 header_size, i32 generation pid, then zeros
 *   nslots slots of slot_size (128) bytes: kd_sb_slot below
 */
#ifndef KD_SCOREBOARD_H
#define KD_SCOREBOARD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define KD_SB_MAGIC "KAMADOSB"
#define KD_SB_VERSION 1
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

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t nslots;
    uint32_t slot_size;
    uint32_t header_size;
    int32_t generation_pid;
    char pad[36];
} kd_sb_header;

typedef struct {
    int32_t pid;
    uint32_t generation;
    uint32_t state;                 /* enum kd_sb_state; written last */
    uint32_t connections;           /* open client connections */
    uint64_t requests;              /* finished (answered or failed) */
    double since;                   /* when the state began: CLOCK_MONOTONIC seconds */
    char request[KD_SB_REQUEST_LEN];
} kd_sb_slot;

typedef struct {
    kd_sb_header *header;
    kd_sb_slot *slots;
    size_t map_len;
    int writable;
    int pub_fd;                     /* the published copy, or -1 */
} kd_sb;

/* Maps a new anonymous shared scoreboard of nslots free slots, shared with
 * the processes forked after. 0 or -1 with errno. */
int kd_sb_create(kd_sb *sb, unsigned nslots);

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
void kd_sb_claim(kd_sb *sb, unsigned i, uint32_t generation);
void kd_sb_clear(kd_sb *sb, unsigned i);

const char *kd_sb_state_name(unsigned state);

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

#endif
