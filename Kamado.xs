/* Kamado.xs: glue between the C engine in src/ and Perl.
 *
 * C owns bytes and syscalls (src/kd_parser.c, src/kd_conn.c); this file
 * only turns a parsed head into %env and a PSGI response into iovecs.
 * Connections cross into Perl as file descriptor numbers. I/O failures
 * return undef with $! set; croak is kept for caller bugs.
 */
#define PERL_NO_GET_CONTEXT
#include "EXTERN.h"
#include "perl.h"
#include "XSUB.h"

/* one translation unit, so the compiler can inline across the engine */
#include "src/kd_parser.c"
#include "src/kd_head.c"
#include "src/kd_util.c"
#include "src/kd_loop.c"
#include "src/kd_pools.c"
#include "src/kd_body.c"
#include "src/kd_write.c"
#include "src/kd_scoreboard.c"
#include "src/kd_cgi.c"
#include <sys/prctl.h>
#include <signal.h>
#include <time.h>
#include <pthread.h>
#include <sys/wait.h>
#include "perliol.h"      /* the layers of a handle: Kamado::CGI::Zygote::_exit_if_quiet */

/* --request-timeout: two POSIX timers per worker. The soft one sends USR2,
 * which the worker turns into a die in the app; the hard one sends VTALRM,
 * left at its default action, so the kernel ends the worker even when the
 * app is stuck where no Perl handler can run. */
static timer_t request_timers[2];
static pid_t request_timers_pid;     /* who made them (0: not this process) */

static double request_deadlines[2];  /* when each timer goes off (CLOCK_MONOTONIC), 0: off */

/* (a child has no timers: made again when it sets one; a getpid() per
 * use cost three system calls a CGI run) */
static void
kd_forget_timers(void)
{
    request_timers_pid = 0;
    request_deadlines[0] = request_deadlines[1] = 0;
}

/* This process's pid, noted: perl's $$ is a getpid() each time it is
 * read (three a CGI run). Forgotten in a forked child. */
static pid_t kd_pid;

static void
kd_after_fork(void)
{
    kd_forget_timers();
    kd_pid = 0;
}

static double
kd_monotonic(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Arms the soft and hard timers SOFT and HARD seconds from now (0: off);
 * 0 with errno set if that failed. */
static int
kd_request_timer_set(double soft, double hard)
{
    static const int signals[2] = { SIGUSR2, SIGVTALRM };
    double when[2], now = kd_monotonic();
    int i, ok = 1;
    when[0] = soft;
    when[1] = hard;
    if (!request_timers_pid) {
        for (i = 0; i < 2; i++) {
            struct sigevent ev;
            memset(&ev, 0, sizeof ev);
            ev.sigev_notify = SIGEV_SIGNAL;
            ev.sigev_signo = signals[i];
            if (timer_create(CLOCK_MONOTONIC, &ev, &request_timers[i]) != 0)
                return 0;
        }
        request_timers_pid = getpid();
    }
    for (i = 0; i < 2; i++) {
        struct itimerspec its;
        memset(&its, 0, sizeof its);
        its.it_value.tv_sec = (time_t)when[i];
        its.it_value.tv_nsec = (long)((when[i] - (double)(time_t)when[i]) * 1e9);
        if (timer_settime(request_timers[i], 0, &its, NULL) != 0)
            ok = 0;
        request_deadlines[i] = when[i] > 0 ? now + when[i] : 0;
    }
    return ok;
}

/* Seconds left on the soft and hard timers, into LEFT (0: disarmed or
 * gone off), from the deadlines noted when they were set: every setting
 * goes through kd_request_timer_set (no timer_gettime per request). */
static void
kd_request_timer_left(double left[2])
{
    int i;
    double now = 0;
    for (i = 0; i < 2; i++) {
        left[i] = 0;
        if (request_deadlines[i] > 0) {
            if (!now)
                now = request_timers_pid ? kd_monotonic() : -1;
            if (now > 0 && request_deadlines[i] > now)
                left[i] = request_deadlines[i] - now;
        }
    }
}

/* The server's deadlines while a CGI run has borrowed the timers. */
static struct {
    int active;
    double left[2];
    double since;
} borrowed_timer;

typedef struct {
    kd_loop *loop;
    AV *templates;                  /* env template per listener */
    SV *scoreboard;                 /* the Kamado::Scoreboard holding its slot */
    char *head;                     /* response head buffer, reused */
    size_t head_cap;
    const char *framing_error;      /* why the last head was refused or its body cut; NULL */
    char env_key[KD_BUF_SIZE + 5];  /* "HTTP_" + any name that fits a head */
} kd_xs;

typedef kd_xs *Kamado__Loop;
typedef kd_sb *Kamado__Scoreboard;

/* %env keys the engine sets on every request, with their hashes computed
 * once at load time (the hash seed is fixed for the process and its
 * forked workers) */
enum { K_METHOD, K_URI, K_PROTOCOL, K_QUERY, K_ADDR, K_PORT, K_PATH, K_CL, K_CT, K_COUNT };
static struct { const char *name; I32 len; U32 hash; } env_keys[K_COUNT] = {
    {"REQUEST_METHOD", 14, 0}, {"REQUEST_URI", 11, 0}, {"SERVER_PROTOCOL", 15, 0},
    {"QUERY_STRING", 12, 0}, {"REMOTE_ADDR", 11, 0}, {"REMOTE_PORT", 11, 0},
    {"PATH_INFO", 9, 0}, {"CONTENT_LENGTH", 14, 0}, {"CONTENT_TYPE", 12, 0},
};

#define ENV_STORE(env, k, sv) \
    (void)hv_store((env), env_keys[k].name, env_keys[k].len, (sv), env_keys[k].hash)

static kd_conn *serving_conn(pTHX_ kd_xs *x, int fd)
{
    kd_loop *l = x->loop;
    /* a writer kept past its request must not reach the descriptor's
     * next connection */
    if (fd < 0 || fd >= l->conns_cap || !l->conns[fd] || !l->conns[fd]->open ||
        !l->conns[fd]->serving)
        croak("Kamado::Loop: fd %d is not serving a request", fd);
    return l->conns[fd];
}

/* PSGI env for the head just parsed on c */
static HV *build_env(pTHX_ kd_xs *x, kd_conn *c)
{
    const kd_request *r = &c->req;
    SV **tmpl = av_fetch(x->templates, c->listener, 0);
    HV *env = newHVhv((HV *)SvRV(*tmpl));
    char *key = x->env_key;
    size_t i;
    SV *path;

    ENV_STORE(env, K_METHOD, newSVpvn(r->method, r->method_len));
    ENV_STORE(env, K_URI, newSVpvn(r->target, r->target_len));
    ENV_STORE(env, K_PROTOCOL, newSVpvn(r->minor_version ? "HTTP/1.1" : "HTTP/1.0", 8));
    ENV_STORE(env, K_QUERY, r->query ? newSVpvn(r->query, r->query_len) : newSVpvs(""));
    ENV_STORE(env, K_ADDR, newSVpvn(c->remote_addr, c->remote_addr_len));
    ENV_STORE(env, K_PORT, newSViv(c->remote_port));

    /* PATH_INFO is the percent-decoded path (CGI/PSGI convention) */
    path = newSV(r->path_len + 1);
    SvPOK_on(path);
    {
        char *d = SvPVX(path);
        const char *s = r->path, *e = r->path + r->path_len;
        while (s < e) {
            int h1, h2;
            if (*s == '%' && e - s >= 3 && (h1 = hexval((unsigned char)s[1])) >= 0 &&
                (h2 = hexval((unsigned char)s[2])) >= 0) {
                *d++ = (char)(h1 * 16 + h2);
                s += 3;
            } else {
                *d++ = *s++;
            }
        }
        *d = '\0';
        SvCUR_set(path, d - SvPVX(path));
    }
    ENV_STORE(env, K_PATH, path);

    for (i = 0; i < r->num_headers; i++) {
        const kd_header *h = &r->headers[i];
        size_t j;
        SV **slot;

        /* underscores would let "X_Forwarded_For" pose as X-Forwarded-For */
        if (memchr(h->name, '_', h->name_len))
            continue;
        if (ci_eq(h->name, h->name_len, "content-length")) {
            ENV_STORE(env, K_CL, newSVpvn(h->value, h->value_len));
            continue;
        }
        if (ci_eq(h->name, h->name_len, "content-type")) {
            ENV_STORE(env, K_CT, newSVpvn(h->value, h->value_len));
            continue;
        }
        memcpy(key, "HTTP_", 5);
        for (j = 0; j < h->name_len; j++) {
            char ch = h->name[j];
            key[5 + j] = ch == '-' ? '_' : (char)toUPPER(ch);
        }
        /* one lookup: the slot is new (undef) or holds an earlier field */
        slot = hv_fetch(env, key, (I32)(h->name_len + 5), 1);
        if (SvOK(*slot)) {
            /* repeated fields are joined as one list (RFC 9110 5.3) */
            sv_catpvs(*slot, ", ");
            sv_catpvn(*slot, h->value, h->value_len);
        } else {
            sv_setpvn(*slot, h->value, h->value_len);
        }
    }
    /* absolute-form: the target's host wins over Host (RFC 9112 3.2.2) */
    if (r->authority_len)
        (void)hv_stores(env, "HTTP_HOST", newSVpvn(r->authority, r->authority_len));
    return env;
}

/* The bytes of sv, or NULL when it holds characters above 0xFF (a PSGI
 * response must be bytes): the caller answers 500 instead of croaking
 * in the middle of a response. */
static const char *sv_bytes(pTHX_ SV *sv, STRLEN *len)
{
    if (SvUTF8(sv) && !sv_utf8_downgrade(sv, TRUE))
        return NULL;
    return SvPV(sv, *len);
}

/* The status the app gave, as a number; 0 (refused) unless it is a
 * whole number: an integer, or a string of digits. */
static int status_of(pTHX_ SV *sv)
{
    SvGETMAGIC(sv);
    if (SvIOK(sv))
        return SvIVX(sv) >= 0 && SvIVX(sv) < 10000 && !SvIsUV(sv) ? (int)SvIVX(sv) : 0;
    if (SvPOK(sv)) {
        STRLEN len, i;
        const char *p = SvPV_nomg(sv, len);
        int n = 0;
        if (len == 0 || len > 4)
            return 0;
        for (i = 0; i < len; i++) {
            if (p[i] < '0' || p[i] > '9')
                return 0;
            n = n * 10 + (p[i] - '0');
        }
        return n;
    }
    if (SvNOK(sv) && SvNVX(sv) >= 0 && SvNVX(sv) < 10000 && SvNVX(sv) == (NV)(int)SvNVX(sv))
        return (int)SvNVX(sv);
    return 0;
}

#define KD_XS_FIELDS 32
#define KD_BODY_MISMATCH 2          /* Kamado::Loop::BODY_MISMATCH */

/* The head of the app's response into x->head (src/kd_head.c decides
 * its framing) and the connection's state for the body. body_len is the
 * total of an arrayref body, or -1 for a streamed one. Returns the head
 * length, or 0 when the head is refused (x->framing_error says why; the
 * caller answers 500). */
static size_t build_head(pTHX_ kd_xs *x, kd_conn *c, SV *status, AV *headers, IV body_len)
{
    kd_field stack_fields[KD_XS_FIELDS], *f = stack_fields;
    kd_head_in in;
    kd_head_out out;
    SSize_t i, n = av_len(headers) + 1;
    size_t need = KD_HEAD_SLACK;

    x->framing_error = NULL;
    if (n % 2) {
        x->framing_error = "odd number of header elements";
        return 0;
    }
    n /= 2;
    if (n > KD_XS_FIELDS)
        Newx(f, n, kd_field);
    for (i = 0; i < n; i++) {
        SV **k = av_fetch(headers, 2 * i, 0), **v = av_fetch(headers, 2 * i + 1, 0);
        STRLEN kl = 0, vl = 0;
        if (!k || !v || !SvOK(*k) || !(f[i].name = sv_bytes(aTHX_ *k, &kl)) ||
            !(f[i].value = SvOK(*v) ? sv_bytes(aTHX_ *v, &vl) : "")) {
            x->framing_error = "a header name or value that is undef or not bytes";
            break;
        }
        f[i].name_len = kl;
        f[i].value_len = vl;
        need += kl + vl + 4;
    }
    if (x->framing_error) {
        if (f != stack_fields)
            Safefree(f);
        return 0;
    }
    if (need > x->head_cap) {
        while (need > x->head_cap)
            x->head_cap *= 2;
        Renew(x->head, x->head_cap, char);
    }
    kd_loop_writing(x->loop);
    if (x->loop->draining)
        c->keepalive = 0;           /* the worker is about to exit */
    /* a body the app did not read (or, after Expect, was never sent) leaves
     * the next request's start unknown: say the connection ends here */
    if (kd_conn_body_unread(c))
        c->keepalive = 0;
    in.status = status_of(aTHX_ status);
    in.fields = f;
    in.nfields = (size_t)n;
    in.body_len = body_len;
    in.minor_version = c->minor_version;
    in.is_head = c->is_head;
    in.keepalive = c->keepalive;
    in.date = kd_date(x->loop);
    kd_head_build(&in, x->head, x->head_cap, &out);
    if (f != stack_fields)
        Safefree(f);
    if (out.error) {
        x->framing_error = kd_head_error_text(out.error);
        return 0;
    }
    c->keepalive = out.keepalive;
    c->resp_no_body = out.no_body;
    c->resp_chunked = out.framing == KD_FRAME_CHUNKED;
    c->resp_left = out.framing == KD_FRAME_LENGTH ? out.length : -1;
    if (out.mismatch)
        x->framing_error = out.mismatch > 0 ? "body longer than its Content-Length: cut, connection closed"
                                            : "body shorter than its Content-Length: connection closed";
    return out.len;
}

MODULE = Kamado    PACKAGE = Kamado::Loop

PROTOTYPES: DISABLE

BOOT:
{
    int i;
    HV *stash = gv_stashpvs("Kamado", GV_ADD);
    for (i = 0; i < K_COUNT; i++)
        PERL_HASH(env_keys[i].hash, env_keys[i].name, env_keys[i].len);
    /* the numbers C and Perl share, by name */
    newCONSTSUB(stash, "BODY_NONE", newSViv(KD_BODY_NONE));
    newCONSTSUB(stash, "BODY_LENGTH", newSViv(KD_BODY_LENGTH));
    newCONSTSUB(stash, "BODY_CHUNKED", newSViv(KD_BODY_CHUNKED));
    newCONSTSUB(stash, "BODY_FILE", newSViv(KD_BODY_FILE));
    (void)pthread_atfork(NULL, NULL, kd_after_fork);
    /* what write_response and write_end return for a body cut at, or
     * short of, its Content-Length (a constant Perl inlines) */
    newCONSTSUB(gv_stashpvs("Kamado::Loop", GV_ADD), "BODY_MISMATCH", newSViv(KD_BODY_MISMATCH));
}

Kamado::Loop
new(char *klass, AV *fds, AV *templates, HV *settings)
CODE:
{
    int ifds[KD_MAX_LISTENERS];
    SSize_t i, n = av_len(fds) + 1;
    SV **v;
    PERL_UNUSED_VAR(klass);
    if (n < 1 || n > KD_MAX_LISTENERS || av_len(templates) + 1 != n)
        croak("Kamado::Loop->new: need 1 to %d listeners, one env template each", KD_MAX_LISTENERS);
    for (i = 0; i < n; i++) {
        SV **t = av_fetch(templates, i, 0);
        if (!t || !SvROK(*t) || SvTYPE(SvRV(*t)) != SVt_PVHV)
            croak("Kamado::Loop->new: template %d is not a hash reference", (int)i);
        /* room for every per-request key: copies never split buckets */
        hv_ksplit((HV *)SvRV(*t), 40);
        ifds[i] = (int)SvIV(*av_fetch(fds, i, 0));
    }
    Newxz(RETVAL, 1, kd_xs);
    RETVAL->loop = kd_loop_new(ifds, (int)n);
    if (!RETVAL->loop) {
        Safefree(RETVAL);
        croak("Can't create the event loop: %s", strerror(errno));
    }
    RETVAL->templates = (AV *)SvREFCNT_inc((SV *)templates);
    RETVAL->head_cap = 4096;
    Newx(RETVAL->head, RETVAL->head_cap, char);
#define SETTING(name, field, conv) \
    if ((v = hv_fetchs(settings, name, 0)) && SvOK(*v)) RETVAL->loop->field = conv(*v)
    SETTING("keepalive_timeout", keepalive_timeout, SvNV);
    SETTING("header_timeout", header_timeout, SvNV);
    SETTING("read_timeout", read_timeout, SvNV);
    SETTING("write_timeout", write_timeout, SvNV);
    SETTING("max_keepalive_reqs", max_keepalive_reqs, SvIV);
    SETTING("max_connections", max_conns, SvIV);
    SETTING("max_request_body", max_body, (int64_t)SvNV);
    SETTING("min_body_rate", min_body_rate, SvNV);
    SETTING("write_buffer", write_buffer, (size_t)SvUV);
    SETTING("expect_to_app", expect_to_app, SvTRUE);
#undef SETTING
}
OUTPUT:
    RETVAL

void
set_pools(Kamado::Loop self, AV *routes, int mine, int recv_fd, int listen)
PPCODE:
{
    /* routes: [[prefix, send_fd], ...], the default pool's prefix empty */
    kd_route r[KD_MAX_ROUTES];
    SSize_t i, n = av_len(routes) + 1;
    if (n < 1 || n > KD_MAX_ROUTES)
        croak("Kamado::Loop->set_pools: need 1 to %d routes", KD_MAX_ROUTES);
    Zero(r, KD_MAX_ROUTES, kd_route);
    for (i = 0; i < n; i++) {
        SV **e = av_fetch(routes, i, 0);
        AV *pair;
        STRLEN len;
        const char *prefix;
        if (!e || !SvROK(*e) || SvTYPE(SvRV(*e)) != SVt_PVAV || av_len((AV *)SvRV(*e)) != 1)
            croak("Kamado::Loop->set_pools: route %d is not [prefix, fd]", (int)i);
        pair = (AV *)SvRV(*e);
        prefix = SvPV(*av_fetch(pair, 0, 0), len);
        if (len >= KD_MAX_PREFIX)
            croak("Kamado::Loop->set_pools: prefix longer than %d bytes", KD_MAX_PREFIX - 1);
        memcpy(r[i].prefix, prefix, len);
        r[i].prefix_len = len;
        r[i].send_fd = (int)SvIV(*av_fetch(pair, 1, 0));
    }
    if (kd_loop_set_pools(self->loop, r, (int)n, mine, recv_fd, listen) != 0)
        croak("Can't set up the pools: %s", strerror(errno));
    XSRETURN_YES;
}

void
DESTROY(Kamado::Loop self)
CODE:
    kd_loop_free(self->loop);
    SvREFCNT_dec((SV *)self->templates);
    if (self->scoreboard)
        SvREFCNT_dec(self->scoreboard);
    Safefree(self->head);
    Safefree(self);

void
next_request(Kamado::Loop self, int timeout_ms)
PPCODE:
{
    kd_conn *c;
    int rv = kd_loop_next(self->loop, timeout_ms, &c);
    if (rv < 0)
        croak("Can't wait for connections: %s", strerror(errno));
    if (rv == 0)
        XSRETURN_EMPTY;
    EXTEND(SP, 3);
    mPUSHi(c->fd);
    mPUSHs(newRV_noinc((SV *)build_env(aTHX_ self, c)));
    mPUSHi(kd_conn_body_kind(c));   /* Kamado::BODY_* */
}

int
body_file(Kamado::Loop self, int fd)
CODE:
    /* the descriptor of the temporary file holding the whole body */
    RETVAL = kd_conn_body_file(serving_conn(aTHX_ self, fd));
OUTPUT:
    RETVAL

SV *
read_body(Kamado::Loop self, int fd, size_t max)
CODE:
{
    kd_conn *c = serving_conn(aTHX_ self, fd);
    ssize_t n;
    RETVAL = newSV(max + 1);
    n = kd_conn_read_body(self->loop, c, SvPVX(RETVAL), max);
    if (n < 0) {
        SvREFCNT_dec(RETVAL);
        XSRETURN_UNDEF;
    }
    SvPOK_on(RETVAL);
    SvCUR_set(RETVAL, n);
    *SvEND(RETVAL) = '\0';
}
OUTPUT:
    RETVAL

void
write_response(Kamado::Loop self, int fd, SV *status, AV *headers, AV *body)
PPCODE:
{
    /* the common case, a complete response, in one sendmsg; true
     * (BODY_MISMATCH when the body did not match its Content-Length:
     * framing_error says how),
     * false for a refused head (nothing written), undef if the client
     * went away */
    kd_conn *c = serving_conn(aTHX_ self, fd);
    SSize_t i, nb = av_len(body) + 1;
    struct iovec stack_iov[17], *iov = stack_iov;
    IV total = 0;
    size_t hlen;
    int ok;

    if (nb + 1 > 17)
        Newx(iov, nb + 1, struct iovec);
    for (i = 0; i < nb; i++) {
        SV **e = av_fetch(body, i, 0);
        STRLEN l = 0;
        const char *p = (e && SvOK(*e)) ? sv_bytes(aTHX_ *e, &l) : "";
        if (!p)
            break;                   /* wide character: invalid */
        iov[i + 1].iov_base = (char *)p;
        iov[i + 1].iov_len = l;
        total += (IV)l;
    }
    if (i < nb) {
        self->framing_error = "wide character in the body";
        hlen = 0;
    } else {
        hlen = build_head(aTHX_ self, c, status, headers, total);
    }
    if (hlen == 0) {
        if (iov != stack_iov)
            Safefree(iov);
        XSRETURN_NO;                 /* invalid: nothing was written */
    }
    iov[0].iov_base = self->head;
    iov[0].iov_len = hlen;
    if (c->resp_no_body) {
        nb = 0;
    } else if (c->resp_left >= 0 && total > c->resp_left) {
        /* what the declared length covers, and not a byte more */
        IV keep = c->resp_left;
        for (i = 0; i < nb; i++) {
            if ((IV)iov[i + 1].iov_len >= keep) {
                iov[i + 1].iov_len = (size_t)keep;
                break;
            }
            keep -= (IV)iov[i + 1].iov_len;
        }
        nb = i + 1;
    }
    ok = kd_write_last(self->loop, c, iov, (int)nb + 1) == 0;
    if (iov != stack_iov)
        Safefree(iov);
    kd_conn_finish(self->loop, c, ok && c->keepalive);
    if (!ok)
        XSRETURN_UNDEF;              /* the client went away: $! says why */
    if (self->framing_error)
        XSRETURN_IV(KD_BODY_MISMATCH);
    XSRETURN_YES;
}

void
write_file_response(Kamado::Loop self, int fd, SV *status, AV *headers, int in_fd, IV offset, IV length)
PPCODE:
{
    /* a response whose body is a file: what the client does not take at
     * once, the event loop sends (kd_write_file_last); returns as
     * write_response does */
    kd_conn *c = serving_conn(aTHX_ self, fd);
    size_t hlen = build_head(aTHX_ self, c, status, headers, length);
    int ok;
    if (hlen == 0)
        XSRETURN_NO;                 /* invalid: nothing was written */
    if (c->resp_left >= 0 && length > c->resp_left)
        length = c->resp_left;       /* what the declared length covers */
    ok = kd_write_file_last(self->loop, c, self->head, hlen, in_fd, (int64_t)offset,
                            c->resp_no_body || length < 0 ? 0 : (int64_t)length) == 0;
    kd_conn_finish(self->loop, c, ok && c->keepalive);
    if (!ok)
        XSRETURN_UNDEF;              /* the client went away: $! says why */
    if (self->framing_error)
        XSRETURN_IV(KD_BODY_MISMATCH);
    XSRETURN_YES;
}

void
write_head(Kamado::Loop self, int fd, SV *status, AV *headers, IV content_length = -1)
PPCODE:
{
    kd_conn *c = serving_conn(aTHX_ self, fd);
    struct iovec iov;
    size_t hlen = build_head(aTHX_ self, c, status, headers, content_length);
    if (hlen == 0)
        XSRETURN_NO;
    iov.iov_base = self->head;
    iov.iov_len = hlen;
    if (kd_write_all(self->loop, fd, &iov, 1) != 0)
        XSRETURN_UNDEF;
    XSRETURN_YES;
}

void
write_body(Kamado::Loop self, int fd, SV *data)
PPCODE:
{
    kd_conn *c = serving_conn(aTHX_ self, fd);
    STRLEN l = 0;
    const char *p = sv_bytes(aTHX_ data, &l);
    char size[32];
    struct iovec iov[3];
    int n = 0;
    if (!p)
        XSRETURN_NO;                 /* wide character: nothing written */
    if (c->resp_left >= 0 && (IV)l > c->resp_left) {
        /* past the declared length: cut there, and the connection ends */
        l = (STRLEN)c->resp_left;
        c->keepalive = 0;
        self->framing_error = "body longer than its Content-Length: cut, connection closed";
    }
    if (c->resp_no_body || l == 0)   /* an empty chunk would end the body */
        XSRETURN_YES;
    if (c->resp_left >= 0)
        c->resp_left -= (IV)l;
    if (c->resp_chunked) {
        iov[n].iov_base = size;
        iov[n++].iov_len = (size_t)snprintf(size, sizeof size, "%lx\r\n", (unsigned long)l);
    }
    iov[n].iov_base = (char *)p;
    iov[n++].iov_len = l;
    if (c->resp_chunked) {
        iov[n].iov_base = "\r\n";
        iov[n++].iov_len = 2;
    }
    if (kd_write_all(self->loop, fd, iov, n) != 0)
        XSRETURN_UNDEF;
    XSRETURN_YES;
}

void
send_file(Kamado::Loop self, int fd, int in_fd, IV offset, IV len)
PPCODE:
{
    kd_conn *c = serving_conn(aTHX_ self, fd);
    if (c->resp_left >= 0 && len > c->resp_left) {
        len = c->resp_left;          /* as write_body: cut at the length */
        c->keepalive = 0;
        self->framing_error = "body longer than its Content-Length: cut, connection closed";
    }
    if (c->resp_no_body || len <= 0)
        XSRETURN_YES;
    if (c->resp_left >= 0)
        c->resp_left -= len;
    if (kd_sendfile_all(self->loop, fd, in_fd, (off_t)offset, (size_t)len) != 0)
        XSRETURN_UNDEF;
    XSRETURN_YES;
}

void
write_end(Kamado::Loop self, int fd)
PPCODE:
{
    /* ends a streamed body and finishes the request; BODY_MISMATCH when
     * the body did not match its Content-Length (framing_error says how) */
    kd_conn *c = serving_conn(aTHX_ self, fd);
    int ok = 1;
    if (c->resp_chunked && !c->resp_no_body) {
        struct iovec iov;
        iov.iov_base = "0\r\n\r\n";
        iov.iov_len = 5;
        ok = kd_write_all(self->loop, fd, &iov, 1) == 0;
    }
    if (c->resp_left > 0 && !c->resp_no_body) {
        /* short of the declared length: the close shows the truncation */
        c->keepalive = 0;
        self->framing_error = "body shorter than its Content-Length: connection closed";
    }
    kd_conn_finish(self->loop, c, ok && c->keepalive);
    if (!ok)
        XSRETURN_UNDEF;
    if (self->framing_error)
        XSRETURN_IV(KD_BODY_MISMATCH);
    XSRETURN_YES;
}

SV *
framing_error(Kamado::Loop self)
CODE:
    /* why the last response head was refused, or its body cut; undef */
    RETVAL = self->framing_error ? newSVpv(self->framing_error, 0) : &PL_sv_undef;
OUTPUT:
    RETVAL

void
write_error(Kamado::Loop self, int fd, int status)
PPCODE:
{
    /* canned error for a request whose body or response failed; closes */
    kd_conn_error(self->loop, serving_conn(aTHX_ self, fd), status);
    XSRETURN_YES;
}

void
close_conn(Kamado::Loop self, int fd)
PPCODE:
{
    /* idempotent: a failed write may have closed it already, and a
     * lingering connection is no longer the request's to close */
    kd_loop *l = self->loop;
    if (fd >= 0 && fd < l->conns_cap && l->conns[fd] && l->conns[fd]->serving)
        kd_conn_close(l, l->conns[fd]);
    XSRETURN_YES;
}

void
stop_accepting(Kamado::Loop self, int keep_queue = 0)
PPCODE:
    kd_loop_stop_accepting(self->loop, keep_queue);
    XSRETURN_YES;

int
drained(Kamado::Loop self)
CODE:
    RETVAL = kd_loop_drained(self->loop);
OUTPUT:
    RETVAL

UV
serving(Kamado::Loop self, int fd)
CODE:
    /* a number for the request being served on fd (never reused), or 0 */
    kd_loop *l = self->loop;
    RETVAL = fd >= 0 && fd < l->conns_cap && l->conns[fd] && l->conns[fd]->open &&
             l->conns[fd]->serving ? (UV)l->conns[fd]->req_id : 0;
OUTPUT:
    RETVAL

void
scoreboard(Kamado::Loop self, SV *board, int slot)
PPCODE:
{
    /* reports this worker's state in that slot of a Kamado::Scoreboard */
    kd_sb *sb;
    if (!sv_isa(board, "Kamado::Scoreboard"))
        croak("Kamado::Loop->scoreboard: not a Kamado::Scoreboard");
    sb = INT2PTR(kd_sb *, SvIV(SvRV(board)));
    if (!sb->writable || slot < 0 || (unsigned)slot >= sb->header->nslots)
        croak("Kamado::Loop->scoreboard: no writable slot %d", slot);
    if (self->scoreboard)
        SvREFCNT_dec(self->scoreboard);
    self->scoreboard = SvREFCNT_inc(board);   /* the mapping outlives the loop */
    kd_loop_scoreboard(self->loop, &sb->slots[slot]);
    XSRETURN_YES;
}

int
open_connections(Kamado::Loop self)
CODE:
    RETVAL = self->loop->nopen;
OUTPUT:
    RETVAL

INCLUDE: xs/Scoreboard.xsh

MODULE = Kamado    PACKAGE = Kamado

PROTOTYPES: DISABLE

int
set_parent_death_signal(int sig)
CODE:
    /* a worker must not outlive a master that was killed with KILL */
    RETVAL = prctl(PR_SET_PDEATHSIG, (unsigned long)sig) == 0;
OUTPUT:
    RETVAL

int
set_child_subreaper()
CODE:
    /* what a dead worker leaves running (a CGI script, what it started)
     * becomes the generation's child, not init's: it ends it at its exit */
    RETVAL = prctl(PR_SET_CHILD_SUBREAPER, 1UL) == 0;
OUTPUT:
    RETVAL

IV
resident_kb()
CODE:
{
    /* this process's resident set in KiB, from /proc/self/statm (the
     * second field, in pages): what --max-rss compares; -1 if unknown */
    char buf[128];
    long pages = -1;
    ssize_t n;
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    RETVAL = -1;
    if (fd >= 0) {
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            if (sscanf(buf, "%*s %ld", &pages) == 1)
                RETVAL = (IV)(pages * (sysconf(_SC_PAGESIZE) / 1024));
        }
    }
}
OUTPUT:
    RETVAL


int
request_timer(double soft, double hard)
CODE:
    /* arms both timers (seconds from now), or disarms them with 0, 0 */
    RETVAL = kd_request_timer_set(soft, hard);
OUTPUT:
    RETVAL

int
borrow_request_timer(double limit, double grace)
CODE:
{
    /* A deadline of LIMIT seconds (and the hard one GRACE later) for a
     * while, unless the server's own comes sooner: 1 if it was set, 0 if
     * the server's stays. return_request_timer puts the server's back,
     * less the time spent. (One call each way: a CGI run in the worker
     * borrows the timers every request.) */
    kd_request_timer_left(borrowed_timer.left);
    borrowed_timer.since = kd_monotonic();
    borrowed_timer.active = limit > 0 && (borrowed_timer.left[0] == 0 || borrowed_timer.left[0] > limit);
    if (borrowed_timer.active && !kd_request_timer_set(limit, limit + grace))
        croak("Can't set the request timers: %s", Strerror(errno));
    RETVAL = borrowed_timer.active;
}
OUTPUT:
    RETVAL

void
return_request_timer()
CODE:
{
    double spent, soft = 0, hard = 0;
    if (!borrowed_timer.active)
        XSRETURN_EMPTY;
    borrowed_timer.active = 0;
    spent = kd_monotonic() - borrowed_timer.since;
    /* (a server deadline already past: at once, not never) */
    if (borrowed_timer.left[0] > 0) {
        soft = borrowed_timer.left[0] - spent > 0.001 ? borrowed_timer.left[0] - spent : 0.001;
        hard = borrowed_timer.left[1] - spent > 0.001 ? borrowed_timer.left[1] - spent : 0.001;
    }
    (void)kd_request_timer_set(soft, hard);
}

MODULE = Kamado    PACKAGE = Kamado::CGI::Registry

PROTOTYPES: DISABLE

IV
current_pid()
ALIAS:
    Kamado::current_pid = 1
CODE:
    PERL_UNUSED_VAR(ix);
    if (!kd_pid)
        kd_pid = getpid();
    RETVAL = (IV)kd_pid;
OUTPUT:
    RETVAL

void
share_lexicals(SV *outer_ref, ...)
CODE:
{
    /* A CGI script runs in-process as the body of one sub, its wrapper.
     * The named subs the script declares took the wrapper's file-scoped
     * lexicals once, when they were compiled, from the wrapper's first
     * pad; as each call of the wrapper ends, perl gives the next call
     * fresh variables ("will not stay shared"), so from the second
     * request on the named subs would see the first request's values
     * (doc/CGI-HAZARDS.md B1). Called before each run: points each named sub's
     * captured variables at the ones the wrapper's next call will use,
     * so that script and subs share them again, as under CGI. */
    CV *outer;
    PAD *outer_pad;
    I32 i;
    if (!SvROK(outer_ref) || SvTYPE(SvRV(outer_ref)) != SVt_PVCV)
        croak("share_lexicals: not a code reference");
    outer = (CV *)SvRV(outer_ref);
    if (CvDEPTH(outer) != 0 || !CvPADLIST(outer) || PadlistMAX(CvPADLIST(outer)) < 1)
        XSRETURN_EMPTY;
    /* (and the run's lexicals new, as a new process has them) */
    kd_fresh_lexicals(aTHX_ outer);
    outer_pad = PadlistARRAY(CvPADLIST(outer))[1];
    for (i = 1; i < items; i++) {
        SV *ref = ST(i);
        CV *cv;
        PADNAMELIST *names;
        PAD *pad;
        PADOFFSET ix;
        if (!SvROK(ref) || SvTYPE(SvRV(ref)) != SVt_PVCV)
            continue;
        cv = (CV *)SvRV(ref);
        if (CvOUTSIDE(cv) != outer || CvDEPTH(cv) != 0 || CvISXSUB(cv) || !CvPADLIST(cv)
            || PadlistMAX(CvPADLIST(cv)) < 1)
            continue;
        kd_fresh_lexicals(aTHX_ cv);
        names = PadlistNAMES(CvPADLIST(cv));
        pad = PadlistARRAY(CvPADLIST(cv))[1];
        for (ix = 1; ix <= (PADOFFSET)PadnamelistMAX(names) && ix <= (PADOFFSET)AvFILLp(pad); ix++) {
            PADNAME *pn = PadnamelistARRAY(names)[ix];
            PADOFFSET from;
            SV *want;
            if (!pn || !PadnameLEN(pn) || !PadnameOUTER(pn) || PadnameIsOUR(pn))
                continue;
            from = PARENT_PAD_INDEX(pn);
            if (!from || from > (PADOFFSET)AvFILLp(outer_pad))
                continue;
            want = AvARRAY(outer_pad)[from];
            if (want && AvARRAY(pad)[ix] != want) {
                SV *old = AvARRAY(pad)[ix];
                AvARRAY(pad)[ix] = SvREFCNT_inc_simple_NN(want);
                SvREFCNT_dec(old);
            }
        }
    }
}

SV *
signal_state()
CODE:
{
    /* The handlers of every signal and of __DIE__ and __WARN__, copied:
     * read from perl's own table (reading %SIG is one lookup by name,
     * and a sigaction, per signal), so that a script's changes can be
     * found after each run for the price of a loop (changed_signals). */
    AV *state = newAV();
    int i;
    av_extend(state, SIG_SIZE + 1);
    for (i = 1; i < SIG_SIZE + 2; i++) {
        SV *now = kd_signal_now(aTHX_ i);
        av_push(state, now ? newSVsv(now) : newSV(0));
    }
    RETVAL = newRV_noinc((SV *)state);
}
OUTPUT:
    RETVAL

void
changed_signals(AV *state)
PPCODE:
{
    /* (name, handler in STATE) of each handler that is not as in STATE
     * (from signal_state): a code reference to another sub, another
     * string, set where it was not or the reverse; names as %SIG has
     * them, so that %SIG = (%SIG, changed_signals($state)) puts them back. */
    int i;
    for (i = 1; i <= SIG_SIZE + 1; i++) {
        SV **old = av_fetch(state, i - 1, 0);
        SV *was = old ? *old : &PL_sv_undef;
        if (!kd_signal_same(aTHX_ was, kd_signal_now(aTHX_ i))) {
            mXPUSHs(newSVpv(kd_signal_name(i), 0));
            XPUSHs(was);
        }
    }
}

int
world_enter(int in_fd, int out_fd, int err_fd, HV *env, HV *fixed, char *dir, SV *script, SV *line_ends)
CODE:
    /* Enters a run's world: descriptors 0-2 on IN_FD, OUT_FD, ERR_FD
     * (kd_stdio_enter), %ENV and the environment of the request ENV for
     * the script's FIXED part (kd_env_enter),
     * DIR the working directory, $0 SCRIPT, the special variables and
     * @INC (kd_specials_enter, $\ LINE_ENDS); the worker's signal handlers,
     * umask and selected handle noted, for world_leave. Returns the bits
     * of the closed standard handles (kd_point_std). */
    RETVAL = kd_world_enter(aTHX_ in_fd, out_fd, err_fd, env, fixed, dir, script, line_ends);
OUTPUT:
    RETVAL

void
world_leave(char *cwd)
PPCODE:
    /* The worker's world back (%ENV, descriptors, $0, the special
     * variables and @INC, the selected handle, CWD, umask); returns the bits of the standard handles the
     * script closed, then (name, handler) for each signal handler the run
     * changed, to be put back in %SIG (which only perl can do). */
    PUTBACK;
    kd_world_leave(aTHX_ cwd);
    SPAGAIN;

void
new_page(SV *format, SV *format_glob, SV *top, SV *top_glob)
CODE:
{
    /* STDOUT's page state as a new process has it, with the run's
     * formats (their names, FORMAT and TOP, and references to their
     * globs): what `select STDOUT; ($-, $%, $=, $~, $^) = (0, 0, 60,
     * FORMAT, TOP)` does (perl keeps it in the handle, from one run to the
     * next), without the select, five magic sets and two lookups of the
     * globs by name. */
    GV *gv = kd_std_gv(aTHX_ 1);
    IO *io = gv ? GvIOn(gv) : NULL;
    if (!io || !SvROK(format_glob) || !isGV_with_GP(SvRV(format_glob))
        || !SvROK(top_glob) || !isGV_with_GP(SvRV(top_glob)))
        XSRETURN_EMPTY;
    IoLINES_LEFT(io) = 0;
    IoPAGE(io) = 0;
    IoPAGE_LEN(io) = 60;
    if (!IoFMT_NAME(io) || strNE(IoFMT_NAME(io), SvPV_nolen(format))) {
        Safefree(IoFMT_NAME(io));
        IoFMT_NAME(io) = savesvpv(format);
    }
    IoFMT_GV(io) = (GV *)SvRV(format_glob);
    if (!IoTOP_NAME(io) || strNE(IoTOP_NAME(io), SvPV_nolen(top))) {
        Safefree(IoTOP_NAME(io));
        IoTOP_NAME(io) = savesvpv(top);
    }
    IoTOP_GV(io) = (GV *)SvRV(top_glob);
}

IV
output_begin(int out_fd, int err_fd, IV max_err)
CODE:
    /* The files collecting a run's output and errors, made ready: the
     * output at its start (scripts look at tell(STDOUT)), the errors appended
     * to what earlier runs left (emptied past MAX_ERR bytes). Returns
     * where this run's errors start. */
    RETVAL = kd_output_begin(out_fd, err_fd, max_err);
OUTPUT:
    RETVAL

SV *
read_from(int fd, IV offset)
CODE:
    /* What file FD holds from OFFSET to its end (pread: the descriptor's
     * position, shared with the script's STDOUT or STDERR, stays). */
    RETVAL = kd_read_range(aTHX_ fd, (off_t)offset, -1);
OUTPUT:
    RETVAL

SV *
read_output(int out_fd)
CODE:
    /* What the run wrote to the output file OUT_FD (made ready by
     * output_begin): up to the position the script's STDOUT and its
     * children share. */
    RETVAL = kd_read_output(aTHX_ out_fd);
OUTPUT:
    RETVAL

void
flush_all()
CODE:
    /* what every handle has buffered, written: before a script's STDIO
     * are swapped in and out (IO::Handle's flush per handle costs more) */
    PerlIO_flush((PerlIO *)NULL);

MODULE = Kamado    PACKAGE = Kamado::CGI::Output

PROTOTYPES: DISABLE

SV *
_parse(SV *output)
CODE:
{
    /* OUTPUT's head parsed (kd_parse_output), once it holds the empty
     * line that ends it; undef before. */
    STRLEN len;
    const char *o = SvPV(output, len);
    HV *head = kd_parse_output(aTHX_ o, len);
    if (!head)
        XSRETURN_UNDEF;
    RETVAL = newRV_noinc((SV *)head);
}
OUTPUT:
    RETVAL

MODULE = Kamado    PACKAGE = Kamado::CGI::Env

PROTOTYPES: DISABLE

SV *
request(HV *env, HV *fixed)
CODE:
    /* a new hash (see kd_request_env) */
    RETVAL = newRV_noinc((SV *)kd_request_env(aTHX_ env, fixed));
OUTPUT:
    RETVAL

MODULE = Kamado    PACKAGE = Kamado::CGI::Snapshot

PROTOTYPES: DISABLE

void
_restore_vars(AV *vars)
PPCODE:
{
    /* (see kd_snapshot_restore; it calls perl, so the globs to close are
     * pushed only once it is done) */
    AV *opened = (AV *)sv_2mortal((SV *)newAV());
    SSize_t i, n;
    kd_snapshot_restore(aTHX_ vars, opened);
    n = (SSize_t)av_count(opened);
    EXTEND(SP, n);
    for (i = 0; i < n; i++)
        PUSHs(*av_fetch(opened, i, 0));
}

MODULE = Kamado    PACKAGE = Kamado::CGI::Exec

PROTOTYPES: DISABLE

void
collect(int out_fd, int err_fd, double hold, UV max)
PPCODE:
{
    /* (output, errors, output still open, errors still open): what a
     * script wrote to its pipes until its output ended, for at most HOLD
     * seconds, up to about MAX bytes of output (Kamado::CGI::Exec). */
    SV *out = sv_2mortal(newSVpvs(""));
    SV *err = sv_2mortal(newSVpvs(""));
    int out_open, err_open;
    kd_collect(aTHX_ out_fd, err_fd, hold, (STRLEN)max, out, err, &out_open, &err_open);
    EXTEND(SP, 4);
    PUSHs(out);
    PUSHs(err);
    mPUSHi(out_open);
    mPUSHi(err_open);
}

MODULE = Kamado    PACKAGE = Kamado::CGI::Fork

PROTOTYPES: DISABLE

int
send_with_fds(int sock, SV *payload, ...)
CODE:
{
    /* One message to a zygote (Kamado::CGI::Fork): PAYLOAD and the
     * descriptors that follow it. True, or false with $! set. */
    int fds[KD_MAX_PASS], n;
    STRLEN len;
    const char *p = SvPVbyte(payload, len);
    if (items - 2 > KD_MAX_PASS)
        croak("send_with_fds: at most %d descriptors", KD_MAX_PASS);
    for (n = 0; n < items - 2; n++)
        fds[n] = (int)SvIV(ST(n + 2));
    RETVAL = kd_send_with_fds(sock, p, len, fds, n);
    if (!RETVAL)
        SETERRNO(errno, 0);
}
OUTPUT:
    RETVAL

MODULE = Kamado    PACKAGE = Kamado::CGI::Zygote

PROTOTYPES: DISABLE

void
recv_with_fds(int sock)
PPCODE:
{
    /* One message sent by send_with_fds: (payload, descriptors...), or
     * nothing at the end of the stream or on an error (Kamado::CGI::Zygote). */
    int fds[KD_MAX_PASS], n, i;
    SV *payload = sv_2mortal(newSVpvs(""));
    n = kd_recv_with_fds(aTHX_ sock, payload, fds);
    if (n < 0)
        XSRETURN_EMPTY;
    /* (read from outside, as sysread's: under -T the environment made
     * of it is tainted, as a CGI process's is) */
    if (TAINTING_get)
        SvTAINTED_on(payload);
    EXTEND(SP, n + 1);
    PUSHs(payload);
    for (i = 0; i < n; i++)
        mPUSHi(fds[i]);
}

void
_close_fds(...)
CODE:
{
    /* (the zygote loads no POSIX: its 2 MB are copied and scanned by
     * every fork) */
    int i;
    for (i = 0; i < items; i++)
        close((int)SvIV(ST(i)));
}

void
_become_child(int in_fd, int out_fd, int err_fd)
CODE:
{
    /* In a forked child: the CGI process, leading a process group (a
     * stop reaches what it starts too), with IN_FD, OUT_FD and ERR_FD as
     * its descriptors 0, 1 and 2. */
    int fds[3], n;
    fds[0] = in_fd; fds[1] = out_fd; fds[2] = err_fd;
    (void)setpgid(0, 0);
    for (n = 0; n < 3; n++)
        if (fds[n] != n && dup2(fds[n], n) < 0)
            _exit(126);
    for (n = 0; n < 3; n++)
        if (fds[n] > 2 && (n == 0 || fds[n] != fds[n - 1]))
            close(fds[n]);
}

void
_exit_now(int status)
CODE:
    _exit(status);

void
_exit_if_quiet(int status)
CODE:
{
    /* Called by a forked CGI child (Kamado::CGI::Zygote) from its END
     * block, the last one. Perl's exit from here (global destruction) walks
     * every SV of the heap the child shares with its zygote and writes to
     * every glob: copy-on-write faults, a sixth of the CPU a hello world
     * costs. When it would do nothing anyone can see, flush every handle
     * and _exit instead; otherwise return, and perl exits as usual.
     * "Nothing to see": no END block left to run, no exit hook of an XS
     * module, no child process (closing a pipe to one waits for it), no
     * object whose class has a DESTROY (or AUTOLOAD) perl would call --
     * the same test as perl's curse() in sv.c: not a constant, not empty,
     * Regexp's own no-op excepted -- and no handle with a layer that does
     * work when popped (only unix, perlio, stdio, crlf, scalar). */
    SV *arena;
    siginfo_t info;
    CV *regexp_destroy = get_cv("Regexp::DESTROY", 0);
    if (PL_endav && av_top_index(PL_endav) >= 0)
        XSRETURN_EMPTY;
    if (PL_exitlistlen)
        XSRETURN_EMPTY;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD)
        XSRETURN_EMPTY;
    for (arena = PL_sv_arenaroot; arena; arena = MUTABLE_SV(SvANY(arena))) {
        const SV *const svend = &arena[SvREFCNT(arena)];
        SV *sv;
        for (sv = arena + 1; sv < svend; ++sv) {
            if (SvTYPE(sv) == (svtype)SVTYPEMASK || !SvREFCNT(sv))
                continue;    /* a free slot */
            if (SvTYPE(sv) == SVt_PVIO) {
                PerlIO *fs[2];
                int i;
                fs[0] = IoIFP(sv);
                fs[1] = IoOFP(sv);
                for (i = 0; i < 2; i++) {
                    PerlIO *f = fs[i];
                    while (f && *f) {
                        const char *name = (*f)->tab ? (*f)->tab->name : "";
                        if (strNE(name, "unix") && strNE(name, "perlio") && strNE(name, "stdio")
                            && strNE(name, "crlf") && strNE(name, "scalar"))
                            XSRETURN_EMPTY;
                        f = &(*f)->next;
                    }
                }
            }
            if (SvOBJECT(sv)) {
                HV *stash = SvSTASH(sv);
                CV *destructor = NULL;
                GV *gv;
                if (!stash || !HvNAME_HEK(stash))
                    continue;    /* perl skips those too */
                gv = gv_fetchmeth_pvn(stash, "DESTROY", 7, -1, 0);
                if (gv)
                    destructor = GvCV(gv);
                if (!destructor && gv_fetchmeth_pvn(stash, "AUTOLOAD", 8, -1, 0))
                    XSRETURN_EMPTY;    /* DESTROY would go to it */
                if (destructor && destructor != regexp_destroy && !CvCONST(destructor)
                    && (CvISXSUB(destructor)
                        || (CvSTART(destructor)
                            && CvSTART(destructor)->op_next->op_type != OP_LEAVESUB
                            && (CvSTART(destructor)->op_next->op_type != OP_PUSHMARK
                                || CvSTART(destructor)->op_next->op_next->op_type != OP_RETURN))))
                    XSRETURN_EMPTY;
            }
        }
    }
    /* what perl's exit does that shows: the handles' buffers written */
    PerlIO_flush((PerlIO *)NULL);
    fflush(NULL);
    _exit(status);
}
