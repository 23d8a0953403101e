# Kamado::Loop: the access log's records: each request's response, the
# requests the loop answered itself, and the buffered lines (xs/logline.c
# makes them). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Loop

PROTOTYPES: DISABLE

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
log_request(Kamado::Loop self, HV *env, ...)
PPCODE:
{
    /* the line of the request just served, in the format access_log
     * made, to the buffer; or, given (status, headers, body bytes,
     * start), of a request that ends after others were served (an async
     * worker's stream), the record of the one just served kept as it is */
    int kept_status = self->resp_status;
    IV kept_bytes = self->resp_bytes;
    double kept_start = self->req_start;
    AV *kept_headers = self->resp_headers;
    if (!self->logfmt)
        croak("Kamado::Loop->log_request: no format (access_log)");
    if (items != 2 && items != 6)
        croak("Kamado::Loop->log_request: (env) or (env, status, headers, bytes, start)");
    if (items == 6) {
        /* (the headers are the caller's, alive on the stack until the
         * record is put back) */
        self->resp_status = (int)SvIV(ST(2));
        self->resp_headers = SvROK(ST(3)) && SvTYPE(SvRV(ST(3))) == SVt_PVAV ? (AV *)SvRV(ST(3)) : NULL;
        self->resp_bytes = SvIV(ST(4));
        self->req_start = SvNV(ST(5));
    }
    log_served(aTHX_ self, env);
    if (items == 6) {
        self->resp_status = kept_status;
        self->resp_headers = kept_headers;
        self->resp_bytes = kept_bytes;
        self->req_start = kept_start;
    }
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
take_faults(Kamado::Loop self)
PPCODE:
{
    /* the failures behind the loop's own 500s since the last call, each
     * [what failed, its errno, remote addr, the path it was about,
     * request line], and then the count of those it could not keep,
     * when there were some */
    kd_loop *l = self->loop;
    int i;
    EXTEND(SP, l->nfaults + 1);
    for (i = 0; i < l->nfaults; i++) {
        kd_fault *f = &l->faults[i];
        AV *r = newAV();
        av_extend(r, 4);
        av_push(r, newSVpv(f->what, 0));
        av_push(r, newSViv(f->err));
        av_push(r, newSVpv(f->remote_addr, 0));
        av_push(r, newSVpv(f->path, 0));
        av_push(r, newSVpvn(f->line, f->line_len));
        mPUSHs(newRV_noinc((SV *)r));
    }
    l->nfaults = 0;
    if (l->faults_lost) {
        mPUSHi(l->faults_lost);
        l->faults_lost = 0;
    }
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
