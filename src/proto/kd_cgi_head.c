/* kd_cgi_head.c: a CGI script's output head (see kd_cgi_head.h), for
 * Kamado::CGI::Output. In C, as the head of every response is parsed and
 * Perl's regex engine made it dear. */

#include <string.h>
#include "kd_cgi_head.h"

/* perl's \s, which ends a field's name */
static int
kd_cgi_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* perl's \w on a byte under use 5.024 (Latin-1's letters too): what may
 * not follow a Status's three digits, as the \b of Apache's rule */
static int
kd_cgi_is_word(unsigned char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')
        return 1;
    if (c < 0xC0)
        return c == 0xAA || c == 0xB5 || c == 0xBA;
    return c != 0xD7 && c != 0xF7;
}

/* whether the N bytes at S are NAME (lower case, ASCII), in any case */
static int
kd_cgi_named(const char *s, size_t n, const char *name)
{
    size_t i;
    if (n != strlen(name))
        return 0;
    for (i = 0; i < n; i++) {
        char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
        if (c != name[i])
            return 0;
    }
    return 1;
}

static int
kd_cgi_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int
kd_cgi_bad(kd_cgi_head *h, int error, const char *o, const char *s, const char *stop)
{
    h->error = error;
    h->bad_off = (size_t)(s - o);
    h->bad_len = (size_t)(stop - s);
    return error;
}

int
kd_cgi_head_end(const char *o, size_t len, size_t *head_len, size_t *rest_off)
{
    const char *p = o, *end = o + len, *nl;
    size_t hl = 0, skip = 0;
    if (len >= 1 && o[0] == '\n')
        skip = 1;
    else if (len >= 2 && o[0] == '\r' && o[1] == '\n')
        skip = 2;
    while (!skip && p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
        if (nl + 1 < end && nl[1] == '\n')
            skip = 2;
        else if (nl + 2 < end && nl[1] == '\r' && nl[2] == '\n')
            skip = 3;
        if (skip) {
            hl = (size_t)(nl - o);
            if (hl > 0 && o[hl - 1] == '\r')
                hl--, skip++;
        }
        p = nl + 1;
    }
    if (!skip)
        return 0;
    *head_len = hl;
    *rest_off = hl + skip;
    return 1;
}

int
kd_cgi_head_parse(const char *o, size_t head_len, kd_cgi_head *h,
                  kd_cgi_field *fields, size_t room)
{
    const char *p = o, *end = o + head_len, *location = NULL;
    size_t location_len = 0, n = 0;
    int status = 0, modified = 0;
    h->error = KD_CGI_HEAD_OK;
    h->bad_off = h->bad_len = 0;
    h->status = 200;
    h->nfields = 0;
    h->redirect = 0;
    h->location_off = h->location_len = 0;
    h->modified = -1;
    h->modified_field = 0;
    h->head_len = head_len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *line = p, *stop, *name_end, *value, *raw_end;
        if (!eol)
            eol = end;
        p = eol < end ? eol + 1 : end;
        stop = eol;
        if (stop > line && stop < end && stop[-1] == '\r')
            stop--;    /* (split /\r?\n/: a CR before the LF is the separator's) */
        raw_end = stop;
        if (stop > line && (*line == ' ' || *line == '\t') && n > 0) {
            /* a folded line continues the previous field (RFC 822) */
            while (line < stop && (*line == ' ' || *line == '\t'))
                line++;
            if (n < room) {
                fields[n].name_off = fields[n].name_len = 0;
                fields[n].value_off = (size_t)(line - o);
                fields[n].value_len = (size_t)(stop - line);
            }
            n++;
            continue;
        }
        for (name_end = line; name_end < stop && *name_end != ':' && !kd_cgi_is_space(*name_end); name_end++)
            ;
        if (name_end == line || name_end == stop || *name_end != ':') {
            h->nfields = n;
            return kd_cgi_bad(h, KD_CGI_HEAD_BAD_HEADER, o, line, stop);
        }
        value = name_end + 1;
        while (value < stop && (*value == ' ' || *value == '\t'))
            value++;
        while (stop > value && (stop[-1] == ' ' || stop[-1] == '\t'))
            stop--;
        if (kd_cgi_named(line, (size_t)(name_end - line), "status")) {
            /* three digits, and no word character after them */
            if (stop - value < 3 || !kd_cgi_is_digit(value[0]) || !kd_cgi_is_digit(value[1])
                || !kd_cgi_is_digit(value[2])
                || (stop - value > 3 && kd_cgi_is_word((unsigned char)value[3]))) {
                h->nfields = n;
                return kd_cgi_bad(h, KD_CGI_HEAD_BAD_STATUS, o, value, stop);
            }
            status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
            continue;
        }
        if (kd_cgi_named(line, (size_t)(name_end - line), "location")) {
            location = value;
            location_len = (size_t)(stop - value);
        }
        if (kd_cgi_named(line, (size_t)(name_end - line), "last-modified")) {
            /* as Apache: read as an HTTP date (its trailing blanks too), or
             * dropped; one field, at the first good one, the latest date */
            long long t = kd_http_date_parse(value, (size_t)(raw_end - value));
            if (t < 0)
                continue;
            if (t > h->modified)
                h->modified = t;
            if (modified)
                continue;
            modified = 1;
            h->modified_field = n;
        }
        if (n < room) {
            fields[n].name_off = (size_t)(line - o);
            fields[n].name_len = (size_t)(name_end - line);
            fields[n].value_off = (size_t)(value - o);
            fields[n].value_len = (size_t)(stop - value);
        }
        n++;
    }
    h->nfields = n;
    if (location) {
        h->location_off = (size_t)(location - o);
        h->location_len = location_len;
    }
    if (location && !status) {
        /* a local path: Apache serves it instead, as a new GET */
        if (location_len > 0 && *location == '/')
            h->redirect = 1;
        else
            status = 302;
    }
    h->status = status ? status : 200;
    return KD_CGI_HEAD_OK;
}

int
kd_cgi_output_parse(const char *o, size_t len, kd_cgi_head *h,
                    kd_cgi_field *fields, size_t room)
{
    size_t head_len, rest_off;
    if (!kd_cgi_head_end(o, len, &head_len, &rest_off))
        return 0;
    kd_cgi_head_parse(o, head_len, h, fields, room);
    h->rest_off = rest_off;
    return 1;
}

size_t
kd_cgi_head_modified(const kd_cgi_head *h, long long now, char out[KD_HTTP_DATE_LEN + 1])
{
    /* never later than now: Apache's ap_rationalize_mtime */
    return kd_http_date_format(h->modified < now ? h->modified : now, out);
}

const char *
kd_cgi_head_error_what(int error)
{
    return error == KD_CGI_HEAD_BAD_STATUS ? "Status" : "header";
}
