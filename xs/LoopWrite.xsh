# Kamado::Loop: writing a response: the head (xs/loop.c builds it), the
# body in one write, streamed, or from a file, and the canned error.
# Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Loop

PROTOTYPES: DISABLE

void
write_response(Kamado::Loop self, int fd, SV *status, AV *headers, AV *body)
PPCODE:
{
    /* the common case, a complete response, in one write; true
     * (BODY_MISMATCH when the body did not match its Content-Length:
     * framing_error says how), false for a refused head (nothing
     * written), undef if the client went away */
    SV *sent = sent_sv(aTHX_ respond(aTHX_ self, serving_conn(aTHX_ self, fd), status, headers, body));
    ST(0) = sent;                    /* (after the call: it may move the stack) */
    XSRETURN(1);
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
    struct iovec iov[3];
    uint64_t before = self->loop->sent;
    int64_t n;
    int ok;
    if (hlen == 0)
        XSRETURN_NO;                 /* invalid: nothing was written */
    if (c->frame.decode && length > 0) {
        self->framing_error = "Transfer-Encoding: chunked from the app with a file body";
        XSRETURN_NO;
    }
    iov[0].iov_base = self->head;
    iov[0].iov_len = hlen;
    n = kd_frame_file(&c->frame, length, 1, &iov[1], &iov[2]);
    if (n > 0 && iov[1].iov_len + iov[2].iov_len == 0)
        ok = kd_write_file_last(self->loop, c, self->head, hlen, in_fd, (int64_t)offset, n) == 0;
    else if (n > 0)
        croak("Kamado::Loop::write_file_response: a file body needs its length in the head");
    else
        ok = kd_write_last(self->loop, c, iov, 3) == 0;   /* the head (and a last chunk) */
    self->resp_bytes += ok ? (IV)n : body_sent(self, before, hlen, (IV)n);
    finish(self, c, ok);
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
    kd_stream_off(self->loop, c);    /* (an async worker's response written the blocking way) */
    iov.iov_base = self->head;
    iov.iov_len = hlen;
    if (kd_write_more(self->loop, c, &iov, 1) != 0)
        XSRETURN_UNDEF;
    XSRETURN_YES;
}

void
write_body(Kamado::Loop self, int fd, SV *data)
PPCODE:
{
    /* a piece of a streamed body, framed (src/proto/kd_frame.c) */
    kd_conn *c = serving_conn(aTHX_ self, fd);
    STRLEN l = 0;
    const char *p = sv_bytes(aTHX_ data, &l);
    struct iovec piece, out[1 + KD_FRAME_EXTRA_IOV];
    int64_t framed;
    uint64_t before;
    size_t framing;
    int n;
    if (!p)
        XSRETURN_NO;                 /* wide character: nothing written */
    piece.iov_base = (char *)p;
    piece.iov_len = l;
    /* (a malformed app encoding sends nothing more: write_end says so) */
    if (c->frame.decode && unchunk(aTHX_ self, c, &piece, 1, 0, &piece) != 0)
        XSRETURN_YES;
    n = kd_frame_body(&c->frame, &piece, 1, 0, out, &framed);
    note_mismatch(self, c);
    if (n == 0)
        XSRETURN_YES;
    /* (the write moves out on: the chunk line's length first) */
    framing = c->frame.framing == KD_FRAME_CHUNKED ? out[0].iov_len : 0;
    before = self->loop->sent;
    if (kd_write_more(self->loop, c, out, n) != 0) {
        self->resp_bytes += body_sent(self, before, framing, (IV)framed);
        XSRETURN_UNDEF;
    }
    self->resp_bytes += (IV)framed;
    XSRETURN_YES;
}

void
write_end(Kamado::Loop self, int fd)
PPCODE:
{
    /* ends a streamed body and finishes the request; BODY_MISMATCH when
     * the body did not match its Content-Length (framing_error says how) */
    kd_conn *c = serving_conn(aTHX_ self, fd);
    struct iovec out[KD_FRAME_EXTRA_IOV];
    int64_t framed;
    int ok = 1, n = kd_frame_body(&c->frame, NULL, 0, 1, out, &framed);
    if (n > 0)
        ok = kd_write_more(self->loop, c, out, n) == 0;
    finish(self, c, ok);
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
