/* libFuzzer harness: the response head builder (src/proto/kd_head.c) on
 * arbitrary app responses.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_head.c -o fuzz/build/fuzz_head_libfuzzer
 *
 * Input: byte 0 the request facts (bit 0 HEAD, bit 1 HTTP/1.1, bit 2
 * keep-alive wished, bit 3 body length known, bit 4 a Date to add),
 * bytes 1-2 the status (big-endian, mod 1100), bytes 3-4 the body length
 * when known; then fields, each a name length byte, a value length byte
 * and the bytes (any bytes: CR, LF, NUL included).
 *
 * Beyond "no crash" (the head is built in a heap buffer of exactly the
 * documented bound, so ASan sees any write past it): an accepted head is
 * a status line of 200..999 and CRLF-ended lines with no bare CR or LF and
 * no NUL, one empty line at its end; it has exactly one framing
 * (Content-Length equal to the decided length, or chunked, or neither when
 * the close or the status ends the body), one Connection field at most and
 * "close" whenever keep-alive was refused; keep-alive is never granted
 * when it was not wished or when a known body did not match its length. */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64

static int ci_prefix(const char *line, size_t n, const char *lit)
{
    size_t i, l = strlen(lit);
    if (n < l)
        return 0;
    for (i = 0; i < l; i++)
        if (kd_lower((unsigned char)line[i]) != lit[i])
            return 0;
    return 1;
}

static int has_bad_byte(const char *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (v[i] == '\r' || v[i] == '\n' || v[i] == '\0')
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    kd_field fields[MAX_FIELDS];
    kd_head_in in;
    kd_head_out out;
    size_t nf = 0, pos = 5, cap = KD_HEAD_SLACK, i;
    char *copy, *buf;
    const char *p, *end;
    int cl_lines = 0, te_lines = 0, conn_lines = 0, close_line = 0, bad_input = 0, rv;
    long long cl_value = -1;

    if (size < 5)
        return 0;
    /* the fields point into a copy of exactly the input's size */
    copy = malloc(size);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    while (nf < MAX_FIELDS && pos + 2 <= size) {
        size_t kl = data[pos], vl = data[pos + 1];
        pos += 2;
        if (pos + kl + vl > size)
            break;
        fields[nf].name = copy + pos;
        fields[nf].name_len = kl;
        fields[nf].value = copy + pos + kl;
        fields[nf].value_len = vl;
        if (has_bad_byte(fields[nf].value, vl))
            bad_input = 1;
        cap += kl + vl + 4;
        pos += kl + vl;
        nf++;
    }
    memset(&in, 0, sizeof in);
    in.is_head = data[0] & 1;
    in.minor_version = (data[0] >> 1) & 1;
    in.keepalive = (data[0] >> 2) & 1;
    in.body_len = (data[0] & 8) ? (int64_t)(data[3] << 8 | data[4]) : -1;
    in.date = (data[0] & 16) ? "Sun, 06 Nov 1994 08:49:37 GMT" : NULL;
    in.upgrade = 0;
    in.status = (data[1] << 8 | data[2]) % 1100;
    in.fields = fields;
    in.nfields = nf;

    buf = malloc(cap);
    if (!buf) {
        free(copy);
        return 0;
    }
    rv = kd_head_build(&in, buf, cap, &out);
    if (rv != out.error || rv < KD_HEAD_OK || rv > KD_HEAD_NO_ROOM)
        abort();
    if (rv != KD_HEAD_OK) {
        if (out.len != 0)
            abort();
        goto done;
    }
    if (bad_input || rv == KD_HEAD_NO_ROOM)
        abort();                      /* CR, LF or NUL never passes */
    if (in.status < 200 || in.status > 999)
        abort();                      /* never a 1xx (or other) final status */
    if (out.len > cap || out.len < 17 || memcmp(buf, "HTTP/1.1 ", 9) != 0)
        abort();
    if (buf[9] - '0' != in.status / 100 || buf[10] - '0' != in.status / 10 % 10 ||
        buf[11] - '0' != in.status % 10 || buf[12] != ' ')
        abort();
    if (memcmp(buf + out.len - 4, "\r\n\r\n", 4) != 0)
        abort();
    /* every line CRLF-ended, no bare CR, LF or NUL; empty only at the end */
    p = buf;
    end = buf + out.len;
    while (p < end) {
        const char *eol = p;
        size_t n;
        while (eol < end && *eol != '\r' && *eol != '\n' && *eol != '\0')
            eol++;
        if (eol + 1 >= end || eol[0] != '\r' || eol[1] != '\n')
            abort();
        n = (size_t)(eol - p);
        if (n == 0 && eol + 2 != end)
            abort();
        if (p != buf && n > 0) {
            const char *colon = memchr(p, ':', n);
            if (!colon || colon == p)
                abort();
            for (i = 0; i < (size_t)(colon - p); i++)
                if (!kd_is_tchar((unsigned char)p[i]))
                    abort();
            if (ci_prefix(p, n, "content-length:")) {
                const char *d = p + 15;
                cl_lines++;
                while (d < eol && *d == ' ')
                    d++;
                cl_value = 0;
                for (; d < eol; d++) {
                    if (*d < '0' || *d > '9')
                        abort();
                    cl_value = cl_value * 10 + (*d - '0');
                }
            }
            if (ci_prefix(p, n, "transfer-encoding:"))
                te_lines++;
            if (ci_prefix(p, n, "connection:")) {
                conn_lines++;
                close_line = n == 17 && memcmp(p, "Connection: close", 17) == 0;
            }
        }
        p = eol + 2;
    }
    if (cl_lines > 1 || te_lines > 1 || conn_lines > 1 || (cl_lines && te_lines))
        abort();                      /* one framing at most */
    switch (out.framing) {
    case KD_FRAME_LENGTH:
        if (cl_lines != 1 || cl_value != out.length || out.no_body)
            abort();
        break;
    case KD_FRAME_CHUNKED:
        if (te_lines != 1 || !in.minor_version || out.no_body)
            abort();
        break;
    case KD_FRAME_CLOSE:
        if (cl_lines || te_lines || out.keepalive || out.no_body)
            abort();
        break;
    case KD_FRAME_NONE:
        if (te_lines || !out.no_body)
            abort();
        break;
    default:
        abort();
    }
    if (in.status == 204 && cl_lines)
        abort();
    if (out.keepalive && (!in.keepalive || close_line || out.mismatch))
        abort();
    if (!out.keepalive && !close_line)
        abort();
    if (out.mismatch && (in.body_len < 0 || in.body_len == out.length))
        abort();
done:
    free(buf);
    free(copy);
    return 0;
}
