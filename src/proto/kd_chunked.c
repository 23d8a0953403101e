/* kd_chunked.c: the chunked body decoder (RFC 9112 7.1); see kd_parser.h.
 * Strict for the same reason as the head parser: what a proxy in front
 * could read otherwise is an error. */
#include "kd_parser.h"
#include "kd_chars.h"
#include <string.h>

/* chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )
 * is checked by the CH_EXT_* states, the trailer field lines by the
 * CH_TRAILER_* ones: what does not match the grammar is a 400, since a
 * proxy in front may have read it differently. */
enum {
    CH_SIZE_START,
    CH_SIZE,
    CH_BWS,
    CH_EXT_NAME0,
    CH_EXT_NAME,
    CH_EXT_AFTER_NAME,
    CH_EXT_VAL0,
    CH_EXT_VAL,
    CH_EXT_QVAL,
    CH_EXT_QESC,
    CH_EXT_AFTER_VAL, /* the last size-line state */
    CH_SIZE_LF,
    CH_DATA,
    CH_DATA_CR,
    CH_DATA_LF,
    CH_TRAILER_START,
    CH_TRAILER_NAME,
    CH_TRAILER,
    CH_TRAILER_LF,
    CH_END_LF
};

#define IS_WS(c) ((c) == ' ' || (c) == '\t')

/* largest chunk size accepted: larger is an overflow attempt */
#define KD_MAX_CHUNK_SIZE ((uint64_t)1 << 60)

void kd_chunked_init(kd_chunked *d)
{
    memset(d, 0, sizeof *d);
    d->state = CH_SIZE_START;
}

long kd_chunked_decode(kd_chunked *d, const char *in, size_t in_len, char *out, size_t *out_len)
{
    size_t i = 0, o = 0;

    while (i < in_len && !d->done) {
        unsigned char c = (unsigned char)in[i];
        int h;

        if (d->state == CH_DATA) {
            size_t n = in_len - i;
            if (n > d->remaining)
                n = (size_t)d->remaining;
            memmove(out + o, in + i, n);
            o += n;
            i += n;
            d->remaining -= n;
            if (d->remaining == 0)
                d->state = CH_DATA_CR;
            continue;
        }
        i++;
        if (d->state <= CH_EXT_AFTER_VAL) {
            if (++d->line_len > KD_MAX_CHUNK_LINE)
                return -1;
        } else if (d->state >= CH_TRAILER_START) {
            if (++d->trailer_len > KD_MAX_TRAILERS)
                return -1;
        }
        switch (d->state) {
        case CH_SIZE_START:
        case CH_SIZE:
            if ((h = hexval(c)) >= 0) {
                if (d->remaining >= KD_MAX_CHUNK_SIZE >> 4)
                    return -1;
                d->remaining = d->remaining * 16 + (uint64_t)h;
                d->state = CH_SIZE;
            } else if (d->state == CH_SIZE_START) {
                return -1; /* no digits */
            } else if (c == '\r') {
                d->state = CH_SIZE_LF;
            } else if (c == ';') {
                d->state = CH_EXT_NAME0;
            } else if (IS_WS(c)) {
                d->state = CH_BWS;
            } else {
                return -1;
            }
            break;
        case CH_BWS:
            /* only whitespace, then ";" and an extension (RFC 9112 7.1.1) */
            if (c == ';')
                d->state = CH_EXT_NAME0;
            else if (!IS_WS(c))
                return -1;
            break;
        case CH_EXT_NAME0: /* after ";" */
            if (IS_TCHAR(c))
                d->state = CH_EXT_NAME;
            else if (!IS_WS(c))
                return -1; /* "5;" has no name */
            break;
        case CH_EXT_NAME:
        case CH_EXT_AFTER_NAME:
            if (IS_TCHAR(c) && d->state == CH_EXT_NAME)
                break;
            if (IS_WS(c))
                d->state = CH_EXT_AFTER_NAME;
            else if (c == '=')
                d->state = CH_EXT_VAL0;
            else if (c == ';')
                d->state = CH_EXT_NAME0;
            else if (c == '\r')
                d->state = CH_SIZE_LF;
            else
                return -1;
            break;
        case CH_EXT_VAL0: /* after "=" */
            if (c == '"')
                d->state = CH_EXT_QVAL;
            else if (IS_TCHAR(c))
                d->state = CH_EXT_VAL;
            else if (!IS_WS(c))
                return -1;
            break;
        case CH_EXT_VAL:
        case CH_EXT_AFTER_VAL:
            if (IS_TCHAR(c) && d->state == CH_EXT_VAL)
                break;
            if (IS_WS(c))
                d->state = CH_EXT_AFTER_VAL;
            else if (c == ';')
                d->state = CH_EXT_NAME0;
            else if (c == '\r')
                d->state = CH_SIZE_LF;
            else
                return -1;
            break;
        case CH_EXT_QVAL: /* qdtext, or the end */
            if (c == '"')
                d->state = CH_EXT_AFTER_VAL;
            else if (c == '\\')
                d->state = CH_EXT_QESC;
            else if (!IS_WS(c) && (c < 0x21 || c == 0x7f))
                return -1; /* CR inside: unterminated */
            break;
        case CH_EXT_QESC: /* quoted-pair */
            if (!IS_WS(c) && (c < 0x21 || c == 0x7f))
                return -1;
            d->state = CH_EXT_QVAL;
            break;
        case CH_SIZE_LF:
            if (c != '\n')
                return -1;
            d->line_len = 0;
            d->state = d->remaining ? CH_DATA : CH_TRAILER_START;
            break;
        case CH_DATA_CR:
            if (c != '\r')
                return -1;
            d->state = CH_DATA_LF;
            break;
        case CH_DATA_LF:
            if (c != '\n')
                return -1;
            d->state = CH_SIZE_START;
            break;
        case CH_TRAILER_START:
            if (c == '\r')
                d->state = CH_END_LF;
            else if (IS_TCHAR(c))
                d->state = CH_TRAILER_NAME; /* trailers are read, then dropped */
            else
                return -1; /* obs-fold, junk */
            break;
        case CH_TRAILER_NAME:
            if (c == ':')
                d->state = CH_TRAILER;
            else if (!IS_TCHAR(c))
                return -1; /* no colon, space before it */
            break;
        case CH_TRAILER:
            if (c == '\r')
                d->state = CH_TRAILER_LF;
            else if (!is_value_char(c))
                return -1;
            break;
        case CH_TRAILER_LF:
            if (c != '\n')
                return -1;
            d->state = CH_TRAILER_START;
            break;
        case CH_END_LF:
            if (c != '\n')
                return -1;
            d->done = 1;
            break;
        }
    }
    *out_len = o;
    return (long)i;
}
