/* libFuzzer harness: the HTTP date reader and writer (src/proto/kd_date.c) on
 * arbitrary Last-Modified values.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_date.c -o fuzz/build/fuzz_date_libfuzzer
 *
 * Input: the value, any bytes, parsed from a heap buffer of exactly its
 * length (no NUL after it: ASan sees a read past it). Beyond "no crash":
 * a date read is 0 or later and before 10000 (plus a carried leap
 * second); written back in RFC 1123 form it is 29 bytes of that form and
 * reads as the same time. */
#include "../src/kd_engine.c"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1), out[KD_HTTP_DATE_LEN + 1];
    long long t;
    size_t n, i;
    memcpy(buf, data, size);
    t = kd_http_date_parse(buf, size);
    free(buf);
    if (t < 0) {
        if (t != -1)
            abort();
        return 0;
    }
    if (t >= 253402300800LL + 2)
        abort();
    if (t >= 253402300800LL)
        return 0;    /* a leap second carried into the year 10000 */
    n = kd_http_date_format(t, out);
    if (n != KD_HTTP_DATE_LEN || out[n] != '\0' || out[3] != ',' || memcmp(out + 25, " GMT", 4) != 0)
        abort();
    for (i = 0; i < n; i++)
        if (out[i] < ' ' || out[i] > '~')
            abort();
    if (kd_http_date_parse(out, n) != t)
        abort();
    return 0;
}
