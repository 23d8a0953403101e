/* libFuzzer harness: src/proto/kd_myreset.c's reader of a MariaDB server's
 * answers (kd_myreset_answers) on arbitrary bytes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_myreset.c -o fuzz/build/fuzz_myreset_libfuzzer
 *
 * Byte 0 is how many answers are wanted (0..7), the rest what the server
 * sent, in a heap buffer of exactly its size. Beyond "no crash": what is
 * read is whole packets, each an OK, no more than were wanted, and never
 * more bytes than were given; read again from exactly those bytes, the
 * same; fed in two pieces (split at byte 1's offset), the same.
 */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    unsigned want, want2, left;
    long r, r2;
    char *buf;
    size_t len, split, at;
    if (size < 2)
        return 0;
    want = data[0] % 8;
    split = data[1];
    len = size - 2;
    buf = malloc(len ? len : 1);
    memcpy(buf, data + 2, len);
    left = want;
    r = kd_myreset_answers(buf, len, &left);
    if (r >= 0) {
        unsigned packets = 0;
        if ((size_t)r > len || left > want)
            abort();
        /* whole OK packets, as many as were counted down */
        for (at = 0; at < (size_t)r; packets++) {
            size_t n = (size_t)(unsigned char)buf[at] | (size_t)(unsigned char)buf[at + 1] << 8
                       | (size_t)(unsigned char)buf[at + 2] << 16;
            if (n == 0 || buf[at + 4] != 0)
                abort();
            at += 4 + n;
        }
        if (at != (size_t)r || packets != want - left)
            abort();
        want2 = want;
        if (kd_myreset_answers(buf, (size_t)r, &want2) != r || want2 != left)
            abort();
    }
    /* in two pieces: the first piece's whole packets, then the rest */
    if (split <= len) {
        long first;
        want2 = want;
        first = kd_myreset_answers(buf, split, &want2);
        if (first >= 0) {
            r2 = kd_myreset_answers(buf + first, len - (size_t)first, &want2);
            if (r >= 0 && (r2 < 0 || first + r2 != r || want2 != left))
                abort();
        }
    }
    free(buf);
    return 0;
}
