/* Kamado::Loop's glue: --access-log lines made in C, in a LogFormat
 * (src/proto/kd_logfmt.c) from a request's env and response, and the buffer
 * they wait in. Included by Kamado.xs, after xs/env.c. */

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

/* The line of the request just served (the response recorded in x),
 * to the buffer; a line that finds no memory is lost, not the others. */
static void log_served(pTHX_ kd_xs *x, HV *env)
{
    size_t start = x->logbuf.len;
    double now = kd_wall();
    if (log_format(aTHX_ x, env, now) != 0)
        x->logbuf.len = start;
    else
        log_added(x, start, now);
}
