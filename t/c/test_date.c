/* t/c/test_date.c: C unit tests for src/proto/kd_date.c, printed as TAP ("ok N -
 * name", diagnostics as "# ...", plan "1..N" last). Run by t/c-date.t
 * (system compiler, then clang ASan+UBSan if present).
 *
 * kd_http_date_parse: a table of what APR's apr_date_parse_http accepts
 * (each form, a one-digit day, leap days, a leap second, the zone ignored)
 * and rejects (two-digit-year RFC 1123, lower-case months, impossible
 * days, before 1970, no space after the time), each parsed from a heap
 * buffer of exactly its length (no NUL after it: ASan sees an over-read).
 * kd_http_date_format: against gmtime_r + strftime over a spread of times,
 * and parse(format(t)) == t.
 */
#define _POSIX_C_SOURCE 200809L
#include "../../src/kd_engine.c"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"

static long long parse_exact(const char *s)
{
    size_t len = strlen(s);
    char *buf = malloc(len ? len : 1);
    long long t;
    memcpy(buf, s, len);
    t = kd_http_date_parse(buf, len);
    free(buf);
    return t;
}

static const struct { const char *in; long long want; } cases[] = {
    { "Sun, 06 Nov 1994 08:49:37 GMT", 784111777 },
    { "Sunday, 06-Nov-94 08:49:37 GMT", 784111777 },
    { "Sun Nov  6 08:49:37 1994", 784111777 },
    { "Sun, 6 Nov 1994 08:49:37 GMT", 784111777 },
    { "Wed Nov 25 18:12:34 2026", 1795630354 },
    { "Tue, 15 Sep 2020 12:26:40 +0000", 1600172800 },
    { "Tue, 15 Sep 2020 12:26:40 +0200", 1600172800 },    /* the zone is ignored */
    { "  Tue, 15 Sep 2020 12:26:40 GMT", 1600172800 },
    { "Xyz, 15 Sep 2020 12:26:40 GMT", 1600172800 },      /* so is the weekday */
    { "Tue, 15 Sep 2020 12:26:40 ", 1600172800 },
    { "Tue Sep 15 12:26:40 2020 GMT", 1600172800 },
    { "Tue, 29 Feb 2000 00:00:00 GMT", 951782400 },
    { "Thu, 01 Jan 1970 00:00:00 GMT", 0 },
    { "Sun, 31 Dec 2069 23:59:59 GMT", 3155759999 },
    { "Thursday, 01-Jan-70 00:00:00 GMT", 0 },
    { "Sunday, 31-Dec-69 23:59:59 GMT", 3155759999 },    /* 69: 2069 */
    { "Thu, 01 Jan 1970 00:00:61 GMT", 61 },             /* a leap second, carried */
    { "Tue, 15 Sep 2020 12:26:40", -1 },                  /* no space after the time */
    { "Tue, 15 Sep 20 12:26:40 GMT", -1 },                /* a two-digit year */
    { "Tue, 15 sep 2020 12:26:40 GMT", -1 },
    { "Tue, 15 SEP 2020 12:26:40 GMT", -1 },
    { "Tue, 15 Sept 2020 12:26:40 GMT", -1 },
    { "Tue, 31 Sep 2020 12:26:40 GMT", -1 },
    { "Tue, 00 Sep 2020 12:26:40 GMT", -1 },
    { "Tue, 32 Sep 2020 12:26:40 GMT", -1 },
    { "Tue, 29 Feb 1900 00:00:00 GMT", -1 },
    { "Tue, 29 Feb 2001 00:00:00 GMT", -1 },
    { "Tue, 30 Feb 2000 00:00:00 GMT", -1 },
    { "Tue, 15 Sep 2020 24:00:00 GMT", -1 },
    { "Tue, 15 Sep 2020 12:60:00 GMT", -1 },
    { "Tue, 15 Sep 2020 12:00:62 GMT", -1 },
    { "Wed, 31 Dec 1969 23:59:59 GMT", -1 },
    { "Wed, 31 Dec 1869 23:59:59 GMT", -1 },
    { "Tue, 15 Sep 1820 12:26:40 GMT", -1 },
    { "Tue Sep 15 12:26:40 1820", -1 },
    { "Tue, 1 Sep 1820 12:26:40 GMT", -1 },
    { "2020-09-15T12:26:40Z", -1 },
    { "1600172800", -1 },
    { "garbage", -1 },
    { "", -1 },
    { "   ", -1 },
    { "Tue,", -1 },
    { "Tue, ", -1 },
    { "Tue Sep 15 12:26:40 20", -1 },
};

int main(void)
{
    size_t i;
    char name[256], out[KD_HTTP_DATE_LEN + 1];
    long long t;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long long got = parse_exact(cases[i].in);
        snprintf(name, sizeof name, "parse '%s': %lld", cases[i].in, cases[i].want);
        ok(got == cases[i].want, "%s", name);
        if (got != cases[i].want)
            printf("# got %lld\n", got);
    }
    {
        /* a NUL ends the date, as in APR's string */
        static const char with_nul[] = "Sun, 06 Nov 1994 08:49:37 GMT\0junk";
        ok(kd_http_date_parse(with_nul, sizeof with_nul - 1) == 784111777, "parse: a NUL after the date ends it");
        ok(kd_http_date_parse("Sun, 06 Nov\0 1994 08:49:37 GMT", 30) == -1, "parse: a NUL inside the date: rejected");
    }

    ok(kd_http_date_format(784111777, out) == KD_HTTP_DATE_LEN && strcmp(out, "Sun, 06 Nov 1994 08:49:37 GMT") == 0,
        "format 784111777");
    ok(kd_http_date_format(0, out) == KD_HTTP_DATE_LEN && strcmp(out, "Thu, 01 Jan 1970 00:00:00 GMT") == 0,
        "format 0");
    ok(kd_http_date_format(253402300799LL, out) == KD_HTTP_DATE_LEN
        && strcmp(out, "Fri, 31 Dec 9999 23:59:59 GMT") == 0, "format the last second of 9999");
    ok(kd_http_date_format(253402300800LL, out) == 0, "format: year 10000 is out of range");
    ok(kd_http_date_format(-1, out) == 0, "format: before 1970 is out of range");
    {
        int bad_fmt = 0, bad_trip = 0;
        for (t = 0; t < 253402300800LL; t += 86399LL * 37 + 12345) {
            time_t tt = (time_t)t;
            struct tm tm;
            char want[64];
            gmtime_r(&tt, &tm);
            strftime(want, sizeof want, "%a, %d %b %Y %H:%M:%S GMT", &tm);
            if (kd_http_date_format(t, out) != KD_HTTP_DATE_LEN || strcmp(out, want) != 0) {
                if (bad_fmt++ < 3)
                    printf("# %lld: got '%s', want '%s'\n", t, out, want);
            } else if (kd_http_date_parse(out, KD_HTTP_DATE_LEN) != t) {
                if (bad_trip++ < 3)
                    printf("# %lld: '%s' parsed as %lld\n", t, out, kd_http_date_parse(out, KD_HTTP_DATE_LEN));
            }
        }
        ok(bad_fmt == 0, "format equals gmtime_r + strftime from 1970 to 9999");
        ok(bad_trip == 0, "parse(format(t)) == t");
    }
    return done_testing();
}
