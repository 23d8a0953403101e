# Kamado::Loop: streams, for an async worker (src/loop/kd_stream.c): the
# response an app gives later, written without blocking, and what became
# of it; and the connection handed to the app after a 101 (psgix.io).
# Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Loop

PROTOTYPES: DISABLE

int
epoll_fd(Kamado::Loop self)
CODE:
    /* the loop's epoll descriptor: readable when kd_loop_next has work */
    RETVAL = self->loop->epfd;
OUTPUT:
    RETVAL

int
streams(Kamado::Loop self)
CODE:
    RETVAL = self->loop->nserving;
OUTPUT:
    RETVAL

UV
stream_begin(Kamado::Loop self, int fd)
CODE:
    /* the request on fd is answered later: its id, or 0 when it is gone */
    kd_conn *c = serving_conn(aTHX_ self, fd);
    RETVAL = kd_stream_begin(self->loop, c) == 0 ? (UV)c->req_id : 0;
OUTPUT:
    RETVAL

void
stream_head(Kamado::Loop self, int fd, UV id, SV *status, AV *headers)
PPCODE:
{
    /* true once sent or held, false for a refused head (nothing
     * written: framing_error says why), undef when the stream is gone */
    kd_conn *c = stream_conn(self, fd, id);
    struct iovec iov;
    size_t hlen;
    if (!c)
        XSRETURN_UNDEF;
    if (!(hlen = build_head(aTHX_ self, c, status, headers, -1)))
        XSRETURN_NO;
    iov.iov_base = self->head;
    iov.iov_len = hlen;
    if (kd_stream_write(self->loop, c, &iov, 1) < 0)
        XSRETURN_UNDEF;
    XSRETURN_YES;
}

void
stream_write(Kamado::Loop self, int fd, UV id, SV *data)
PPCODE:
{
    /* a piece of the body, framed: the bytes held (0: all sent), undef
     * when the stream is gone; croaks on characters */
    kd_conn *c = stream_conn(self, fd, id);
    STRLEN l = 0;
    const char *p;
    struct iovec piece, out[1 + KD_FRAME_EXTRA_IOV];
    int64_t framed;
    ssize_t held;
    int n;
    if (!c)
        XSRETURN_UNDEF;
    if (!(p = sv_bytes(aTHX_ data, &l)))
        croak("Wide character in a PSGI response body\n");
    piece.iov_base = (char *)p;
    piece.iov_len = l;
    n = kd_frame_body(&c->frame, &piece, 1, 0, out, &framed);
    if (n == 0)
        XSRETURN_IV(c->out.len - c->out.off);
    if ((held = kd_stream_write(self->loop, c, out, n)) < 0)
        XSRETURN_UNDEF;
    XSRETURN_IV((IV)held);
}

void
stream_drain(Kamado::Loop self, int fd, UV id)
PPCODE:
    /* asks for a drained event (stream_events) once nothing is held */
    {
        kd_conn *c = stream_conn(self, fd, id);
        if (!c || kd_stream_want_drain(self->loop, c) != 0)
            XSRETURN_UNDEF;
        XSRETURN_YES;
    }

void
stream_end(Kamado::Loop self, int fd, UV id)
PPCODE:
{
    /* ends the body (what is held is sent first) and the request: true,
     * BODY_MISMATCH for a body short of its Content-Length, undef when
     * the stream is gone */
    kd_conn *c = stream_conn(self, fd, id);
    struct iovec out[KD_FRAME_EXTRA_IOV];
    int64_t framed;
    int n;
    if (!c)
        XSRETURN_UNDEF;
    n = kd_frame_body(&c->frame, NULL, 0, 1, out, &framed);
    if (n > 0 && kd_stream_write(self->loop, c, out, n) < 0)
        XSRETURN_UNDEF;
    /* (the loop's record is of the request served last, not touched:
     * the stream keeps its own for its log line) */
    note_mismatch(self, c);
    kd_stream_end(self->loop, c, kd_frame_keep(&c->frame));
    if (self->framing_error)
        XSRETURN_IV(KD_BODY_MISMATCH);
    XSRETURN_YES;
}

void
stream_events(Kamado::Loop self)
PPCODE:
{
    /* what became of streams since the last call: (fd, request id,
     * kind) for each, kind 1 gone (closed before it was ended: the
     * client left), 2 drained (what was held is sent) */
    kd_stream_ev *ev;
    int i, n = kd_loop_stream_events(self->loop, &ev);
    EXTEND(SP, 3 * n);
    for (i = 0; i < n; i++) {
        mPUSHi(ev[i].fd);
        mPUSHu((UV)ev[i].req_id);
        mPUSHi(ev[i].kind);
    }
}

void
upgrade(Kamado::Loop self, int fd, SV *status, AV *headers)
PPCODE:
{
    /* a 101: the head is sent and the connection becomes the app's
     * (psgix.io), the loop forgetting it without closing it. true; false
     * for a refused head (nothing written); undef if the client went away */
    kd_conn *c = serving_conn(aTHX_ self, fd);
    struct iovec iov;
    size_t hlen;
    int ok;
    self->upgrade = 1;
    hlen = build_head(aTHX_ self, c, status, headers, 0);
    self->upgrade = 0;
    if (hlen == 0)
        XSRETURN_NO;
    kd_stream_off(self->loop, c);
    iov.iov_base = self->head;
    iov.iov_len = hlen;
    ok = kd_write_all(self->loop, fd, &iov, 1) == 0;
    self->resp_bytes = 0;
    if (!ok) {
        kd_conn_close(self->loop, c);
        XSRETURN_UNDEF;
    }
    if (self->loop->sb)
        kd_sb_done(self->loop->sb, c->resp_status, kd_now() - self->loop->sb->started);
    kd_conn_release(self->loop, c);
    XSRETURN_YES;
}

void
count_blocked(Kamado::Loop self)
PPCODE:
    /* the watchdog found this worker's loop held (kamado_loop_blocked_total) */
    if (self->loop->sb)
        self->loop->sb->counts.blocked++;
    XSRETURN_YES;
