/* kd_parser.c: see kd_parser.h.
 *
 * Framing is strict on purpose: every ambiguity that two HTTP parsers could
 * resolve differently (the root of request smuggling) is an error here.
 * References are to RFC 9110 (semantics) and RFC 9112 (HTTP/1.1).
 */
#include "kd_parser.h"
#include <stddef.h>
#include <string.h>

/* tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
 *         "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA  (RFC 9110 5.6.2) */
/* Character classes: 1 a token character (RFC 9110 5.6.2), 2 allowed in
 * a Host reg-name (RFC 3986 unreserved, pct-encoded and sub-delims). */
#define C_TCHAR 1
#define C_HOST 2
static const unsigned char char_class[256] = {
    ['!'] = 3, ['#'] = 1, ['$'] = 3, ['%'] = 3, ['&'] = 3, ['\''] = 3, ['('] = 2,
    [')'] = 2, ['*'] = 3, ['+'] = 3, ['-'] = 3, ['.'] = 3, ['0'] = 3, ['1'] = 3,
    ['2'] = 3, ['3'] = 3, ['4'] = 3, ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3,
    ['9'] = 3, [';'] = 2, ['='] = 2, ['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3,
    ['E'] = 3, ['F'] = 3, ['G'] = 3, ['H'] = 3, ['I'] = 3, ['J'] = 3, ['K'] = 3,
    ['L'] = 3, ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3, ['R'] = 3,
    ['S'] = 3, ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3, ['Y'] = 3,
    ['Z'] = 3, ['^'] = 1, ['_'] = 3, ['`'] = 1, ['a'] = 3, ['b'] = 3, ['c'] = 3,
    ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3,
    ['k'] = 3, ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3,
    ['r'] = 3, ['s'] = 3, ['t'] = 3, ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3,
    ['y'] = 3, ['z'] = 3, ['|'] = 1, ['~'] = 3,
};

int kd_is_tchar(unsigned char c)
{
    return char_class[c] & C_TCHAR;
}

#define IS_TCHAR(c) (char_class[(unsigned char)(c)] & C_TCHAR)

static int fail(kd_request *r, int status)
{
    r->error_status = status;
    return KD_ERROR;
}

/* Field values: HTAB, SP, VCHAR and obs-text. NUL, bare CR and other
 * controls are rejected (RFC 9110 section 5.5). */
static int is_value_char(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
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

    memset(r, 0, offsetof(kd_request, headers));  /* not the array */
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
        while (p < line_end && IS_TCHAR(*p))
            p++;
        colon = p;
        if (colon == name || *colon != ':')
            return fail(r, 400);                  /* includes space before ':' */
        v = colon + 1;
        vend = line_end - 1;                      /* at the CR */
        while (v < vend && (*v == ' ' || *v == '\t'))
            v++;
        for (p = v; p < vend; p++)
            if (!is_value_char((unsigned char)*p))
                return fail(r, 400);              /* NUL, bare CR, CTL */
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

/* ------------------------------------------------------------------ */
/* chunked decoding                                                    */

/* chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )
 * is checked by the CH_EXT_* states, the trailer field lines by the
 * CH_TRAILER_* ones: what does not match the grammar is a 400, since a
 * proxy in front may have read it differently. */
enum {
    CH_SIZE_START, CH_SIZE, CH_BWS,
    CH_EXT_NAME0, CH_EXT_NAME, CH_EXT_AFTER_NAME, CH_EXT_VAL0, CH_EXT_VAL,
    CH_EXT_QVAL, CH_EXT_QESC, CH_EXT_AFTER_VAL,   /* the last size-line state */
    CH_SIZE_LF, CH_DATA, CH_DATA_CR,
    CH_DATA_LF, CH_TRAILER_START, CH_TRAILER_NAME, CH_TRAILER, CH_TRAILER_LF, CH_END_LF
};

#define IS_WS(c) ((c) == ' ' || (c) == '\t')

/* largest chunk size accepted: larger is an overflow attempt */
#define KD_MAX_CHUNK_SIZE ((uint64_t)1 << 60)

void kd_chunked_init(kd_chunked *d)
{
    memset(d, 0, sizeof *d);
    d->state = CH_SIZE_START;
}

long kd_chunked_decode(kd_chunked *d, const char *in, size_t in_len,
                       char *out, size_t *out_len)
{
    size_t i = 0, o = 0;

    while (i < in_len && !d->done) {
        unsigned char c = (unsigned char)in[i];
        int h;

        if (d->state == CH_DATA) {
            size_t n = in_len - i;
            if (n > d->remaining)
                n = (size_t)d->remaining;
            memmove(out + o, in + i, n);
            o += n;
            i += n;
            d->remaining -= n;
            if (d->remaining == 0)
                d->state = CH_DATA_CR;
            continue;
        }
        i++;
        if (d->state <= CH_EXT_AFTER_VAL) {
            if (++d->line_len > KD_MAX_CHUNK_LINE)
                return -1;
        } else if (d->state >= CH_TRAILER_START) {
            if (++d->trailer_len > KD_MAX_TRAILERS)
                return -1;
        }
        switch (d->state) {
        case CH_SIZE_START:
        case CH_SIZE:
            if ((h = hexval(c)) >= 0) {
                if (d->remaining >= KD_MAX_CHUNK_SIZE >> 4)
                    return -1;
                d->remaining = d->remaining * 16 + (uint64_t)h;
                d->state = CH_SIZE;
            } else if (d->state == CH_SIZE_START) {
                return -1;                        /* no digits */
            } else if (c == '\r') {
                d->state = CH_SIZE_LF;
            } else if (c == ';') {
                d->state = CH_EXT_NAME0;
            } else if (IS_WS(c)) {
                d->state = CH_BWS;
            } else {
                return -1;
            }
            break;
        case CH_BWS:
            /* only whitespace, then ";" and an extension (RFC 9112 7.1.1) */
            if (c == ';')
                d->state = CH_EXT_NAME0;
            else if (!IS_WS(c))
                return -1;
            break;
        case CH_EXT_NAME0:                        /* after ";" */
            if (IS_TCHAR(c))
                d->state = CH_EXT_NAME;
            else if (!IS_WS(c))
                return -1;                        /* "5;" has no name */
            break;
        case CH_EXT_NAME:
        case CH_EXT_AFTER_NAME:
            if (IS_TCHAR(c) && d->state == CH_EXT_NAME)
                break;
            if (IS_WS(c))
                d->state = CH_EXT_AFTER_NAME;
            else if (c == '=')
                d->state = CH_EXT_VAL0;
            else if (c == ';')
                d->state = CH_EXT_NAME0;
            else if (c == '\r')
                d->state = CH_SIZE_LF;
            else
                return -1;
            break;
        case CH_EXT_VAL0:                         /* after "=" */
            if (c == '"')
                d->state = CH_EXT_QVAL;
            else if (IS_TCHAR(c))
                d->state = CH_EXT_VAL;
            else if (!IS_WS(c))
                return -1;
            break;
        case CH_EXT_VAL:
        case CH_EXT_AFTER_VAL:
            if (IS_TCHAR(c) && d->state == CH_EXT_VAL)
                break;
            if (IS_WS(c))
                d->state = CH_EXT_AFTER_VAL;
            else if (c == ';')
                d->state = CH_EXT_NAME0;
            else if (c == '\r')
                d->state = CH_SIZE_LF;
            else
                return -1;
            break;
        case CH_EXT_QVAL:                         /* qdtext, or the end */
            if (c == '"')
                d->state = CH_EXT_AFTER_VAL;
            else if (c == '\\')
                d->state = CH_EXT_QESC;
            else if (!IS_WS(c) && (c < 0x21 || c == 0x7f))
                return -1;                        /* CR inside: unterminated */
            break;
        case CH_EXT_QESC:                         /* quoted-pair */
            if (!IS_WS(c) && (c < 0x21 || c == 0x7f))
                return -1;
            d->state = CH_EXT_QVAL;
            break;
        case CH_SIZE_LF:
            if (c != '\n')
                return -1;
            d->line_len = 0;
            d->state = d->remaining ? CH_DATA : CH_TRAILER_START;
            break;
        case CH_DATA_CR:
            if (c != '\r')
                return -1;
            d->state = CH_DATA_LF;
            break;
        case CH_DATA_LF:
            if (c != '\n')
                return -1;
            d->state = CH_SIZE_START;
            break;
        case CH_TRAILER_START:
            if (c == '\r')
                d->state = CH_END_LF;
            else if (IS_TCHAR(c))
                d->state = CH_TRAILER_NAME;       /* trailers are read, then dropped */
            else
                return -1;                        /* obs-fold, junk */
            break;
        case CH_TRAILER_NAME:
            if (c == ':')
                d->state = CH_TRAILER;
            else if (!IS_TCHAR(c))
                return -1;                        /* no colon, space before it */
            break;
        case CH_TRAILER:
            if (c == '\r')
                d->state = CH_TRAILER_LF;
            else if (!is_value_char(c))
                return -1;
            break;
        case CH_TRAILER_LF:
            if (c != '\n')
                return -1;
            d->state = CH_TRAILER_START;
            break;
        case CH_END_LF:
            if (c != '\n')
                return -1;
            d->done = 1;
            break;
        }
    }
    *out_len = o;
    return (long)i;
}
