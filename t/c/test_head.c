/* t/c/test_head.c: table-driven C unit tests for src/proto/kd_head.c, printed
 * as TAP ("ok N - name", diagnostics as "# ...", plan "1..N" last). Run
 * by t/c-head.t (system compiler, then clang ASan+UBSan if present).
 *
 * Each case is an app response (status, fields) with the request's facts
 * (HTTP minor version, HEAD, keep-alive wished) and the body length when
 * known; the head is built in a heap buffer of exactly the documented
 * bound (KD_HEAD_SLACK + name + value + 4 per field), so that ASan reports
 * a write past it, and the result is compared whole: the error, the
 * framing, the length, keep-alive, the mismatch and the exact head bytes.
 * One row per line of the table in lib/Kamado.pm ("Response framing").
 */
#include "../../src/kd_engine.c"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* printable form of bytes, for diagnostics */
static const char *esc(const char *s, size_t n)
{
    static char b[2][2048];
    static int which = 0;
    char *o = b[which = (which + 1) % 2];
    size_t i, j = 0;
    for (i = 0; i < n && j < sizeof b[0] - 8; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\r') { o[j++] = '\\'; o[j++] = 'r'; }
        else if (c == '\n') { o[j++] = '\\'; o[j++] = 'n'; }
        else if (c < 0x20 || c >= 0x7f) j += (size_t)sprintf(o + j, "\\x%02x", c);
        else o[j++] = (char)c;
    }
    o[j] = '\0';
    return o;
}

#define DATE "Sun, 06 Nov 1994 08:49:37 GMT"
#define D "Date: " DATE "\r\n"
#define E KD_HEAD_OK

/* request facts */
enum { H11 = 1, H10 = 0 };
#define KA 1
#define NO_KA 0
#define GET 0
#define HEAD 1

typedef struct {
    const char *name;
    int status;
    const char *fields[17];         /* name, value, ...; NULL ends */
    int64_t body_len;
    int minor, is_head, keepalive;
    /* expected */
    int error, framing;
    int64_t length;
    int out_keepalive, no_body, mismatch;
    const char *head;               /* NULL for an error */
} hcase;

#define CT "Content-Type", "text/plain"
#define F(...) { __VA_ARGS__, NULL }
#define L KD_FRAME_LENGTH
#define C KD_FRAME_CHUNKED
#define X KD_FRAME_CLOSE
#define N KD_FRAME_NONE

static const hcase cases[] = {
    /* the common case: the length computed, or the app's */
    {"200, length computed from the body", 200, F(CT), 13, H11, GET, KA,
     E, L, 13, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n" D "\r\n"},
    {"200, the app's Content-Length, matching", 200, F(CT, "Content-Length", "13"), 13, H11, GET, KA,
     E, L, 13, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n" D "\r\n"},
    {"HTTP/1.0 keep-alive says so", 200, F(CT), 2, H10, GET, KA,
     E, L, 2, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n" D "Connection: keep-alive\r\n\r\n"},
    {"no keep-alive wished: close", 200, F(CT), 2, H11, GET, NO_KA,
     E, L, 2, 0, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n" D "Connection: close\r\n\r\n"},
    {"the app's Date is kept, none added", 200, F("Date", "Mon, 01 Jan 2024 00:00:00 GMT"), 0, H11, GET, KA,
     E, L, 0, 1, 0, 0, "HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nContent-Length: 0\r\n\r\n"},
    {"an unknown status: reason Unknown", 299, F(CT), 0, H11, GET, KA,
     E, L, 0, 1, 0, 0, "HTTP/1.1 299 Unknown\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n" D "\r\n"},
    {"status 999 is the highest", 999, F(CT), 0, H11, GET, KA,
     E, L, 0, 1, 0, 0, "HTTP/1.1 999 Unknown\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n" D "\r\n"},
    /* streamed bodies */
    {"streamed, HTTP/1.1: chunked", 200, F(CT), -1, H11, GET, KA,
     E, C, 0, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n" D "\r\n"},
    {"streamed, HTTP/1.0: ends with the close", 200, F(CT), -1, H10, GET, KA,
     E, X, 0, 0, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" D "Connection: close\r\n\r\n"},
    {"streamed with a Content-Length: that length", 200, F(CT, "Content-Length", "5"), -1, H11, GET, KA,
     E, L, 5, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n" D "\r\n"},
    /* a body that does not match its Content-Length */
    {"body longer than Content-Length: cut, close", 200, F("Content-Length", "2"), 40, H11, GET, KA,
     E, L, 2, 0, 0, 1, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" D "Connection: close\r\n\r\n"},
    {"body shorter than Content-Length: close", 200, F("Content-Length", "20"), 1, H11, GET, KA,
     E, L, 20, 0, 0, -1, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n" D "Connection: close\r\n\r\n"},
    /* Content-Length forms */
    {"Content-Length with spaces around", 200, F("content-length", " \t7 "), 7, H11, GET, KA,
     E, L, 7, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n" D "\r\n"},
    {"Content-Length with leading zeros", 200, F("Content-Length", "007"), 7, H11, GET, KA,
     E, L, 7, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n" D "\r\n"},
    {"Content-Length twice, same value: one", 200, F("Content-Length", "3", "CONTENT-LENGTH", "03"), 3, H11, GET, KA,
     E, L, 3, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n" D "\r\n"},
    {"Content-Length at the int64 limit", 200, F("Content-Length", "9223372036854775807"), -1, H11, GET, KA,
     E, L, INT64_MAX, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n" D "\r\n"},
    {"Content-Length twice, different: 500", 200, F("Content-Length", "3", "Content-Length", "4"), 3, H11, GET, KA,
     KD_HEAD_TWO_LENGTHS, 0, 0, 0, 0, 0, NULL},
    {"Content-Length letters: 500", 200, F("Content-Length", "1a"), 1, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"Content-Length signed +: 500", 200, F("Content-Length", "+3"), 3, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"Content-Length negative: 500", 200, F("Content-Length", "-1"), 3, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"Content-Length space inside: 500", 200, F("Content-Length", "1 2"), 3, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"Content-Length list: 500", 200, F("Content-Length", "3, 3"), 3, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"Content-Length empty: 500", 200, F("Content-Length", ""), 0, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"Content-Length past int64: 500", 200, F("Content-Length", "9223372036854775808"), 3, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"Content-Length of 20 digits: 500", 200, F("Content-Length", "99999999999999999999"), 3, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    /* Transfer-Encoding and hop-by-hop fields from the app */
    {"the app's own chunks: framed again, chunked", 200, F(CT, "Transfer-Encoding", "chunked"), 20, H11, GET, KA,
     E, C, 0, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n" D "\r\n"},
    {"the app's own chunks, any case and spaces around", 200, F("transfer-encoding", " Chunked\t"), -1, H11, GET, KA,
     E, C, 0, 1, 0, 0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" D "\r\n"},
    {"the app's own chunks, HTTP/1.0: the close ends them", 200, F("Transfer-Encoding", "chunked"), 20, H10, GET, KA,
     E, X, 0, 0, 0, 0, "HTTP/1.1 200 OK\r\n" D "Connection: close\r\n\r\n"},
    {"the app's own chunks, HEAD: no body", 200, F("Transfer-Encoding", "chunked"), 20, H11, HEAD, KA,
     E, N, 0, 1, 1, 0, "HTTP/1.1 200 OK\r\n" D "\r\n"},
    {"Transfer-Encoding: chunked twice: 500", 200, F("Transfer-Encoding", "chunked", "Transfer-Encoding", "chunked"), -1, H11, GET, KA,
     KD_HEAD_APP_TE, 0, 0, 0, 0, 0, NULL},
    {"Transfer-Encoding: gzip, chunked: 500", 200, F("Transfer-Encoding", "gzip, chunked"), -1, H11, GET, KA,
     KD_HEAD_APP_TE, 0, 0, 0, 0, 0, NULL},
    {"Transfer-Encoding: chunked, then Content-Length: 500", 200, F("Transfer-Encoding", "chunked", "Content-Length", "3"), 3, H11, GET, KA,
     KD_HEAD_APP_TE, 0, 0, 0, 0, 0, NULL},
    {"Content-Length, then Transfer-Encoding: chunked: 500", 200, F("Content-Length", "3", "Transfer-Encoding", "chunked"), 3, H11, GET, KA,
     KD_HEAD_APP_TE, 0, 0, 0, 0, 0, NULL},
    {"Transfer-Encoding with Content-Length: 500", 200, F("Content-Length", "3", "transfer-encoding", "identity"), 3, H11, GET, KA,
     KD_HEAD_APP_TE, 0, 0, 0, 0, 0, NULL},
    {"Connection: close honoured, field dropped", 200, F("Connection", "Keep-Alive, CLOSE", CT), 1, H11, GET, KA,
     E, L, 1, 0, 0, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n" D "Connection: close\r\n\r\n"},
    {"Connection: keep-alive dropped, server decides", 200, F("Connection", "keep-alive"), 1, H11, GET, NO_KA,
     E, L, 1, 0, 0, 0, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n" D "Connection: close\r\n\r\n"},
    {"Connection: upgrade dropped", 200, F("Connection", "Upgrade", "Upgrade", "h2c"), 1, H11, GET, KA,
     E, L, 1, 1, 0, 0, "HTTP/1.1 200 OK\r\nUpgrade: h2c\r\nContent-Length: 1\r\n" D "\r\n"},
    {"Keep-Alive and Proxy-Connection dropped", 200, F("Keep-Alive", "timeout=99", "Proxy-Connection", "close"), 1, H11, GET, KA,
     E, L, 1, 1, 0, 0, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n" D "\r\n"},
    /* statuses */
    {"status 100 as the final answer: 500", 100, F(CT), 0, H11, GET, KA,
     KD_HEAD_BAD_STATUS, 0, 0, 0, 0, 0, NULL},
    {"status 101 as the final answer: 500", 101, F("Upgrade", "websocket"), 0, H11, GET, KA,
     KD_HEAD_BAD_STATUS, 0, 0, 0, 0, 0, NULL},
    {"status 199: 500", 199, F(CT), 0, H11, GET, KA,
     KD_HEAD_BAD_STATUS, 0, 0, 0, 0, 0, NULL},
    {"status 99: 500", 99, F(CT), 0, H11, GET, KA,
     KD_HEAD_BAD_STATUS, 0, 0, 0, 0, 0, NULL},
    {"status 1000: 500", 1000, F(CT), 0, H11, GET, KA,
     KD_HEAD_BAD_STATUS, 0, 0, 0, 0, 0, NULL},
    {"status not a number (0): 500", 0, F(CT), 0, H11, GET, KA,
     KD_HEAD_BAD_STATUS, 0, 0, 0, 0, 0, NULL},
    {"negative status: 500", -200, F(CT), 0, H11, GET, KA,
     KD_HEAD_BAD_STATUS, 0, 0, 0, 0, 0, NULL},
    /* bodiless answers */
    {"204: no Content-Length, no body", 204, F("Content-Length", "5", CT), 5, H11, GET, KA,
     E, N, 0, 1, 1, 0, "HTTP/1.1 204 No Content\r\nContent-Type: text/plain\r\n" D "\r\n"},
    {"204 with a bad Content-Length still 500", 204, F("Content-Length", "x"), 0, H11, GET, KA,
     KD_HEAD_BAD_LENGTH, 0, 0, 0, 0, 0, NULL},
    {"304 keeps the representation's length", 304, F("Content-Length", "5", "ETag", "\"x\""), 5, H11, GET, KA,
     E, N, 0, 1, 1, 0, "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nContent-Length: 5\r\n" D "\r\n"},
    {"304 streamed, no length: nothing added", 304, F(CT), -1, H10, GET, KA,
     E, N, 0, 1, 1, 0, "HTTP/1.1 304 Not Modified\r\nContent-Type: text/plain\r\n" D "Connection: keep-alive\r\n\r\n"},
    {"HEAD: the app's length, no body, no mismatch", 200, F("Content-Length", "1234"), 0, H11, HEAD, KA,
     E, N, 0, 1, 1, 0, "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n" D "\r\n"},
    {"HEAD, length computed", 200, F(CT), 11, H11, HEAD, KA,
     E, N, 0, 1, 1, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n" D "\r\n"},
    {"HEAD streamed: no framing field, kept alive", 200, F(CT), -1, H10, HEAD, KA,
     E, N, 0, 1, 1, 0, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" D "Connection: keep-alive\r\n\r\n"},
    /* names and values that would split the response */
    {"CR LF in a value: 500", 200, F("X-A", "a\r\nX-Injected: yes"), 0, H11, GET, KA,
     KD_HEAD_BAD_VALUE, 0, 0, 0, 0, 0, NULL},
    {"bare LF in a value: 500", 200, F("X-A", "a\nb"), 0, H11, GET, KA,
     KD_HEAD_BAD_VALUE, 0, 0, 0, 0, 0, NULL},
    {"bare CR in a value: 500", 200, F("X-A", "a\rb"), 0, H11, GET, KA,
     KD_HEAD_BAD_VALUE, 0, 0, 0, 0, 0, NULL},
    {"space in a name: 500", 200, F("X A", "v"), 0, H11, GET, KA,
     KD_HEAD_BAD_NAME, 0, 0, 0, 0, 0, NULL},
    {"colon in a name: 500", 200, F("X-Injected: 1", "v"), 0, H11, GET, KA,
     KD_HEAD_BAD_NAME, 0, 0, 0, 0, 0, NULL},
    {"LF in a name: 500", 200, F("X\nY", "v"), 0, H11, GET, KA,
     KD_HEAD_BAD_NAME, 0, 0, 0, 0, 0, NULL},
    {"empty name: 500", 200, F("", "v"), 0, H11, GET, KA,
     KD_HEAD_BAD_NAME, 0, 0, 0, 0, 0, NULL},
    {"empty value is fine", 200, F("X-Empty", ""), 0, H11, GET, KA,
     E, L, 0, 1, 0, 0, "HTTP/1.1 200 OK\r\nX-Empty: \r\nContent-Length: 0\r\n" D "\r\n"},
};
#define NCASES (sizeof cases / sizeof cases[0])

static void run_case(const hcase *t)
{
    kd_field f[8];
    kd_head_in in;
    kd_head_out out;
    size_t n = 0, cap = KD_HEAD_SLACK;
    char *buf;
    int rv;
    while (t->fields[2 * n]) {
        f[n].name = t->fields[2 * n];
        f[n].name_len = strlen(f[n].name);
        f[n].value = t->fields[2 * n + 1];
        f[n].value_len = strlen(f[n].value);
        cap += f[n].name_len + f[n].value_len + 4;
        n++;
    }
    memset(&in, 0, sizeof in);
    in.status = t->status;
    in.fields = f;
    in.nfields = n;
    in.body_len = t->body_len;
    in.minor_version = t->minor;
    in.is_head = t->is_head;
    in.keepalive = t->keepalive;
    in.date = DATE;
    buf = malloc(cap);
    rv = kd_head_build(&in, buf, cap, &out);
    if (rv != t->error || out.error != t->error)
        diag("error %d (%s), want %d", rv, kd_head_error_text(rv), t->error);
    if (t->error == KD_HEAD_OK && rv == KD_HEAD_OK) {
        if (out.framing != t->framing)
            diag("framing %d, want %d", out.framing, t->framing);
        if (out.framing == KD_FRAME_LENGTH && out.length != t->length)
            diag("length %lld, want %lld", (long long)out.length, (long long)t->length);
        if (out.keepalive != t->out_keepalive)
            diag("keepalive %d, want %d", out.keepalive, t->out_keepalive);
        if (out.no_body != t->no_body)
            diag("no_body %d, want %d", out.no_body, t->no_body);
        if (out.mismatch != t->mismatch)
            diag("mismatch %d, want %d", out.mismatch, t->mismatch);
        {
            /* an app's Transfer-Encoding that is accepted is its own chunks */
            int te = 0;
            for (size_t k = 0; t->fields[2 * k]; k++)
                te |= kd_ci_eq(t->fields[2 * k], strlen(t->fields[2 * k]), "transfer-encoding");
            if (out.app_chunked != te)
                diag("app_chunked %d, want %d", out.app_chunked, te);
        }
        if (out.len != strlen(t->head) || memcmp(buf, t->head, out.len) != 0)
            diag("head  \"%s\"\nwant \"%s\"", esc(buf, out.len), esc(t->head, strlen(t->head)));
    }
    if (rv != KD_HEAD_OK && (out.len != 0 || kd_head_error_text(rv)[0] == '\0'))
        diag("a refused head has length 0 and a reason: %zu", out.len);
    free(buf);
    tap("%s", t->name);
}

/* NUL cannot be in the table's C strings */
static void run_nul_test(void)
{
    kd_field f = {"X-A", 3, "a\0b", 3};
    kd_head_in in = {200, &f, 1, 0, 1, 0, 1, DATE, 0};
    kd_head_out out;
    char buf[KD_HEAD_SLACK + 16];
    if (kd_head_build(&in, buf, sizeof buf, &out) != KD_HEAD_BAD_VALUE)
        diag("error %d, want KD_HEAD_BAD_VALUE", out.error);
    tap("NUL in a value: 500");
}

/* A buffer smaller than the bound is refused, never overrun (ASan). */
static void run_no_room_test(void)
{
    char value[600];
    kd_field f = {"X-Long", 6, value, sizeof value};
    kd_head_in in = {200, &f, 1, 0, 1, 0, 1, DATE, 0};
    kd_head_out out;
    size_t cap;
    memset(value, 'v', sizeof value);
    for (cap = 0; cap < KD_HEAD_SLACK + 6 + sizeof value + 4; cap += 7) {
        char *buf = malloc(cap ? cap : 1);
        int rv = kd_head_build(&in, buf, cap, &out);
        if (rv != KD_HEAD_NO_ROOM && rv != KD_HEAD_OK)
            diag("cap %zu: error %d", cap, rv);
        if (rv == KD_HEAD_OK && out.len > cap)
            diag("cap %zu: wrote %zu", cap, out.len);
        free(buf);
    }
    tap("a buffer below the bound: refused or enough, never overrun");
}

/* Many fields, each at the edge of the room the bound gives. */
static void run_many_fields_test(void)
{
    static kd_field f[100];
    static char names[100][8];
    kd_head_in in;
    kd_head_out out;
    size_t i, cap = KD_HEAD_SLACK;
    char *buf;
    for (i = 0; i < 100; i++) {
        snprintf(names[i], sizeof names[i], "X-%zu", i);
        f[i].name = names[i];
        f[i].name_len = strlen(names[i]);
        f[i].value = "";
        f[i].value_len = 0;
        cap += f[i].name_len + 4;
    }
    memset(&in, 0, sizeof in);
    in.status = 500;
    in.fields = f;
    in.nfields = 100;
    in.body_len = 0;
    in.minor_version = 1;
    in.keepalive = 1;
    in.date = DATE;
    buf = malloc(cap);
    if (kd_head_build(&in, buf, cap, &out) != KD_HEAD_OK)
        diag("error %d", out.error);
    else if (out.len > cap || memcmp(buf + out.len - 4, "\r\n\r\n", 4) != 0)
        diag("len %zu of %zu", out.len, cap);
    free(buf);
    tap("100 empty fields fit the bound");
}

/* A 101 is the upgrade's: refused unless the request may upgrade (the
 * server gives psgix.io), then sent with the app's Connection: Upgrade,
 * no framing and no Date, the connection not kept; a 100 never. */
static void run_upgrade_test(void)
{
    kd_field f[3] = {{"Upgrade", 7, "websocket", 9}, {"Connection", 10, "Upgrade", 7},
                     {"Sec-WebSocket-Accept", 20, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", 28}};
    kd_head_in in = {101, f, 3, 0, 1, 0, 1, DATE, 0};
    kd_head_out out;
    char buf[1024];
    const char *want = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
    ok(kd_head_build(&in, buf, sizeof buf, &out) == KD_HEAD_BAD_STATUS, "101 refused when the request may not upgrade");
    in.upgrade = 1;
    ok(kd_head_build(&in, buf, sizeof buf, &out) == KD_HEAD_OK && out.len == strlen(want) &&
       memcmp(buf, want, out.len) == 0, "101 for an upgrade: the app's fields as given, Connection too");
    ok(out.framing == KD_FRAME_NONE && out.no_body && !out.keepalive && out.close == KD_CLOSE_APP,
       "no body, and the connection is not the server's to keep");
    in.status = 100;
    ok(kd_head_build(&in, buf, sizeof buf, &out) == KD_HEAD_BAD_STATUS, "100 refused, upgrade or not");
}

int main(void)
{
    size_t i;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; i < NCASES; i++)
        run_case(&cases[i]);
    run_nul_test();
    run_no_room_test();
    run_many_fields_test();
    run_upgrade_test();
    printf("# %zu table cases\n", (size_t)NCASES);
    return done_testing();
}
