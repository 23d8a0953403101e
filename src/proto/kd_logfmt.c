/* kd_logfmt.c: LogFormat strings compiled, and the bytes of a log line. See kd_logfmt.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                    /* tm_gmtoff */
#endif
#include "kd_logfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Keeps n bytes of s in f->text; NULL when it is full. */
static const char *keep(kd_logfmt *f, const char *s, size_t n)
{
    char *p;
    if (f->text_len + n > KD_LF_MAX_TEXT)
        return NULL;
    p = f->text + f->text_len;
    memcpy(p, s, n);
    f->text_len += n;
    return p;
}

static int add(kd_logfmt *f, int kind, const char *arg, size_t len)
{
    kd_lf_op *op;
    if (f->nops == KD_LF_MAX_OPS)
        return -1;
    op = &f->ops[f->nops];
    op->kind = kind;
    op->arg = len ? keep(f, arg, len) : "";
    op->arg_len = len;
    if (!op->arg)
        return -1;
    /* adjacent text is one op */
    if (kind == KD_LF_TEXT && f->nops > 0 && f->ops[f->nops - 1].kind == KD_LF_TEXT &&
        f->ops[f->nops - 1].arg + f->ops[f->nops - 1].arg_len == op->arg) {
        f->ops[f->nops - 1].arg_len += len;
        return 0;
    }
    f->nops++;
    return 0;
}

/* %{NAME}i: the env key of a request header, as PSGI spells it */
static int add_header_key(kd_logfmt *f, const char *name, size_t len)
{
    char key[128];
    size_t i;
    if (len + 5 > sizeof key)
        return -1;
    for (i = 0; i < len; i++) {
        char c = name[i] == '-' ? '_' : name[i];
        key[5 + i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    if (!((len == 14 && memcmp(key + 5, "CONTENT_LENGTH", 14) == 0) ||
          (len == 12 && memcmp(key + 5, "CONTENT_TYPE", 12) == 0))) {
        memcpy(key, "HTTP_", 5);
        return add(f, KD_LF_ENV, key, len + 5);
    }
    return add(f, KD_LF_ENV, key + 5, len);
}

static int add_char(kd_logfmt *f, char c)
{
#define ENV(kind, key) add(f, kind, key, sizeof key - 1)
    switch (c) {
    case '%': return add(f, KD_LF_TEXT, "%", 1);
    case 'a': return ENV(KD_LF_ENV, "REMOTE_ADDR");
    case 'B': return add(f, KD_LF_BYTES0, NULL, 0);
    case 'b': return add(f, KD_LF_BYTES, NULL, 0);
    case 'D': return add(f, KD_LF_USEC, NULL, 0);
    case 'H': return ENV(KD_LF_ENV, "SERVER_PROTOCOL");
    case 'h': return ENV(KD_LF_ENV_OR, "REMOTE_ADDR");
    case 'L': return ENV(KD_LF_ENV, "kamado.request_id");
    case 'l': return add(f, KD_LF_TEXT, "-", 1);
    case 'm': return add(f, KD_LF_METHOD, NULL, 0);
    case 'P': return add(f, KD_LF_PID, NULL, 0);
    case 'p': return ENV(KD_LF_ENV, "SERVER_PORT");
    case 'q': return add(f, KD_LF_QUERY, NULL, 0);
    case 'r': return add(f, KD_LF_REQUEST, NULL, 0);
    case 's': return add(f, KD_LF_STATUS, NULL, 0);
    case 'T': return add(f, KD_LF_SEC, NULL, 0);
    case 't': return add(f, KD_LF_TIME, NULL, 0);
    case 'U': return add(f, KD_LF_PATH, NULL, 0);
    case 'u': return ENV(KD_LF_ENV_OR, "REMOTE_USER");
    case 'V': return add(f, KD_LF_HOST, NULL, 0);
    case 'v': return ENV(KD_LF_ENV_OR, "SERVER_NAME");
    default: return -1;
    }
#undef ENV
}

int kd_logfmt_compile(kd_logfmt *f, const char *fmt, size_t len)
{
    size_t i = 0;
    memset(f, 0, sizeof *f);
    f->second = -1;
    while (i < len) {
        size_t j;
        if (fmt[i] != '%' || i + 1 == len) {
            for (j = i + 1; j < len && fmt[j] != '%'; j++)
                ;
            if (add(f, KD_LF_TEXT, fmt + i, j - i) != 0)
                return -1;
            i = j;
            continue;
        }
        if (fmt[i + 1] == '{') {
            /* %{ARG}X: ARG is at least one byte, up to the first } that
             * a letter follows, on one line (the compiler's .+? ) */
            for (j = i + 3; j + 1 < len && fmt[j - 1] != '\n'; j++) {
                if (fmt[j] == '}' && is_letter(fmt[j + 1]))
                    break;
            }
            if (j + 1 < len && fmt[j] == '}' && is_letter(fmt[j + 1]) &&
                !memchr(fmt + i + 2, '\n', j - i - 2)) {
                const char *arg = fmt + i + 2;
                size_t n = j - i - 2;
                int rv;
                switch (fmt[j + 1]) {
                case 'i': rv = add_header_key(f, arg, n); break;
                case 'o': rv = add(f, KD_LF_RESP_HEADER, arg, n); break;
                case 'e': rv = add(f, KD_LF_ENV, arg, n); break;
                default: rv = -1;                 /* %{FORMAT}t and others */
                }
                if (rv != 0)
                    return -1;
                i = j + 2;
                continue;
            }
        }
        j = i + 1;
        if (fmt[j] == '<' || fmt[j] == '>')
            j++;
        if (j < len && (is_letter(fmt[j]) || fmt[j] == '%')) {
            if (add_char(f, fmt[j]) != 0)
                return -1;
            i = j + 1;
            continue;
        }
        if (add(f, KD_LF_TEXT, "%", 1) != 0)    /* a % that starts nothing */
            return -1;
        i++;
    }
    return 0;
}

int kd_lf_reserve(kd_lf_buf *b, size_t more)
{
    size_t cap;
    char *p;
    if (b->len + more <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more)
        cap *= 2;
    p = realloc(b->buf, cap);
    if (!p)
        return -1;
    b->buf = p;
    b->cap = cap;
    return 0;
}

int kd_lf_put(kd_lf_buf *b, const char *s, size_t n)
{
    if (kd_lf_reserve(b, n) != 0)
        return -1;
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    return 0;
}

int kd_lf_put_escaped(kd_lf_buf *b, const char *s, size_t n, int dash)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;
    char *d;
    if (n == 0)
        return dash ? kd_lf_put(b, "-", 1) : 0;
    if (kd_lf_reserve(b, 4 * n) != 0)
        return -1;
    d = b->buf + b->len;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            *d++ = '\\';
            *d++ = (char)c;
        } else if (c < 0x20 || c > 0x7e) {
            *d++ = '\\';
            *d++ = 'x';
            *d++ = hex[c >> 4];
            *d++ = hex[c & 15];
        } else {
            *d++ = (char)c;
        }
    }
    b->len = (size_t)(d - b->buf);
    return 0;
}

int kd_lf_put_int(kd_lf_buf *b, int64_t v)
{
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {                              /* (snprintf costs ten times as much) */
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return kd_lf_put(b, p, (size_t)(tmp + sizeof tmp - p));
}

const char *kd_logfmt_time(kd_logfmt *f, long second, size_t *len)
{
    static const char month[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (second != f->second) {
        struct tm tm;
        time_t t = (time_t)second;
        long off;
        int n;
        localtime_r(&t, &tm);
        off = tm.tm_gmtoff / 60;
        n = snprintf(f->time_text, sizeof f->time_text, "%02d/%s/%04d:%02d:%02d:%02d %c%02ld%02ld",
                     tm.tm_mday, month[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, off < 0 ? '-' : '+', (off < 0 ? -off : off) / 60, (off < 0 ? -off : off) % 60);
        f->time_len = n > 0 ? (size_t)n : 0;
        f->second = second;
    }
    *len = f->time_len;
    return f->time_text;
}
