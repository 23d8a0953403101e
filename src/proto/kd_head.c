/* kd_head.c: see kd_head.h.
 *
 * One pass over the app's fields: each is checked and copied, except the
 * ones that frame the message, which are read and then written by the
 * builder itself (RFC 9110 and RFC 9112 references by section).
 */
#include "kd_head.h"
#include "kd_parser.h"
#include "kd_chars.h"
#include <string.h>

const char *kd_reason(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 426: return "Upgrade Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "";
    }
}

const char *kd_head_error_text(int error)
{
    switch (error) {
    case KD_HEAD_OK: return "";
    case KD_HEAD_BAD_STATUS: return "bad status (a final status is 200 to 999)";
    case KD_HEAD_BAD_NAME: return "bad header name";
    case KD_HEAD_BAD_VALUE: return "CR, LF or NUL in a header value";
    case KD_HEAD_BAD_LENGTH: return "bad Content-Length";
    case KD_HEAD_TWO_LENGTHS: return "two different Content-Length values";
    case KD_HEAD_APP_TE: return "Transfer-Encoding from the app other than chunked alone, or with a Content-Length";
    case KD_HEAD_NO_ROOM: return "response head too large";
    default: return "bad response head";
    }
}

/* Content-Length = 1*DIGIT (RFC 9110 8.6), optional whitespace around it
 * (it is not part of a field value, 5.5). -1: malformed or past int64. */
static int64_t head_length(const char *v, size_t n)
{
    int64_t x = 0;
    size_t i = 0;
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    while (i < n && (v[i] == ' ' || v[i] == '\t'))
        i++;
    if (i == n)
        return -1;
    for (; i < n; i++) {
        int d = (unsigned char)v[i] - '0';
        if (d < 0 || d > 9 || x > (INT64_MAX - d) / 10)
            return -1;
        x = x * 10 + d;
    }
    return x;
}

/* Whether a Transfer-Encoding value is "chunked" alone, whitespace
 * around it allowed. */
static int head_is_chunked(const char *v, size_t n)
{
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    while (n > 0 && (*v == ' ' || *v == '\t'))
        v++, n--;
    return kd_ci_eq(v, n, "chunked");
}

/* Whether a Connection value lists the token "close" (RFC 9112 9.6). */
static int head_says_close(const char *v, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t s, e;
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        s = i;
        while (i < n && v[i] != ',')
            i++;
        e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (kd_ci_eq(v + s, e - s, "close"))
            return 1;
    }
    return 0;
}

static int head_fail(kd_head_out *out, int error)
{
    out->error = error;
    out->len = 0;
    return error;
}

/* "Content-Length: N\r\n" at o; returns the end */
static char *head_put_length(char *o, int64_t n)
{
    char digits[20];
    int k = 0;
    memcpy(o, "Content-Length: ", 16);
    o += 16;
    do {
        digits[k++] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    while (k > 0)
        *o++ = digits[--k];
    *o++ = '\r';
    *o++ = '\n';
    return o;
}

#define PUT(p, n) do { memcpy(o, (p), (n)); o += (n); } while (0)
#define PUTS(lit) PUT(lit, sizeof lit - 1)

int kd_head_build(const kd_head_in *in, char *buf, size_t cap, kd_head_out *out)
{
    char *o = buf, *end = buf + cap;
    int status = in->status, ending = in->keepalive ? KD_KEEP : KD_CLOSE_CLIENT, has_date = 0;
    int app_chunked = 0;
    int64_t body_len = in->body_len;
    int64_t length = -1;
    const char *reason;
    size_t i;

    memset(out, 0, sizeof *out);
    /* 1xx are interim answers only (RFC 9110 15.2): the app cannot end
     * the exchange with one */
    if ((status < 200 && !(status == 101 && in->upgrade)) || status > 999)
        return head_fail(out, KD_HEAD_BAD_STATUS);
    if (cap < KD_HEAD_SLACK)
        return head_fail(out, KD_HEAD_NO_ROOM);
    reason = kd_reason(status);
    PUTS("HTTP/1.1 ");
    *o++ = (char)('0' + status / 100);
    *o++ = (char)('0' + status / 10 % 10);
    *o++ = (char)('0' + status % 10);
    *o++ = ' ';
    if (reason[0])
        PUT(reason, strlen(reason));
    else
        PUTS("Unknown");
    PUTS("\r\n");

    for (i = 0; i < in->nfields; i++) {
        const kd_field *f = &in->fields[i];
        const char *k = f->name, *v = f->value;
        size_t kl = f->name_len, vl = f->value_len, j;
        if (kl == 0)
            return head_fail(out, KD_HEAD_BAD_NAME);
        for (j = 0; j < kl; j++)
            if (!IS_TCHAR(k[j]))
                return head_fail(out, KD_HEAD_BAD_NAME);
        /* no CR, LF or NUL: they would split the response */
        for (j = 0; j < vl; j++)
            if (v[j] == '\r' || v[j] == '\n' || v[j] == '\0')
                return head_fail(out, KD_HEAD_BAD_VALUE);
        switch (kd_lower((unsigned char)k[0])) {
        case 'c':
            if (kd_ci_eq(k, kl, "content-length")) {
                int64_t n = head_length(v, vl);
                if (n < 0)
                    return head_fail(out, KD_HEAD_BAD_LENGTH);
                if (length >= 0) {
                    /* the same twice is one (RFC 9110 8.6) */
                    if (n != length)
                        return head_fail(out, KD_HEAD_TWO_LENGTHS);
                    continue;
                }
                length = n;
                continue;           /* written with the framing, below */
            }
            if (kd_ci_eq(k, kl, "connection") && status != 101) {
                /* the connection is the server's; a close is honoured */
                if (head_says_close(v, vl) && ending == KD_KEEP)
                    ending = KD_CLOSE_APP;
                continue;
            }
            break;
        case 't':
            if (kd_ci_eq(k, kl, "transfer-encoding")) {
                /* the app's own chunks (Mojolicious, Plack's Chunked):
                 * decoded and framed again (kd_frame_unchunk); any other
                 * coding, or a second one, is not the server's to undo */
                if (app_chunked || !head_is_chunked(v, vl))
                    return head_fail(out, KD_HEAD_APP_TE);
                app_chunked = 1;
                continue;
            }
            break;
        case 'k':
            if (kd_ci_eq(k, kl, "keep-alive"))
                continue;           /* hop-by-hop (RFC 9112 9.6 and 7230 A.1.2) */
            break;
        case 'p':
            if (kd_ci_eq(k, kl, "proxy-connection"))
                continue;
            break;
        case 'd':
            if (kd_ci_eq(k, kl, "date"))
                has_date = 1;
            break;
        }
        if ((size_t)(end - o) < kl + vl + 4 + KD_HEAD_SLACK / 2)
            return head_fail(out, KD_HEAD_NO_ROOM);
        PUT(k, kl);
        PUTS(": ");
        PUT(v, vl);
        PUTS("\r\n");
    }

    if (status == 101) {
        /* the connection is the app's from here: no framing, and the
         * app's Connection: Upgrade as it gave it */
        PUTS("\r\n");
        out->framing = KD_FRAME_NONE;
        out->no_body = 1;
        out->close = KD_CLOSE_APP;
        out->len = (size_t)(o - buf);
        return KD_HEAD_OK;
    }
    if (app_chunked) {
        /* both would be a request smuggler's answer (RFC 9112 6.3) */
        if (length >= 0)
            return head_fail(out, KD_HEAD_APP_TE);
        body_len = -1;              /* the encoded size is not the body's */
        out->app_chunked = 1;
    }
    /* 1xx, 204 and 304 have no body (RFC 9110 6.4.1); 204 carries no
     * Content-Length (8.6), a 304 the one of the representation */
    out->no_body = in->is_head || status == 204 || status == 304;
    out->framing = KD_FRAME_NONE;
    if (status == 204) {
        /* nothing to frame */
    } else if (status == 304) {
        if (length >= 0)
            o = head_put_length(o, length);
    } else if (length >= 0 || body_len >= 0) {
        if (length < 0)
            length = body_len;
        else if (body_len >= 0 && body_len != length && !in->is_head) {
            /* cut at the length, or short: either way the connection
             * cannot carry another response after it */
            out->mismatch = body_len > length ? 1 : -1;
            if (ending == KD_KEEP)
                ending = out->mismatch > 0 ? KD_CLOSE_TOO_LONG : KD_CLOSE_TOO_SHORT;
        }
        o = head_put_length(o, length);
        if (!in->is_head) {
            out->framing = KD_FRAME_LENGTH;
            out->length = length;
        }
    } else if (!in->is_head) {
        if (in->minor_version >= 1) {
            PUTS("Transfer-Encoding: chunked\r\n");
            out->framing = KD_FRAME_CHUNKED;
        } else {
            out->framing = KD_FRAME_CLOSE;  /* HTTP/1.0: the close ends it */
            if (ending == KD_KEEP)
                ending = KD_CLOSE_UNFRAMED;
        }
    }
    if (!has_date && in->date) {
        PUTS("Date: ");
        PUT(in->date, 29);
        PUTS("\r\n");
    }
    if (ending != KD_KEEP)
        PUTS("Connection: close\r\n\r\n");
    else if (in->minor_version == 0)
        PUTS("Connection: keep-alive\r\n\r\n");
    else
        PUTS("\r\n");
    out->keepalive = ending == KD_KEEP;
    out->close = ending;
    out->len = (size_t)(o - buf);
    return KD_HEAD_OK;
}

#undef PUT
#undef PUTS
