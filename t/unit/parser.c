/* C unit tests for src/kd_parser.c, printed as TAP (t/unit-parser.t runs
 * this under the system compiler, and under ASan/UBSan when clang is there).
 *
 * Every input is copied into a heap buffer of exactly its length, so an
 * over-read is caught by the sanitizers. Every request is parsed whole and
 * then split at every byte offset: a prefix of a valid head is always
 * "incomplete", never an error or a success; a prefix of a bad head is
 * incomplete or already the same error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/kd_parser.c"

static int test_no = 0, failures = 0;

static void ok(int cond, const char *name, const char *detail)
{
    test_no++;
    if (!cond)
        failures++;
    printf("%sok %d - %s\n", cond ? "" : "not ", test_no, name);
    if (!cond && detail)
        printf("# %s\n", detail);
}

static char *copy(const char *s, size_t len)
{
    char *b = malloc(len ? len : 1);
    memcpy(b, s, len);
    return b;
}

typedef struct {
    const char *name;
    const char *raw;
    int status;                 /* 0: valid; else the expected error status */
    const char *method, *path, *query;
    int minor, keepalive, chunked, expect;
    long long content_length;
    size_t headers;
    const char *h1_name, *h1_value;  /* one header to check, or NULL */
} req_case;

#define V(name, raw, m, p, q, minor, ka, ch, ex, cl, nh, hn, hv) \
    { name, raw, 0, m, p, q, minor, ka, ch, ex, cl, nh, hn, hv }
#define E(name, raw, status) { name, raw, status, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

static const req_case req_cases[] = {
    V("simple GET", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", NULL, 1, 1, 0, 0, -1, 1, "Host", "a"),
    V("query", "GET /p/q?a=1&b=2 HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/p/q", "a=1&b=2", 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("empty query", "GET /p? HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/p", "", 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("HTTP/1.0 closes", "GET / HTTP/1.0\r\n\r\n", "GET", "/", NULL, 0, 0, 0, 0, -1, 0, NULL, NULL),
    V("HTTP/1.0 keep-alive", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "GET", "/", NULL, 0, 1, 0, 0, -1, 1, NULL, NULL),
    V("1.1 close", "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "GET", "/", NULL, 1, 0, 0, 0, -1, 2, NULL, NULL),
    V("close in a list", "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n", "GET", "/", NULL, 1, 0, 0, 0, -1, 2, NULL, NULL),
    V("1.0 keep-alive then close", "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", "GET", "/", NULL, 0, 0, 0, 0, -1, 1, NULL, NULL),
    V("POST with length", "POST /f HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n", "POST", "/f", NULL, 1, 1, 0, 0, 10, 2, NULL, NULL),
    V("length zero", "POST /f HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", "POST", "/f", NULL, 1, 1, 0, 0, 0, 2, NULL, NULL),
    V("chunked", "POST /f HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", "POST", "/f", NULL, 1, 1, 1, 0, -1, 2, NULL, NULL),
    V("chunked any case", "POST /f HTTP/1.1\r\nHost: a\r\ntransfer-encoding: ChUnKeD\r\n\r\n", "POST", "/f", NULL, 1, 1, 1, 0, -1, 2, NULL, NULL),
    V("HEAD", "HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n", "HEAD", "/x", NULL, 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("absolute-form", "GET http://example.com/a/b?c=d HTTP/1.1\r\nHost: example.com\r\n\r\n", "GET", "/a/b", "c=d", 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("absolute-form https, no path", "GET HTTPS://example.com HTTP/1.1\r\nHost: e\r\n\r\n", "GET", "/", NULL, 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("absolute-form, query only", "GET http://e?x=1 HTTP/1.1\r\nHost: e\r\n\r\n", "GET", "/", "x=1", 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", "OPTIONS", "*", NULL, 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("leading empty line", "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/", NULL, 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("OWS trimmed", "GET / HTTP/1.1\r\nHost: \t a b \t\r\n\r\n", "GET", "/", NULL, 1, 1, 0, 0, -1, 1, "Host", "a b"),
    V("empty value", "GET / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\n\r\n", "GET", "/", NULL, 1, 1, 0, 0, -1, 2, NULL, NULL),
    V("obs-text in value", "GET / HTTP/1.1\r\nHost: a\r\nX-U: caf\xc3\xa9\r\n\r\n", "GET", "/", NULL, 1, 1, 0, 0, -1, 2, NULL, NULL),
    V("expect 100-continue", "PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n", "PUT", "/", NULL, 1, 1, 0, 1, 1, 3, NULL, NULL),
    V("expect ignored in 1.0", "PUT / HTTP/1.0\r\nExpect: weird\r\n\r\n", "PUT", "/", NULL, 0, 0, 0, 0, -1, 1, NULL, NULL),
    V("HTTP/1.9 is 1.1", "GET / HTTP/1.9\r\nHost: a\r\n\r\n", "GET", "/", NULL, 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("tchar method", "M-SEARCH * HTTP/1.1\r\nHost: a\r\n\r\n", "M-SEARCH", "*", NULL, 1, 1, 0, 0, -1, 1, NULL, NULL),
    V("100 headers", "GET / HTTP/1.1\r\nHost: a\r\n"
        "A1:1\r\nA2:1\r\nA3:1\r\nA4:1\r\nA5:1\r\nA6:1\r\nA7:1\r\nA8:1\r\nA9:1\r\nB0:1\r\n"
        "B1:1\r\nB2:1\r\nB3:1\r\nB4:1\r\nB5:1\r\nB6:1\r\nB7:1\r\nB8:1\r\nB9:1\r\nC0:1\r\n"
        "C1:1\r\nC2:1\r\nC3:1\r\nC4:1\r\nC5:1\r\nC6:1\r\nC7:1\r\nC8:1\r\nC9:1\r\nD0:1\r\n"
        "D1:1\r\nD2:1\r\nD3:1\r\nD4:1\r\nD5:1\r\nD6:1\r\nD7:1\r\nD8:1\r\nD9:1\r\nE0:1\r\n"
        "E1:1\r\nE2:1\r\nE3:1\r\nE4:1\r\nE5:1\r\nE6:1\r\nE7:1\r\nE8:1\r\nE9:1\r\nF0:1\r\n"
        "F1:1\r\nF2:1\r\nF3:1\r\nF4:1\r\nF5:1\r\nF6:1\r\nF7:1\r\nF8:1\r\nF9:1\r\nG0:1\r\n"
        "G1:1\r\nG2:1\r\nG3:1\r\nG4:1\r\nG5:1\r\nG6:1\r\nG7:1\r\nG8:1\r\nG9:1\r\nH0:1\r\n"
        "H1:1\r\nH2:1\r\nH3:1\r\nH4:1\r\nH5:1\r\nH6:1\r\nH7:1\r\nH8:1\r\nH9:1\r\nI0:1\r\n"
        "I1:1\r\nI2:1\r\nI3:1\r\nI4:1\r\nI5:1\r\nI6:1\r\nI7:1\r\nI8:1\r\nI9:1\r\nJ0:1\r\n"
        "J1:1\r\nJ2:1\r\nJ3:1\r\nJ4:1\r\nJ5:1\r\nJ6:1\r\nJ7:1\r\nJ8:1\r\nJ9:1\r\n\r\n",
        "GET", "/", NULL, 1, 1, 0, 0, -1, 100, NULL, NULL),

    E("CL and TE", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    E("TE and CL", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n", 400),
    E("duplicate CL", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", 400),
    E("CL signed", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +1\r\n\r\n", 400),
    E("CL negative", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
    E("CL inner space", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n", 400),
    E("CL list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1,1\r\n\r\n", 400),
    E("CL letters", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", 400),
    E("CL empty", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", 400),
    E("CL 19 digits", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000000000000000\r\n\r\n", 400),
    E("TE gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    E("TE chunked, identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, identity\r\n\r\n", 501),
    E("TE identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", 501),
    E("TE gzip, chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
    E("TE twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    E("TE in 1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    E("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n", 400),
    E("obs-fold with tab", "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n\t2\r\n\r\n", 400),
    E("bare CR in value", "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", 400),
    E("bare CR in request line", "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("bare LF request line", "GET / HTTP/1.1\nHost: a\r\n\r\n", 400),
    E("bare LF header", "GET / HTTP/1.1\r\nHost: a\n\r\n", 400),
    E("bare LF end", "GET / HTTP/1.1\r\nHost: a\r\n\n", 400),
    E("NUL in value", "GET / HTTP/1.1\r\nHost: a\0b\r\n\r\n", 400),
    E("NUL in target", "GET /\0 HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400),
    E("tab before colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", 400),
    E("empty name", "GET / HTTP/1.1\r\nHost: a\r\n: x\r\n\r\n", 400),
    E("bad name char", "GET / HTTP/1.1\r\nHost: a\r\nX(y): 1\r\n\r\n", 400),
    E("no colon", "GET / HTTP/1.1\r\nHost: a\r\nJunk\r\n\r\n", 400),
    E("missing Host", "GET / HTTP/1.1\r\nX: 1\r\n\r\n", 400),
    E("two Host", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    E("two Host in 1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400),
    E("expect other", "POST / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", 417),
    E("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
    E("HTTP/0.9 style", "GET /\r\n\r\n", 400),
    E("HTTP/1.10", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", 400),
    E("lowercase version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400),
    E("HTTP/1.", "GET / HTTP/1.\r\nHost: a\r\n\r\n", 400),
    E("method with slash", "G/ET / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),
    E("fragment", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("relative target", "GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("ftp absolute-form", "GET ftp://a/b HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("absolute-form without authority", "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n", 400),
    E("empty method", " / HTTP/1.1\r\nHost: a\r\n\r\n", 400),
};

static void check_request(const req_case *c)
{
    size_t len = strlen(c->raw), k;
    char name[256], detail[512];
    kd_request r;
    char *buf;
    int rv, prefix_ok = 1;

    /* cases with a NUL: the literal's length is in the table name */
    if (strstr(c->name, "NUL"))
        len = strlen(c->raw) + 1 + strlen(c->raw + strlen(c->raw) + 1);
    buf = copy(c->raw, len);
    rv = kd_parse_request(buf, len, &r);
    if (c->status == 0) {
        snprintf(name, sizeof name, "%s: complete", c->name);
        snprintf(detail, sizeof detail, "got %d (status %d), want %zu", rv, r.error_status, len);
        ok(rv == (int)len, name, detail);
        if (rv == (int)len) {
            int fields = r.method_len == strlen(c->method) && !memcmp(r.method, c->method, r.method_len) &&
                r.path_len == strlen(c->path) && !memcmp(r.path, c->path, r.path_len) &&
                (c->query ? (r.query && r.query_len == strlen(c->query) && !memcmp(r.query, c->query, r.query_len))
                          : r.query == NULL) &&
                r.minor_version == c->minor && r.keepalive == c->keepalive && r.chunked == c->chunked &&
                r.expect_continue == c->expect && r.content_length == c->content_length &&
                r.num_headers == c->headers && r.is_head == (strcmp(c->method, "HEAD") == 0);
            snprintf(name, sizeof name, "%s: fields", c->name);
            snprintf(detail, sizeof detail, "method %.*s path %.*s minor %d ka %d chunked %d expect %d cl %lld headers %zu",
                     (int)r.method_len, r.method, (int)r.path_len, r.path, r.minor_version, r.keepalive,
                     r.chunked, r.expect_continue, (long long)r.content_length, r.num_headers);
            ok(fields, name, detail);
            if (c->h1_name) {
                size_t i;
                int found = 0;
                for (i = 0; i < r.num_headers; i++)
                    if (r.headers[i].name_len == strlen(c->h1_name) && !memcmp(r.headers[i].name, c->h1_name, r.headers[i].name_len))
                        found = r.headers[i].value_len == strlen(c->h1_value) &&
                                !memcmp(r.headers[i].value, c->h1_value, r.headers[i].value_len);
                snprintf(name, sizeof name, "%s: header %s", c->name, c->h1_name);
                ok(found, name, NULL);
            }
        }
    } else {
        snprintf(name, sizeof name, "%s: %d", c->name, c->status);
        snprintf(detail, sizeof detail, "got %d with status %d", rv, rv == KD_ERROR ? r.error_status : 0);
        ok(rv == KD_ERROR && r.error_status == c->status, name, detail);
    }
    free(buf);

    /* every prefix */
    for (k = 0; k < len && prefix_ok; k++) {
        buf = copy(c->raw, k);
        rv = kd_parse_request(buf, k, &r);
        if (c->status == 0)
            prefix_ok = rv == KD_INCOMPLETE;
        else
            prefix_ok = rv == KD_INCOMPLETE || (rv == KD_ERROR && r.error_status == c->status);
        if (!prefix_ok)
            snprintf(detail, sizeof detail, "prefix of %zu bytes: got %d status %d", k, rv, r.error_status);
        free(buf);
    }
    snprintf(name, sizeof name, "%s: split at every offset", c->name);
    ok(prefix_ok, name, detail);
}

static void check_limits(void)
{
    size_t n = KD_MAX_REQUEST_LINE + 10, i;
    char *buf = malloc(n);
    kd_request r;
    int rv;

    memcpy(buf, "GET /", 5);
    memset(buf + 5, 'a', n - 5);
    rv = kd_parse_request(buf, n, &r);
    ok(rv == KD_ERROR && r.error_status == 414, "request line over the limit, unfinished: 414", NULL);
    rv = kd_parse_request(buf, KD_MAX_REQUEST_LINE - 1, &r);
    ok(rv == KD_INCOMPLETE, "request line just under the limit: incomplete", NULL);
    free(buf);

    n = KD_MAX_HEAD + 100;
    buf = malloc(n);
    memcpy(buf, "GET / HTTP/1.1\r\nHost: a\r\nX: ", 28);
    memset(buf + 28, 'b', n - 28);
    rv = kd_parse_request(buf, n, &r);
    ok(rv == KD_ERROR && r.error_status == 431, "head over the limit, unfinished: 431", NULL);
    for (i = 28; i + 2 < KD_MAX_HEAD + 50; i += 64) {
        buf[i] = '\r';
        buf[i + 1] = '\n';
        memcpy(buf + i + 2, "Y:", 2);
    }
    rv = kd_parse_request(buf, n, &r);
    ok(rv == KD_ERROR && r.error_status == 431, "many short lines over the limit: 431", NULL);
    free(buf);
}

/* ---- chunked ---- */

typedef struct {
    const char *name;
    const char *raw;
    const char *decoded;        /* NULL: an error is expected */
    size_t rest;                /* bytes left after the end (pipelined) */
} chunk_case;

static const chunk_case chunk_cases[] = {
    {"one chunk", "5\r\nhello\r\n0\r\n\r\n", "hello", 0},
    {"two chunks", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", 0},
    {"hex upper and lower", "A\r\n0123456789\r\nb\r\nabcdefghijk\r\n0\r\n\r\n", "0123456789abcdefghijk", 0},
    {"leading zeros", "0005\r\nhello\r\n000\r\n\r\n", "hello", 0},
    {"extension", "5;name=value\r\nhello\r\n0;last\r\n\r\n", "hello", 0},
    {"BWS before extension", "5 ;a=b\r\nhello\r\n0\r\n\r\n", "hello", 0},
    {"quoted extension", "5;a=\"x y\"\r\nhello\r\n0\r\n\r\n", "hello", 0},
    {"trailer", "5\r\nhello\r\n0\r\nX-Sum: 1\r\nY: 2\r\n\r\n", "hello", 0},
    {"empty body", "0\r\n\r\n", "", 0},
    {"pipelined rest", "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n", "abc", 16},
    {"binary data", "4\r\n\r\n\r\n\r\n0\r\n\r\n", "\r\n\r\n", 0},
    {"non-hex size", "g\r\nx\r\n0\r\n\r\n", NULL, 0},
    {"empty size", "\r\nx\r\n0\r\n\r\n", NULL, 0},
    {"sign", "+5\r\nhello\r\n0\r\n\r\n", NULL, 0},
    {"0x prefix", "0x5\r\nhello\r\n0\r\n\r\n", NULL, 0},
    {"no CRLF after data", "5\r\nhelloXY0\r\n\r\n", NULL, 0},
    {"LF only after data", "5\r\nhello\n0\r\n\r\n", NULL, 0},
    {"bare LF after size", "5\nhello\r\n0\r\n\r\n", NULL, 0},
    {"bare CR in extension", "5;a\rb\r\nhello\r\n0\r\n\r\n", NULL, 0},
    {"overflow", "fffffffffffffffffff\r\n", NULL, 0},
    {"just over 2^60", "1000000000000000\r\n", NULL, 0},
    {"obs-fold trailer", "0\r\nX: 1\r\n 2\r\n\r\n", NULL, 0},
    {"bad trailer line", "0\r\n:x\r\n\r\n", NULL, 0},
    {"bare LF end", "0\r\n\n", NULL, 0},
    {"space inside size", "5 5\r\nhello\r\n", NULL, 0},
};

/* decodes in pieces of at most step bytes (0: at offset split, in two) */
static long decode_pieces(const char *raw, size_t len, size_t step, size_t split,
                          char *out, size_t *out_len, int *done)
{
    kd_chunked d;
    size_t pos = 0, total = 0;
    kd_chunked_init(&d);
    while (pos < len && !d.done) {
        size_t n = step ? step : (pos < split ? split - pos : len - pos), o = 0;
        char *piece;
        long used;
        if (pos + n > len)
            n = len - pos;
        piece = copy(raw + pos, n);
        used = kd_chunked_decode(&d, piece, n, out + total, &o);
        free(piece);
        if (used < 0)
            return -1;
        total += o;
        pos += (size_t)used;
        if ((size_t)used < n && !d.done)
            return -2;                          /* must consume all unless done */
    }
    *out_len = total;
    *done = d.done;
    return (long)pos;
}

static void check_chunked(const chunk_case *c)
{
    size_t len = strlen(c->raw), out_len = 0, k;
    char *out = malloc(len + 1), name[256];
    int done = 0, same = 1;
    long used = decode_pieces(c->raw, len, len, 0, out, &out_len, &done);

    if (c->decoded) {
        size_t want = strlen(c->decoded);
        snprintf(name, sizeof name, "chunked %s: decoded whole", c->name);
        ok(used == (long)(len - c->rest) && done && out_len == want && !memcmp(out, c->decoded, want), name, NULL);
        for (k = 0; k <= len && same; k++) {
            size_t l2 = 0;
            int d2 = 0;
            long u2 = decode_pieces(c->raw, len, 0, k, out, &l2, &d2);
            same = u2 == used && d2 && l2 == want && !memcmp(out, c->decoded, want);
        }
        snprintf(name, sizeof name, "chunked %s: split at every offset", c->name);
        ok(same, name, NULL);
        {
            size_t l3 = 0;
            int d3 = 0;
            long u3 = decode_pieces(c->raw, len, 1, 0, out, &l3, &d3);
            snprintf(name, sizeof name, "chunked %s: byte by byte", c->name);
            ok(u3 == used && d3 && l3 == want && !memcmp(out, c->decoded, want), name, NULL);
        }
        {
            /* in place: output over the input */
            char *buf = copy(c->raw, len);
            kd_chunked d;
            size_t o = 0;
            long u4;
            kd_chunked_init(&d);
            u4 = kd_chunked_decode(&d, buf, len, buf, &o);
            snprintf(name, sizeof name, "chunked %s: in place", c->name);
            ok(u4 == used && d.done && o == want && !memcmp(buf, c->decoded, want), name, NULL);
            free(buf);
        }
    } else {
        snprintf(name, sizeof name, "chunked %s: error", c->name);
        ok(used == -1, name, NULL);
        for (k = 1; k < len && same; k++) {
            size_t l2 = 0;
            int d2 = 0;
            long u2 = decode_pieces(c->raw, len, 0, k, out, &l2, &d2);
            same = u2 == -1;
        }
        snprintf(name, sizeof name, "chunked %s: error at every split", c->name);
        ok(same, name, NULL);
    }
    free(out);
}

static void check_chunked_limits(void)
{
    size_t n = KD_MAX_CHUNK_LINE + 10, o = 0;
    char *buf = malloc(n), *out = malloc(n);
    kd_chunked d;
    memcpy(buf, "5;", 2);
    memset(buf + 2, 'e', n - 2);
    kd_chunked_init(&d);
    ok(kd_chunked_decode(&d, buf, n, out, &o) == -1, "chunked: size line over the limit", NULL);
    free(buf), free(out);

    n = KD_MAX_TRAILERS + 100;
    buf = malloc(n);
    out = malloc(n);
    memcpy(buf, "0\r\nX: ", 6);
    memset(buf + 6, 't', n - 6);
    kd_chunked_init(&d);
    ok(kd_chunked_decode(&d, buf, n, out, &o) == -1, "chunked: trailers over the limit", NULL);
    free(buf), free(out);
}

int main(void)
{
    size_t i;
    for (i = 0; i < sizeof req_cases / sizeof req_cases[0]; i++)
        check_request(&req_cases[i]);
    check_limits();
    for (i = 0; i < sizeof chunk_cases / sizeof chunk_cases[0]; i++)
        check_chunked(&chunk_cases[i]);
    check_chunked_limits();
    printf("1..%d\n", test_no);
    return failures ? 1 : 0;
}
