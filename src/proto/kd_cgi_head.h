/* kd_cgi_head.h: a CGI script's output head, parsed as Apache's mod_cgi
 * does (util_script.c): the lines up to the first empty line (LF or CRLF,
 * as scripts print either), "Name: value" each, a line starting with a
 * space or tab continuing the field before it (RFC 822 folding), a Status
 * of three digits, and a Location with a local path and no Status asking
 * for an internal redirect. Last-Modified as Apache's
 * ap_scan_script_header_err_core has it: read as an HTTP date
 * (kd_date.c), dropped when it is none; one field, at the first good one,
 * carrying the latest date the lines give, never later than now.
 *
 * Plain C99, no perl.h. Nothing is copied: the result is offsets into
 * the output, which the XS (xs/CGIOutput.xsh, Kamado::CGI::Output::_parse)
 * turns into Perl values.
 */
#ifndef KD_CGI_HEAD_H
#define KD_CGI_HEAD_H

#include <stddef.h>
#include "kd_date.h"

enum {
    KD_CGI_HEAD_OK,
    KD_CGI_HEAD_BAD_HEADER,         /* a line that is not "Name: value" */
    KD_CGI_HEAD_BAD_STATUS          /* a Status that is not three digits */
};

/* One line of the head, as offsets into the output. A folded line has
 * name_len 0: its value continues the field before it, joined by one
 * space. Names are never empty and hold no ':', space, tab, CR or LF;
 * values hold no LF and no leading space or tab (nor trailing, but for a
 * folded line's). Status lines are not fields. */
typedef struct {
    size_t name_off, name_len;
    size_t value_off, value_len;
} kd_cgi_field;

typedef struct {
    int error;                      /* KD_CGI_HEAD_OK or why not */
    size_t bad_off, bad_len;        /* the bad line, or the Status's value */
    int status;                     /* 1..999: the Status, 302 for a Location
                                     * elsewhere, else 200 */
    int redirect;                   /* a local Location and no Status: serve
                                     * location_off/len instead, as a GET */
    size_t location_off, location_len;  /* the last Location's value */
    long long modified;             /* the latest Last-Modified date (seconds
                                     * since the epoch), or -1: none */
    size_t modified_field;          /* the field that carries it: its value
                                     * is kd_cgi_head_modified's date */
    size_t nfields;                 /* fields and folded lines in the head:
                                     * when more than the room given, only
                                     * the first ones are stored */
    size_t head_len;                /* the head, without its empty line */
    size_t rest_off;                /* what follows the empty line (set by
                                     * kd_cgi_output_parse) */
} kd_cgi_head;

/* Whether output O (LEN bytes) holds its head's end yet: 1 and *HEAD_LEN,
 * *REST_OFF when it does (an empty line first is an empty head), 0
 * before. */
int kd_cgi_head_end(const char *o, size_t len, size_t *head_len, size_t *rest_off);

/* Parses the head O[0..HEAD_LEN) into H, storing up to ROOM lines in
 * FIELDS (H->nfields says how many there are: call again with room for
 * them all). Stops at the first bad line. Returns H->error. */
int kd_cgi_head_parse(const char *o, size_t head_len, kd_cgi_head *h,
                      kd_cgi_field *fields, size_t room);

/* Both: 0 while the head is incomplete; else 1, with H filled. */
int kd_cgi_output_parse(const char *o, size_t len, kd_cgi_head *h,
                        kd_cgi_field *fields, size_t room);

/* The Last-Modified value to send: H's date, never later than NOW,
 * written into OUT (RFC 1123, NUL after it); returns its length. */
size_t kd_cgi_head_modified(const kd_cgi_head *h, long long now, char out[KD_HTTP_DATE_LEN + 1]);

/* "header" or "Status": the word for an error's message. */
const char *kd_cgi_head_error_what(int error);

#endif
