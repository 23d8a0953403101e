/* t/c/test_logfmt.c: C unit tests for src/proto/kd_logfmt.c, printed as TAP.
 * Run by t/c-logfmt.t (system compiler, then clang ASan+UBSan if present).
 *
 * kd_logfmt_compile: the ops of the nicknames and of every directive it
 * takes, a request header's env key (CONTENT_TYPE without HTTP_), %>s and
 * %<s, adjacent text as one op, a % that starts nothing kept as text;
 * refused: %{FORMAT}t, unknown directives, more ops than it holds. Each
 * format is read from a heap buffer of exactly its length (ASan sees an
 * over-read). kd_lf_put_escaped: as Apache's ap_escape_logitem.
 * kd_logfmt_time: against localtime_r + strftime over a spread of times.
 */
#include "../../src/kd_engine.c"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"

static const char *const KIND[] = {"TEXT", "ENV", "ENV_OR", "HOST", "REQUEST", "METHOD", "PATH", "QUERY",
                                   "STATUS", "BYTES", "BYTES0", "USEC", "SEC", "TIME", "PID", "RESP_HEADER"};

/* The ops of fmt as "KIND:arg|KIND:arg...", or "refused". */
static const char *ops_of(const char *fmt)
{
    static char out[8192];
    static kd_logfmt f;
    size_t len = strlen(fmt), at = 0;
    char *buf = malloc(len ? len : 1);
    int i, rv;
    memcpy(buf, fmt, len);
    rv = kd_logfmt_compile(&f, buf, len);
    free(buf);
    if (rv != 0)
        return "refused";
    out[0] = '\0';
    for (i = 0; i < f.nops && at < sizeof out; i++)
        at += (size_t)snprintf(out + at, sizeof out - at, "%s%s:%.*s", i ? "|" : "", KIND[f.ops[i].kind],
                               (int)f.ops[i].arg_len, f.ops[i].arg);
    return out;
}

static void compiles(const char *fmt, const char *want)
{
    const char *got = ops_of(fmt);
    if (strcmp(got, want) != 0)
        diag("got:  %s", got), diag("want: %s", want);
    tap("compile '%.60s'", fmt);
}

static void escapes(const char *in, size_t n, int dash, const char *want)
{
    kd_lf_buf b = {NULL, 0, 0};
    int rv = kd_lf_put_escaped(&b, in, n, dash);
    ok(rv == 0 && b.len == strlen(want) && (b.len == 0 || memcmp(b.buf, want, b.len) == 0), "escaped as %s", want);
    free(b.buf);
}

int main(void)
{
    static char many[2 * KD_LF_MAX_OPS + 3];
    kd_logfmt f;
    long t;
    int i;

    compiles("%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"",
             "ENV_OR:REMOTE_ADDR|TEXT: - |ENV_OR:REMOTE_USER|TEXT: |TIME:|TEXT: \"|REQUEST:|TEXT:\" |STATUS:|TEXT: |"
             "BYTES:|TEXT: \"|ENV:HTTP_REFERER|TEXT:\" \"|ENV:HTTP_USER_AGENT|TEXT:\"");
    compiles("%a %B %D %T %v %V %p %P %m %U%q %H %L %s %<s %%",
             "ENV:REMOTE_ADDR|TEXT: |BYTES0:|TEXT: |USEC:|TEXT: |SEC:|TEXT: |ENV_OR:SERVER_NAME|TEXT: |HOST:|TEXT: |"
             "ENV:SERVER_PORT|TEXT: |PID:|TEXT: |METHOD:|TEXT: |PATH:|QUERY:|TEXT: |ENV:SERVER_PROTOCOL|TEXT: |"
             "ENV:kamado.request_id|TEXT: |STATUS:|TEXT: |STATUS:|TEXT: %");
    compiles("%{Content-Type}i %{content-length}i %{X-Forwarded-For}i",
             "ENV:CONTENT_TYPE|TEXT: |ENV:CONTENT_LENGTH|TEXT: |ENV:HTTP_X_FORWARDED_FOR");
    compiles("%{Set-Cookie}o %{psgi.url_scheme}e", "RESP_HEADER:Set-Cookie|TEXT: |ENV:psgi.url_scheme");
    compiles("plain text", "TEXT:plain text");
    compiles("100% % %", "TEXT:100% % %");
    compiles("%{}i", "TEXT:%{}i");
    compiles("%{a}-}i", "ENV:HTTP_A}_");
    compiles("", "");
    compiles("%{%Y-%m}t", "refused");
    compiles("%Z", "refused");
    compiles("%{X}Z", "refused");
    compiles("%>Z", "refused");
    for (i = 0; i < KD_LF_MAX_OPS + 1; i++)
        memcpy(many + 2 * i, "%b", 2);
    compiles(many, "refused");
    many[2 * (KD_LF_MAX_OPS - 1)] = '\0';
    ok(strcmp(ops_of(many), "refused") != 0, "%d ops fit", KD_LF_MAX_OPS - 1);

    escapes("plain/path?x=1", 14, 1, "plain/path?x=1");
    escapes("", 0, 1, "-");
    escapes("", 0, 0, "");
    escapes("a\"b\\c", 5, 1, "a\\\"b\\\\c");
    escapes("\n\t\x01\x7f\xff", 5, 1, "\\x0a\\x09\\x01\\x7f\\xff");
    escapes("nul\0in", 6, 1, "nul\\x00in");
    /* a request line's protocol that would clear and retitle a terminal */
    escapes("HTTP/1.1\x1b[2J\x1b]0;pwned\x07", 22, 0, "HTTP/1.1\\x1b[2J\\x1b]0;pwned\\x07");

    kd_logfmt_compile(&f, "%t", 2);
    for (t = 0; t < 4000000000L; t += 86400L * 37 + 3607) {
        char want[64];
        struct tm tm;
        time_t tt = (time_t)t;
        size_t n;
        const char *got = kd_logfmt_time(&f, t, &n);
        localtime_r(&tt, &tm);
        strftime(want, sizeof want, "%d/%b/%Y:%H:%M:%S %z", &tm);    /* (the C locale: English) */
        if (n != strlen(want) || memcmp(got, want, n) != 0)
            diag("%ld: got %.*s, want %s", t, (int)n, got, want);
    }
    tap("the %%t text, against strftime, over 130 years");
    return done_testing();
}
