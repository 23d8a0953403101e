/* kd_logfmt.h: Apache LogFormat strings compiled for the access log, and
 * the byte work of its lines (escaping, numbers, the %t text).
 *
 * Plain C99, no perl.h. kd_logfmt_compile() parses a format the way
 * Apache::LogFormat::Compiler does (which checks it first, and formats
 * the lines itself when this refuses one): text, and directives
 * %X, %>X, %<X and %{ARG}X. The caller fetches each directive's value
 * (from the PSGI env, the response) and appends it with the helpers
 * below; kd_logfmt_time() makes the %t text once a second.
 */
#ifndef KD_LOGFMT_H
#define KD_LOGFMT_H

#include <stddef.h>
#include <stdint.h>

#define KD_LF_MAX_OPS 64
#define KD_LF_MAX_TEXT 1024            /* literal text and arguments, in all */

enum {
    KD_LF_TEXT,         /* literal text */
    KD_LF_ENV,          /* an env value, escaped; "-" when missing or empty */
    KD_LF_ENV_OR,       /* the same, with "-" also for a false value ("0") */
    KD_LF_HOST,         /* %V: HTTP_HOST, else SERVER_NAME, else "-" */
    KD_LF_REQUEST,      /* %r: method, target, protocol */
    KD_LF_METHOD,       /* %m: escaped, "" when missing */
    KD_LF_PATH,         /* %U: PATH_INFO, escaped */
    KD_LF_QUERY,        /* %q: "?" and the query, or nothing */
    KD_LF_STATUS,       /* %s, %>s */
    KD_LF_BYTES,        /* %b: "-" for none */
    KD_LF_BYTES0,       /* %B: "0" for none */
    KD_LF_USEC,         /* %D */
    KD_LF_SEC,          /* %T */
    KD_LF_TIME,         /* %t */
    KD_LF_PID,          /* %P */
    KD_LF_RESP_HEADER   /* %{NAME}o: escaped, "-" when missing */
};

typedef struct {
    int kind;
    const char *arg;                   /* TEXT's text, an env key, a header name */
    size_t arg_len;
} kd_lf_op;

typedef struct {
    kd_lf_op ops[KD_LF_MAX_OPS];
    int nops;
    char text[KD_LF_MAX_TEXT];         /* what the ops' args point into */
    size_t text_len;
    long second;                       /* the second whose %t text is kept; -1 */
    char time_text[40];
    size_t time_len;
} kd_logfmt;

/* 0, or -1 when the format has a directive (or is larger than) this
 * compiler handles; the caller then formats lines another way. */
int kd_logfmt_compile(kd_logfmt *f, const char *fmt, size_t len);

/* A growing line buffer. */
typedef struct {
    char *buf;
    size_t len, cap;
} kd_lf_buf;

/* 0, or -1 without memory (the buffer unchanged). */
int kd_lf_reserve(kd_lf_buf *b, size_t more);
int kd_lf_put(kd_lf_buf *b, const char *s, size_t n);
/* s escaped as Apache's ap_escape_logitem: " and \ with a backslash,
 * bytes outside printable ASCII as \xhh; "-" for an empty one when dash. */
int kd_lf_put_escaped(kd_lf_buf *b, const char *s, size_t n, int dash);
int kd_lf_put_int(kd_lf_buf *b, int64_t v);

/* %t's text for epoch second `second`, in local time with its offset, as
 * Apache writes it ("10/Oct/2000:13:55:36 -0700", English month names
 * whatever the locale), made when the second changes. */
const char *kd_logfmt_time(kd_logfmt *f, long second, size_t *len);

#endif
