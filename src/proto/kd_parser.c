/* kd_parser.c: the request head (see kd_parser.h; the chunked body
 * decoder is kd_chunked.c).
 *
 * Framing is strict on purpose: every ambiguity that two HTTP parsers could
 * resolve differently (the root of request smuggling) is an error here.
 * References are to RFC 9110 (semantics) and RFC 9112 (HTTP/1.1).
 */
#include "kd_parser.h"
#include "kd_chars.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int kd_is_tchar(unsigned char c)
{
    return char_class[c] & C_TCHAR;
}

static int fail(kd_request *r, int status)
{
    r->error_status = status;
    return KD_ERROR;
}

/* The path is percent-decoded into PATH_INFO, so every '%' there must start
 * a valid escape, and none may decode to NUL, which would cut the path short
 * for any C library call (open, stat) the app makes with it. The query is
 * passed on undecoded, as Apache and nginx do: the app decodes it. */
static int path_escapes_ok(const char *p, size_t n)
{
    const char *e = p + n;
    while ((p = memchr(p, '%', (size_t)(e - p))) != NULL) {
        if (e - p < 3 || hexval((unsigned char)p[1]) < 0 || hexval((unsigned char)p[2]) < 0 ||
            (p[1] == '0' && p[2] == '0'))
            return 0;
        p += 3;
    }
    return 1;
}

static int host_ok(const char *v, size_t len);

/* Whether every byte of [p, end) is a field value's (is_value_char):
 * eight at a time while none is a control or DEL (a tab among them is
 * then looked at byte by byte). */
static int values_ok(const char *p, const char *end)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    for (; end - p >= 8; p += 8) {
        uint64_t w, del;
        int i;
        memcpy(&w, p, 8);
        del = w ^ (0x7f * ones);
        /* a byte below 0x20, or a 0x7f (exact for bytes below 0x80; the
         * others are obs-text, allowed) */
        if (!((((w - 0x20 * ones) & ~w) | ((del - ones) & ~del)) & highs))
            continue;
        for (i = 0; i < 8; i++)
            if (!is_value_char((unsigned char)p[i]))
                return 0;
    }
    for (; p < end; p++)
        if (!is_value_char((unsigned char)*p))
            return 0;
    return 1;
}

/* Splits the request-target into path and query. Returns 0 or -1. */
static int parse_target(kd_request *r)
{
    const char *t = r->target, *end = t + r->target_len, *p, *q;

    /* fragments are never sent; in an authority they hide the real host */
    if (memchr(t, '#', r->target_len))
        return -1;
    if (t[0] == '/') {
        p = t;
    } else if (r->target_len == 1 && t[0] == '*') {
        p = t;                                    /* asterisk-form */
    } else {
        /* absolute-form (RFC 9112 section 3.2.2): keep the path only */
        const char *s = t;
        size_t slen;
        while (s < end && *s != ':')
            s++;
        slen = (size_t)(s - t);
        if (!(kd_ci_eq(t, slen, "http") || kd_ci_eq(t, slen, "https")) ||
            end - s < 3 || s[1] != '/' || s[2] != '/')
            return -1;
        s += 3;
        p = s;
        while (p < end && *p != '/' && *p != '?')
            p++;
        /* no authority, or userinfo in it (RFC 9110 4.2.4: "user@" is how
         * phishing links hide the real host) */
        if (p == s || !host_ok(s, (size_t)(p - s)))
            return -1;
        r->authority = s;
        r->authority_len = (size_t)(p - s);
        if (p == end || *p == '?') {
            static const char root[] = "/";
            r->path = root;
            r->path_len = 1;
            r->query = p < end ? p + 1 : NULL;
            r->query_len = p < end ? (size_t)(end - p - 1) : 0;
            return 0;
        }
    }
    q = memchr(p, '?', (size_t)(end - p));
    r->path = p;
    r->path_len = q ? (size_t)(q - p) : (size_t)(end - p);
    r->query = q ? q + 1 : NULL;
    r->query_len = q ? (size_t)(end - q - 1) : 0;
    return path_escapes_ok(r->path, r->path_len) ? 0 : -1;
}

/* request-line = method SP request-target SP HTTP-version CRLF */
static int parse_request_line(const char *s, size_t len, kd_request *r)
{
    const char *end = s + len, *p = s, *v;

    while (p < end && IS_TCHAR(*p))
        p++;
    if (p == s || p == end || *p != ' ')
        return fail(r, 400);
    r->method = s;
    r->method_len = (size_t)(p - s);
    r->target = ++p;
    while (p < end && (unsigned char)*p > 0x20 && *p != 0x7f)
        p++;
    if (p == r->target || p == end || *p != ' ')
        return fail(r, 400);
    r->target_len = (size_t)(p - r->target);
    v = p + 1;
    if (end - v != 8 || memcmp(v, "HTTP/", 5) != 0 ||
        v[5] < '0' || v[5] > '9' || v[6] != '.' || v[7] < '0' || v[7] > '9')
        return fail(r, 400);
    if (v[5] != '1')
        return fail(r, 505);
    r->minor_version = v[7] == '0' ? 0 : 1;      /* 1.x is 1.1-compatible */
    if (parse_target(r) != 0)
        return fail(r, 400);
    r->is_head = r->method_len == 4 && memcmp(r->method, "HEAD", 4) == 0;
    return 0;
}

/* Reads "close" and "keep-alive" from a Connection field value. */
static void parse_connection(const char *v, size_t len, int *close, int *ka)
{
    const char *end = v + len;
    while (v < end) {
        const char *tok, *tend;
        while (v < end && (*v == ' ' || *v == '\t' || *v == ','))
            v++;
        tok = v;
        while (v < end && *v != ',')
            v++;
        tend = v;
        while (tend > tok && (tend[-1] == ' ' || tend[-1] == '\t'))
            tend--;
        if (kd_ci_eq(tok, (size_t)(tend - tok), "close"))
            *close = 1;
        else if (kd_ci_eq(tok, (size_t)(tend - tok), "keep-alive"))
            *ka = 1;
    }
}

/* Content-Length = 1*DIGIT; anything else (sign, space, list) is an error */
static int64_t parse_content_length(const char *v, size_t len)
{
    int64_t n = 0;
    size_t i;
    if (len == 0)
        return -1;
    while (len > 1 && *v == '0') {                /* 0005 is 5 (RFC 9110 8.6) */
        v++;
        len--;
    }
    if (len > 18)                                 /* 18 digits cannot overflow */
        return -1;
    for (i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        n = n * 10 + (v[i] - '0');
    }
    return n;
}

/* Transfer-Encoding is a list of codings; only "chunked", last and once,
 * is understood. 0: chunked; 400 when chunked is not the final coding (the
 * body's length is unknown: RFC 9112 6.3) or is applied twice; 501 for
 * another coding before it (RFC 9112 6.1). Empty list elements are
 * skipped (RFC 9110 5.6.1). */
static int parse_transfer_encoding(const char *v, size_t len)
{
    const char *end = v + len;
    int codings = 0, chunked_seen = 0, last_chunked = 0, other = 0;
    while (v < end) {
        const char *tok, *tend;
        while (v < end && (*v == ' ' || *v == '\t' || *v == ','))
            v++;
        if (v == end)
            break;
        tok = v;
        while (v < end && *v != ',')
            v++;
        tend = v;
        while (tend > tok && (tend[-1] == ' ' || tend[-1] == '\t'))
            tend--;
        codings++;
        last_chunked = kd_ci_eq(tok, (size_t)(tend - tok), "chunked");
        if (last_chunked)
            chunked_seen++;
        else
            other = 1;
    }
    if (!last_chunked || chunked_seen > 1)
        return 400;
    return other ? 501 : 0;
}

#define DIGIT(c) ((c) >= '0' && (c) <= '9')

/* Host = uri-host [ ":" port ] (RFC 9112 3.2): a reg-name, an IPv4
 * address or an IP-literal in brackets. A space, "/", "@", "," or any
 * other character outside those is a 400 (RFC 9112 3.2: "invalid field
 * value"); an empty Host is allowed. */
static int host_ok(const char *v, size_t len)
{
    const char *end = v + len, *p = v;
    if (len == 0)
        return 1;
    if (*p == '[') {
        while (p < end && *p != ']') {
            unsigned char c = (unsigned char)*p;
            if (p > v && !(hexval(c) >= 0 || c == ':' || c == '.' || c == 'v' || c == 'V'))
                return 0;
            p++;
        }
        if (p == end)
            return 0;
        p++;
    } else {
        while (p < end && *p != ':') {
            unsigned char c = (unsigned char)*p;
            if (!(char_class[c] & C_HOST))
                return 0;
            p++;
        }
    }
    if (p < end) {
        if (*p++ != ':')
            return 0;
        while (p < end)
            if (!DIGIT((unsigned char)*p++))
                return 0;
    }
    return 1;
}

/* Applies the framing and connection rules once all fields are known. */
static int check_fields(kd_request *r)
{
    size_t i, hosts = 0, cls = 0, tes = 0;
    int close = 0, ka = 0;

    for (i = 0; i < r->num_headers; i++) {
        const kd_header *h = &r->headers[i];
        switch (kd_lower((unsigned char)h->name[0])) {
        case 'h':
            if (kd_ci_eq(h->name, h->name_len, "host")) {
                if (!host_ok(h->value, h->value_len))
                    return fail(r, 400);
                hosts++;
            }
            break;
        case 'c':
            if (kd_ci_eq(h->name, h->name_len, "content-length")) {
                if (++cls > 1)
                    return fail(r, 400);
                r->content_length = parse_content_length(h->value, h->value_len);
                if (r->content_length < 0)
                    return fail(r, 400);
            } else if (kd_ci_eq(h->name, h->name_len, "connection")) {
                parse_connection(h->value, h->value_len, &close, &ka);
            }
            break;
        case 't':
            if (kd_ci_eq(h->name, h->name_len, "transfer-encoding")) {
                int status;
                if (++tes > 1)
                    return fail(r, 400);
                if ((status = parse_transfer_encoding(h->value, h->value_len)) != 0)
                    return fail(r, status);
                r->chunked = 1;
            }
            break;
        case 'e':
            if (r->minor_version >= 1 && kd_ci_eq(h->name, h->name_len, "expect")) {
                if (!kd_ci_eq(h->value, h->value_len, "100-continue"))
                    return fail(r, 417);
                r->expect_continue = 1;
            }
            break;
        }
    }
    /* RFC 9112 6.1: TE with CL, or TE in HTTP/1.0, is a smuggling attempt */
    if (tes && (cls || r->minor_version == 0))
        return fail(r, 400);
    /* RFC 9112 3.2: HTTP/1.1 requires exactly one Host */
    if (hosts > 1 || (r->minor_version >= 1 && hosts != 1))
        return fail(r, 400);
    r->keepalive = r->minor_version >= 1 ? !close : (ka && !close);
    return 0;
}

int kd_parse_request(const char *buf, size_t len, kd_request *r)
{
    const char *p = buf, *end = buf + len, *line_end;
    size_t avail;

    memset(r, 0, offsetof(kd_request, headers)); /* not the table, nor where it is */
    r->content_length = -1;

    /* RFC 9112 2.2: ignore empty lines before the request-line */
    while (end - p >= 2 && p[0] == '\r' && p[1] == '\n' && p - buf < 8)
        p += 2;
    if (end - p == 1 && p[0] == '\r')
        return KD_INCOMPLETE;

    avail = (size_t)(end - p);
    line_end = memchr(p, '\n', avail < KD_MAX_REQUEST_LINE ? avail : KD_MAX_REQUEST_LINE);
    if (!line_end)
        return avail >= KD_MAX_REQUEST_LINE ? fail(r, 414) : KD_INCOMPLETE;
    if (line_end == p || line_end[-1] != '\r')
        return fail(r, 400);                      /* bare LF */
    if (memchr(p, '\r', (size_t)(line_end - 1 - p)))
        return fail(r, 400);                      /* bare CR */
    if (parse_request_line(p, (size_t)(line_end - 1 - p), r) != 0)
        return KD_ERROR;
    p = line_end + 1;

    for (;;) {
        const char *name, *colon, *v, *vend;
        size_t limit = KD_MAX_HEAD - (size_t)(p - buf);

        /* the limit first: a full buffer must never read as "incomplete" */
        if (p - buf >= KD_MAX_HEAD)
            return fail(r, 431);
        if (p >= end)
            return KD_INCOMPLETE;
        avail = (size_t)(end - p);
        line_end = memchr(p, '\n', avail < limit ? avail : limit);
        if (!line_end) {
            if (avail >= limit)
                return fail(r, 431);
            /* fail early on what can never become valid */
            if (*p == ' ' || *p == '\t')
                return fail(r, 400);
            return KD_INCOMPLETE;
        }
        if (line_end == p || line_end[-1] != '\r')
            return fail(r, 400);                  /* bare LF */
        if (line_end - 1 == p) {                  /* empty line: end of head */
            if (check_fields(r) != 0)
                return KD_ERROR;
            return (int)(line_end + 1 - buf);
        }
        if (*p == ' ' || *p == '\t')
            return fail(r, 400);                  /* obs-fold, RFC 9112 5.2 */
        if (r->num_headers == KD_MAX_HEADERS)
            return fail(r, 431);

        name = p;
        while (IS_TCHAR(*p)) /* (the LF at line_end stops it) */
            p++;
        colon = p;
        if (colon == name || *colon != ':')
            return fail(r, 400);                  /* includes space before ':' */
        v = colon + 1;
        vend = line_end - 1;                      /* at the CR */
        while (v < vend && (*v == ' ' || *v == '\t'))
            v++;
        if (!values_ok(v, vend))
            return fail(r, 400); /* NUL, bare CR, CTL */
        while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
            vend--;

        r->headers[r->num_headers].name = name;
        r->headers[r->num_headers].name_len = (size_t)(colon - name);
        r->headers[r->num_headers].value = v;
        r->headers[r->num_headers].value_len = (size_t)(vend - v);
        r->num_headers++;
        p = line_end + 1;
    }
}

int kd_parse_more(const char *buf, size_t len, kd_head_scan *scan, kd_request *r)
{
    size_t seen = scan->seen;
    int rv;
    /* Incomplete before, and still: no LF among the new bytes (so no line
     * ended), the line they extend began before them (its first byte was
     * checked), and no limit within reach (the request line's, unless it
     * ended before; the head's). */
    if (seen > 0 && seen < len && buf[seen - 1] != '\n' && len < KD_MAX_HEAD &&
        (scan->line_done || len < KD_MAX_REQUEST_LINE) && !memchr(buf + seen, '\n', len - seen)) {
        scan->seen = len;
        return KD_INCOMPLETE;
    }
    rv = kd_parse_request(buf, len, r);
    if (rv == KD_INCOMPLETE) {
        scan->seen = len;
        scan->line_done = r->method_len > 0;
    } else {
        scan->seen = 0;
        scan->line_done = 0;
    }
    return rv;
}
