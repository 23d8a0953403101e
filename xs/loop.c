/* Kamado::Loop's glue: a parsed head made %env, a PSGI response made a head. Included by Kamado.xs, before its XS part. */

#define KD_ID_PREFIX_MAX 64

typedef struct {
    kd_loop *loop;
    AV *templates;                  /* env template per listener */
    SV *scoreboard;                 /* the Kamado::Scoreboard holding its slot */
    char *head;                     /* response head buffer, reused */
    size_t head_cap;
    const char *framing_error;      /* why the last head was refused or its body cut; NULL */
    /* the response to the request being served, for the access log */
    int resp_status;                /* of the head sent; 0: none yet */
    IV resp_bytes;                  /* body bytes sent (or the loop's to send) */
    AV *resp_headers;               /* the head's headers, when logging */
    double req_start;               /* when its head was complete, when logging */
    int logging;
    /* --access-log: the worker's buffered lines (see log_append) */
    kd_logfmt *logfmt;              /* the format, when made here (log_request) */
    U32 loghash[KD_LF_MAX_OPS];     /* the hash of each op's env key */
    kd_lf_buf logbuf;
    int log_fd;
    int log_errno;                  /* of the last write that failed; 0 */
    double log_since;               /* when the oldest buffered line came */
    pid_t log_pid;                  /* the process whose lines they are */
    char env_key[KD_BUF_SIZE + 5];  /* "HTTP_" + any name that fits a head */
    /* request ids (request_ids): the prefix, then a count, made here so
     * that an id costs no system call and no Perl op */
    char id[KD_ID_PREFIX_MAX + 21];
    size_t id_len;                  /* the prefix's; 0: no ids */
    unsigned long long id_count;
    GV *id_gv;                      /* the glob whose scalar holds the id of the request served */
} kd_xs;

typedef kd_xs *Kamado__Loop;

/* %env keys the engine sets on every request, with their hashes computed
 * once at load time (the hash seed is fixed for the process and its
 * forked workers) */
enum { K_METHOD, K_URI, K_PROTOCOL, K_QUERY, K_ADDR, K_PORT, K_PATH, K_CL, K_CT, K_ID, K_COUNT };
static struct { const char *name; I32 len; U32 hash; SV *key; } env_keys[K_COUNT] = {
    {"REQUEST_METHOD", 14, 0, NULL}, {"REQUEST_URI", 11, 0, NULL}, {"SERVER_PROTOCOL", 15, 0, NULL},
    {"QUERY_STRING", 12, 0, NULL}, {"REMOTE_ADDR", 11, 0, NULL}, {"REMOTE_PORT", 11, 0, NULL},
    {"PATH_INFO", 9, 0, NULL}, {"CONTENT_LENGTH", 14, 0, NULL}, {"CONTENT_TYPE", 12, 0, NULL},
    {"kamado.request_id", 17, 0, NULL},
};

/* stored by a shared-key SV: the env's copy of the key is that string
 * table entry, taken without looking it up */
#define ENV_STORE(env, k, sv) \
    (void)hv_store_ent((env), env_keys[k].key, (sv), env_keys[k].hash)

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

/* Behind a proxy: the socket's peer kept as kamado.peer_addr and
 * kamado.peer_port, and, when it is trusted, what its X-Forwarded-* fields
 * say put where the app (and the access log, and a CGI script's
 * environment, both made from %env) looks: REMOTE_ADDR (and REMOTE_PORT
 * when the field gave one), psgi.url_scheme and HTTPS, SERVER_PORT,
 * HTTP_HOST and SERVER_NAME. */
static void proxy_env(pTHX_ kd_loop *l, kd_conn *c, HV *env)
{
    kd_forwarded f;
    char text[KD_ADDR_TEXT];
    int port;
    (void)hv_stores(env, "kamado.peer_addr", c->proxied ? newSVpvn(c->peer_addr, c->peer_addr_len)
                                                         : newSVpvn(c->remote_addr, c->remote_addr_len));
    (void)hv_stores(env, "kamado.peer_port", newSViv(c->proxied ? c->peer_port : c->remote_port));
    if (!c->trusted)
        return;
    kd_forwarded_resolve(c->req.headers, c->req.num_headers, l->trusted, l->ntrusted, &f);
    if (f.have_client) {
        size_t n = kd_addr_format(&f.client, text);
        ENV_STORE(env, K_ADDR, newSVpvn(text, n));
        if (f.client_port >= 0)
            ENV_STORE(env, K_PORT, newSViv(f.client_port));
    }
    if (f.scheme == KD_SCHEME_HTTPS) {
        (void)hv_stores(env, "psgi.url_scheme", newSVpvs("https"));
        (void)hv_stores(env, "HTTPS", newSVpvs("on"));
    } else if (f.scheme == KD_SCHEME_HTTP) {
        (void)hv_stores(env, "psgi.url_scheme", newSVpvs("http"));
    }
    if (f.host) {
        (void)hv_stores(env, "HTTP_HOST", newSVpvn(f.host, f.host_len));
        (void)hv_stores(env, "SERVER_NAME", newSVpvn(f.host, f.host_name_len));
    }
    /* the port the client used: said outright, or in the host, or the
     * scheme's own */
    port = f.port > 0 ? f.port : f.host_port > 0 ? f.host_port :
           f.scheme == KD_SCHEME_HTTPS ? 443 : f.scheme == KD_SCHEME_HTTP ? 80 : 0;
    if (port)
        (void)hv_stores(env, "SERVER_PORT", newSViv(port));
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
        if (kd_ci_eq(h->name, h->name_len, "content-length")) {
            ENV_STORE(env, K_CL, newSVpvn(h->value, h->value_len));
            continue;
        }
        if (kd_ci_eq(h->name, h->name_len, "content-type")) {
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
    if (c->trusted || c->proxied)
        proxy_env(aTHX_ x->loop, c, env);
    if (x->id_len) {
        /* the prefix, then the count in decimal */
        char digits[20];
        unsigned long long n = ++x->id_count;
        size_t len = 0;
        SV *id;
        do {
            digits[len++] = (char)('0' + n % 10);
            n /= 10;
        } while (n);
        for (i = 0; i < len; i++)
            x->id[x->id_len + i] = digits[len - 1 - i];
        id = newSVpvn(x->id, x->id_len + len);
        if (x->id_gv)
            sv_setsv(GvSVn(x->id_gv), id);
        ENV_STORE(env, K_ID, id);
    }
    return env;
}

/* Between requests, the id of none (see request_ids). */
static void forget_request_id(pTHX_ kd_xs *x)
{
    SV *sv = x->id_gv ? GvSV(x->id_gv) : NULL;
    if (sv && SvOK(sv))
        sv_setsv(sv, &PL_sv_undef);
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

/* What a write that failed part way got out of its body: the bytes the
 * socket took since `before`, less the `framing` (head, chunk size) that
 * went first, at most `body`. */
static IV body_sent(const kd_xs *x, uint64_t before, size_t framing, IV body)
{
    uint64_t n = x->loop->sent - before;
    if (n <= framing)
        return 0;
    n -= framing;
    return (IV)n < body ? (IV)n : body;
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
    x->resp_status = in.status;
    if (x->logging) {
        SvREFCNT_inc_simple_void_NN(headers);
        if (x->resp_headers)
            SvREFCNT_dec(x->resp_headers);
        x->resp_headers = headers;
    }
    c->keepalive = out.keepalive;
    c->resp_status = in.status;
    c->resp_no_body = out.no_body;
    c->resp_chunked = out.framing == KD_FRAME_CHUNKED;
    c->resp_left = out.framing == KD_FRAME_LENGTH ? out.length : -1;
    if (out.mismatch)
        x->framing_error = out.mismatch > 0 ? "body longer than its Content-Length: cut, connection closed"
                                            : "body shorter than its Content-Length: connection closed";
    return out.len;
}

/* --access-log's buffer: at most KD_LOG_BUFFER bytes (PIPE_BUF, so one
 * write of it never tears on a pipe) or KD_LOG_WAIT seconds old. */
#define KD_LOG_BUFFER 4096
#define KD_LOG_WAIT 1.0

/* Writes the first n buffered bytes and drops them. Lines a forked
 * child inherited are its parent's to write: dropped unwritten. A write
 * that fails drops them too (log_errno says why). */
static void log_write(kd_xs *x, size_t n)
{
    size_t off = 0;
    if (getpid() == x->log_pid) {
        while (off < n) {
            ssize_t w = write(x->log_fd, x->logbuf.buf + off, n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                x->log_errno = w < 0 ? errno : EIO;
                break;
            }
            off += (size_t)w;
        }
    }
    memmove(x->logbuf.buf, x->logbuf.buf + n, x->logbuf.len - n);
    x->logbuf.len -= n;
}

/* After a line was added from offset `start`: what was there before goes
 * out when the line took the buffer past its size, all of it once the
 * oldest line has waited long enough. */
static void log_added(kd_xs *x, size_t start, double now)
{
    if (start == 0) {
        x->log_since = now;
    } else if (x->logbuf.len > KD_LOG_BUFFER) {
        log_write(x, start);
        x->log_since = now;
    }
    if (now - x->log_since >= KD_LOG_WAIT)
        log_write(x, x->logbuf.len);
}

/* an env value by its key and the key's hash (computed once) */
static const char *env_value(pTHX_ HV *env, const char *key, size_t klen, U32 hash, STRLEN *len)
{
    SV **v = (SV **)hv_common_key_len(env, key, (I32)klen, HV_FETCH_JUST_SV, NULL, hash);
    if (!v || !SvOK(*v)) {
        *len = 0;
        return "";
    }
    return SvPV(*v, *len);
}

static int ci_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i;
    if (alen != blen)
        return 0;
    for (i = 0; i < alen; i++) {
        if (toLOWER(a[i]) != toLOWER(b[i]))
            return 0;
    }
    return 1;
}

static U32 host_hash, name_hash;    /* of HTTP_HOST and SERVER_NAME */

/* The hashes of x->logfmt's env keys, once (the hash seed is the
 * process's, and its forked workers'). */
static void log_hashes(pTHX_ kd_xs *x)
{
    int i;
    PERL_HASH(host_hash, "HTTP_HOST", 9);
    PERL_HASH(name_hash, "SERVER_NAME", 11);
    for (i = 0; i < x->logfmt->nops; i++)
        PERL_HASH(x->loghash[i], x->logfmt->ops[i].arg, x->logfmt->ops[i].arg_len);
}

/* The line of the request just served, in x->logfmt, onto the buffer. */
static int log_format(pTHX_ kd_xs *x, HV *env, double now)
{
    kd_logfmt *f = x->logfmt;
    kd_lf_buf *b = &x->logbuf;
    int i, rv = 0;
    IV usec = (IV)((now - x->req_start) * 1e6);
    for (i = 0; i < f->nops && rv == 0; i++) {
        const kd_lf_op *op = &f->ops[i];
        const char *v;
        STRLEN n;
        switch (op->kind) {
        case KD_LF_TEXT:
            rv = kd_lf_put(b, op->arg, op->arg_len);
            break;
        case KD_LF_ENV:
            v = env_value(aTHX_ env, op->arg, op->arg_len, x->loghash[i], &n);
            rv = kd_lf_put_escaped(b, v, n, 1);
            break;
        case KD_LF_ENV_OR:
            v = env_value(aTHX_ env, op->arg, op->arg_len, x->loghash[i], &n);
            rv = kd_lf_put_escaped(b, v, n == 1 && v[0] == '0' ? 0 : n, 1);
            break;
        case KD_LF_HOST:
            v = env_value(aTHX_ env, "HTTP_HOST", 9, host_hash, &n);
            if (n == 0 || (n == 1 && v[0] == '0'))
                v = env_value(aTHX_ env, "SERVER_NAME", 11, name_hash, &n);
            rv = kd_lf_put_escaped(b, v, n == 1 && v[0] == '0' ? 0 : n, 1);
            break;
        case KD_LF_REQUEST:
            v = env_value(aTHX_ env, "REQUEST_METHOD", 14, env_keys[K_METHOD].hash, &n);
            rv = kd_lf_put_escaped(b, v, n, 0) || kd_lf_put(b, " ", 1);
            v = env_value(aTHX_ env, "REQUEST_URI", 11, env_keys[K_URI].hash, &n);
            rv = rv || kd_lf_put_escaped(b, v, n, 0) || kd_lf_put(b, " ", 1);
            v = env_value(aTHX_ env, "SERVER_PROTOCOL", 15, env_keys[K_PROTOCOL].hash, &n);
            rv = rv || kd_lf_put_escaped(b, v, n, 0);
            break;
        case KD_LF_METHOD:
            v = env_value(aTHX_ env, "REQUEST_METHOD", 14, env_keys[K_METHOD].hash, &n);
            rv = kd_lf_put_escaped(b, v, n, 0);
            break;
        case KD_LF_PATH:
            v = env_value(aTHX_ env, "PATH_INFO", 9, env_keys[K_PATH].hash, &n);
            rv = kd_lf_put_escaped(b, v, n, 0);
            break;
        case KD_LF_QUERY:
            v = env_value(aTHX_ env, "QUERY_STRING", 12, env_keys[K_QUERY].hash, &n);
            if (n)
                rv = kd_lf_put(b, "?", 1) || kd_lf_put_escaped(b, v, n, 0);
            break;
        case KD_LF_STATUS:
            rv = kd_lf_put_int(b, x->resp_status ? x->resp_status : 400);
            break;
        case KD_LF_BYTES:
            rv = x->resp_bytes ? kd_lf_put_int(b, x->resp_bytes) : kd_lf_put(b, "-", 1);
            break;
        case KD_LF_BYTES0:
            rv = kd_lf_put_int(b, x->resp_bytes);
            break;
        case KD_LF_USEC:
            rv = kd_lf_put_int(b, usec);
            break;
        case KD_LF_SEC:
            rv = kd_lf_put_int(b, usec / 1000000);
            break;
        case KD_LF_TIME:
            v = kd_logfmt_time(f, (long)x->req_start, &n);
            rv = kd_lf_put(b, "[", 1) || kd_lf_put(b, v, n) || kd_lf_put(b, "]", 1);
            break;
        case KD_LF_PID:
            rv = kd_lf_put_int(b, (int64_t)getpid());
            break;
        case KD_LF_RESP_HEADER: {
            SSize_t j, nh = x->resp_headers ? av_len(x->resp_headers) + 1 : 0;
            for (j = 0; j + 1 < nh; j += 2) {
                SV **k = av_fetch(x->resp_headers, j, 0);
                STRLEN kl;
                const char *kp = k && SvOK(*k) ? SvPV(*k, kl) : NULL;
                if (kp && ci_equal(kp, kl, op->arg, op->arg_len)) {
                    SV **hv = av_fetch(x->resp_headers, j + 1, 0);
                    v = hv && SvOK(*hv) ? SvPV(*hv, n) : "";
                    if (!hv || !SvOK(*hv))
                        n = 0;
                    break;
                }
            }
            if (j + 1 >= nh)
                n = 0, v = "";
            rv = kd_lf_put_escaped(b, v, n, 1);
            break;
        }
        }
    }
    return rv || kd_lf_put(b, "\n", 1);
}
