/* Kamado::Loop's glue: its state, and a PSGI response made a head.
 * Included by Kamado.xs, before xs/env.c, xs/logline.c and its XS part. */

#define KD_ID_PREFIX_MAX 64
#define KD_TKEYS 128                /* room for a template of 64 keys */

typedef struct {
    const HEK *hek;                 /* a template entry's shared key */
    SV *value;                      /* and its value; NULL: not the template's */
    int slot;                       /* 1 + its env_keys index (xs/env.c); 0: none */
} kd_tkey;

#define KD_FNAMES 32 /* request field names kept (xs/env.c) */
#define KD_FNAME  32 /* bytes of a name kept, at most */

typedef struct {
    unsigned char len;      /* of the name; 0: none yet */
    unsigned char kind;     /* what it makes in the env (F_* in xs/env.c) */
    char name[KD_FNAME];    /* as it came */
    char key[KD_FNAME + 5]; /* its env key, when kind is F_HTTP */
    U32 hash;               /* of key */
} kd_fname;

typedef struct {
    kd_loop *loop;
    AV *templates;                  /* env template per listener */
    HV *last_env;                   /* the env given last, reused when no one else holds it */
    HV *last_template;              /* the template it was copied from */
    int env_ready;                  /* last_env is reset for the next request (env_done) */
    kd_tkey tkeys[KD_TKEYS];        /* that template's entries by key (xs/env.c) */
    UV ntkeys;
    HV *tkeys_of;
    int tkeys_ok;
    HE *slot_he[16];                /* env_reset to build_env: the reused env's entry for each env_keys key */
    HE *emptied[KD_TKEYS];          /* the entries env_reset emptied, for drop_stale */
    int nemptied;                   /* how many; -1: more than it holds */
    SV *scoreboard;                 /* the Kamado::Scoreboard holding its slot */
    char *head;                     /* response head buffer, reused */
    size_t head_cap;
    int armed;                      /* last_words was called: its signals are this loop's */
    char *scratch;                  /* an app's own chunks, decoded here; reused */
    size_t scratch_cap;
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
    char *env_key;                  /* "HTTP_" + a field's name (grown to fit; a worker's page not dirtied for nothing) */
    size_t env_key_cap;
    kd_fname fnames[KD_FNAMES]; /* the env keys of field names seen, by name */
    /* request ids (request_ids): the prefix, then a count, made here so
     * that an id costs no system call and no Perl op */
    char id[KD_ID_PREFIX_MAX + 21];
    size_t id_len;                  /* the prefix's; 0: no ids */
    unsigned long long id_count;
    GV *id_gv;                      /* the glob whose scalar holds the id of the request served */
    int upgrade;                    /* the head being built may be a 101 (Kamado::Loop::upgrade) */
    SV *empty_input;                /* psgi.input of a request without a body; NULL */
} kd_xs;

typedef kd_xs *Kamado__Loop;

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

/* The stream id serves on fd, or NULL when it is gone (the descriptor
 * may serve another connection by now). */
static kd_conn *stream_conn(kd_xs *x, int fd, UV id)
{
    kd_loop *l = x->loop;
    kd_conn *c;
    if (fd < 0 || fd >= l->conns_cap || !(c = l->conns[fd]) || !c->open || !c->serving ||
        c->req_id != (uint64_t)id || !c->stream.on)
        return NULL;
    return c;
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

/* framing_error for a body that did not match its Content-Length, or
 * whose app's own chunked encoding was malformed */
static void note_mismatch(kd_xs *x, const kd_conn *c)
{
    if (c->frame.bad)
        x->framing_error = kd_frame_close_text(KD_CLOSE_APP_CHUNKS);
    else if (c->frame.mismatch)
        x->framing_error = kd_frame_close_text(c->frame.mismatch > 0 ? KD_CLOSE_TOO_LONG : KD_CLOSE_TOO_SHORT);
}

/* The end of the request c served: the connection is kept if its frame
 * says so and the write went well (ok). */
static void finish(kd_xs *x, kd_conn *c, int ok)
{
    if (!ok)
        kd_frame_close(&c->frame, KD_CLOSE_WRITE_FAILED);
    note_mismatch(x, c);
    kd_conn_finish(x->loop, c, kd_frame_keep(&c->frame));
}

#define KD_XS_FIELDS 32
#define KD_BODY_MISMATCH 2          /* Kamado::Loop::BODY_MISMATCH */

/* The head of the app's response into x->head (src/proto/kd_head.c decides
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
    int ending;

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
    /* a body the app did not read (or, after Expect, was never sent)
     * leaves the next request's start unknown */
    ending = kd_frame_close_before(c->req.keepalive, c->requests + 1 >= x->loop->max_keepalive_reqs,
                                   x->loop->draining, kd_conn_body_unread(c));
    in.status = status_of(aTHX_ status);
    in.fields = f;
    in.nfields = (size_t)n;
    in.body_len = body_len;
    in.minor_version = c->minor_version;
    in.is_head = c->is_head;
    in.keepalive = ending == KD_KEEP;
    in.date = kd_date(x->loop);
    in.upgrade = x->upgrade;
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
    c->resp_status = in.status;
    kd_frame_start(&c->frame, out.framing, out.length, ending != KD_KEEP ? ending : out.close, out.mismatch);
    if (out.app_chunked && out.framing != KD_FRAME_NONE)
        kd_frame_decode(&c->frame);
    note_mismatch(x, c);
    return out.len;
}

/* The n pieces of an app's own chunked body (c->frame.decode), decoded
 * into x->scratch as one piece: *piece (last: the body ends with them).
 * 0, or -1 when the encoding is malformed (framing_error says so). */
static int unchunk(pTHX_ kd_xs *x, kd_conn *c, const struct iovec *in, int n, int last, struct iovec *piece)
{
    size_t total = 0, len;
    char *p;
    int i;
    for (i = 0; i < n; i++)
        total += in[i].iov_len;
    if (total > x->scratch_cap) {
        x->scratch_cap = total;
        Renew(x->scratch, x->scratch_cap, char);
    }
    for (p = x->scratch, i = 0; i < n; i++) {
        memcpy(p, in[i].iov_base, in[i].iov_len);
        p += in[i].iov_len;
    }
    if (kd_frame_unchunk(&c->frame, x->scratch, total, last, &len) != 0) {
        x->framing_error = "malformed chunked encoding from the app";
        return -1;
    }
    piece->iov_base = x->scratch;
    piece->iov_len = len;
    return 0;
}

#define KD_SENT_OK      1
#define KD_SENT_REFUSED 0    /* a refused head: nothing written */
#define KD_SENT_GONE    (-1) /* the client went away: errno says why */

/* A complete response, [STATUS, HEADERS, BODY] with BODY an array of
 * strings, to the request c serves, in one write: KD_SENT_OK, or
 * KD_BODY_MISMATCH when the body did not match its Content-Length
 * (framing_error says how), KD_SENT_REFUSED or KD_SENT_GONE
 * (Kamado::Loop::write_response). */
static int respond(pTHX_ kd_xs *x, kd_conn *c, SV *status, AV *headers, AV *body)
{
    SSize_t i, nb = av_len(body) + 1;
    struct iovec stack_in[16], stack_out[17 + KD_FRAME_EXTRA_IOV];
    struct iovec *in = stack_in, *out = stack_out;
    IV total = 0;
    int64_t framed;
    size_t hlen;
    uint64_t before;
    int ok, n;

    if (nb > 16) {
        Newx(in, nb, struct iovec);
        Newx(out, nb + 1 + KD_FRAME_EXTRA_IOV, struct iovec);
    }
    for (i = 0; i < nb; i++) {
        SV **e = av_fetch(body, i, 0);
        STRLEN l = 0;
        const char *p = (e && SvOK(*e)) ? sv_bytes(aTHX_ * e, &l) : "";
        if (!p)
            break; /* wide character: invalid */
        in[i].iov_base = (char *)p;
        in[i].iov_len = l;
        total += (IV)l;
    }
    if (i < nb) {
        x->framing_error = "wide character in the body";
        hlen = 0;
    } else {
        hlen = build_head(aTHX_ x, c, status, headers, total);
    }
    /* the app's own chunks are decoded first; a malformed encoding is
     * an invalid response, nothing written */
    if (hlen && c->frame.decode) {
        struct iovec piece;
        if (unchunk(aTHX_ x, c, in, (int)nb, 1, &piece) != 0) {
            hlen = 0;
        } else {
            in[0] = piece;
            nb = 1;
        }
    }
    if (hlen == 0) {
        if (in != stack_in) {
            Safefree(in);
            Safefree(out);
        }
        return KD_SENT_REFUSED;
    }
    out[0].iov_base = x->head;
    out[0].iov_len = hlen;
    n = kd_frame_body(&c->frame, in, (int)nb, 1, out + 1, &framed);
    before = x->loop->sent;
    ok = kd_write_last(x->loop, c, out, n + 1) == 0;
    x->resp_bytes += ok ? (IV)framed : body_sent(x, before, hlen, (IV)framed);
    if (in != stack_in) {
        Safefree(in);
        Safefree(out);
    }
    finish(x, c, ok);
    if (!ok)
        return KD_SENT_GONE;
    return x->framing_error ? KD_BODY_MISMATCH : KD_SENT_OK;
}

/* What respond returned, as write_response returns it: true, false for
 * a refused head, undef when the client went away ($! says why), or
 * BODY_MISMATCH. */
static SV *sent_sv(pTHX_ int sent)
{
    if (sent == KD_SENT_OK)
        return &PL_sv_yes;
    if (sent == KD_SENT_REFUSED)
        return &PL_sv_no;
    if (sent == KD_SENT_GONE)
        return &PL_sv_undef;
    return sv_2mortal(newSViv(sent));
}
