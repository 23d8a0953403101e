/* kd_scoreboard.c: see kd_scoreboard.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kd_scoreboard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef char kd_sb_header_is_64_bytes[sizeof(kd_sb_header) == 64 ? 1 : -1];
typedef char kd_sb_slot_is_128_bytes[sizeof(kd_sb_slot) == 128 ? 1 : -1];

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
    memset(p, 0, len);
    sb->header = p;
    sb->slots = (kd_sb_slot *)((char *)p + sizeof(kd_sb_header));
    sb->map_len = len;
    sb->writable = 1;
    sb->pub_fd = -1;
    sb->header->version = KD_SB_VERSION;
    sb->header->nslots = nslots;
    sb->header->slot_size = sizeof(kd_sb_slot);
    sb->header->header_size = sizeof(kd_sb_header);
    sb->header->generation_pid = (int32_t)getpid();
    memcpy(sb->header->magic, KD_SB_MAGIC, 8);
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

int kd_sb_attach(kd_sb *sb, const char *path)
{
    struct stat st;
    kd_sb_header *h;
    void *p;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if ((size_t)st.st_size < sizeof(kd_sb_header)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
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
    return 0;
}

void kd_sb_unmap(kd_sb *sb)
{
    if (sb->pub_fd >= 0)
        close(sb->pub_fd);
    sb->pub_fd = -1;
    if (sb->header)
        munmap(sb->header, sb->map_len);
    sb->header = NULL;
    sb->slots = NULL;
}

void kd_sb_claim(kd_sb *sb, unsigned i, uint32_t generation)
{
    kd_sb_slot *s = &sb->slots[i];
    s->pid = 0;                       /* the worker stores its own */
    s->generation = generation;
    s->connections = 0;
    s->requests = 0;
    s->request[0] = '\0';
    kd_sb_set_state(s, KD_SB_STARTING);
}

void kd_sb_clear(kd_sb *sb, unsigned i)
{
    kd_sb_slot *s = &sb->slots[i];
    __atomic_store_n(&s->state, KD_SB_FREE, __ATOMIC_RELEASE);
    s->pid = 0;
    s->generation = 0;
    s->connections = 0;
    s->requests = 0;
    s->since = kd_sb_clock();
    memset(s->request, 0, sizeof s->request);
}

const char *kd_sb_state_name(unsigned state)
{
    static const char *names[KD_SB_STATES] = { "free", "starting", "idle", "reading", "app", "writing", "draining" };
    return state < KD_SB_STATES ? names[state] : "unknown";
}
