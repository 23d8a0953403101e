/* libFuzzer harness: the response body's framing (src/proto/kd_frame.c)
 * over any sequence of writes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_frame.c -o fuzz/build/fuzz_frame_libfuzzer
 *
 * Input: byte 0 the framing (mod 4) and whether the body is ended (bit
 * 2), bytes 1-2 the declared length (big-endian); then calls, each a
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
 * (at its end) shorter than declared. */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

#define MAX_CALLS 64
#define WIRE_MAX (1 << 17)

static char wire[WIRE_MAX], given[WIRE_MAX], decoded[WIRE_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char file_bytes[256] = { 0 };   /* a file's bytes, as given here */
    kd_frame f;
    size_t pos = 3, wlen = 0, glen = 0;
    int64_t length, body = 0;
    int framing, calls = 0, ended = 0;

    if (size < 3)
        return 0;
    framing = data[0] & 3;
    length = (int64_t)(data[1] << 8 | data[2]);
    kd_frame_start(&f, framing, length, framing == KD_FRAME_CLOSE ? KD_CLOSE_UNFRAMED : KD_KEEP, 0);

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
