/* kd_frame.h: a response body on the wire, after its head (kd_frame.c).
 *
 * Plain C99, no perl.h, no I/O. The server owns the framing of every
 * response: kd_head_build decides how the end of the body is shown
 * (KD_FRAME_*), and this part frames the body's bytes accordingly: chunk
 * lines around each piece and the last chunk at the end, the cut at the
 * declared Content-Length, the verdict on a body longer or shorter than
 * declared. It also holds every reason a connection stops being kept
 * alive (KD_CLOSE_*): the head builder, the writes and the loop's end of a
 * response all ask kd_frame_close_before, or take the first reason a
 * frame records, so that the decision is made in one place.
 */
#ifndef KD_FRAME_H
#define KD_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "kd_parser.h"          /* kd_chunked: an app's own chunks */

/* How the end of the body is shown to the client (kd_head_build's). */
enum {
    KD_FRAME_NONE,                  /* no body: HEAD, 204, 304 */
    KD_FRAME_LENGTH,                /* Content-Length: so many bytes */
    KD_FRAME_CHUNKED,               /* Transfer-Encoding: chunked */
    KD_FRAME_CLOSE                  /* the body ends with the connection */
};

/* Why a connection is not kept alive after its response; KD_KEEP: it is.
 * The first reason found is the one kept. */
enum {
    KD_KEEP,
    KD_CLOSE_CLIENT,                /* the request asked (Connection: close, HTTP/1.0) */
    KD_CLOSE_MAX_REQUESTS,          /* the connection served its last allowed request */
    KD_CLOSE_DRAINING,              /* the worker is about to exit */
    KD_CLOSE_BODY_UNREAD,           /* the request body was not read: the next start is unknown */
    KD_CLOSE_APP,                   /* the app's own Connection: close */
    KD_CLOSE_UNFRAMED,              /* HTTP/1.0, length unknown: the close ends the body */
    KD_CLOSE_TOO_LONG,              /* body longer than its Content-Length: cut */
    KD_CLOSE_TOO_SHORT,             /* body shorter than its Content-Length */
    KD_CLOSE_WRITE_FAILED,          /* the client went away, or the write timed out */
    KD_CLOSE_APP_CHUNKS,            /* the app's own chunked encoding is malformed */
    KD_CLOSE_REASONS
};

/* Room for a chunk-size line: 16 hex digits and CRLF. */
#define KD_FRAME_LINE 20

/* Entries kd_frame_body may add around n pieces: the chunk-size line,
 * the CRLF after the data and the last chunk. */
#define KD_FRAME_EXTRA_IOV 3

typedef struct {
    int framing;                    /* KD_FRAME_* */
    int64_t left;                   /* KD_FRAME_LENGTH: bytes still due; else -1 */
    int close;                      /* KD_KEEP or the first reason the connection ends */
    int mismatch;                   /* 1: longer than declared (cut), -1: shorter; 0 */
    int ended;                      /* the end of the body was framed */
    int64_t body;                   /* body bytes framed so far, framing excluded */
    char line[KD_FRAME_LINE];       /* the chunk-size line of the last piece */
    int decode;                     /* the app's bytes are chunks (kd_frame_decode) */
    int bad;                        /* and they were malformed: nothing more goes out */
    kd_chunked dec;
} kd_frame;

/* The reason, if any, a connection ends whatever its response: the
 * request's wish (wished: it may be kept), its request cap reached,
 * draining, or a request body left unread. KD_KEEP when none. */
int kd_frame_close_before(int wished, int at_max_requests, int draining, int body_unread);

/* A frame for a body framed as the head says (framing, and length for
 * KD_FRAME_LENGTH) on a connection whose fate is reason (KD_KEEP or a
 * KD_CLOSE_*); mismatch as kd_head_build found it for a known body. */
void kd_frame_start(kd_frame *f, int framing, int64_t length, int reason, int mismatch);

/* Records a reason for the close unless one is recorded already. */
void kd_frame_close(kd_frame *f, int reason);

/* Frames the n pieces of in (the app's bytes, as given), and the end of
 * the body when last: writes into out (room for n + KD_FRAME_EXTRA_IOV
 * entries) the iovecs to send, pointing into in's bytes, f->line and
 * constant strings. What the declared length does not cover is cut (and
 * the connection marked to close), nothing goes out for a body the head
 * said has none, empty pieces make no chunk (an empty chunk would end the
 * body), and a body ended short of its length is marked to close. Returns
 * the entries written (0: nothing to send); *body gets the body bytes
 * among them. After the end, nothing more is framed. */
int kd_frame_body(kd_frame *f, const struct iovec *in, int n, int last,
                  struct iovec *out, int64_t *body);

/* The same for len bytes the caller sends from a file between *pre and
 * *post (either may come back empty): returns how many of the len bytes
 * to send. */
int64_t kd_frame_file(kd_frame *f, int64_t len, int last,
                      struct iovec *pre, struct iovec *post);

/* The app's body is its own chunked encoding (kd_head_out.app_chunked):
 * each piece is decoded with kd_frame_unchunk before kd_frame_body frames
 * it again. A malformed encoding, bytes after its last chunk, or a body
 * ended before it is malformed (KD_CLOSE_APP_CHUNKS, f->bad): nothing
 * more goes out, not even the end of the body, so the client sees a cut
 * body and the connection closes; the app's bytes never pass through. A
 * file's bytes cannot be decoded here: kd_frame_file marks them so. */
void kd_frame_decode(kd_frame *f);

/* Decodes buf[0..len) of the app's chunks in place; *out gets the body
 * bytes now at the start of buf. With last, these are the body's last
 * bytes: an encoding they do not end is malformed too. 0, or -1 when
 * malformed (see kd_frame_decode; *out is then 0). */
int kd_frame_unchunk(kd_frame *f, char *buf, size_t len, int last, size_t *out);

/* Whether the connection may carry another request after this body. */
static inline int kd_frame_keep(const kd_frame *f)
{
    return f->close == KD_KEEP;
}

/* A line for the error log: what a reason means (KD_CLOSE_*). */
const char *kd_frame_close_text(int reason);

#endif
