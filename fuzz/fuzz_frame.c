/* libFuzzer harness: the response body's framing (src/proto/kd_frame.c)
 * over any sequence of writes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_frame.c -o fuzz/build/fuzz_frame_libfuzzer
 *
 * Input: byte 0 the framing (mod 4), whether the body is ended (bit 2)
 * and whether the bytes are the app's own chunks (bit 3: kd_frame_decode,
 * each call's bytes decoded by kd_frame_unchunk before they are framed),
 * bytes 1-2 the declared length (big-endian); then calls, each a
 * control byte (bits 0-1: pieces in the call, 0 to 3; bit 2: a file
 * instead of pieces; bit 3: the last call) and, per piece or file, a
 * length byte and (for pieces) that many bytes.
 *
 * Beyond "no crash": the wire is exactly what the framing says of the
 * bytes given (their first `length` with Content-Length, all of them when
 * the close ends the body, none without a body) and, chunked, decodes
 * with the loop's own chunked decoder to exactly the bytes given, ending
 * when and only when the body was ended; no entry is empty; the body
 * count matches; keep-alive is lost exactly when the body was longer or
 * (at its end) shorter than declared. With the app's own chunks: what
 * goes out is a prefix of what the app's bytes decode to (decoded a byte
 * at a time by a fresh decoder, up to their first error), all of it when
 * they are well formed; a malformed encoding, a file, or a body ended
 * inside its encoding marks the frame bad, and then the wire never ends
 * the body. */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

#define MAX_CALLS 64
#define WIRE_MAX (1 << 17)

static char wire[WIRE_MAX], given[WIRE_MAX], decoded[WIRE_MAX], app[WIRE_MAX], ref[WIRE_MAX];

/* What the app's bytes decode to, a byte at a time up to the first error
 * (or the first byte past the last chunk): *len bytes into out. 1 when
 * they are a whole, well-formed encoding, 0 when a well-formed start of
 * one, -1 when malformed. */
static int reference(const char *in, size_t n, char *out, size_t *len)
{
    kd_chunked d;
    size_t i;
    kd_chunked_init(&d);
    *len = 0;
    for (i = 0; i < n; i++) {
        size_t got = 0;
        if (d.done || kd_chunked_decode(&d, in + i, 1, out + *len, &got) != 1)
            return -1;
        *len += got;
    }
    return d.done;
}

static void check_app_chunks(const kd_frame *f, int framing, int ended, int filed, size_t wlen, int64_t body,
                             size_t alen)
{
    size_t rlen, dlen = wlen;
    int state = reference(app, alen, ref, &rlen);
    const char *out = wire;
    if (framing == KD_FRAME_CHUNKED) {
        kd_chunked d;
        long used;
        kd_chunked_init(&d);
        dlen = 0;
        used = kd_chunked_decode(&d, wire, wlen, decoded, &dlen);
        if (used < 0 || (size_t)used != wlen || d.done != (ended && !f->bad))
            abort();
        out = decoded;
    }
    if ((size_t)body != dlen || dlen > rlen || memcmp(out, ref, dlen) != 0)
        abort();                    /* a prefix of what the app's bytes mean */
    if (f->bad != (filed || state < 0 || (ended && state != 1)))
        abort();
    if ((!f->bad && dlen != rlen) || (f->bad && f->close == KD_KEEP))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char file_bytes[256] = { 0 };   /* a file's bytes, as given here */
    kd_frame f;
    size_t pos = 3, wlen = 0, glen = 0;
    int64_t length, body = 0;
    int framing, calls = 0, ended = 0, decode, filed = 0;
    size_t alen = 0;

    if (size < 3)
        return 0;
    framing = data[0] & 3;
    length = (int64_t)(data[1] << 8 | data[2]);
    decode = (data[0] >> 3) & 1;
    kd_frame_start(&f, framing, length, framing == KD_FRAME_CLOSE ? KD_CLOSE_UNFRAMED : KD_KEEP, 0);
    if (decode) {
        if (framing == KD_FRAME_LENGTH || framing == KD_FRAME_NONE)
            return 0;               /* the XS decodes for chunked and close only */
        kd_frame_decode(&f);
    }

    while (pos < size && calls++ < MAX_CALLS && !ended) {
        uint8_t ctl = data[pos++];
        int n = ctl & 3, last = (ctl >> 3) & 1, k, i;
        int64_t got;
        if (ctl & 4) {
            struct iovec pre, post;
            int64_t flen = pos < size ? data[pos++] : 0;
            got = kd_frame_file(&f, flen, last, &pre, &post);
            if (got < 0 || got > flen)
                abort();
            if (decode && !f.ended && flen > 0) {
                filed = 1;
                if (got != 0 || !f.bad)
                    abort();
            }
            if ((pre.iov_len && !pre.iov_base) || (post.iov_len && !post.iov_base))
                abort();
            memcpy(wire + wlen, pre.iov_base ? pre.iov_base : "", pre.iov_len);
            wlen += pre.iov_len;
            memcpy(wire + wlen, file_bytes, (size_t)got);
            wlen += (size_t)got;
            memcpy(wire + wlen, post.iov_base ? post.iov_base : "", post.iov_len);
            wlen += post.iov_len;
            memcpy(given + glen, file_bytes, (size_t)flen);
            glen += (size_t)flen;
        } else {
            struct iovec in[3], out[3 + KD_FRAME_EXTRA_IOV];
            for (i = 0; i < n; i++) {
                size_t l = pos < size ? data[pos++] : 0;
                if (l > size - pos)
                    l = size - pos;
                in[i].iov_base = (char *)data + pos;
                in[i].iov_len = l;
                memcpy(given + glen, data + pos, l);
                glen += l;
                pos += l;
            }
            if (decode) {
                /* the app's bytes, decoded in place as the XS does */
                static char piece[WIRE_MAX];
                size_t plen = 0, dl;
                for (i = 0; i < n; i++) {
                    memcpy(piece + plen, in[i].iov_base, in[i].iov_len);
                    plen += in[i].iov_len;
                }
                if (!f.ended) {
                    memcpy(app + alen, piece, plen);
                    alen += plen;
                }
                kd_frame_unchunk(&f, piece, plen, last, &dl);
                in[0].iov_base = piece;
                in[0].iov_len = dl;
                n = 1;
            }
            k = kd_frame_body(&f, in, n, last, out, &got);
            if (k < 0 || k > n + KD_FRAME_EXTRA_IOV)
                abort();
            for (i = 0; i < k; i++) {
                if (out[i].iov_len == 0)
                    abort();                /* an empty entry: an empty chunk, or waste */
                memcpy(wire + wlen, out[i].iov_base, out[i].iov_len);
                wlen += out[i].iov_len;
            }
        }
        body += got;
        ended = last;
    }
    if (body != f.body || f.ended != ended)
        abort();
    if (decode) {
        check_app_chunks(&f, framing, ended, filed, wlen, body, alen);
        return 0;
    }

    switch (framing) {
    case KD_FRAME_NONE:
        if (wlen != 0 || body != 0 || f.close != KD_KEEP)
            abort();
        break;
    case KD_FRAME_CLOSE:
        if (wlen != glen || memcmp(wire, given, glen) != 0 || f.close != KD_CLOSE_UNFRAMED)
            abort();
        break;
    case KD_FRAME_LENGTH: {
        size_t want = (int64_t)glen < length ? glen : (size_t)length;
        int longer = (int64_t)glen > length, shorter = ended && (int64_t)glen < length;
        if (wlen != want || memcmp(wire, given, want) != 0 || (size_t)body != want)
            abort();
        if (f.close != (longer ? KD_CLOSE_TOO_LONG : shorter ? KD_CLOSE_TOO_SHORT : KD_KEEP))
            abort();
        if (f.mismatch != (longer ? 1 : shorter ? -1 : 0))
            abort();
        break;
    }
    case KD_FRAME_CHUNKED: {
        kd_chunked d;
        size_t dlen = 0;
        long used;
        kd_chunked_init(&d);
        used = kd_chunked_decode(&d, wire, wlen, decoded, &dlen);
        if (used < 0 || (size_t)used != wlen || dlen != glen || memcmp(decoded, given, glen) != 0)
            abort();
        if (d.done != ended || f.close != KD_KEEP || (size_t)body != glen)
            abort();
        break;
    }
    }
    return 0;
}
