/* kd_head.h: the response head, built from what the app returned.
 *
 * Plain C99, no perl.h. The server owns the framing of every response:
 * the app's status and fields are checked and copied in one pass, and the
 * framing fields (Content-Length, Transfer-Encoding, Connection) are the
 * builder's decision, never the app's bytes passed through; the body's
 * bytes are then framed by kd_frame.c. What it
 * decides for each kind of app mistake is the table in lib/Kamado.pm
 * ("Response framing"); the reasons follow nginx's handling of an
 * upstream's (FastCGI) response head.
 */
#ifndef KD_HEAD_H
#define KD_HEAD_H

#include <stddef.h>
#include <stdint.h>
#include "kd_frame.h"           /* KD_FRAME_*, KD_CLOSE_* */

/* One response field as the app gave it (not NUL-terminated). */
typedef struct {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} kd_field;

/* Why a head was refused (the caller answers 500 and logs the text). */
enum {
    KD_HEAD_OK,
    KD_HEAD_BAD_STATUS,             /* not 200..999 (a 1xx cannot be final) */
    KD_HEAD_BAD_NAME,               /* empty, or not a token */
    KD_HEAD_BAD_VALUE,              /* CR, LF or NUL in a value */
    KD_HEAD_BAD_LENGTH,             /* Content-Length not 1*DIGIT, or too big */
    KD_HEAD_TWO_LENGTHS,            /* Content-Length twice, different values */
    KD_HEAD_APP_TE,                 /* Transfer-Encoding from the app: not "chunked"
                                     * alone, or with a Content-Length */
    KD_HEAD_NO_ROOM                 /* cap smaller than kd_head_bound's */
};

typedef struct {
    int status;                     /* 0 for a status that is not a number */
    const kd_field *fields;
    size_t nfields;
    int64_t body_len;               /* body bytes when known, else -1 */
    int minor_version;              /* of the request: 0 or 1 */
    int is_head;
    int keepalive;                  /* what the request and the server allow */
    const char *date;               /* 29 bytes for Date, or NULL: none */
    int upgrade;                    /* the app takes the connection after a 101 */
} kd_head_in;

typedef struct {
    int error;                      /* KD_HEAD_OK or why it was refused */
    int framing;                    /* KD_FRAME_* */
    int64_t length;                 /* KD_FRAME_LENGTH: body bytes to send */
    int keepalive;                  /* the connection may carry another request */
    int close;                      /* KD_KEEP, or why not (KD_CLOSE_*) */
    int no_body;                    /* send no body bytes at all */
    int mismatch;                   /* known body: 1 longer than length, -1 shorter */
    int app_chunked;                /* the app said Transfer-Encoding: chunked: its
                                     * body is chunks, decoded before the framing
                                     * (kd_frame_decode) */
    size_t len;                     /* bytes of head written */
} kd_head_out;

/* Room the head may need beyond the fields' names and values (4 bytes
 * each for ": " and CRLF): status line, framing fields, Date, the end. */
#define KD_HEAD_SLACK 256

/* Builds the head into buf (cap bytes; cap >= KD_HEAD_SLACK + the sum of
 * name_len + value_len + 4 over the fields is always enough). Returns
 * out->error; on an error nothing in buf is meant to be sent. */
int kd_head_build(const kd_head_in *in, char *buf, size_t cap, kd_head_out *out);

/* A line for the error log: why kd_head_build refused (KD_HEAD_*). */
const char *kd_head_error_text(int error);

/* The reason phrase of a status code ("" when unknown). */
const char *kd_reason(int status);

#endif
