/* kd_parser.h: HTTP/1.x request-head parser (kd_parser.c) and chunked-body decoder (kd_chunked.c).
 *
 * Plain C99, no perl.h: unit-tested and fuzzed on its own (t/c/, fuzz/).
 * The parser never allocates and never prints; it points into the caller's
 * buffer and reports a status code for the response the server must send.
 * The limits below are mirrored in the LIMITS section of lib/Kamado.pm.
 */
#ifndef KD_PARSER_H
#define KD_PARSER_H

#include <stddef.h>
#include <stdint.h>

#define KD_MAX_HEADERS 100          /* more -> 431 */
#define KD_MAX_REQUEST_LINE 8192    /* longer -> 414 */
#define KD_MAX_HEAD 65536           /* request line + headers; larger -> 431 */
#define KD_MAX_CHUNK_LINE 4096      /* chunk size + extensions */
#define KD_MAX_TRAILERS 8192        /* all trailer lines together */

/* return values of kd_parse_request() */
#define KD_INCOMPLETE (-2)
#define KD_ERROR (-1)

typedef struct {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} kd_header;

typedef struct {
    const char *method;
    size_t method_len;
    const char *target;             /* request-target as sent */
    size_t target_len;
    const char *path;               /* origin-form path inside target */
    size_t path_len;
    const char *query;              /* after '?', or NULL */
    size_t query_len;
    const char *authority;          /* host[:port] of an absolute-form target */
    size_t authority_len;           /* 0: origin-form or asterisk-form */
    int minor_version;              /* 0 or 1 */
    int64_t content_length;         /* -1 when absent */
    int chunked;                    /* Transfer-Encoding: chunked */
    int keepalive;                  /* from version and Connection */
    int expect_continue;            /* HTTP/1.1 Expect: 100-continue */
    int is_head;                    /* method is HEAD */
    int error_status;               /* set when KD_ERROR is returned */
    size_t num_headers;
    /* KD_MAX_HEADERS entries the caller gives; last: not cleared per parse */
    kd_header *headers;
} kd_request;

/* Parses the request head at buf[0..len).
 * Returns the length of the head (through the empty line) when complete,
 * KD_INCOMPLETE when more bytes are needed, or KD_ERROR with
 * r->error_status set to the status to answer (400, 414, 417, 431, 501, 505).
 * A head that would exceed a limit is reported as soon as the limit is
 * passed, so a client cannot make the server buffer without bound. */
int kd_parse_request(const char *buf, size_t len, kd_request *r);

/* What kd_parse_more keeps of a head it found incomplete. */
typedef struct {
    size_t seen;                    /* the bytes it parsed; 0: none yet */
    int line_done;                  /* the request line was complete among them */
} kd_head_scan;

/* kd_parse_request for a head that arrives in pieces, in one buffer that
 * grows: its result is always the one kd_parse_request would give, but
 * bytes an earlier call saw are not parsed again until a line may have
 * ended (a LF came), a line began (its first byte may fail early) or a
 * limit may have been passed, so a head sent a byte at a time costs a
 * parse a line, not a parse a byte. scan starts zeroed and is zeroed
 * again by any result but KD_INCOMPLETE; the caller zeroes it when the
 * head's first byte is no longer at buf[0] of the same bytes. r is only
 * meaningful when the result is not KD_INCOMPLETE. */
int kd_parse_more(const char *buf, size_t len, kd_head_scan *scan, kd_request *r);

/* Incremental decoder for a chunked body (RFC 9112 section 7.1). */
typedef struct {
    int state;
    uint64_t remaining;             /* bytes left in the current chunk */
    size_t line_len;                /* bytes of the current size line */
    size_t trailer_len;             /* bytes of trailers so far */
    int done;                       /* last chunk and trailers consumed */
} kd_chunked;

void kd_chunked_init(kd_chunked *d);

/* Decodes in[0..in_len) into out (out may equal in: decoding in place is
 * safe because output never overtakes input). Stores the number of decoded
 * bytes in *out_len and returns the number of input bytes consumed, which is
 * less than in_len only once d->done is set (the rest belongs to the next
 * request). Returns -1 on malformed input. */
long kd_chunked_decode(kd_chunked *d, const char *in, size_t in_len,
                       char *out, size_t *out_len);

/* 1 when c may appear in a token (RFC 9110 section 5.6.2). */
int kd_is_tchar(unsigned char c);

/* c in lower case (ASCII letters only: field names and tokens are ASCII
 * whatever the locale). Inline: the parser and the head builder call it on
 * every field name. */
static inline int kd_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* 1 when s[0..len) is lit, a lower-case literal, in any case. */
static inline int kd_ci_eq(const char *s, size_t len, const char *lit)
{
    size_t i;
    for (i = 0; i < len; i++)
        if (lit[i] == '\0' || kd_lower((unsigned char)s[i]) != lit[i])
            return 0;
    return lit[len] == '\0';
}

#endif
