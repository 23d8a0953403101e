/* t/c/test_parser.c: table-driven C unit tests for src/proto/kd_parser.c and kd_chunked.c,
 * printed as TAP ("ok N - name", diagnostics as "# ...", plan "1..N" last).
 * Run by t/c-parser.t (system compiler, then clang ASan+UBSan if present).
 *
 * Request heads (kd_parse_request):
 *   - each case is parsed whole, from a heap buffer of exactly its length;
 *   - each case is parsed at every prefix length k in 0..len-1, in that
 *     same buffer with the bytes after the prefix poisoned under ASan, so
 *     that reading one byte past the prefix is reported. A prefix of a valid
 *     head must be KD_INCOMPLETE; a prefix of a bad head KD_INCOMPLETE or
 *     the same error; never a success. Then the whole gives the same result;
 *   - a valid head is parsed again with body bytes after it: same length.
 * Chunked bodies (kd_chunked_decode): each case is decoded whole, one byte
 * per call, split into two calls at every offset, and in place (out == in,
 * whole and split at every offset); output, consumed count and done must
 * be identical, and a call consumes less than it was given only once done.
 */
#include "../../src/kd_engine.c"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under ASan, a prefix of an input is tested in place: the bytes after it
 * are poisoned, so any read past the prefix is reported exactly as if the
 * prefix had its own heap buffer (without copying 2 GB for the 64 KiB
 * cases). Without ASan nothing could catch the over-read anyway. */
#if defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define KT_ASAN 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(KT_ASAN)
#  define KT_ASAN 1
#endif
#ifdef KT_ASAN
#  include <sanitizer/asan_interface.h>
#endif

/* ------------------------------------------------------------------ */
/* TAP                                                                 */

#include "tap.h"

/* printable form of bytes, for diagnostics */
static const char *esc(const char *s, size_t n)
{
    static char b[4][512];
    static int which = 0;
    char *o = b[which = (which + 1) % 4];
    size_t i, j = 0, max = n > 120 ? 100 : n;
    for (i = 0; i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\r') { o[j++] = '\\'; o[j++] = 'r'; }
        else if (c == '\n') { o[j++] = '\\'; o[j++] = 'n'; }
        else if (c == '\t') { o[j++] = '\\'; o[j++] = 't'; }
        else if (c == '\\' || c == '"') { o[j++] = '\\'; o[j++] = (char)c; }
        else if (c < 0x20 || c >= 0x7f) j += (size_t)sprintf(o + j, "\\x%02x", c);
        else o[j++] = (char)c;
    }
    if (max < n)
        j += (size_t)sprintf(o + j, "...\" (%zu bytes in all)", n);
    else
        o[j++] = '"';
    o[j] = '\0';
    return o;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("Bail out! out of memory\n");
        exit(2);
    }
    return p;
}

/* ------------------------------------------------------------------ */
/* request-head cases                                                  */

#define OK 1                        /* complete: return == length of raw */
#define INC KD_INCOMPLETE
#define ERR KD_ERROR

typedef struct {
    int idx;
    const char *name, *value;
} hdr_want;

typedef struct {
    const char *name;
    const char *raw;
    size_t raw_len;
    int ret;                        /* OK, INC or ERR */
    int status;                     /* for ERR */
    const char *method, *target;
    const char *path;               /* NULL: same as target */
    const char *query;              /* NULL: no query expected */
    int v;                          /* minor version */
    size_t nh;                      /* number of headers */
    const char *cl;                 /* NULL: content_length -1 */
    const char *flags;              /* K keepalive, C chunked, E expect, H head */
    hdr_want h[4];                  /* terminated by name NULL */
} pcase;

#define R(s) .raw = s, .raw_len = sizeof(s) - 1
#define HOST "Host: h\r\n"

/* the table is laid out by hand, a case a line or two */
/* clang-format off */
static const pcase pcases[] = {
    /* ---------------- valid ---------------- */
    { "simple GET 1.1", R("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 1, 0, "K", {{0, "Host", "example.com"}} },
    { "path and query", R("GET /a/b?x=1&y=2 HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/a/b?x=1&y=2", "/a/b", "x=1&y=2", 1, 1, 0, "K", {{0}} },
    { "empty query", R("GET /p? HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/p?", "/p", "", 1, 1, 0, "K", {{0}} },
    { "second ? belongs to the query", R("GET /p?a?b=c HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/p?a?b=c", "/p", "a?b=c", 1, 1, 0, "K", {{0}} },
    { "query on root", R("GET /?q HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/?q", "/", "q", 1, 1, 0, "K", {{0}} },
    { "percent-encoded path", R("GET /a%20b/%3F HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/a%20b/%3F", 0, 0, 1, 1, 0, "K", {{0}} },
    { "percent escapes in either case, %25", R("GET /%7e%7E%25%2f HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/%7e%7E%25%2f", 0, 0, 1, 1, 0, "K", {{0}} },
    { "query escapes are not checked", R("GET /p?q=100%&z=%zz%00 HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/p?q=100%&z=%zz%00", "/p", "q=100%&z=%zz%00", 1, 1, 0, "K", {{0}} },
    { "POST with Content-Length", R("POST /submit HTTP/1.1\r\n" HOST "Content-Length: 5\r\n\r\n"), OK, 0,
      "POST", "/submit", 0, 0, 1, 2, "5", "K", {{1, "Content-Length", "5"}} },
    { "Content-Length 0", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 0\r\n\r\n"), OK, 0,
      "POST", "/", 0, 0, 1, 2, "0", "K", {{0}} },
    { "Content-Length leading zeros", R("PUT /x HTTP/1.1\r\n" HOST "Content-Length: 007\r\n\r\n"), OK, 0,
      "PUT", "/x", 0, 0, 1, 2, "7", "K", {{0}} },
    { "Content-Length 18 digits", R("PUT /x HTTP/1.1\r\n" HOST "Content-Length: 999999999999999999\r\n\r\n"), OK, 0,
      "PUT", "/x", 0, 0, 1, 2, "999999999999999999", "K", {{0}} },
    { "Content-Length with OWS", R("PUT /x HTTP/1.1\r\n" HOST "Content-Length: \t 42 \t\r\n\r\n"), OK, 0,
      "PUT", "/x", 0, 0, 1, 2, "42", "K", {{1, "Content-Length", "42"}} },
    { "lower-case content-length", R("PUT /x HTTP/1.1\r\n" HOST "content-length: 3\r\n\r\n"), OK, 0,
      "PUT", "/x", 0, 0, 1, 2, "3", "K", {{1, "content-length", "3"}} },
    { "POST chunked", R("POST /up HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\n\r\n"), OK, 0,
      "POST", "/up", 0, 0, 1, 2, 0, "KC", {{1, "Transfer-Encoding", "chunked"}} },
    { "chunked in any case", R("POST /up HTTP/1.1\r\n" HOST "transfer-encoding: ChUnKeD\r\n\r\n"), OK, 0,
      "POST", "/up", 0, 0, 1, 2, 0, "KC", {{0}} },
    { "chunked with OWS", R("POST /up HTTP/1.1\r\n" HOST "Transfer-Encoding:   chunked \t\r\n\r\n"), OK, 0,
      "POST", "/up", 0, 0, 1, 2, 0, "KC", {{1, "Transfer-Encoding", "chunked"}} },
    { "chunked and Connection: close", R("POST /up HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"), OK, 0,
      "POST", "/up", 0, 0, 1, 3, 0, "C", {{0}} },
    { "HEAD", R("HEAD /x HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "HEAD", "/x", 0, 0, 1, 1, 0, "KH", {{0}} },
    { "HEAD 1.0", R("HEAD / HTTP/1.0\r\n\r\n"), OK, 0,
      "HEAD", "/", 0, 0, 0, 0, 0, "H", {{0}} },
    { "lower-case head is another method", R("head /x HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "head", "/x", 0, 0, 1, 1, 0, "K", {{0}} },
    { "DELETE", R("DELETE /r/1 HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "DELETE", "/r/1", 0, 0, 1, 1, 0, "K", {{0}} },
    { "extension method of tchars", R("M-SEARCH * HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "M-SEARCH", "*", "*", 0, 1, 1, 0, "K", {{0}} },
    { "method made of odd tchars", R("X!#$%&'*+.^_`|~9 / HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "X!#$%&'*+.^_`|~9", "/", 0, 0, 1, 1, 0, "K", {{0}} },
    { "HTTP/1.0 closes by default", R("GET / HTTP/1.0\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 0, 0, "", {{0}} },
    { "HTTP/1.0 with Host", R("GET / HTTP/1.0\r\nHost: a\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 1, 0, "", {{0, "Host", "a"}} },
    { "HTTP/1.0 Connection: keep-alive", R("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 1, 0, "K", {{0}} },
    { "HTTP/1.0 Connection: Keep-Alive", R("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 1, 0, "K", {{0}} },
    { "HTTP/1.0 keep-alive in a list", R("GET / HTTP/1.0\r\nConnection: foo, KEEP-ALIVE ,bar\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 1, 0, "K", {{0}} },
    { "HTTP/1.0 keep-alive, close", R("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 1, 0, "", {{0}} },
    { "HTTP/1.0 Connection: close", R("GET / HTTP/1.0\r\nConnection: close\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 1, 0, "", {{0}} },
    { "HTTP/1.0 keep-alive-ish token", R("GET / HTTP/1.0\r\nConnection: keep-alived\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 0, 1, 0, "", {{0}} },
    { "HTTP/1.1 Connection: close", R("GET / HTTP/1.1\r\n" HOST "Connection: close\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "", {{1, "Connection", "close"}} },
    { "HTTP/1.1 Connection: CLOSE", R("GET / HTTP/1.1\r\n" HOST "Connection: CLOSE\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "", {{0}} },
    { "HTTP/1.1 Upgrade, close", R("GET / HTTP/1.1\r\n" HOST "Connection: Upgrade, close\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "", {{1, "Connection", "Upgrade, close"}} },
    { "HTTP/1.1 upgrade,Close no space", R("GET / HTTP/1.1\r\n" HOST "Connection: upgrade,Close\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "", {{0}} },
    { "HTTP/1.1 close first in a list", R("GET / HTTP/1.1\r\n" HOST "connection: close \t, TE\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "", {{0}} },
    { "HTTP/1.1 close in second Connection field", R("GET / HTTP/1.1\r\n" HOST "Connection: TE\r\nConnection: close\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 3, 0, "", {{0}} },
    { "HTTP/1.1 keep-alive, close", R("GET / HTTP/1.1\r\n" HOST "Connection: keep-alive, close\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "", {{0}} },
    { "HTTP/1.1 Connection: keep-alive", R("GET / HTTP/1.1\r\n" HOST "Connection: keep-alive\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{0}} },
    { "HTTP/1.1 Connection: Upgrade", R("GET / HTTP/1.1\r\n" HOST "Connection: Upgrade\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{0}} },
    { "HTTP/1.1 closed is not close", R("GET / HTTP/1.1\r\n" HOST "Connection: closed, xclose\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{0}} },
    { "HTTP/1.1 empty Connection", R("GET / HTTP/1.1\r\n" HOST "Connection:\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{0}} },
    { "HTTP/1.9 is treated as 1.1", R("GET / HTTP/1.9\r\n" HOST "\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 1, 0, "K", {{0}} },
    { "absolute-form", R("GET http://example.com/path?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"), OK, 0,
      "GET", "http://example.com/path?q=1", "/path", "q=1", 1, 1, 0, "K", {{0}} },
    { "absolute-form without path", R("GET http://example.com HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "http://example.com", "/", 0, 1, 1, 0, "K", {{0}} },
    { "absolute-form query without path", R("GET http://example.com?x=1 HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "http://example.com?x=1", "/", "x=1", 1, 1, 0, "K", {{0}} },
    { "absolute-form https with port", R("GET https://example.com:8443/a/b HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "https://example.com:8443/a/b", "/a/b", 0, 1, 1, 0, "K", {{0}} },
    { "absolute-form upper-case scheme", R("GET HTTP://EXAMPLE.COM/ HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "HTTP://EXAMPLE.COM/", "/", 0, 1, 1, 0, "K", {{0}} },
    { "absolute-form with userinfo-free authority and empty query", R("GET http://a/? HTTP/1.0\r\n\r\n"), OK, 0,
      "GET", "http://a/?", "/", "", 0, 0, 0, "", {{0}} },
    { "asterisk-form", R("OPTIONS * HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "OPTIONS", "*", "*", 0, 1, 1, 0, "K", {{0}} },
    { "leading CRLF", R("\r\nGET / HTTP/1.1\r\n" HOST "\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 1, 0, "K", {{0, "Host", "h"}} },
    { "two leading CRLFs", R("\r\n\r\nPOST /x HTTP/1.1\r\n" HOST "Content-Length: 2\r\n\r\n"), OK, 0,
      "POST", "/x", 0, 0, 1, 2, "2", "K", {{0}} },
    { "OWS trimmed both sides", R("GET / HTTP/1.1\r\n" HOST "X-A:  \t spaced  value \t \r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "X-A", "spaced  value"}} },
    { "no space after colon", R("GET / HTTP/1.1\r\nHost:h\r\nX-B:v\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{0, "Host", "h"}, {1, "X-B", "v"}} },
    { "tab after colon", R("GET / HTTP/1.1\r\n" HOST "X-C:\tv\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "X-C", "v"}} },
    { "empty header value", R("GET / HTTP/1.1\r\n" HOST "X-Empty:\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "X-Empty", ""}} },
    { "whitespace-only header value", R("GET / HTTP/1.1\r\n" HOST "X-Empty:  \t \r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "X-Empty", ""}} },
    { "empty Host value in 1.1", R("GET / HTTP/1.1\r\nHost:\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 1, 0, "K", {{0, "Host", ""}} },
    { "inner whitespace and colons kept", R("GET / HTTP/1.1\r\n" HOST "X-Url: http://a:1/b \t c\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "X-Url", "http://a:1/b \t c"}} },
    { "obs-text in value", R("GET / HTTP/1.1\r\n" HOST "X-U: caf\xc3\xa9 \xff\x80\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "X-U", "caf\xc3\xa9 \xff\x80"}} },
    { "a long value with tabs and obs-text", R("GET / HTTP/1.1\r\n" HOST "X-L: a\tb~ \xff\x80\x9f\xa0!\t0123456789\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "X-L", "a\tb~ \xff\x80\x9f\xa0!\t0123456789"}} },
    { "header name of all tchars", R("GET / HTTP/1.1\r\n" HOST "!#$%&'*+-.^_`|~09AZaz: v\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 2, 0, "K", {{1, "!#$%&'*+-.^_`|~09AZaz", "v"}} },
    { "upper-case HOST", R("GET / HTTP/1.1\r\nHOST: h:8080\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 1, 0, "K", {{0, "HOST", "h:8080"}} },
    { "header order kept", R("GET / HTTP/1.1\r\nA: 1\r\n" HOST "B: 2\r\nA: 3\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 4, 0, "K", {{0, "A", "1"}, {1, "Host", "h"}, {2, "B", "2"}, {3, "A", "3"}} },
    { "Expect: 100-continue", R("PUT /f HTTP/1.1\r\n" HOST "Expect: 100-continue\r\nContent-Length: 10\r\n\r\n"), OK, 0,
      "PUT", "/f", 0, 0, 1, 3, "10", "KE", {{1, "Expect", "100-continue"}} },
    { "Expect: 100-Continue, any case", R("PUT /f HTTP/1.1\r\n" HOST "expect:  100-CONTINUE \r\nTransfer-Encoding: chunked\r\n\r\n"), OK, 0,
      "PUT", "/f", 0, 0, 1, 3, 0, "KEC", {{0}} },
    { "Expect ignored in 1.0", R("PUT /f HTTP/1.0\r\nExpect: whatever\r\nContent-Length: 1\r\n\r\n"), OK, 0,
      "PUT", "/f", 0, 0, 0, 2, "1", "", {{0}} },
    { "Expect 100-continue ignored in 1.0", R("PUT /f HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n"), OK, 0,
      "PUT", "/f", 0, 0, 0, 2, "1", "", {{0}} },

    /* ---------------- incomplete ---------------- */
    { "empty input", R(""), INC, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "lone CR", R("\r"), INC, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "lone CRLF", R("\r\n"), INC, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "request line only", R("GET / HTTP/1.1\r\n"), INC, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "no empty line yet", R("GET / HTTP/1.1\r\n" HOST), INC, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CR of the empty line", R("GET / HTTP/1.1\r\n" HOST "\r"), INC, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },

    /* ---------------- framing errors ---------------- */
    { "CL and TE", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE and CL", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE and CL 0", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "duplicate CL, same value", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 5\r\nContent-Length: 5\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "duplicate CL, different case", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 5\r\ncontent-LENGTH: 6\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL with plus sign", R("POST / HTTP/1.1\r\n" HOST "Content-Length: +5\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL negative", R("POST / HTTP/1.1\r\n" HOST "Content-Length: -1\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL with inner space", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 1 2\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL with letters", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 5a\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL hex", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 0x10\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL list", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 5, 5\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL list without space", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 5,5\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL empty", R("POST / HTTP/1.1\r\n" HOST "Content-Length:\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL 19 digits", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 1000000000000000000\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL 19 digits of leading zeros", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 0000000000000000001\r\n\r\n"), OK, 0,
      "POST", "/", 0, 0, 1, 2, "1", "K", {{0}} },
    { "CL 19 significant digits", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 0001000000000000000000\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CL overflowing int64", R("POST / HTTP/1.1\r\n" HOST "Content-Length: 18446744073709551621\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE gzip", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: gzip\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE chunked, identity", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked, identity\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE identity", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: identity\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE gzip, chunked", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: gzip, chunked\r\n\r\n"), ERR, 501, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE chunked;q=1", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked;q=1\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE empty", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding:\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE chunked, chunked", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked, chunked\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE gzip, identity", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: gzip, identity\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE empty elements around chunked", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: , chunked ,\r\n\r\n"), OK, 0,
      "POST", "/", 0, 0, 1, 2, 0, "KC", {{0}} },
    { "Host with a space", R("GET / HTTP/1.1\r\nHost: a b\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "Host with userinfo", R("GET / HTTP/1.1\r\nHost: u@a\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "Host with a bad port", R("GET / HTTP/1.1\r\nHost: a:8x\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "Host IPv6 literal with port", R("GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n"), OK, 0,
      "GET", "/", 0, 0, 1, 1, 0, "K", {{0, "Host", "[::1]:80"}} },
    { "Host unclosed IPv6 literal", R("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "absolute-form with userinfo", R("GET http://u:p@h/ HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "duplicate TE chunked", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "duplicate TE chunked then gzip", R("POST / HTTP/1.1\r\n" HOST "Transfer-Encoding: chunked\r\ntransfer-encoding: gzip\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "TE in HTTP/1.0", R("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },

    /* ---------------- field syntax errors ---------------- */
    { "obs-fold with space", R("GET / HTTP/1.1\r\n" HOST "X: a\r\n b\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "obs-fold with tab", R("GET / HTTP/1.1\r\n" HOST "X: a\r\n\tb\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "whitespace before first field", R("GET / HTTP/1.1\r\n Host: h\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare CR in value", R("GET / HTTP/1.1\r\n" HOST "X: a\rb\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CR CR LF after value", R("GET / HTTP/1.1\r\nHost: h\r\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare CR at start of a line", R("GET / HTTP/1.1\r\n" HOST "\rX: a\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "CR CR LF after request line", R("GET / HTTP/1.1\r\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare CR in request line", R("GET /a\rb HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare LF after field", R("GET / HTTP/1.1\r\nHost: h\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare LF after request line", R("GET / HTTP/1.1\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare LF as the empty line", R("GET / HTTP/1.1\r\n" HOST "\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare LF before the request line", R("\nGET / HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bare LF in value", R("GET / HTTP/1.1\r\n" HOST "X: a\nb\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "NUL in value", R("GET / HTTP/1.1\r\n" HOST "X: a\0b\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "NUL as whole value", R("GET / HTTP/1.1\r\n" HOST "X: \0\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "NUL in name", R("GET / HTTP/1.1\r\n" HOST "X\0Y: a\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "control char in value", R("GET / HTTP/1.1\r\n" HOST "X: a\x01" "b\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "DEL in value", R("GET / HTTP/1.1\r\n" HOST "X: a\x7f\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    /* long values, checked eight bytes at a time: a bad byte in each place */
    { "control char in a long value's first eight", R("GET / HTTP/1.1\r\n" HOST "X: abcdef\x1f" "ghijklmnopq\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "DEL in a long value's second eight", R("GET / HTTP/1.1\r\n" HOST "X: abcdefghijklm\x7fopq\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "NUL at a long value's eighth byte", R("GET / HTTP/1.1\r\n" HOST "X: abcdefg\0ijklmnopq\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "control char in a long value's tail", R("GET / HTTP/1.1\r\n" HOST "X: abcdefghijklmnop\x0bq\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "DEL after obs-text in a long value", R("GET / HTTP/1.1\r\n" HOST "X: \xff\xfe\x80\x81\xa0\x7f\xc3\xa9q\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "space before colon", R("GET / HTTP/1.1\r\nHost : h\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "tab before colon", R("GET / HTTP/1.1\r\n" HOST "Content-Length\t: 5\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "empty header name", R("GET / HTTP/1.1\r\n" HOST ": v\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "@ in header name", R("GET / HTTP/1.1\r\n" HOST "X@Y: v\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "parenthesis in header name", R("GET / HTTP/1.1\r\n" HOST "X(Y): v\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "space inside header name", R("GET / HTTP/1.1\r\n" HOST "X Y: v\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "non-ASCII header name", R("GET / HTTP/1.1\r\n" HOST "\xc3\xa9: v\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "field without colon", R("GET / HTTP/1.1\r\n" HOST "NoColon\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },

    /* ---------------- Host and Expect ---------------- */
    { "missing Host in 1.1", R("GET / HTTP/1.1\r\nX: y\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "no fields at all in 1.1", R("GET / HTTP/1.1\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "duplicate Host in 1.1", R("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "duplicate Host, other case, in 1.1", R("GET / HTTP/1.1\r\nHost: a\r\nhOST: b\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "duplicate Host in 1.0", R("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "Expect: foo in 1.1", R("PUT / HTTP/1.1\r\n" HOST "Expect: foo\r\nContent-Length: 1\r\n\r\n"), ERR, 417, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "Expect: 100-continue, foo in 1.1", R("PUT / HTTP/1.1\r\n" HOST "Expect: 100-continue, foo\r\n\r\n"), ERR, 417, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "Expect: 200-ok in 1.1", R("PUT / HTTP/1.1\r\n" HOST "Expect: 200-ok\r\n\r\n"), ERR, 417, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "empty Expect in 1.1", R("PUT / HTTP/1.1\r\n" HOST "Expect:\r\n\r\n"), ERR, 417, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },

    /* ---------------- request-line errors ---------------- */
    { "HTTP/2.0", R("GET / HTTP/2.0\r\n" HOST "\r\n"), ERR, 505, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "HTTP/3.0", R("GET / HTTP/3.0\r\n" HOST "\r\n"), ERR, 505, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "HTTP/0.9", R("GET / HTTP/0.9\r\n\r\n"), ERR, 505, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "HTTP/1.10", R("GET / HTTP/1.10\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "HTTP/11.1", R("GET / HTTP/11.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "lower-case http/1.1", R("GET / http/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "HTTP/1.", R("GET / HTTP/1.\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "HTTP/1", R("GET / HTTP/1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "HTTP/1.x", R("GET / HTTP/1.x\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "trailing space after version", R("GET / HTTP/1.1 \r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "no version (HTTP/0.9 simple request)", R("GET /\r\n\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "method with invalid char @", R("G@T / HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "method with (", R("GE(T / HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "method with NUL", R("GE\0T / HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "empty method", R(" / HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "two spaces after method", R("GET  / HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "two spaces before version", R("GET /  HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "tab as separator", R("GET\t/ HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "space inside target", R("GET /a b HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "NUL in target", R("GET /a\0b HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "DEL in target", R("GET /a\x7f HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "leading space before method", R(" GET / HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "invalid escape in path", R("GET /a%zz HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "half escape in path", R("GET /a%4g HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "truncated escape at end of path", R("GET /a%4 HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "lone percent at end of path", R("GET /a% HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "truncated escape before query", R("GET /a%4?x HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "encoded NUL in path", R("GET /a%00b HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "bad escape in absolute-form path", R("GET http://h/%x1 HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "fragment in path", R("GET /a#b HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "fragment in query", R("GET /a?b#c HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "fragment in absolute-form path", R("GET http://example.com/a#b HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "fragment in absolute-form without path", R("GET http://example.com#frag HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "fragment in absolute-form query without path", R("GET http://example.com?q#frag HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "fragment mark in absolute-form authority", R("GET http://evil#@example.com/ HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "target without leading slash", R("GET example.com/path HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "target a?b", R("GET a?b HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "authority-form outside CONNECT", R("GET example.com:80 HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "ftp scheme", R("GET ftp://example.com/ HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "http:/ with one slash", R("GET http:/example.com/ HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "absolute-form without authority", R("GET http:///path HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "absolute-form http:// only", R("GET http:// HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "double asterisk", R("OPTIONS ** HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
    { "asterisk with query", R("OPTIONS *?x HTTP/1.1\r\n" HOST "\r\n"), ERR, 400, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} },
};
/* clang-format on */

#define NPCASES (sizeof pcases / sizeof pcases[0])

static int has_flag(const pcase *c, char f)
{
    return c->flags && strchr(c->flags, f) != NULL;
}

static int eq_span(const char *got, size_t got_len, const char *want)
{
    return got && strlen(want) == got_len && memcmp(got, want, got_len) == 0;
}

/* inside [lo, hi] */
static int within(const char *p, size_t n, const char *lo, const char *hi)
{
    return p && p >= lo && p + n <= hi;
}

/* Checks one complete result; adds diagnostics, returns 1 when all good.
 * head_len: the expected return value of a complete head. */
static int check_result(const pcase *c, const char *buf, size_t head_len,
                        int rv, const kd_request *r, const char *ctx)
{
    size_t i;
    int good = 1;
    const char *want_path = c->path ? c->path : c->target;
    long long want_cl = c->cl ? strtoll(c->cl, NULL, 10) : -1;

#define CHECK(cond, ...) do { if (!(cond)) { good = 0; diag(__VA_ARGS__); } } while (0)
    if (c->ret == INC) {
        CHECK(rv == KD_INCOMPLETE, "%s: expected KD_INCOMPLETE, got %d (status %d)", ctx, rv, r->error_status);
        return good;
    }
    if (c->ret == ERR) {
        CHECK(rv == KD_ERROR && r->error_status == c->status,
              "%s: expected KD_ERROR with status %d, got %d%s (status %d)", ctx, c->status, rv,
              rv == KD_ERROR ? " KD_ERROR" : rv == KD_INCOMPLETE ? " KD_INCOMPLETE" : " (a complete head)",
              r->error_status);
        return good;
    }
    if (rv != (int)head_len) {
        diag("%s: expected complete head of %zu bytes, got %d (status %d)", ctx, head_len, rv,
             rv == KD_ERROR ? r->error_status : 0);
        return 0;
    }
    CHECK(eq_span(r->method, r->method_len, c->method), "%s: method %s, want \"%s\"", ctx,
          esc(r->method ? r->method : "", r->method ? r->method_len : 0), c->method);
    CHECK(eq_span(r->target, r->target_len, c->target), "%s: target %s, want \"%s\"", ctx,
          esc(r->target ? r->target : "", r->target ? r->target_len : 0), c->target);
    CHECK(eq_span(r->path, r->path_len, want_path), "%s: path %s, want \"%s\"", ctx,
          esc(r->path ? r->path : "", r->path ? r->path_len : 0), want_path);
    if (c->query)
        CHECK(eq_span(r->query, r->query_len, c->query), "%s: query %s, want \"%s\"", ctx,
              r->query ? esc(r->query, r->query_len) : "NULL", c->query);
    else
        CHECK(r->query == NULL && r->query_len == 0, "%s: query %s, want NULL", ctx,
              esc(r->query ? r->query : "", r->query_len));
    CHECK(r->minor_version == c->v, "%s: minor_version %d, want %d", ctx, r->minor_version, c->v);
    CHECK(r->num_headers == c->nh, "%s: num_headers %zu, want %zu", ctx, r->num_headers, c->nh);
    CHECK(r->content_length == want_cl, "%s: content_length %lld, want %lld", ctx,
          (long long)r->content_length, want_cl);
    CHECK(r->keepalive == has_flag(c, 'K'), "%s: keepalive %d, want %d", ctx, r->keepalive, has_flag(c, 'K'));
    CHECK(r->chunked == has_flag(c, 'C'), "%s: chunked %d, want %d", ctx, r->chunked, has_flag(c, 'C'));
    CHECK(r->expect_continue == has_flag(c, 'E'), "%s: expect_continue %d, want %d", ctx,
          r->expect_continue, has_flag(c, 'E'));
    CHECK(r->is_head == has_flag(c, 'H'), "%s: is_head %d, want %d", ctx, r->is_head, has_flag(c, 'H'));
    for (i = 0; i < 4 && c->h[i].name; i++) {
        const hdr_want *w = &c->h[i];
        const kd_header *h;
        if ((size_t)w->idx >= r->num_headers) {
            good = 0;
            diag("%s: header %d missing", ctx, w->idx);
            continue;
        }
        h = &r->headers[w->idx];
        CHECK(eq_span(h->name, h->name_len, w->name), "%s: header %d name %s, want \"%s\"", ctx,
              w->idx, esc(h->name, h->name_len), w->name);
        CHECK(eq_span(h->value, h->value_len, w->value), "%s: header %d value %s, want \"%s\"", ctx,
              w->idx, esc(h->value, h->value_len), w->value);
    }
    /* every pointer inside the head */
    CHECK(within(r->method, r->method_len, buf, buf + head_len), "%s: method outside the head", ctx);
    CHECK(within(r->target, r->target_len, buf, buf + head_len), "%s: target outside the head", ctx);
    CHECK(r->query == NULL || within(r->query, r->query_len, r->target, r->target + r->target_len),
          "%s: query outside the target", ctx);
    for (i = 0; i < r->num_headers && i < KD_MAX_HEADERS; i++) {
        const kd_header *h = &r->headers[i];
        CHECK(within(h->name, h->name_len, buf, buf + head_len) &&
              within(h->value, h->value_len, buf, buf + head_len),
              "%s: header %zu outside the head", ctx, i);
        CHECK(h->value_len == 0 || (h->value[0] != ' ' && h->value[0] != '\t' &&
                                    h->value[h->value_len - 1] != ' ' && h->value[h->value_len - 1] != '\t'),
              "%s: header %zu value not trimmed: %s", ctx, i, esc(h->value, h->value_len));
    }
#undef CHECK
    return good;
}

static kd_header req_headers[KD_MAX_HEADERS], whole_headers[KD_MAX_HEADERS];
static kd_request req = {.headers = req_headers}; /* shared on purpose: stale state must not leak */

static void run_pcase(const pcase *c)
{
    size_t len = c->raw_len, k;
    char *buf = xmalloc(len);
    int rv, bad_prefixes = 0;

    /* 1. whole, from an exact-size buffer */
    memcpy(buf, c->raw, len);
    rv = kd_parse_request(buf, len, &req);
    check_result(c, buf, len, rv, &req, "whole");
    if (why_len)
        diag("input: \"%s", esc(c->raw, len));
    tap("parse: %s", c->name);

    /* 2. every prefix (longest first: the byte after it is poisoned under
     * ASan), then the whole again */
    for (k = len; k-- > 0;) {
#ifdef KT_ASAN
        __asan_poison_memory_region(buf + k, 1);
        if (!__asan_address_is_poisoned(buf + k) || (k > 0 && __asan_address_is_poisoned(buf + k - 1))) {
            diag("cannot poison the byte after a prefix of %zu bytes", k);
            break;
        }
#endif
        rv = kd_parse_request(buf, k, &req);
        if (rv == KD_INCOMPLETE)
            continue;
        if (c->ret == ERR && rv == KD_ERROR && req.error_status == c->status)
            continue;                 /* already the same error: fine */
        if (bad_prefixes++ < 3)
            diag("prefix of %zu bytes: got %d (status %d), want KD_INCOMPLETE%s; prefix \"%s", k, rv,
                 rv == KD_ERROR ? req.error_status : 0, c->ret == ERR ? " or the same error" : "",
                 esc(c->raw, k));
    }
#ifdef KT_ASAN
    __asan_unpoison_memory_region(buf, len);
#endif
    if (bad_prefixes > 3)
        diag("... %d bad prefixes in all", bad_prefixes);
    memcpy(buf, c->raw, len);
    rv = kd_parse_request(buf, len, &req);
    check_result(c, buf, len, rv, &req, "whole after prefixes");
    tap("split at every offset (%zu): %s", len, c->name);

    /* 3. arriving a byte at a time through kd_parse_more: at every length
     * what kd_parse_request says, and the same request at the end */
    {
        kd_head_scan scan = { 0, 0 };
        kd_request whole = {.headers = whole_headers};
        int more = KD_INCOMPLETE, want = KD_INCOMPLETE;
        for (k = 1; k <= len && more == KD_INCOMPLETE; k++) {
            more = kd_parse_more(buf, k, &scan, &req);
            want = kd_parse_request(buf, k, &whole);
            if (more != want || (more == KD_ERROR && req.error_status != whole.error_status)) {
                diag("after %zu bytes: kd_parse_more %d (status %d), kd_parse_request %d (status %d)", k, more,
                     more == KD_ERROR ? req.error_status : 0, want, want == KD_ERROR ? whole.error_status : 0);
                break;
            }
        }
        if (more > 0)
            check_result(c, buf, len, more, &req, "a byte at a time");
        if (more != KD_INCOMPLETE && (scan.seen || scan.line_done))
            diag("the scan is not reset after a result");
    }
    tap("a byte at a time, resumed (kd_parse_more): %s", c->name);
    free(buf);

    /* 3. a complete head followed by more bytes: same head length */
    if (c->ret == OK) {
        static const char more[] = "0123456789\r\n\r\nGET / HTTP/1.1\r\n";
        size_t n = len + sizeof more - 1;
        buf = xmalloc(n);
        memcpy(buf, c->raw, len);
        memcpy(buf + len, more, sizeof more - 1);
        rv = kd_parse_request(buf, n, &req);
        check_result(c, buf, len, rv, &req, "with bytes after the head");
        tap("bytes after the head are not consumed: %s", c->name);
        free(buf);
    }
}

/* ------------------------------------------------------------------ */
/* generated request-head cases (limits)                               */

static char *gen_buf;
static size_t gen_len, gen_cap;

static void gen_reset(void)
{
    gen_len = 0;
}

static void gen_add(const char *s, size_t n)
{
    if (gen_len + n > gen_cap) {
        gen_cap = (gen_len + n) * 2;
        gen_buf = realloc(gen_buf, gen_cap);
        if (!gen_buf) {
            printf("Bail out! out of memory\n");
            exit(2);
        }
    }
    memcpy(gen_buf + gen_len, s, n);
    gen_len += n;
}

static void gen_str(const char *s)
{
    gen_add(s, strlen(s));
}

static void gen_fill(char c, size_t n)
{
    while (n--)
        gen_add(&c, 1);
}

/* runs the generated buffer as a case; pc carries the expectations */
static void run_generated(pcase pc)
{
    char *copy = xmalloc(gen_len);
    memcpy(copy, gen_buf, gen_len);
    pc.raw = copy;
    pc.raw_len = gen_len;
    run_pcase(&pc);
    free(copy);
}

static void run_generated_cases(void)
{
    static const pcase base_ok = { "", 0, 0, OK, 0, "GET", 0, "/", 0, 1, 1, 0, "K", {{0}} };
    static const pcase base_err = { "", 0, 0, ERR, 0, 0, 0, 0, 0, 0, 0, 0, 0, {{0}} };
    pcase pc;
    char *target;
    size_t tlen, i, fill;
    char line[64];

    /* request line of exactly KD_MAX_REQUEST_LINE bytes with its CRLF:
     * "GET " + target + " HTTP/1.1" + CRLF */
    tlen = KD_MAX_REQUEST_LINE - 4 - 9 - 2;
    target = xmalloc(tlen + 1);
    target[0] = '/';
    memset(target + 1, 'a', tlen - 1);
    target[tlen] = '\0';
    gen_reset();
    gen_str("GET ");
    gen_str(target);
    gen_str(" HTTP/1.1\r\n" HOST "\r\n");
    pc = base_ok;
    pc.name = "request line of KD_MAX_REQUEST_LINE bytes (CRLF included)";
    pc.target = target;
    pc.path = target;
    run_generated(pc);

    /* one byte more: 414 */
    gen_reset();
    gen_str("GET ");
    gen_str(target);
    gen_str("b HTTP/1.1\r\n" HOST "\r\n");
    pc = base_err;
    pc.name = "request line of KD_MAX_REQUEST_LINE + 1 bytes";
    pc.status = 414;
    run_generated(pc);
    free(target);

    /* clearly too long, complete */
    gen_reset();
    gen_str("GET /");
    gen_fill('x', 9000);
    gen_str(" HTTP/1.1\r\n" HOST "\r\n");
    pc = base_err;
    pc.name = "request line of 9000+ bytes";
    pc.status = 414;
    run_generated(pc);

    /* incomplete but already too long: no LF in the first KD_MAX_REQUEST_LINE bytes */
    gen_reset();
    gen_str("GET /");
    gen_fill('x', KD_MAX_REQUEST_LINE - 5);
    pc = base_err;
    pc.name = "incomplete request line of KD_MAX_REQUEST_LINE bytes";
    pc.status = 414;
    run_generated(pc);

    /* same, after leading CRLFs */
    gen_reset();
    gen_str("\r\n\r\nGET /");
    gen_fill('x', KD_MAX_REQUEST_LINE);
    pc = base_err;
    pc.name = "incomplete long request line after leading CRLFs";
    pc.status = 414;
    run_generated(pc);

    /* request line with a long method: 414 too, not 400 */
    gen_reset();
    gen_fill('M', KD_MAX_REQUEST_LINE + 10);
    pc = base_err;
    pc.name = "incomplete very long method";
    pc.status = 414;
    run_generated(pc);

    /* exactly KD_MAX_HEADERS fields */
    gen_reset();
    gen_str("GET / HTTP/1.1\r\n" HOST);
    for (i = 1; i < KD_MAX_HEADERS; i++) {
        sprintf(line, "X-H%zu: v%zu\r\n", i, i);
        gen_str(line);
    }
    gen_str("\r\n");
    pc = base_ok;
    pc.name = "exactly KD_MAX_HEADERS fields";
    pc.target = "/";
    pc.nh = KD_MAX_HEADERS;
    pc.h[0].idx = 0; pc.h[0].name = "Host"; pc.h[0].value = "h";
    pc.h[1].idx = KD_MAX_HEADERS - 1; pc.h[1].name = "X-H99"; pc.h[1].value = "v99";
    run_generated(pc);

    /* one more: 431 */
    gen_len -= 2;
    gen_str("X-Extra: 1\r\n\r\n");
    pc = base_err;
    pc.name = "KD_MAX_HEADERS + 1 fields";
    pc.status = 431;
    run_generated(pc);

    /* head of exactly KD_MAX_HEAD bytes (empty line included) */
    gen_reset();
    gen_str("GET / HTTP/1.1\r\n" HOST "X-Big: ");
    fill = KD_MAX_HEAD - gen_len - 4;
    gen_fill('a', fill);
    gen_str("\r\n\r\n");
    pc = base_ok;
    pc.name = "head of exactly KD_MAX_HEAD bytes";
    pc.target = "/";
    pc.nh = 2;
    run_generated(pc);

    /* one byte more: 431 */
    gen_reset();
    gen_str("GET / HTTP/1.1\r\n" HOST "X-Big: ");
    gen_fill('a', fill + 1);
    gen_str("\r\n\r\n");
    pc = base_err;
    pc.name = "head of KD_MAX_HEAD + 1 bytes";
    pc.status = 431;
    run_generated(pc);

    /* complete fields past the limit */
    gen_reset();
    gen_str("GET / HTTP/1.1\r\n" HOST "X-Pad: ");
    gen_fill('p', 65400);
    gen_str("\r\nX-Pad2: ");
    gen_fill('q', 200);
    gen_str("\r\n\r\n");
    pc = base_err;
    pc.name = "two fields together past KD_MAX_HEAD";
    pc.status = 431;
    run_generated(pc);

    /* incomplete, KD_MAX_HEAD bytes in, in the middle of a field line */
    gen_reset();
    gen_str("GET / HTTP/1.1\r\n" HOST "X-Big: ");
    gen_fill('a', KD_MAX_HEAD - gen_len);
    pc = base_err;
    pc.name = "incomplete head of KD_MAX_HEAD bytes, mid-line";
    pc.status = 431;
    run_generated(pc);

    /* incomplete, KD_MAX_HEAD bytes in, right after a field's CRLF: the
     * head can only be longer than KD_MAX_HEAD; the server's buffer is
     * KD_BUF_SIZE == KD_MAX_HEAD bytes, so waiting for more cannot work */
    gen_reset();
    gen_str("GET / HTTP/1.1\r\n" HOST "X-Big: ");
    gen_fill('a', KD_MAX_HEAD - gen_len - 2);
    gen_str("\r\n");
    pc = base_err;
    pc.name = "incomplete head of KD_MAX_HEAD bytes ending with a field's CRLF";
    pc.status = 431;
    run_generated(pc);

    /* incomplete, KD_MAX_HEAD bytes in, ending with the CR of the empty line
     * that would make it KD_MAX_HEAD + 1 bytes */
    gen_reset();
    gen_str("GET / HTTP/1.1\r\n" HOST "X-Big: ");
    gen_fill('a', KD_MAX_HEAD - gen_len - 3);
    gen_str("\r\n\r");
    pc = base_err;
    pc.name = "incomplete head of KD_MAX_HEAD bytes ending with CR";
    pc.status = 431;
    run_generated(pc);
}

/* ------------------------------------------------------------------ */
/* kd_is_tchar                                                         */

static void run_tchar_test(void)
{
    static const char tchars[] = "!#$%&'*+-.^_`|~0123456789"
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    int c;
    for (c = 0; c < 256; c++) {
        int want = c != 0 && strchr(tchars, c) != NULL;
        if (kd_is_tchar((unsigned char)c) != want)
            diag("kd_is_tchar(0x%02x) = %d, want %d", c, kd_is_tchar((unsigned char)c), want);
    }
    tap("kd_is_tchar matches RFC 9110 tchar for all 256 bytes");
}

/* ------------------------------------------------------------------ */
/* chunked decoder                                                     */

typedef struct {
    const char *name;
    const char *raw;
    size_t raw_len;
    int valid;                      /* 0: -1 expected */
    const char *out;
    size_t out_len;
    size_t rest;                    /* bytes left unconsumed after the end */
    int not_done;                   /* valid so far, but the body goes on */
} ccase;

#define IN(s) .raw = s, .raw_len = sizeof(s) - 1
#define OUT(s) .out = s, .out_len = sizeof(s) - 1

static const ccase ccases[] = {
    /* ---------------- valid ---------------- */
    { "one chunk", IN("5\r\nhello\r\n0\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "several chunks", IN("3\r\nabc\r\n4\r\ndefg\r\n1\r\nh\r\n0\r\n\r\n"), 1, OUT("abcdefgh"), 0, 0 },
    { "hex upper case", IN("A\r\n0123456789\r\n0\r\n\r\n"), 1, OUT("0123456789"), 0, 0 },
    { "hex lower case", IN("a\r\n0123456789\r\n0\r\n\r\n"), 1, OUT("0123456789"), 0, 0 },
    { "two-digit mixed-case hex", IN("1f\r\n0123456789abcdef0123456789abcde\r\n1F\r\n0123456789abcdef0123456789ABCDE\r\n0\r\n\r\n"), 1,
      OUT("0123456789abcdef0123456789abcde0123456789abcdef0123456789ABCDE"), 0, 0 },
    { "leading zeros", IN("0005\r\nhello\r\n000\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "many leading zeros", IN("00000000000000000000000000000003\r\nabc\r\n0\r\n\r\n"), 1, OUT("abc"), 0, 0 },
    { "empty body", IN("0\r\n\r\n"), 1, OUT(""), 0, 0 },
    { "chunk extension", IN("5;a=b\r\nhello\r\n0\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "several extensions, quoted", IN("5;a=b;c=\"d e\";f\r\nhello\r\n0\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "BWS before ;", IN("5 ;a=b\r\nhello\r\n0\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "tabs and spaces before ;", IN("5 \t ;a=b\r\nhello\r\n0\t;z\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "BWS inside extension", IN("5; a = b\r\nhello\r\n0\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "extension on the last chunk", IN("2\r\nhi\r\n0;last=yes\r\n\r\n"), 1, OUT("hi"), 0, 0 },
    { "quoted extension with an escape", IN("5;a=\"x\\\"y;z\"\r\nhello\r\n0\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "extension name only, then another", IN("5;a;b=c\r\nhello\r\n0\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "trailer field", IN("5\r\nhello\r\n0\r\nX-Trailer: v\r\n\r\n"), 1, OUT("hello"), 0, 0 },
    { "several trailer fields", IN("1\r\nz\r\n0\r\nA: 1\r\nB-C:two words\r\nD:\r\n\r\n"), 1, OUT("z"), 0, 0 },
    { "data holding CRLF and a fake last chunk", IN("7\r\n0\r\n\r\nab\r\n0\r\n\r\n"), 1, OUT("0\r\n\r\nab"), 0, 0 },
    { "binary data with NUL and 0xff", IN("4\r\n\0\xff\r\x80\r\n0\r\n\r\n"), 1, OUT("\0\xff\r\x80"), 0, 0 },
    { "one-byte chunks", IN("1\r\na\r\n1\r\nb\r\n1\r\nc\r\n1\r\nd\r\n0\r\n\r\n"), 1, OUT("abcd"), 0, 0 },
    { "pipelined request after the body", IN("5\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"), 1, OUT("hello"),
      sizeof("GET / HTTP/1.1\r\nHost: h\r\n\r\n") - 1, 0 },
    { "junk after the body is not looked at", IN("0\r\n\r\nXYZ\n\n\r"), 1, OUT(""), 6, 0 },
    { "another body after the body", IN("1\r\na\r\n0\r\n\r\n1\r\nb\r\n0\r\n\r\n"), 1, OUT("a"), 11, 0 },
    { "body after trailers", IN("0\r\nT: 1\r\n\r\nnext"), 1, OUT(""), 4, 0 },
    { "largest chunk size 2^60-1, body goes on", IN("FFFFFFFFFFFFFFF\r\nabc"), 1, OUT("abc"), 0, 1 },
    { "unfinished body", IN("5\r\nhel"), 1, OUT("hel"), 0, 1 },
    { "unfinished trailers", IN("2\r\nok\r\n0\r\nX: y\r\n"), 1, OUT("ok"), 0, 1 },

    /* ---------------- errors ---------------- */
    { "non-hex size", IN("g\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "non-hex after digits", IN("5x\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    /* after the digits only whitespace then ";" may follow (RFC 9112 7.1.1) */
    { "space inside the size", IN("5 5\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "trailing space, no extension", IN("5 \r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "sign before the size", IN("+5\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "0x prefix", IN("0x5\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "negative size", IN("-5\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "empty size line", IN("\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "empty size line after a chunk", IN("1\r\na\r\n\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "space before the size", IN(" 5\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "whitespace after size without extension", IN("5 \r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "extension without ; after BWS", IN("5 a=b\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "missing CRLF after data", IN("5\r\nhelloX\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "data longer than the size", IN("3\r\nabcd\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "bare LF after data", IN("5\r\nhello\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "CR without LF after data", IN("5\r\nhello\rX0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "bare LF after size", IN("5\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "bare CR after size", IN("5\rhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "bare LF after extension", IN("5;a=b\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "control char in extension", IN("5;a\x01" "b\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "NUL in extension", IN("5;a\0\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "extension without a name", IN("5;\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "extension with an empty value", IN("5;a=\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "extension name not a token", IN("5;a@b=c\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "extension value not a token", IN("5;a=b c\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "unterminated quoted extension", IN("5;a=\"b\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "text after a quoted extension", IN("5;a=\"b\"c\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "trailer without a colon", IN("0\r\nX-A 1\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "trailer with space before the colon", IN("0\r\nX-A : 1\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "trailer with NUL in the value", IN("0\r\nX-A: \0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "size overflow, 19 hex digits", IN("fffffffffffffffffff\r\n"), 0, 0, 0, 0, 0 },
    { "size 2^60", IN("1000000000000000\r\n"), 0, 0, 0, 0, 0 },
    { "size 2^64 + 5 (wraps)", IN("10000000000000005\r\nhello\r\n0\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "obs-fold in trailer", IN("0\r\nX: a\r\n b\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "trailer starting with space", IN("0\r\n X: a\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "trailer starting with colon", IN("0\r\n: a\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "bare LF ending a trailer", IN("0\r\nX: a\n\r\n"), 0, 0, 0, 0, 0 },
    { "bare LF as the final line", IN("0\r\n\n"), 0, 0, 0, 0, 0 },
    { "CR without LF as the final line", IN("0\r\n\rX"), 0, 0, 0, 0, 0 },
    { "NUL in trailer", IN("0\r\nX: a\0b\r\n\r\n"), 0, 0, 0, 0, 0 },
    { "bare LF after last-chunk", IN("0\n\r\n"), 0, 0, 0, 0, 0 },
};

#define NCCASES (sizeof ccases / sizeof ccases[0])

typedef struct {
    int error;                      /* a call returned -1 */
    int bad_call;                   /* a call broke the contract */
    size_t consumed;
    size_t out_len;
    int done;
    char msg[200];
} cres;

/* Decodes raw, cut into pieces at cuts[0..ncuts) (increasing offsets).
 * Each piece is copied into its own exact-size heap buffer; output goes to
 * out (of out_cap bytes). In place: pieces live in one buffer holding the
 * whole input, out == that buffer, and output follows the input. */
static cres decode_pieces(const ccase *c, const size_t *cuts, size_t ncuts, int in_place,
                          char *out, size_t out_cap)
{
    cres res;
    kd_chunked d;
    size_t piece, start = 0, o = 0;
    char *whole = NULL;

    memset(&res, 0, sizeof res);
    kd_chunked_init(&d);
    if (in_place) {
        whole = xmalloc(c->raw_len);
        memcpy(whole, c->raw, c->raw_len);
    }
    for (piece = 0; piece <= ncuts && !res.error; piece++) {
        size_t end = piece < ncuts ? cuts[piece] : c->raw_len, n = end - start, out_len = (size_t)-1;
        char *in, *dst;
        long rv;

        if (d.done)
            break;                    /* the rest is the next request's */
        if (in_place) {
            in = whole + start;
            dst = whole + o;
        } else {
            in = xmalloc(n);
            memcpy(in, c->raw + start, n);
            dst = out + o;
        }
        rv = kd_chunked_decode(&d, in, n, dst, &out_len);
        if (rv < 0) {
            res.error = 1;
        } else if ((size_t)rv > n || out_len > (size_t)rv || o + out_len > out_cap) {
            res.bad_call = 1;
            snprintf(res.msg, sizeof res.msg, "call on %zu bytes at %zu returned %ld, out_len %zu",
                     n, start, rv, out_len);
        } else if ((size_t)rv < n && !d.done) {
            res.bad_call = 1;
            snprintf(res.msg, sizeof res.msg, "call on %zu bytes at %zu consumed %ld without done",
                     n, start, rv);
        } else {
            if (in_place)
                memcpy(out + o, dst, out_len);
            o += out_len;
            res.consumed += (size_t)rv;
        }
        if (!in_place)
            free(in);
        if (res.bad_call)
            break;
        start = end;
    }
    res.out_len = o;
    res.done = d.done;
    /* once done, another call consumes nothing and decodes nothing */
    if (!res.error && !res.bad_call && d.done && res.consumed < c->raw_len) {
        size_t out_len = (size_t)-1;
        char *rest = xmalloc(c->raw_len - res.consumed);
        long rv;
        memcpy(rest, c->raw + res.consumed, c->raw_len - res.consumed);
        rv = kd_chunked_decode(&d, rest, c->raw_len - res.consumed, rest, &out_len);
        if (rv != 0 || out_len != 0) {
            res.bad_call = 1;
            snprintf(res.msg, sizeof res.msg, "call after done returned %ld, out_len %zu", rv, out_len);
        }
        free(rest);
    }
    free(whole);
    return res;
}

/* compares a result with the expectation; ctx names the feeding */
static int check_cres(const ccase *c, const cres *r, const char *out, const char *ctx)
{
    if (r->bad_call) {
        diag("%s: %s", ctx, r->msg);
        return 0;
    }
    if (!c->valid) {
        if (!r->error) {
            diag("%s: expected -1, got success: consumed %zu, decoded %zu, done %d", ctx,
                 r->consumed, r->out_len, r->done);
            return 0;
        }
        return 1;
    }
    if (r->error) {
        diag("%s: unexpected -1", ctx);
        return 0;
    }
    if (r->consumed != c->raw_len - c->rest || r->done != !c->not_done ||
        r->out_len != c->out_len || memcmp(out, c->out, c->out_len) != 0) {
        diag("%s: consumed %zu (want %zu), done %d (want %d), decoded %s (want \"%s)", ctx,
             r->consumed, c->raw_len - c->rest, r->done, !c->not_done,
             esc(out, r->out_len), esc(c->out, c->out_len));
        return 0;
    }
    return 1;
}

/* Offsets to split at: all of them, or for the big generated cases (sparse
 * != 0) those within 8 bytes of a CR, LF, ';' or ':', the first and last
 * 64, and every 61st: the decoder does per byte only what it does at these
 * places, and every offset of the 8-12 KiB inputs costs seconds under ASan. */
static int split_here(const ccase *c, int sparse, size_t k)
{
    size_t j, lo = k > 8 ? k - 8 : 0, hi = k + 8 < c->raw_len ? k + 8 : c->raw_len;
    if (!sparse || k < 64 || k + 64 > c->raw_len || k % 61 == 0)
        return 1;
    for (j = lo; j < hi; j++)
        if (c->raw[j] == '\r' || c->raw[j] == '\n' || c->raw[j] == ';' || c->raw[j] == ':')
            return 1;
    return 0;
}

static void run_ccase_sparse(const ccase *c, int sparse)
{
    size_t len = c->raw_len, k, cap = c->valid ? c->out_len : len;
    size_t *cuts = xmalloc(len * sizeof *cuts);
    char *out = xmalloc(cap);
    cres r;
    int bad;
    char ctx[64];

    /* whole */
    r = decode_pieces(c, NULL, 0, 0, out, cap);
    check_cres(c, &r, out, "whole");
    if (why_len)
        diag("input: \"%s", esc(c->raw, len));
    tap("chunked whole: %s", c->name);

    /* one byte per call */
    for (k = 1; k < len; k++)
        cuts[k - 1] = k;
    r = decode_pieces(c, cuts, len ? len - 1 : 0, 0, out, cap);
    check_cres(c, &r, out, "one byte per call");
    tap("chunked one byte per call: %s", c->name);

    /* two calls, split at every offset */
    bad = 0;
    for (k = 0; k <= len && bad < 3; k++) {
        if (!split_here(c, sparse, k))
            continue;
        sprintf(ctx, "split at %zu", k);
        r = decode_pieces(c, &k, 1, 0, out, cap);
        bad += !check_cres(c, &r, out, ctx);
    }
    tap("chunked split into two calls at every %soffset: %s", sparse ? "interesting " : "", c->name);

    /* in place: whole, then split at every offset */
    r = decode_pieces(c, NULL, 0, 1, out, cap);
    check_cres(c, &r, out, "in place, whole");
    for (k = 0, bad = 0; k <= len && bad < 3; k++) {
        if (!split_here(c, sparse, k))
            continue;
        sprintf(ctx, "in place, split at %zu", k);
        r = decode_pieces(c, &k, 1, 1, out, cap);
        bad += !check_cres(c, &r, out, ctx);
    }
    tap("chunked in place (out == in), whole and split: %s", c->name);

    free(cuts);
    free(out);
}

/* Runs the chunked case just built in gen_buf: valid with the decoded
 * output out[0..out_len), or malformed when out is NULL. */
static void run_generated_chunked(const char *name, const char *out, size_t out_len)
{
    ccase cc;
    memset(&cc, 0, sizeof cc);
    cc.name = name;
    cc.raw = gen_buf;
    cc.raw_len = gen_len;
    cc.valid = out != NULL;
    cc.out = out;
    cc.out_len = out_len;
    run_ccase_sparse(&cc, 1);
}

static void run_ccase(const ccase *c)
{
    run_ccase_sparse(c, 0);
}

/* generated chunked cases (limits, big chunks) */
static void run_generated_ccases(void)
{
    ccase cc;
    char *expect;
    size_t i, n;

    /* a 10000-byte chunk */
    gen_reset();
    gen_str("2710\r\n");
    expect = xmalloc(10000);
    for (i = 0; i < 10000; i++)
        expect[i] = (char)('a' + i % 26);
    gen_add(expect, 10000);
    gen_str("\r\n0\r\n\r\n");
    memset(&cc, 0, sizeof cc);
    cc.name = "10000-byte chunk";
    cc.raw = gen_buf;
    cc.raw_len = gen_len;
    cc.valid = 1;
    cc.out = expect;
    cc.out_len = 10000;
    run_ccase_sparse(&cc, 1);
    free(expect);

    /* size line of exactly KD_MAX_CHUNK_LINE bytes (CR included, LF not) */
    gen_reset();
    gen_str("1;x=");
    gen_fill('e', KD_MAX_CHUNK_LINE - gen_len - 1);
    gen_str("\r\nZ\r\n0\r\n\r\n");
    run_generated_chunked("size line of KD_MAX_CHUNK_LINE bytes", "Z", 1);

    /* one byte longer */
    gen_reset();
    gen_str("1;x=");
    gen_fill('e', KD_MAX_CHUNK_LINE - gen_len);
    gen_str("\r\nZ\r\n0\r\n\r\n");
    run_generated_chunked("size line longer than KD_MAX_CHUNK_LINE", NULL, 0);

    /* leading zeros past the line limit */
    gen_reset();
    gen_fill('0', KD_MAX_CHUNK_LINE + 1);
    gen_str("1\r\nZ\r\n0\r\n\r\n");
    run_generated_chunked("leading zeros longer than KD_MAX_CHUNK_LINE", NULL, 0);

    /* the limit is per size line, not per body */
    gen_reset();
    for (i = 0; i < 4; i++) {
        gen_str("1;x=");
        gen_fill('e', 3000);
        gen_str("\r\nZ\r\n");
    }
    gen_str("0\r\n\r\n");
    run_generated_chunked("four size lines of 3000+ bytes each", "ZZZZ", 4);

    /* trailers of exactly KD_MAX_TRAILERS bytes (final CRLF included) */
    gen_reset();
    gen_str("1\r\nQ\r\n0\r\n");
    n = gen_len;
    gen_str("X-T: ");
    gen_fill('t', KD_MAX_TRAILERS - (gen_len - n) - 4);
    gen_str("\r\n\r\n");
    run_generated_chunked("trailers of KD_MAX_TRAILERS bytes", "Q", 1);

    /* one byte longer */
    gen_reset();
    gen_str("1\r\nQ\r\n0\r\n");
    n = gen_len;
    gen_str("X-T: ");
    gen_fill('t', KD_MAX_TRAILERS - (gen_len - n) - 3);
    gen_str("\r\n\r\n");
    run_generated_chunked("trailers longer than KD_MAX_TRAILERS", NULL, 0);

    /* many small trailer fields past the limit */
    gen_reset();
    gen_str("0\r\n");
    for (i = 0; i < 100; i++) {
        gen_str("Trailer-Field: ");
        gen_fill('v', 80);
        gen_str("\r\n");
    }
    gen_str("\r\n");
    run_generated_chunked("100 trailer fields of 97 bytes (> KD_MAX_TRAILERS)", NULL, 0);
}

int main(void)
{
    size_t i;

    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; i < NPCASES; i++)
        run_pcase(&pcases[i]);
    run_generated_cases();
    run_tchar_test();
    for (i = 0; i < NCCASES; i++)
        run_ccase(&ccases[i]);
    run_generated_ccases();
    free(gen_buf);

    printf("# %zu request cases, %zu chunked cases, plus generated limit cases\n",
           (size_t)NPCASES, (size_t)NCCASES);
    return done_testing();
}
