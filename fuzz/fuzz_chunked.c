/* libFuzzer harness: the chunked decoder, fed in two pieces split at a
 * point taken from the input, must decode exactly as when fed whole, and
 * fail exactly when that fails. */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

static long decode(const char *in, size_t len, size_t split, char *out, size_t *out_len, int *done)
{
    kd_chunked d;
    size_t o1 = 0, o2 = 0;
    long u1, u2 = 0;
    kd_chunked_init(&d);
    u1 = kd_chunked_decode(&d, in, split, out, &o1);
    if (u1 < 0)
        return -1;
    if (!d.done && (size_t)u1 == split) {
        u2 = kd_chunked_decode(&d, in + split, len - split, out + o1, &o2);
        if (u2 < 0)
            return -1;
    }
    *out_len = o1 + o2;
    *done = d.done;
    return u1 + u2;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    size_t split, l1 = 0, l2 = 0;
    long u1, u2;
    int d1 = 0, d2 = 0;
    char *in, *o1, *o2;
    if (size < 1)
        return 0;
    split = data[0] % size;
    data++, size--;
    if (split > size)
        split = size;
    in = malloc(size + 1);
    o1 = malloc(size + 1);
    o2 = malloc(size + 1);
    memcpy(in, data, size);
    u1 = decode(in, size, size, o1, &l1, &d1);
    u2 = decode(in, size, split, o2, &l2, &d2);
    /* the decoder is a byte-at-a-time state machine: where the input is
     * cut must change nothing, neither whether it is an error nor, when it
     * is not, how much is consumed and what comes out */
    if ((u1 < 0) != (u2 < 0))
        abort();
    if (u1 >= 0 && (d1 != d2 || u1 != u2 || l1 != l2 || memcmp(o1, o2, l1) != 0))
        abort();
    if (u1 >= 0 && (size_t)u1 > size)
        abort();
    free(in), free(o1), free(o2);
    return 0;
}
