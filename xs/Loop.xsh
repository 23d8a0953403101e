# Kamado::Loop: glue over the event loop (src/loop/kd_loop.c and its parts):
# making one, pools, request ids, the next request, its body, draining.
# Its responses are in xs/LoopWrite.xsh, its access log in
# xs/LoopLog.xsh. Included by Kamado.xs.

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

void
presize_templates(char *klass, AV *templates)
CODE:
    PERL_UNUSED_VAR(klass);
    presize_templates(aTHX_ templates);

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
        ifds[i] = (int)SvIV(*av_fetch(fds, i, 0));
    }
    presize_templates(aTHX_ templates);
    /* every limit is given (Kamado::Loop->settings fills in the options'
     * defaults): the loop has none of its own */
    {
        static const char *const limits[] = {"keepalive_timeout", "header_timeout", "read_timeout",
            "write_timeout", "max_keepalive_reqs", "max_connections", "max_request_body", "min_body_rate",
            "write_buffer", "expect_to_app", "forwarded_host", NULL};
        int k;
        for (k = 0; limits[k]; k++) {
            v = hv_fetch(settings, limits[k], (I32)strlen(limits[k]), 0);
            if (!v || !SvOK(*v))
                croak("Kamado::Loop->new: no %s setting", limits[k]);
        }
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
    RETVAL->env_key_cap = 256;
    Newx(RETVAL->env_key, RETVAL->env_key_cap, char);
#define SETTING(name, field, conv) \
    if ((v = hv_fetchs(settings, name, 0)) && SvOK(*v)) RETVAL->loop->field = conv(*v)
    SETTING("keepalive_timeout", keepalive_timeout, SvNV);
    SETTING("header_timeout", header_timeout, SvNV);
    SETTING("read_timeout", read_timeout, SvNV);
    SETTING("write_timeout", write_timeout, SvNV);
    SETTING("max_keepalive_reqs", max_keepalive_reqs, SvIV);
    SETTING("max_connections", max_conns, SvIV);
    SETTING("evict_when_full", evict_when_full, SvTRUE);
    SETTING("max_request_body", max_body, (int64_t)SvNV);
    SETTING("min_body_rate", min_body_rate, SvNV);
    SETTING("write_buffer", write_buffer, (size_t)SvUV);
    SETTING("expect_to_app", expect_to_app, SvTRUE);
    SETTING("forwarded_host", forwarded_host, SvTRUE);
    SETTING("max_streams", max_streams, SvIV);
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
    /* proxy_protocol_from => [CIDR or "unix:"]: who may send a PROXY header */
    {
        SV **pf = hv_fetchs(settings, "proxy_protocol_from", 0);
        if (pf && SvROK(*pf) && SvTYPE(SvRV(*pf)) == SVt_PVAV) {
            AV *blocks = (AV *)SvRV(*pf);
            SSize_t nb = av_len(blocks) + 1, k;
            kd_cidr *cidrs;
            int nc = 0, unix_ok = 0;
            Newx(cidrs, nb ? nb : 1, kd_cidr);
            for (k = 0; k < nb; k++) {
                STRLEN len;
                const char *s = SvPV(*av_fetch(blocks, k, 0), len);
                if (len == 5 && memEQ(s, "unix:", 5)) {
                    unix_ok = 1;
                } else if (kd_cidr_parse(s, len, &cidrs[nc]) == 0) {
                    nc++;
                } else {
                    Safefree(cidrs);
                    croak("Kamado::Loop->new: '%s' is not an address block", s);
                }
            }
            if (kd_loop_set_proxy_sources(RETVAL->loop, cidrs, nc, unix_ok) != 0) {
                Safefree(cidrs);
                croak("Kamado::Loop->new: %s", strerror(errno));
            }
            Safefree(cidrs);
        }
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
    /* (an exit in the app, mid-request: what the loop holds is finished) */
    if (kd_loop_last_words_pending(self->loop))
        kd_loop_last_words(self->loop, 500);
    if (self->armed)
        kd_loop_last_words_on_signals(NULL);
    kd_loop_free(self->loop);
    SvREFCNT_dec((SV *)self->templates);
    if (self->last_env)
        SvREFCNT_dec((SV *)self->last_env);
    if (self->resp_headers)
        SvREFCNT_dec((SV *)self->resp_headers);
    if (self->empty_input)
        SvREFCNT_dec(self->empty_input);
    if (self->logging)
        log_write(self, self->logbuf.len);    /* (not in a forked child) */
    Safefree(self->logfmt);
    free(self->logbuf.buf);
    if (self->scoreboard)
        SvREFCNT_dec(self->scoreboard);
    Safefree(self->head);
    Safefree(self->env_key);
    Safefree(self->scratch);
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
    kd_conn *c = take_request(aTHX_ self, timeout_ms);
    if (!c)
        XSRETURN_EMPTY;
    EXTEND(SP, 4);
    mPUSHi(c->fd);
    mPUSHs(newRV_inc((SV *)self->last_env));
    mPUSHi(kd_conn_body_kind(c));   /* Kamado::BODY_* */
    /* answers to log (take_answers), failures to log (take_faults) */
    if (loop_answers(self))
        mPUSHi(loop_answers(self));
}

void
empty_input(Kamado::Loop self, SV *fh)
PPCODE:
    /* psgi.input for each request without a body from now on, while it
     * is open */
    if (!SvROK(fh) || !isGV_with_GP(SvRV(fh)))
        croak("Kamado::Loop->empty_input: not a handle");
    if (self->empty_input)
        SvREFCNT_dec(self->empty_input);
    self->empty_input = newSVsv(fh);
    XSRETURN_EMPTY;

void
env_done(Kamado::Loop self)
PPCODE:
    /* the caller holds the last env no more: its objects go now, and its
     * hash serves the next request when no one else holds it */
    env_done(aTHX_ self);
    XSRETURN_EMPTY;

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
last_words(Kamado::Loop self)
PPCODE:
{
    /* a worker that dies mid-request finishes what this loop holds
     * (src/loop/kd_lastwords.c); undef with $! if the signals could not
     * be set */
    if (kd_loop_last_words_on_signals(self->loop) != 0)
        XSRETURN_UNDEF;
    self->armed = 1;
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
