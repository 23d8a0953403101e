/* kd_frame.c: a response body on the wire, after its head. See kd_frame.h. */
#include "kd_frame.h"

#include <stdio.h>
#include <string.h>

static const char last_chunk[] = "0\r\n\r\n";
static const char chunk_end_last[] = "\r\n0\r\n\r\n";   /* a chunk's CRLF, then the last chunk */

int kd_frame_close_before(int wished, int at_max_requests, int draining, int body_unread)
{
    if (!wished)
        return KD_CLOSE_CLIENT;
    if (at_max_requests)
        return KD_CLOSE_MAX_REQUESTS;
    if (draining)
        return KD_CLOSE_DRAINING;
    if (body_unread)
        return KD_CLOSE_BODY_UNREAD;
    return KD_KEEP;
}

void kd_frame_start(kd_frame *f, int framing, int64_t length, int reason, int mismatch)
{
    f->framing = framing;
    f->left = framing == KD_FRAME_LENGTH ? length : -1;
    f->close = reason;
    f->mismatch = 0;
    f->ended = 0;
    f->body = 0;
    f->line[0] = '\0';
    f->decode = f->bad = 0;
    if (mismatch)
        kd_frame_close(f, mismatch > 0 ? KD_CLOSE_TOO_LONG : KD_CLOSE_TOO_SHORT);
    f->mismatch = mismatch;
}

void kd_frame_close(kd_frame *f, int reason)
{
    if (f->close == KD_KEEP)
        f->close = reason;
}

/* The app's encoding is malformed: nothing more goes out. */
static void app_bad(kd_frame *f)
{
    f->bad = 1;
    kd_frame_close(f, KD_CLOSE_APP_CHUNKS);
}

void kd_frame_decode(kd_frame *f)
{
    f->decode = 1;
    kd_chunked_init(&f->dec);
}

int kd_frame_unchunk(kd_frame *f, char *buf, size_t len, int last, size_t *out)
{
    long used = 0;
    *out = 0;
    if (f->bad)
        return -1;
    /* (past the app's last chunk, any byte is one too many) */
    if (len > 0)
        used = f->dec.done ? -1 : kd_chunked_decode(&f->dec, buf, len, buf, out);
    if (used < 0 || (size_t)used != len || (last && !f->dec.done)) {
        *out = 0;
        app_bad(f);
        return -1;
    }
    return 0;
}

/* The chunk-size line for len bytes into f->line; its length. */
static size_t chunk_line(kd_frame *f, uint64_t len)
{
    return (size_t)snprintf(f->line, sizeof f->line, "%llx\r\n", (unsigned long long)len);
}

/* Of len more body bytes, those the declared length allows (all when
 * there is none); marks the cut. */
static int64_t allowed(kd_frame *f, int64_t len)
{
    if (f->left < 0 || len <= f->left)
        return len;
    f->mismatch = 1;
    kd_frame_close(f, KD_CLOSE_TOO_LONG);
    return f->left;
}

/* The end of the body: a length not reached is a short body. */
static void end_body(kd_frame *f)
{
    f->ended = 1;
    if (f->left > 0) {
        f->mismatch = -1;
        kd_frame_close(f, KD_CLOSE_TOO_SHORT);
    }
}

int kd_frame_body(kd_frame *f, const struct iovec *in, int n, int last,
                  struct iovec *out, int64_t *body)
{
    int64_t total = 0, keep;
    int i, k = 0;

    *body = 0;
    if (f->ended)
        return 0;
    if (last && f->decode && !f->dec.done)
        app_bad(f);                 /* the app's body ended inside its encoding */
    if (f->bad) {
        f->ended = last;
        return 0;
    }
    for (i = 0; i < n; i++)
        total += (int64_t)in[i].iov_len;
    if (f->framing == KD_FRAME_NONE) {
        if (last)
            f->ended = 1;
        return 0;
    }
    keep = allowed(f, total);
    if (keep > 0 && f->framing == KD_FRAME_CHUNKED) {
        out[k].iov_base = f->line;
        out[k++].iov_len = chunk_line(f, (uint64_t)keep);
    }
    /* the pieces, up to what is allowed; empty ones are left out */
    for (i = 0, total = keep; i < n && total > 0; i++) {
        size_t len = in[i].iov_len;
        if (len == 0)
            continue;
        if ((int64_t)len > total)
            len = (size_t)total;
        out[k].iov_base = in[i].iov_base;
        out[k++].iov_len = len;
        total -= (int64_t)len;
    }
    if (f->left >= 0)
        f->left -= keep;
    f->body += keep;
    *body = keep;
    if (f->framing == KD_FRAME_CHUNKED) {
        if (keep > 0) {
            out[k].iov_base = (char *)(last ? chunk_end_last : "\r\n");
            out[k++].iov_len = last ? sizeof chunk_end_last - 1 : 2;
        } else if (last) {
            out[k].iov_base = (char *)last_chunk;
            out[k++].iov_len = sizeof last_chunk - 1;
        }
    }
    if (last)
        end_body(f);
    return k;
}

int64_t kd_frame_file(kd_frame *f, int64_t len, int last,
                      struct iovec *pre, struct iovec *post)
{
    struct iovec piece, out[1 + KD_FRAME_EXTRA_IOV];
    int64_t body;
    int k, i;

    pre->iov_base = post->iov_base = NULL;
    pre->iov_len = post->iov_len = 0;
    if (len < 0)
        len = 0;
    if (f->decode && len > 0)
        app_bad(f);                 /* a file's bytes are not decoded here */
    /* framed as a piece whose bytes are the file's: what surrounds the
     * piece's place is the file's pre and post */
    piece.iov_base = NULL;
    piece.iov_len = (size_t)len;
    k = kd_frame_body(f, &piece, len > 0, last, out, &body);
    for (i = 0; i < k; i++) {
        if (out[i].iov_base == NULL)
            continue;               /* the file's own place */
        if (body > 0 && i == 0 && f->framing == KD_FRAME_CHUNKED)
            *pre = out[i];
        else
            *post = out[i];
    }
    return body;
}

const char *kd_frame_close_text(int reason)
{
    static const char *const text[KD_CLOSE_REASONS] = {
        "kept alive",
        "the client asked to close",
        "the connection's last request",
        "the worker is stopping",
        "the request body was not read",
        "the app asked to close",
        "HTTP/1.0 body of unknown length: the close ends it",
        "body longer than its Content-Length: cut, connection closed",
        "body shorter than its Content-Length: connection closed",
        "the client went away",
        "the app's chunked encoding is malformed: cut, connection closed",
    };
    return reason >= 0 && reason < KD_CLOSE_REASONS ? text[reason] : "unknown";
}
