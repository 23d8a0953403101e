/* kd_scoreboard.c: see kd_scoreboard.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_scoreboard.h"
#include "../sys/kd_fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/socket.h>

typedef char kd_sb_header_is_1024_bytes[sizeof(kd_sb_header) == 1024 ? 1 : -1];
typedef char kd_sb_slot_is_640_bytes[sizeof(kd_sb_slot) == 640 ? 1 : -1];

/* Prometheus' default buckets, and longer ones for requests that wait on
 * slow services on purpose */
const double kd_sb_bounds[KD_SB_BUCKETS - 1] = {
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60
};

static size_t sb_len(unsigned nslots)
{
    return sizeof(kd_sb_header) + (size_t)nslots * sizeof(kd_sb_slot);
}

static int write_board(int fd, const kd_sb *sb)
{
    const char *p = (const char *)sb->header;
    size_t done = 0;
    while (done < sb->map_len) {
        ssize_t n = pwrite(fd, p + done, sb->map_len - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

static void init_board(kd_sb *sb, void *p, size_t len, unsigned nslots, int mem_fd)
{
    struct timespec now;
    memset(p, 0, len);
    sb->header = p;
    sb->slots = (kd_sb_slot *)((char *)p + sizeof(kd_sb_header));
    sb->map_len = len;
    sb->writable = 1;
    sb->pub_fd = -1;
    sb->mem_fd = mem_fd;
    sb->header->version = KD_SB_VERSION;
    sb->header->nslots = nslots;
    sb->header->slot_size = sizeof(kd_sb_slot);
    sb->header->header_size = sizeof(kd_sb_header);
    sb->header->generation_pid = (int32_t)getpid();
    sb->header->npools = 1;
    clock_gettime(CLOCK_REALTIME, &now);
    sb->header->started = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    memcpy(sb->header->magic, KD_SB_MAGIC, 8);
}

int kd_sb_create(kd_sb *sb, unsigned nslots)
{
    size_t len;
    void *p;

    if (nslots < 1 || nslots > KD_SB_MAX_SLOTS) {
        errno = EINVAL;
        return -1;
    }
    len = sb_len(nslots);
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    init_board(sb, p, len, nslots, -1);
    return 0;
}

int kd_sb_create_shared(kd_sb *sb, unsigned nslots)
{
    size_t len;
    void *p;
    int fd, e;

    if (nslots < 1 || nslots > KD_SB_MAX_SLOTS) {
        errno = EINVAL;
        return -1;
    }
    len = sb_len(nslots);
    fd = memfd_create("kamado-scoreboard", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)len) != 0 ||
        (p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    init_board(sb, p, len, nslots, fd);
    return 0;
}

int kd_sb_publish(kd_sb *sb, const char *path)
{
    char tmp[4096];
    int fd, e;

    if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* O_CREAT|O_EXCL, mode 0600: a name nobody else made, so no file or
     * link planted in a shared directory is ever opened */
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* made whole before it is renamed: a reader never sees half a board,
     * and a generation still running on the old file (a Server::Starter hot
     * deploy, the generation a HUP replaces) keeps writing its own */
    if (fchmod(fd, 0600) != 0 || write_board(fd, sb) != 0 || rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        close(fd);
        errno = e;
        return -1;
    }
    if (sb->pub_fd >= 0)
        close(sb->pub_fd);
    sb->pub_fd = fd;
    return 0;
}

int kd_sb_refresh(const kd_sb *sb)
{
    return sb->pub_fd < 0 ? 0 : write_board(sb->pub_fd, sb);
}

int kd_sb_attach_fd(kd_sb *sb, int fd)
{
    struct stat st;
    kd_sb_header *h;
    void *p;

    if (fstat(fd, &st) != 0)
        return -1;
    if ((size_t)st.st_size < sizeof(kd_sb_header)) {
        errno = EINVAL;
        return -1;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    h = p;
    if (memcmp(h->magic, KD_SB_MAGIC, 8) != 0 || h->version != KD_SB_VERSION ||
        h->slot_size != sizeof(kd_sb_slot) || h->header_size != sizeof(kd_sb_header) ||
        h->nslots < 1 || h->nslots > KD_SB_MAX_SLOTS || sb_len(h->nslots) > (size_t)st.st_size) {
        munmap(p, (size_t)st.st_size);
        errno = EINVAL;
        return -1;
    }
    sb->header = h;
    sb->slots = (kd_sb_slot *)((char *)p + sizeof(kd_sb_header));
    sb->map_len = (size_t)st.st_size;
    sb->writable = 0;
    sb->pub_fd = -1;
    sb->mem_fd = -1;
    return 0;
}

int kd_sb_attach(kd_sb *sb, const char *path)
{
    int rv, e, fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    rv = kd_sb_attach_fd(sb, fd);
    e = errno;
    close(fd);
    errno = e;
    return rv;
}

void kd_sb_unmap(kd_sb *sb)
{
    if (sb->pub_fd >= 0)
        close(sb->pub_fd);
    sb->pub_fd = -1;
    if (sb->mem_fd >= 0)
        close(sb->mem_fd);
    sb->mem_fd = -1;
    if (sb->header)
        munmap(sb->header, sb->map_len);
    sb->header = NULL;
    sb->slots = NULL;
}

void kd_sb_claim(kd_sb *sb, unsigned i, uint32_t generation, uint32_t pool)
{
    kd_sb_slot *s = &sb->slots[i];
    s->pid = 0;                       /* the worker stores its own */
    s->generation = generation;
    s->connections = 0;
    s->requests = 0;
    s->request[0] = '\0';
    s->started = 0;
    s->pool = pool;
    s->mem_private = s->mem_shared = s->mem_pss = 0;
    memset(&s->counts, 0, sizeof s->counts);
    kd_sb_set_state(s, KD_SB_STARTING);
}

void kd_sb_clear(kd_sb *sb, unsigned i)
{
    kd_sb_slot *s = &sb->slots[i];
    kd_sb_counts *to = &sb->header->reaped;
    __atomic_store_n(&s->state, KD_SB_FREE, __ATOMIC_RELEASE);
    kd_sb_add_counts(to, &s->counts);
    s->pid = 0;
    s->generation = 0;
    s->connections = 0;
    s->requests = 0;
    s->since = kd_sb_clock();
    s->started = 0;
    s->mem_private = s->mem_shared = s->mem_pss = 0;
    memset(&s->counts, 0, sizeof s->counts);
    memset(s->request, 0, sizeof s->request);
}

void kd_sb_add_counts(kd_sb_counts *to, const kd_sb_counts *a)
{
    unsigned k;
    for (k = 0; k < 5; k++)
        to->status[k] += a->status[k];
    for (k = 0; k < KD_SB_BUCKETS; k++)
        to->buckets[k] += a->buckets[k];
    to->seconds += a->seconds;
    to->bytes_in += a->bytes_in;
    to->bytes_out += a->bytes_out;
    to->taken += a->taken;
    for (k = 0; k < KD_SB_POOLS; k++)
        to->queued[k] += a->queued[k];
    to->blocked += a->blocked;
}

const char *kd_sb_state_name(unsigned state)
{
    static const char *names[KD_SB_STATES] = { "free", "starting", "idle", "reading", "app", "writing", "draining" };
    return state < KD_SB_STATES ? names[state] : "unknown";
}

void kd_sb_totals(const kd_sb *sb, kd_sb_counts *out)
{
    unsigned i;
    *out = sb->header->reaped;
    /* a slot being cleared may be counted twice or not at all for an
     * instant; readers keep counters from going down */
    for (i = 0; i < sb->header->nslots; i++)
        if (__atomic_load_n(&sb->slots[i].state, __ATOMIC_ACQUIRE) != KD_SB_FREE)
            kd_sb_add_counts(out, &sb->slots[i].counts);
}

int kd_sb_parse_memory(const char *text, size_t len, uint64_t *priv, uint64_t *shared, uint64_t *pss)
{
    static const struct { const char *name; int which; } keys[] = {
        { "Private_Clean:", 0 }, { "Private_Dirty:", 0 },
        { "Shared_Clean:", 1 }, { "Shared_Dirty:", 1 }, { "Pss:", 2 },
    };
    uint64_t v[3] = { 0, 0, 0 };
    const char *p = text, *end = text + len;
    int found = 0;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t k;
        if (!eol)
            eol = end;
        for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            size_t n = strlen(keys[k].name);
            const char *q = p + n;
            uint64_t kb = 0;
            if ((size_t)(eol - p) <= n || memcmp(p, keys[k].name, n) != 0)
                continue;
            while (q < eol && *q == ' ')
                q++;
            if (q == eol || *q < '0' || *q > '9')
                break;
            while (q < eol && *q >= '0' && *q <= '9' && kb < (UINT64_MAX - 9) / 10)
                kb = kb * 10 + (uint64_t)(*q++ - '0');
            v[keys[k].which] += kb * 1024;
            found = 1;
            break;
        }
        p = eol + 1;
    }
    *priv = v[0];
    *shared = v[1];
    *pss = v[2];
    return found ? 0 : -1;
}

int kd_sb_read_memory(kd_sb *sb, unsigned i, int pid)
{
    char path[64], buf[4096];
    kd_sb_slot *s = &sb->slots[i];
    uint64_t priv = 0, shared = 0, pss = 0;
    ssize_t n;
    size_t got = 0;
    int fd, rv = -1;

    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        while (got < sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - got)) != 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                break;
            got += (size_t)n;
        }
        close(fd);
        if (kd_sb_parse_memory(buf, got, &priv, &shared, &pss) == 0)
            rv = 0;
        else
            errno = EINVAL;
    }
    s->mem_private = priv;
    s->mem_shared = shared;
    s->mem_pss = pss;
    return rv;
}

int kd_sb_send_fd(int sock, const char *msg, size_t len, int fd)
{
    struct iovec iov;

    if (len == 0 || len > 255) {
        errno = EINVAL;
        return -1;
    }
    iov.iov_base = (void *)msg;
    iov.iov_len = len;
    return kd_fdpass_send(sock, &iov, 1, fd) < 0 ? -1 : 0;
}

ssize_t kd_sb_recv_fd(int sock, char *buf, size_t cap, int *fd)
{
    struct iovec iov;
    ssize_t n;
    int flags;

    *fd = -1;
    if (cap < 2) {
        errno = EINVAL;
        return -1;
    }
    iov.iov_base = buf;
    iov.iov_len = cap - 1;
    n = kd_fdpass_recv(sock, &iov, 1, fd, &flags);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}
