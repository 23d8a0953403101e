/* libFuzzer harness: the CGI output head parser (src/proto/kd_cgi_head.c) on
 * arbitrary script output.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_cgi_head.c -o fuzz/build/fuzz_cgi_head_libfuzzer
 *
 * Input: the bytes a script printed (any bytes).
 *
 * Beyond "no crash" (the output is parsed from a heap copy of exactly its
 * size, so ASan sees any read past it): the head is incomplete exactly
 * when the output neither starts with an empty line nor holds one (LF LF
 * or LF CR LF); a complete head ends inside the output, before the first
 * such empty line, and what lies between head and rest is that empty
 * line's bytes; every line returned points inside the head, a name is
 * non-empty and free of ':', white space, CR and LF, and is followed by
 * its ':', a value holds no LF and is trimmed of spaces and tabs (a
 * folded line's at its start), never the first line, and never a Status;
 * the CR of a CR LF is never a value's; a bad line points inside the head
 * and holds no LF, and a bad Status is not three digits followed by no
 * word character (perl's \w, Latin-1 letters too); a status is 1..999;
 * a redirect is a non-empty local path; a Last-Modified field is there
 * only when a line held a date (1970..9999), once, and its date is sent in
 * RFC 1123 form. Parsing again with less room (as
 * the XS does with more) gives the same result and the same first lines.
 */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ROOM 64

static int has_lf(const char *s, size_t n)
{
    return memchr(s, '\n', n) != NULL;
}

static int is_sptab(char c)
{
    return c == ' ' || c == '\t';
}

/* perl's \w on a byte (Latin-1's letters too), said another way */
static int is_word(unsigned char c)
{
    static const char latin1[] = "\xaa\xb5\xba";
    if (c < 0x80)
        return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
    if (c >= 0xC0)
        return c != 0xD7 && c != 0xF7;
    return memchr(latin1, c, 3) != NULL;
}

/* the offset of the first empty line's LF LF or LF CR LF, or -1 */
static long first_blank(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i + 1 < n; i++) {
        if (s[i] != '\n')
            continue;
        if (s[i + 1] == '\n' || (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n'))
            return (long)i;
    }
    return -1;
}

static int same_head(const kd_cgi_head *a, const kd_cgi_head *b)
{
    return a->error == b->error && a->bad_off == b->bad_off && a->bad_len == b->bad_len
        && a->status == b->status && a->redirect == b->redirect
        && a->location_off == b->location_off && a->location_len == b->location_len
        && a->modified == b->modified && a->modified_field == b->modified_field
        && a->nfields == b->nfields && a->head_len == b->head_len && a->rest_off == b->rest_off;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    kd_cgi_field fields[ROOM], few[3];
    kd_cgi_head h, h2;
    size_t i, stored, hl, gap;
    long blank;
    char *o = malloc(size ? size : 1);
    int complete, starts_empty;
    if (!o)
        return 0;
    memcpy(o, data, size);
    complete = kd_cgi_output_parse(o, size, &h, fields, ROOM);
    starts_empty = (size >= 1 && o[0] == '\n') || (size >= 2 && o[0] == '\r' && o[1] == '\n');
    blank = first_blank(o, size);
    if (complete != (starts_empty || blank >= 0))
        abort();
    if (!complete)
        goto done;
    hl = h.head_len;
    if (hl > size || h.rest_off > size || h.rest_off <= hl)
        abort();
    gap = h.rest_off - hl;
    if (starts_empty) {
        if (hl != 0 || gap != (o[0] == '\n' ? 1u : 2u))
            abort();
    } else {
        /* the head stops at the first empty line: its LF, less a CR before it */
        size_t lf = (size_t)blank;
        if (!(hl == lf || (hl + 1 == lf && o[hl] == '\r')))
            abort();
        if (hl > 0 && hl == lf && o[hl - 1] == '\r')
            abort();
        for (i = hl; i < h.rest_off; i++)
            if (o[i] != '\r' && o[i] != '\n')
                abort();
        if (o[h.rest_off - 1] != '\n' || gap < 2 || gap > 4)
            abort();
    }
    if (h.status < 1 || h.status > 999)
        abort();
    if (h.error != KD_CGI_HEAD_OK) {
        if (h.error != KD_CGI_HEAD_BAD_HEADER && h.error != KD_CGI_HEAD_BAD_STATUS)
            abort();
        if (h.bad_off > hl || h.bad_len > hl - h.bad_off || has_lf(o + h.bad_off, h.bad_len))
            abort();
        if (h.error == KD_CGI_HEAD_BAD_STATUS) {
            /* three digits with no word character after them are good */
            const unsigned char *b = (const unsigned char *)o + h.bad_off;
            if (h.bad_len >= 3 && b[0] >= '0' && b[0] <= '9' && b[1] >= '0' && b[1] <= '9'
                && b[2] >= '0' && b[2] <= '9' && (h.bad_len == 3 || !is_word(b[3])))
                abort();
        }
    }
    if (h.redirect && (h.error != KD_CGI_HEAD_OK || h.location_len == 0 || o[h.location_off] != '/'
                       || h.status != 200))
        abort();
    if (h.location_off > hl || h.location_len > hl - h.location_off
        || has_lf(o + h.location_off, h.location_len))
        abort();
    stored = h.nfields < ROOM ? h.nfields : ROOM;
    for (i = 0; i < stored; i++) {
        const kd_cgi_field *f = &fields[i];
        const char *v = o + f->value_off;
        size_t j;
        if (f->value_off > hl || f->value_len > hl - f->value_off || has_lf(v, f->value_len))
            abort();
        if (f->value_len > 0 && is_sptab(v[0]))
            abort();
        /* the CR of a line's CR LF is the line end's, not the value's */
        if (f->value_len > 0 && v[f->value_len - 1] == '\r'
            && f->value_off + f->value_len < hl && v[f->value_len] == '\n')
            abort();
        if (f->name_len == 0) {
            if (i == 0 || f->name_off != 0)
                abort();            /* a folded line continues a field */
            continue;
        }
        if (f->name_off > hl || f->name_len > hl - f->name_off || f->name_off + f->name_len >= hl)
            abort();
        if (o[f->name_off + f->name_len] != ':' || f->value_off <= f->name_off + f->name_len)
            abort();
        for (j = 0; j < f->name_len; j++) {
            char c = o[f->name_off + j];
            if (c == ':' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v')
                abort();
        }
        if (f->name_len == 6 && strncasecmp(o + f->name_off, "status", 6) == 0)
            abort();
        if (f->name_len == 13 && strncasecmp(o + f->name_off, "last-modified", 13) == 0
            && (h.modified < 0 || h.modified_field != i))
            abort();                /* one Last-Modified, with a date */
        if (f->value_len > 0 && is_sptab(v[f->value_len - 1]))
            abort();
        if (i > 0 && f->name_off < fields[i - 1].value_off + fields[i - 1].value_len)
            abort();                /* lines come in order, without overlap */
    }
    if (h.modified >= 0 && h.error == KD_CGI_HEAD_OK) {
        char date[KD_HTTP_DATE_LEN + 1];
        if (h.modified > 253402300799LL || h.modified_field >= h.nfields)
            abort();
        if (h.modified_field < stored && fields[h.modified_field].name_len != 13)
            abort();
        if (kd_cgi_head_modified(&h, h.modified + 1, date) != KD_HTTP_DATE_LEN
            || memcmp(date + KD_HTTP_DATE_LEN - 4, " GMT", 5) != 0
            || kd_http_date_parse(date, KD_HTTP_DATE_LEN) != h.modified)
            abort();
    }
    /* less room: the same answer, the same first lines */
    if (kd_cgi_output_parse(o, size, &h2, few, 3) != 1 || !same_head(&h, &h2))
        abort();
    for (i = 0; i < 3 && i < h.nfields; i++)
        if (memcmp(&few[i], &fields[i], sizeof few[i]) != 0)
            abort();
    if (kd_cgi_output_parse(o, size, &h2, NULL, 0) != 1 || !same_head(&h, &h2))
        abort();
done:
    free(o);
    return 0;
}
