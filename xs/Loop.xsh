# Kamado::Loop: glue over the event loop (src/kd_loop.c and its parts) and the head builder (src/kd_head.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Loop

PROTOTYPES: DISABLE

BOOT:
{
    int i;
    HV *stash = gv_stashpvs("Kamado", GV_ADD);
    for (i = 0; i < K_COUNT; i++) {
        PERL_HASH(env_keys[i].hash, env_keys[i].name, env_keys[i].len);
        env_keys[i].key = newSVpvn_share(env_keys[i].name, env_keys[i].len, env_keys[i].hash);
    }
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
    /* behind a proxy: trusted_proxies => [CIDR or "unix:"], proxy_protocol
     * => [a flag per listener] (Kamado::Options has checked the blocks) */
    {
        SV **tp = hv_fetchs(settings, "trusted_proxies", 0);
        SV **pp = hv_fetchs(settings, "proxy_protocol", 0);
        AV *blocks = tp && SvROK(*tp) && SvTYPE(SvRV(*tp)) == SVt_PVAV ? (AV *)SvRV(*tp) : NULL;
        AV *flags = pp && SvROK(*pp) && SvTYPE(SvRV(*pp)) == SVt_PVAV ? (AV *)SvRV(*pp) : NULL;
        SSize_t nb = blocks ? av_len(blocks) + 1 : 0, nf = flags ? av_len(flags) + 1 : 0, k;
        unsigned char pflags[KD_MAX_LISTENERS];
        kd_cidr *cidrs;
        int nc = 0, trust_unix = 0;
        if (nf > n)
            croak("Kamado::Loop->new: proxy_protocol has more flags than listeners");
        Newx(cidrs, nb ? nb : 1, kd_cidr);
        for (k = 0; k < nb; k++) {
            STRLEN len;
            const char *s = SvPV(*av_fetch(blocks, k, 0), len);
            if (len == 5 && memEQ(s, "unix:", 5)) {
                trust_unix = 1;
            } else if (kd_cidr_parse(s, len, &cidrs[nc]) == 0) {
                nc++;
            } else {
                Safefree(cidrs);
                croak("Kamado::Loop->new: '%s' is not an address block", s);
            }
        }
        for (k = 0; k < nf; k++)
            pflags[k] = SvTRUE(*av_fetch(flags, k, 0)) ? 1 : 0;
        if (kd_loop_set_proxies(RETVAL->loop, cidrs, nc, trust_unix, pflags, (int)nf) != 0) {
            Safefree(cidrs);
            croak("Kamado::Loop->new: %s", strerror(errno));
        }
        Safefree(cidrs);
    }
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
    if (self->resp_headers)
        SvREFCNT_dec((SV *)self->resp_headers);
    if (self->logging)
        log_write(self, self->logbuf.len);    /* (not in a forked child) */
    Safefree(self->logfmt);
    free(self->logbuf.buf);
    if (self->scoreboard)
        SvREFCNT_dec(self->scoreboard);
    Safefree(self->head);
    if (self->id_gv)
        SvREFCNT_dec((SV *)self->id_gv);
    Safefree(self);

void
request_ids(Kamado::Loop self, SV *prefix, SV *glob)
PPCODE:
{
    /* each env gets kamado.request_id, PREFIX and a count from 1; the
     * scalar of GLOB (a glob or a reference to one) holds it from the
     * request's env until the next next_request */
    STRLEN len;
    const char *p = SvPV(prefix, len);
    SV *gv = SvROK(glob) ? SvRV(glob) : glob;
    if (len < 1 || len > KD_ID_PREFIX_MAX)
        croak("Kamado::Loop->request_ids: the prefix must be 1 to %d bytes", KD_ID_PREFIX_MAX);
    if (!isGV_with_GP(gv))
        croak("Kamado::Loop->request_ids: not a glob");
    memcpy(self->id, p, len);
    self->id_len = len;
    self->id_count = 0;
    if (self->id_gv)
        SvREFCNT_dec((SV *)self->id_gv);
    self->id_gv = (GV *)SvREFCNT_inc(gv);
    XSRETURN_YES;
}

void
next_request(Kamado::Loop self, int timeout_ms)
PPCODE:
{
    kd_conn *c;
    int rv;
    forget_request_id(aTHX_ self);
    rv = kd_loop_next(self->loop, timeout_ms, &c);
    if (rv < 0)
        croak("Can't wait for connections: %s", strerror(errno));
    if (rv == 0)
        XSRETURN_EMPTY;
    self->resp_status = 0;
    self->resp_bytes = 0;
    EXTEND(SP, 4);
    mPUSHi(c->fd);
    mPUSHs(newRV_noinc((SV *)build_env(aTHX_ self, c)));
    mPUSHi(kd_conn_body_kind(c));   /* Kamado::BODY_* */
    if (self->logging) {
        self->req_start = kd_wall();
        if (self->resp_headers) {
            SvREFCNT_dec((SV *)self->resp_headers);
            self->resp_headers = NULL;
        }
        if (self->loop->nanswers)
            mPUSHi(self->loop->nanswers);   /* answers to log (take_answers) */
    }
}

bool
access_log(Kamado::Loop self, int fd, SV *format)
CODE:
{
    /* from now on keeps what the access log needs: each request's
     * response (response_record), the requests the loop answers itself
     * (take_answers), and a buffer of lines written to fd. True when
     * format (a LogFormat string; undef for none) is made here
     * (log_request), false when the lines are to come made (log_line). */
    if (kd_loop_log_answers(self->loop) != 0)
        croak("Can't keep the access log's records: %s", strerror(errno));
    self->logging = 1;
    self->log_fd = fd;
    self->log_pid = getpid();
    RETVAL = 0;
    if (SvOK(format)) {
        STRLEN len;
        const char *p = SvPV(format, len);
        if (!self->logfmt)
            Newx(self->logfmt, 1, kd_logfmt);
        RETVAL = kd_logfmt_compile(self->logfmt, p, len) == 0;
        if (RETVAL)
            log_hashes(aTHX_ self);
    }
    if (!RETVAL && self->logfmt) {
        Safefree(self->logfmt);
        self->logfmt = NULL;
    }
}
OUTPUT:
    RETVAL

void
log_request(Kamado::Loop self, HV *env)
PPCODE:
{
    /* the line of the request just served, in the format access_log
     * made, to the buffer */
    size_t start = self->logbuf.len;
    double now = kd_wall();
    if (!self->logfmt)
        croak("Kamado::Loop->log_request: no format (access_log)");
    if (log_format(aTHX_ self, env, now) != 0)
        self->logbuf.len = start;    /* no memory: this line is lost, not the others */
    else
        log_added(self, start, now);
    XSRETURN_EMPTY;
}

void
log_line(Kamado::Loop self, SV *line)
PPCODE:
{
    /* a line made elsewhere (with its newline), to the buffer */
    STRLEN len;
    const char *p = SvPV(line, len);
    size_t start = self->logbuf.len;
    if (kd_lf_put(&self->logbuf, p, len) == 0)
        log_added(self, start, kd_wall());
    XSRETURN_EMPTY;
}

void
log_flush(Kamado::Loop self, int fd = -1)
PPCODE:
{
    /* writes what is buffered; then, given fd, writes to that from now
     * on (USR1); false with $! set when a write failed since the last
     * call */
    int e;
    log_write(self, self->logbuf.len);
    if (fd >= 0)
        self->log_fd = fd;
    e = self->log_errno;
    self->log_errno = 0;
    if (e) {
        errno = e;
        XSRETURN_NO;
    }
    XSRETURN_YES;
}

void
response_record(Kamado::Loop self)
PPCODE:
{
    /* the request last served: (status, headers, body bytes sent, the
     * time its head was complete, now); status 0 when no head went out */
    EXTEND(SP, 5);
    mPUSHi(self->resp_status);
    PUSHs(self->resp_headers ? sv_2mortal(newRV_inc((SV *)self->resp_headers)) : &PL_sv_undef);
    mPUSHi(self->resp_bytes);
    mPUSHn(self->req_start);
    mPUSHn(kd_wall());
}

void
take_answers(Kamado::Loop self)
PPCODE:
{
    /* the requests the loop answered itself since the last call, each
     * [status, body bytes, listener index, remote addr, remote port,
     * request line, time], and then the count of those it could not
     * keep, when there were some */
    kd_loop *l = self->loop;
    int i;
    EXTEND(SP, l->nanswers + 1);
    for (i = 0; i < l->nanswers; i++) {
        kd_answer *a = &l->answers[i];
        AV *r = newAV();
        av_extend(r, 6);
        av_push(r, newSViv(a->status));
        av_push(r, newSViv((IV)a->bytes));
        av_push(r, newSViv(a->listener));
        av_push(r, newSVpv(a->remote_addr, 0));
        av_push(r, newSViv(a->remote_port));
        av_push(r, newSVpvn(a->line, a->line_len));
        av_push(r, newSVnv(a->time));
        mPUSHs(newRV_noinc((SV *)r));
    }
    l->nanswers = 0;
    if (l->answers_lost) {
        mPUSHi(l->answers_lost);
        l->answers_lost = 0;
    }
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
    uint64_t before;
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
        total = 0;
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
        total = c->resp_left;
    }
    before = self->loop->sent;
    ok = kd_write_last(self->loop, c, iov, (int)nb + 1) == 0;
    self->resp_bytes += ok ? total : body_sent(self, before, hlen, total);
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
    uint64_t before = self->loop->sent;
    int ok;
    if (hlen == 0)
        XSRETURN_NO;                 /* invalid: nothing was written */
    if (c->resp_left >= 0 && length > c->resp_left)
        length = c->resp_left;       /* what the declared length covers */
    if (c->resp_no_body || length < 0)
        length = 0;
    ok = kd_write_file_last(self->loop, c, self->head, hlen, in_fd, (int64_t)offset, (int64_t)length) == 0;
    self->resp_bytes += ok ? length : body_sent(self, before, hlen, length);
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
    uint64_t before;
    size_t framing;
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
    framing = c->resp_chunked ? iov[0].iov_len : 0;   /* (the write moves iov on) */
    before = self->loop->sent;
    if (kd_write_all(self->loop, fd, iov, n) != 0) {
        self->resp_bytes += body_sent(self, before, framing, (IV)l);
        XSRETURN_UNDEF;
    }
    self->resp_bytes += (IV)l;
    XSRETURN_YES;
}

void
send_file(Kamado::Loop self, int fd, int in_fd, IV offset, IV len)
PPCODE:
{
    kd_conn *c = serving_conn(aTHX_ self, fd);
    uint64_t before;
    if (c->resp_left >= 0 && len > c->resp_left) {
        len = c->resp_left;          /* as write_body: cut at the length */
        c->keepalive = 0;
        self->framing_error = "body longer than its Content-Length: cut, connection closed";
    }
    if (c->resp_no_body || len <= 0)
        XSRETURN_YES;
    if (c->resp_left >= 0)
        c->resp_left -= len;
    before = self->loop->sent;
    if (kd_sendfile_all(self->loop, fd, in_fd, (off_t)offset, (size_t)len) != 0) {
        self->resp_bytes += body_sent(self, before, 0, len);
        XSRETURN_UNDEF;
    }
    self->resp_bytes += len;
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
    self->resp_status = status;
    self->resp_bytes = (IV)strlen(kd_reason(status)) + 1;
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
