/* t/c/test_frame.c: table-driven C unit tests for src/proto/kd_frame.c,
 * printed as TAP. Run by t/c-frame.t (system compiler, then clang
 * ASan+UBSan if present).
 *
 * Each case is a body framed as a head decided it (framing, declared
 * length, the connection's fate so far, the mismatch the head saw), fed
 * as a list of calls (each a few pieces, the last call ending the body,
 * or a file's length); the wire bytes of every call are put together and
 * compared whole, with the body bytes counted, the reason the connection
 * ends and the mismatch. Then an app's own chunks (kd_frame_decode),
 * each call's bytes decoded and framed again, the last call ending the
 * body; the table of kd_frame_close_before, and every reason's text.
 */
#include "../../src/kd_engine.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static const char *esc(const char *s, size_t n)
{
    static char b[2][4096];
    static int which = 0;
    char *o = b[which = (which + 1) % 2];
    size_t i, j = 0;
    for (i = 0; i < n && j < sizeof b[0] - 8; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\r') { o[j++] = '\\'; o[j++] = 'r'; }
        else if (ch == '\n') { o[j++] = '\\'; o[j++] = 'n'; }
        else if (ch < 0x20 || ch >= 0x7f) j += (size_t)sprintf(o + j, "\\x%02x", ch);
        else o[j++] = (char)ch;
    }
    o[j] = '\0';
    return o;
}

#define MAX_CALLS 6
#define MAX_PIECES 4
#define FILE_BYTE 'F'               /* a file's bytes, as the wire shows them here */

typedef struct {
    const char *pieces[MAX_PIECES]; /* NULL ends; "" an empty piece */
    int64_t file;                   /* >= 0: a file of this length instead of pieces */
    int last;
} call;

typedef struct {
    const char *name;
    int framing;
    int64_t length;
    int close, mismatch;            /* given to kd_frame_start */
    call calls[MAX_CALLS];          /* until one with last (or none) */
    /* expected */
    const char *wire;
    int64_t body;
    int out_close, out_mismatch;
} frame_case;

#define P(...) { { __VA_ARGS__, NULL }, -1, 0 }
#define PL(...) { { __VA_ARGS__, NULL }, -1, 1 }
#define END { { NULL }, -1, 1 }
#define FILE_(n) { { NULL }, (n), 0 }
#define FILE_LAST(n) { { NULL }, (n), 1 }

static const frame_case cases[] = {
    /* Content-Length */
    { "length: exact, one call", KD_FRAME_LENGTH, 5, KD_KEEP, 0,
      { PL("hel", "lo") }, "hello", 5, KD_KEEP, 0 },
    { "length: exact over calls, then the end", KD_FRAME_LENGTH, 5, KD_KEEP, 0,
      { P("he"), P(""), P("llo"), END }, "hello", 5, KD_KEEP, 0 },
    { "length: longer in one call: cut at the length", KD_FRAME_LENGTH, 3, KD_KEEP, 0,
      { PL("hel", "lo") }, "hel", 3, KD_CLOSE_TOO_LONG, 1 },
    { "length: longer over calls: cut, then nothing more", KD_FRAME_LENGTH, 4, KD_KEEP, 0,
      { P("he"), P("llo"), P("world"), END }, "hell", 4, KD_CLOSE_TOO_LONG, 1 },
    { "length: the cut exactly at a piece's end", KD_FRAME_LENGTH, 2, KD_KEEP, 0,
      { PL("he", "llo") }, "he", 2, KD_CLOSE_TOO_LONG, 1 },
    { "length: shorter: all sent, the connection ends", KD_FRAME_LENGTH, 10, KD_KEEP, 0,
      { P("hello"), END }, "hello", 5, KD_CLOSE_TOO_SHORT, -1 },
    { "length: one byte short", KD_FRAME_LENGTH, 6, KD_KEEP, 0,
      { PL("hello") }, "hello", 5, KD_CLOSE_TOO_SHORT, -1 },
    { "length: one byte over", KD_FRAME_LENGTH, 4, KD_KEEP, 0,
      { PL("hello") }, "hell", 4, KD_CLOSE_TOO_LONG, 1 },
    { "length: zero, an empty body", KD_FRAME_LENGTH, 0, KD_KEEP, 0,
      { PL("") }, "", 0, KD_KEEP, 0 },
    { "length: zero, a byte given: cut", KD_FRAME_LENGTH, 0, KD_KEEP, 0,
      { PL("x") }, "", 0, KD_CLOSE_TOO_LONG, 1 },
    { "length: the head saw it shorter", KD_FRAME_LENGTH, 10, KD_KEEP, -1,
      { PL("hello") }, "hello", 5, KD_CLOSE_TOO_SHORT, -1 },
    { "length: an earlier reason wins over the cut", KD_FRAME_LENGTH, 1, KD_CLOSE_CLIENT, 0,
      { PL("ab") }, "a", 1, KD_CLOSE_CLIENT, 1 },
    { "length: calls after the end frame nothing", KD_FRAME_LENGTH, 2, KD_KEEP, 0,
      { PL("ab"), P("cd"), END }, "ab", 2, KD_KEEP, 0 },
    /* chunked */
    { "chunked: one call, then the end", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { P("hello"), END }, "5\r\nhello\r\n0\r\n\r\n", 5, KD_KEEP, 0 },
    { "chunked: pieces of one call are one chunk, the last chunk with it", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { PL("hel", "", "lo") }, "5\r\nhello\r\n0\r\n\r\n", 5, KD_KEEP, 0 },
    { "chunked: an empty call makes no chunk", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { P("a"), P(""), P("bc"), END }, "1\r\na\r\n2\r\nbc\r\n0\r\n\r\n", 3, KD_KEEP, 0 },
    { "chunked: an empty body", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { END }, "0\r\n\r\n", 0, KD_KEEP, 0 },
    { "chunked: sizes in lowercase hex", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { PL("0123456789abcdefXYZ") }, "13\r\n0123456789abcdefXYZ\r\n0\r\n\r\n", 19, KD_KEEP, 0 },
    { "chunked: ended twice, one last chunk", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { END, END }, "0\r\n\r\n", 0, KD_KEEP, 0 },
    /* no body, or the close ends it */
    { "none (HEAD, 204, 304): nothing goes out", KD_FRAME_NONE, -1, KD_KEEP, 0,
      { P("hello"), PL("world") }, "", 0, KD_KEEP, 0 },
    { "close (HTTP/1.0, length unknown): bytes as given", KD_FRAME_CLOSE, -1, KD_CLOSE_UNFRAMED, 0,
      { P("hel"), PL("lo") }, "hello", 5, KD_CLOSE_UNFRAMED, 0 },
    /* files */
    { "length: a file, exact", KD_FRAME_LENGTH, 4, KD_KEEP, 0,
      { FILE_LAST(4) }, "FFFF", 4, KD_KEEP, 0 },
    { "length: a file longer: cut", KD_FRAME_LENGTH, 3, KD_KEEP, 0,
      { FILE_(2), FILE_(5), END }, "FFF", 3, KD_CLOSE_TOO_LONG, 1 },
    { "chunked: a file between its size line and CRLF", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { P("ab"), FILE_(3), FILE_(0), END }, "2\r\nab\r\n3\r\nFFF\r\n0\r\n\r\n", 5, KD_KEEP, 0 },
    { "chunked: a last file carries the last chunk", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { FILE_LAST(2) }, "2\r\nFF\r\n0\r\n\r\n", 2, KD_KEEP, 0 },
    { "chunked: an empty last file is the last chunk alone", KD_FRAME_CHUNKED, -1, KD_KEEP, 0,
      { FILE_LAST(0) }, "0\r\n\r\n", 0, KD_KEEP, 0 },
    { "none: a file sends nothing", KD_FRAME_NONE, -1, KD_KEEP, 0,
      { FILE_LAST(9) }, "", 0, KD_KEEP, 0 },
};

static void put(char *wire, size_t *len, const void *p, size_t n)
{
    if (n > 0 && *len + n < 4096)
        memcpy(wire + *len, p, n);
    *len += n;
}

static void run_case(const frame_case *t)
{
    kd_frame f;
    char wire[4096];
    size_t wlen = 0;
    int64_t body = 0;
    int i, j;

    kd_frame_start(&f, t->framing, t->length, t->close, t->mismatch);
    for (i = 0; i < MAX_CALLS; i++) {
        const call *cl = &t->calls[i];
        int64_t got;
        if (cl->file >= 0) {
            struct iovec pre, post;
            char fb[64];
            got = kd_frame_file(&f, cl->file, cl->last, &pre, &post);
            if (got < 0 || got > cl->file || got > (int64_t)sizeof fb)
                diag("file: %lld bytes of %lld", (long long)got, (long long)cl->file);
            else {
                memset(fb, FILE_BYTE, sizeof fb);
                put(wire, &wlen, pre.iov_base, pre.iov_len);
                put(wire, &wlen, fb, (size_t)got);
                put(wire, &wlen, post.iov_base, post.iov_len);
            }
        } else {
            struct iovec in[MAX_PIECES], out[MAX_PIECES + KD_FRAME_EXTRA_IOV];
            int n = 0, k;
            int64_t counted = 0;
            while (n < MAX_PIECES && cl->pieces[n]) {
                in[n].iov_base = (char *)cl->pieces[n];
                in[n].iov_len = strlen(cl->pieces[n]);
                n++;
            }
            k = kd_frame_body(&f, in, n, cl->last, out, &got);
            if (k < 0 || k > n + KD_FRAME_EXTRA_IOV)
                diag("%d entries for %d pieces", k, n);
            for (j = 0; j < k && k <= n + KD_FRAME_EXTRA_IOV; j++) {
                if (out[j].iov_len == 0)
                    diag("entry %d is empty", j);
                put(wire, &wlen, out[j].iov_base, out[j].iov_len);
                /* body bytes are those pointing into the pieces */
                for (int p = 0; p < n; p++)
                    if (out[j].iov_base >= in[p].iov_base &&
                        (char *)out[j].iov_base < (char *)in[p].iov_base + in[p].iov_len)
                        counted += (int64_t)out[j].iov_len;
            }
            if (counted != got)
                diag("call %d: %lld body bytes said, %lld in the entries", i, (long long)got, (long long)counted);
        }
        body += got;
        if (cl->last)
            break;
    }
    if (wlen != strlen(t->wire) || memcmp(wire, t->wire, wlen) != 0)
        diag("wire: got \"%s\"\n      want \"%s\"", esc(wire, wlen < 4096 ? wlen : 4096), esc(t->wire, strlen(t->wire)));
    if (body != t->body || f.body != t->body)
        diag("body: got %lld (frame %lld), want %lld", (long long)body, (long long)f.body, (long long)t->body);
    if (f.close != t->out_close)
        diag("close: got %d (%s), want %d (%s)", f.close, kd_frame_close_text(f.close), t->out_close,
             kd_frame_close_text(t->out_close));
    if (f.mismatch != t->out_mismatch)
        diag("mismatch: got %d, want %d", f.mismatch, t->out_mismatch);
    if (kd_frame_keep(&f) != (t->out_close == KD_KEEP))
        diag("kd_frame_keep disagrees with the reason");
    tap("%s", t->name);
}

/* an app's own chunked body: calls of its encoded bytes, NULL ends, the
 * last call ending the body */
typedef struct {
    const char *name;
    int framing;                    /* KD_FRAME_CHUNKED or KD_FRAME_CLOSE */
    const char *calls[MAX_CALLS];
    const char *wire;
    int out_close, bad;
} app_case;

static const app_case app_cases[] = {
    { "app chunks: decoded, framed again", KD_FRAME_CHUNKED,
      { "5\r\nhello\r\n0\r\n\r\n" }, "5\r\nhello\r\n0\r\n\r\n", KD_KEEP, 0 },
    { "app chunks split anywhere: each call's bytes one chunk", KD_FRAME_CHUNKED,
      { "5\r\nhe", "llo\r\n3", "\r\nabc\r\n0\r", "\n\r\n" },
      "2\r\nhe\r\n3\r\nllo\r\n3\r\nabc\r\n0\r\n\r\n", KD_KEEP, 0 },
    { "app chunks: their trailers and extensions dropped", KD_FRAME_CHUNKED,
      { "1;x=y\r\nz\r\n0\r\nX-Trailer: 1\r\n\r\n" }, "1\r\nz\r\n0\r\n\r\n", KD_KEEP, 0 },
    { "app chunks over HTTP/1.0: the bytes alone", KD_FRAME_CLOSE,
      { "3\r\nabc\r\n", "2\r\nde\r\n0\r\n\r\n" }, "abcde", KD_CLOSE_UNFRAMED, 0 },
    { "app chunks: an empty body", KD_FRAME_CHUNKED,
      { "0\r\n\r\n" }, "0\r\n\r\n", KD_KEEP, 0 },
    { "malformed size: nothing more, no last chunk", KD_FRAME_CHUNKED,
      { "1\r\na\r\n", "zz\r\n", "0\r\n\r\n" }, "1\r\na\r\n", KD_CLOSE_APP_CHUNKS, 1 },
    { "no CRLF after a chunk's data", KD_FRAME_CHUNKED,
      { "1\r\nab\r\n0\r\n\r\n" }, "", KD_CLOSE_APP_CHUNKS, 1 },
    { "bytes after the app's last chunk", KD_FRAME_CHUNKED,
      { "1\r\na\r\n0\r\n\r\n", "more" }, "1\r\na\r\n", KD_CLOSE_APP_CHUNKS, 1 },
    { "bytes after the last chunk in the same call", KD_FRAME_CHUNKED,
      { "0\r\n\r\nGET / HTTP/1.1\r\n\r\n" }, "", KD_CLOSE_APP_CHUNKS, 1 },
    { "the body ends inside a chunk: no last chunk", KD_FRAME_CHUNKED,
      { "3\r\nab", "" }, "2\r\nab\r\n", KD_CLOSE_APP_CHUNKS, 1 },
    { "the body ends before the last chunk: no last chunk", KD_FRAME_CHUNKED,
      { "1\r\na\r\n", "" }, "1\r\na\r\n", KD_CLOSE_APP_CHUNKS, 1 },
    { "HTTP/1.0, malformed: what was good, then the close", KD_FRAME_CLOSE,
      { "2\r\nok\r\n", "-1\r\n" }, "ok", KD_CLOSE_UNFRAMED, 1 },
};

static void run_app_case(const app_case *t)
{
    kd_frame f;
    char wire[4096], buf[256];
    size_t wlen = 0;
    int i, j;

    kd_frame_start(&f, t->framing, -1, t->framing == KD_FRAME_CLOSE ? KD_CLOSE_UNFRAMED : KD_KEEP, 0);
    kd_frame_decode(&f);
    for (i = 0; i < MAX_CALLS && t->calls[i]; i++) {
        int last = i + 1 == MAX_CALLS || !t->calls[i + 1], k;
        size_t len = strlen(t->calls[i]), dlen;
        struct iovec piece, out[1 + KD_FRAME_EXTRA_IOV];
        int64_t got;
        memcpy(buf, t->calls[i], len);
        kd_frame_unchunk(&f, buf, len, last, &dlen);
        piece.iov_base = buf;
        piece.iov_len = dlen;
        k = kd_frame_body(&f, &piece, 1, last, out, &got);
        for (j = 0; j < k; j++)
            put(wire, &wlen, out[j].iov_base, out[j].iov_len);
    }
    if (wlen != strlen(t->wire) || memcmp(wire, t->wire, wlen) != 0)
        diag("wire: got \"%s\"\n      want \"%s\"", esc(wire, wlen < 4096 ? wlen : 4096), esc(t->wire, strlen(t->wire)));
    if (f.close != t->out_close)
        diag("close: got %d (%s), want %d (%s)", f.close, kd_frame_close_text(f.close), t->out_close,
             kd_frame_close_text(t->out_close));
    if (f.bad != t->bad)
        diag("bad: got %d, want %d", f.bad, t->bad);
    if (!f.ended)
        diag("not ended");
    tap("%s", t->name);
}

typedef struct {
    int wished, at_max, draining, unread;
    int want;
} before_case;

static const before_case befores[] = {
    { 1, 0, 0, 0, KD_KEEP },
    { 0, 0, 0, 0, KD_CLOSE_CLIENT },
    { 1, 1, 0, 0, KD_CLOSE_MAX_REQUESTS },
    { 1, 0, 1, 0, KD_CLOSE_DRAINING },
    { 1, 0, 0, 1, KD_CLOSE_BODY_UNREAD },
    { 0, 1, 1, 1, KD_CLOSE_CLIENT },
    { 1, 1, 1, 1, KD_CLOSE_MAX_REQUESTS },
    { 1, 0, 1, 1, KD_CLOSE_DRAINING },
};

int main(void)
{
    size_t i;
    int r;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    for (i = 0; i < sizeof app_cases / sizeof app_cases[0]; i++)
        run_app_case(&app_cases[i]);
    {
        /* a file's bytes cannot be decoded: marked malformed, nothing sent */
        kd_frame f;
        struct iovec pre, post;
        int64_t n;
        kd_frame_start(&f, KD_FRAME_CHUNKED, -1, KD_KEEP, 0);
        kd_frame_decode(&f);
        n = kd_frame_file(&f, 10, 1, &pre, &post);
        ok(n == 0 && pre.iov_len == 0 && post.iov_len == 0 && f.bad && f.close == KD_CLOSE_APP_CHUNKS,
           "app chunks: a file body is not decoded, nothing sent");
    }

    for (i = 0; i < sizeof befores / sizeof befores[0]; i++) {
        const before_case *b = &befores[i];
        r = kd_frame_close_before(b->wished, b->at_max, b->draining, b->unread);
        ok(r == b->want, "close before: wished %d, at max %d, draining %d, body unread %d: %s", b->wished,
           b->at_max, b->draining, b->unread, kd_frame_close_text(b->want));
    }

    for (r = 0; r < KD_CLOSE_REASONS; r++)
        if (!kd_frame_close_text(r)[0] || !strcmp(kd_frame_close_text(r), "unknown"))
            diag("reason %d has no text", r);
    if (strcmp(kd_frame_close_text(KD_CLOSE_REASONS), "unknown") || strcmp(kd_frame_close_text(-1), "unknown"))
        diag("a reason out of range is not \"unknown\"");
    tap("every reason has its text");

    {
        /* the chunk line holds the largest size there is */
        kd_frame f;
        struct iovec pre, post;
        kd_frame_start(&f, KD_FRAME_CHUNKED, -1, KD_KEEP, 0);
        kd_frame_file(&f, INT64_MAX, 0, &pre, &post);
        ok(pre.iov_len == 18 && !memcmp(pre.iov_base, "7fffffffffffffff\r\n", 18),
           "the size line of the largest chunk fits (%s)", esc(pre.iov_base, pre.iov_len));
    }
    return done_testing();
}
