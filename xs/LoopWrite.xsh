# Kamado::Loop: writing a response: the head (xs/loop.c builds it), the
# body in one write, streamed, or from a file, and the canned error.
# Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Loop

PROTOTYPES: DISABLE

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
