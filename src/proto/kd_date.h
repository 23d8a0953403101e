/* kd_date.h: HTTP dates read as Apache reads a CGI script's Last-Modified,
 * and written in RFC 1123 form.
 *
 * Plain C99, no perl.h.
 */
#ifndef KD_DATE_H
#define KD_DATE_H

#include <stddef.h>

/* The length of "Sun, 06 Nov 1994 08:49:37 GMT". */
#define KD_HTTP_DATE_LEN 29

/* S (LEN bytes, no NUL needed) read as APR's apr_date_parse_http reads
 * it: RFC 1123 ("Sun, 06 Nov 1994 08:49:37 GMT", also with a one-digit
 * day), RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") or asctime ("Sun Nov
 * 6 08:49:37 1994"). The weekday and everything after the time (the
 * zone too: a date is always taken as GMT) are ignored; months are
 * case-sensitive. Seconds since the epoch, or -1 for a date APR rejects
 * (unknown form, impossible day or time, before 1970). */
long long kd_http_date_parse(const char *s, size_t len);

/* T (seconds since the epoch, 0 or more, before year 10000) written into
 * OUT as "Sun, 06 Nov 1994 08:49:37 GMT" with a NUL after it; returns
 * KD_HTTP_DATE_LEN, or 0 when T is out of that range. */
size_t kd_http_date_format(long long t, char out[KD_HTTP_DATE_LEN + 1]);

#endif
