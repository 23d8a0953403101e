/* kd_cgi_io.c - a script's bytes between processes: the output file of
 * an in-process run, the request sent to a zygote with its descriptors,
 * and the output of a fork- or exec-mode script collected as it runs.
 * The CGI runner's C, with the perl API: included by Kamado.xs after
 * the parts before it (kd_cgi_vars.c, kd_cgi_env.c, kd_cgi_world.c, kd_cgi_io.c,
 * kd_cgi_snapshot.c); their XS is xs/CGI*.xsh, a file per Perl package. */

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* kd_output_begin (world_enter): the files collecting a run's output and
 * errors, made ready: the output at its start (scripts look at
 * tell(STDOUT)), the errors appended to what earlier runs left (emptied
 * past MAX_ERR bytes); returns where this run's errors start. The output
 * file is not emptied for each run: a run's output is what lies before
 * the file's position when it ends (the script and the children it
 * starts share that position),
 * and what earlier runs left past it is not read. Emptying it would give
 * its page back and make the next write take a new one, so it is emptied
 * only after a long output. */
#define KD_OUTPUT_KEEP (64 * 1024)
static off_t output_end;    /* where the last run's output ended */

static IV
kd_output_begin(int out_fd, int err_fd, IV max_err)
{
    off_t end;
    if (output_end > KD_OUTPUT_KEEP && ftruncate(out_fd, 0) != 0)
        croak("Can't empty the output file: %s", Strerror(errno));
    output_end = 0;
    if (lseek(out_fd, 0, SEEK_SET) < 0)
        croak("Can't seek the output file: %s", Strerror(errno));
    end = lseek(err_fd, 0, SEEK_END);
    if (end > (off_t)max_err) {
        if (ftruncate(err_fd, 0) != 0)
            croak("Can't empty the error file: %s", Strerror(errno));
        end = lseek(err_fd, 0, SEEK_SET);
    }
    if (end < 0)
        croak("Can't seek the error file: %s", Strerror(errno));
    return (IV)end;
}

/* What file FD holds from OFFSET to END (-1: to its end). */
static SV *
kd_read_range(pTHX_ int fd, off_t offset, off_t end)
{
    struct stat st;
    SV *bytes;
    STRLEN got = 0;
    if (end < 0) {
        if (fstat(fd, &st) != 0)
            croak("Can't stat descriptor %d: %s", fd, Strerror(errno));
        end = st.st_size;
    }
    bytes = newSVpvs("");
    if (end <= offset)
        return bytes;
    SvGROW(bytes, (STRLEN)(end - offset) + 1);
    while (offset + (off_t)got < end) {
        ssize_t n = pread(fd, SvPVX(bytes) + got, (size_t)(end - offset) - got, offset + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            croak("Can't read descriptor %d: %s", fd, Strerror(errno));
        if (n == 0)
            break;
        got += (STRLEN)n;
    }
    SvCUR_set(bytes, got);
    *SvEND(bytes) = '\0';
    return bytes;
}

/* See read_output in xs/CGIInProcessWorld.xsh. */
static SV *
kd_read_output(pTHX_ int out_fd)
{
    off_t end = lseek(out_fd, 0, SEEK_CUR);
    if (end < 0)
        croak("Can't seek the output file: %s", Strerror(errno));
    output_end = end;
    return kd_read_range(aTHX_ out_fd, 0, end);
}

/* Kamado::CGI::Mode::Fork / Kamado::CGI::Process::Zygote: a request to a zygote is one
 * message: an 8-byte head (the payload's length, the number of
 * descriptors), the payload, and up to KD_MAX_PASS descriptors
 * (SCM_RIGHTS, arriving with its first byte). */
#define KD_MAX_PASS 4

/* Sends the message on the stream socket SOCK; 1, or 0 with errno set. */
static int
kd_send_with_fds(int sock, const char *payload, STRLEN len, const int *fds, int nfds)
{
    unsigned char head[8];
    struct iovec iov[2];
    struct msghdr m;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * KD_MAX_PASS)];
    } control;
    size_t total = sizeof head + len, sent = 0;
    int first = 1;
    if (nfds > KD_MAX_PASS) {
        errno = EINVAL;
        return 0;
    }
    head[0] = (unsigned char)(len >> 24); head[1] = (unsigned char)(len >> 16);
    head[2] = (unsigned char)(len >> 8);  head[3] = (unsigned char)len;
    head[4] = head[5] = head[6] = 0;      head[7] = (unsigned char)nfds;
    while (sent < total) {
        ssize_t n;
        int k = 0;
        memset(&m, 0, sizeof m);
        if (sent < sizeof head) {
            iov[k].iov_base = head + sent;
            iov[k++].iov_len = sizeof head - sent;
            iov[k].iov_base = (void *)payload;
            iov[k++].iov_len = len;
        } else {
            iov[k].iov_base = (void *)(payload + (sent - sizeof head));
            iov[k++].iov_len = total - sent;
        }
        m.msg_iov = iov;
        m.msg_iovlen = k;
        if (first && nfds > 0) {
            struct cmsghdr *cm;
            memset(&control, 0, sizeof control);
            m.msg_control = control.buf;
            m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
            cm = CMSG_FIRSTHDR(&m);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
            memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
        }
        n = sendmsg(sock, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        first = 0;
        sent += (size_t)n;
    }
    return 1;
}

/* Reads one message from SOCK: the payload into PAYLOAD, the descriptors
 * into FDS (their count returned), or -1 at the end of the stream or on
 * an error. */
static int
kd_recv_with_fds(pTHX_ int sock, SV *payload, int *fds)
{
    unsigned char head[8];
    size_t got = 0, len, want;
    int nfds = 0;
    struct cmsghdr *cm;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * KD_MAX_PASS)];
    } control;
    /* the head, with the descriptors: to the byte, never beyond (the next
     * message's descriptors must not be taken with this one's) */
    while (got < sizeof head) {
        struct iovec iov;
        struct msghdr m;
        ssize_t n;
        memset(&m, 0, sizeof m);
        iov.iov_base = head + got;
        iov.iov_len = sizeof head - got;
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = control.buf;
        m.msg_controllen = sizeof control.buf;
        n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto fail;
        for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
            int i, count;
            if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
                continue;
            count = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (i = 0; i < count; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
                if (nfds < KD_MAX_PASS)
                    fds[nfds++] = fd;
                else
                    close(fd);
            }
        }
        got += (size_t)n;
    }
    len = ((size_t)head[0] << 24) | ((size_t)head[1] << 16) | ((size_t)head[2] << 8) | head[3];
    if (head[7] != nfds)
        goto fail;
    SvGROW(payload, len + 1);
    for (want = 0; want < len; ) {
        ssize_t n = read(sock, SvPVX(payload) + want, len - want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto fail;
        want += (size_t)n;
    }
    SvCUR_set(payload, len);
    *SvEND(payload) = '\0';
    SvPOK_only(payload);
    return nfds;
  fail:
    while (nfds > 0)
        close(fds[--nfds]);
    return -1;
}

/* Kamado::CGI::Process::Relay: what a script writes to its output and error pipes
 * (OUT_FD, ERR_FD) until its output ends, or for HOLD seconds, or until
 * MAX bytes of output. Appends to OUT and ERR; sets *OUT_OPEN and
 * *ERR_OPEN to whether each pipe is still open. */
static void
kd_collect(pTHX_ int out_fd, int err_fd, double hold, STRLEN max, SV *out, SV *err, int *out_open, int *err_open)
{
    struct timespec now, until;
    char buf[65536];
    *out_open = out_fd >= 0;
    *err_open = err_fd >= 0;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)hold;
    until.tv_nsec += (long)((hold - (double)(time_t)hold) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (*out_open && SvCUR(out) < max) {
        struct pollfd p[2];
        int np = 0, i, ms, r;
        clock_gettime(CLOCK_MONOTONIC, &now);
        ms = (int)((until.tv_sec - now.tv_sec) * 1000 + (until.tv_nsec - now.tv_nsec) / 1000000);
        if (ms < 0)
            ms = 0;
        p[np].fd = out_fd;
        p[np++].events = POLLIN;
        if (*err_open) {
            p[np].fd = err_fd;
            p[np++].events = POLLIN;
        }
        r = poll(p, np, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;    /* the time is up (or poll failed: the caller's loop goes on) */
        for (i = 0; i < np; i++) {
            ssize_t n;
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            n = read(p[i].fd, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (n > 0) {
                sv_catpvn(p[i].fd == out_fd ? out : err, buf, (STRLEN)n);
                continue;
            }
            if (p[i].fd == out_fd)
                *out_open = 0;
            else
                *err_open = 0;
        }
    }
    /* what the errors pipe holds already, and whether it ended too */
    while (*err_open) {
        struct pollfd p;
        ssize_t n;
        p.fd = err_fd;
        p.events = POLLIN;
        if (poll(&p, 1, 0) <= 0)
            break;
        n = read(err_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (n == 0)
            *err_open = 0;
        else
            sv_catpvn(err, buf, (STRLEN)n);
    }
}
