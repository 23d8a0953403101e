/* kd_myreset.h: the MariaDB/MySQL client protocol's framing, for the
 * session reset Kamado::DBI writes on a kept connection between requests.
 *
 * Plain C99, no perl.h: unit-tested (t/c/test_myreset.c) and fuzzed
 * (fuzz/fuzz_myreset.c) on its own. What the server sends is untrusted
 * bytes, read in place; nothing here allocates.
 *
 *   - kd_myreset_build: the commands (COM_RESET_CONNECTION, COM_INIT_DB,
 *     then statements such as SET ROLE NONE and SET autocommit=0), each a
 *     packet of its own, for one write.
 *   - kd_myreset_answers: the packets that answer them, each an OK.
 *   - kd_myreset_send, kd_myreset_settle: the write and the reads, on the
 *     driver's socket while it is idle (blocking or not, with a timeout).
 */
#ifndef KD_MYRESET_H
#define KD_MYRESET_H

#include <stddef.h>

#define KD_MY_COM_INIT_DB 2
#define KD_MY_COM_QUERY 3
#define KD_MY_COM_RESET_CONNECTION 31

/* The commands of a reset into OUT (CAP bytes): COM_RESET_CONNECTION,
 * COM_INIT_DB with DB (DBLEN bytes; none when 0), then a COM_QUERY for each
 * of the NSQL statements SQL (of SQLLEN bytes each), in their order.
 * Returns the bytes written, 0 when they do not fit; *COUNT is the number
 * of commands (of answers to read). */
size_t kd_myreset_build(char *out, size_t cap, const char *db, size_t dblen, const char *const *sql,
                        const size_t *sqllen, unsigned nsql, unsigned *count);

/* Reads the answers in BUF (LEN bytes): each complete packet that is an
 * OK counts down *WANT. Returns the bytes of the complete packets read
 * (at most *WANT of them), or -1 at a packet that is not an OK (an ERR, or
 * an empty one). */
long kd_myreset_answers(const char *buf, size_t len, unsigned *want);

/* Writes LEN bytes of BUF on FD, waiting at most TIMEOUT_MS for room.
 * 0 on success, -1 otherwise. */
int kd_myreset_send(int fd, const char *buf, size_t len, int timeout_ms);

/* Reads WANT answers from FD, each an OK, waiting at most TIMEOUT_MS for
 * each read. 0 when they came and nothing else did; -1 otherwise (an ERR,
 * the end of the stream, a timeout, or bytes beyond them: the connection
 * is then of no use). */
int kd_myreset_settle(int fd, unsigned want, int timeout_ms);

#endif
