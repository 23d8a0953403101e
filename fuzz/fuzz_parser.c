/* libFuzzer harness: the request-head parser on arbitrary bytes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc fuzz/fuzz_parser.c -o fuzz/fuzz_parser.bin
 * Checks more than "no crash": a complete head never claims more bytes
 * than it was given, every header points inside the input, and an error
 * always carries a status. Fed in up to 64 growing prefixes (the sizes
 * taken from the input), kd_parse_more gives at each what
 * kd_parse_request gives on that prefix, and the same request once
 * complete. */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static kd_header table[3][KD_MAX_HEADERS];
    kd_request r = {.headers = table[0]};
    char *buf = malloc(size ? size : 1);
    int rv;
    size_t i;
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    rv = kd_parse_request(buf, size, &r);
    if (rv > 0) {
        if ((size_t)rv > size)
            abort();
        for (i = 0; i < r.num_headers; i++)
            if (r.headers[i].name < buf || r.headers[i].value + r.headers[i].value_len > buf + rv)
                abort();
        if (r.chunked && r.content_length >= 0)
            abort();                  /* TE with CL must never pass */
    } else if (rv == KD_ERROR) {
        if (r.error_status < 400 || r.error_status > 505)
            abort();
    } else if (rv != KD_INCOMPLETE) {
        abort();
    }
    {
        kd_head_scan scan = { 0, 0 };
        kd_request a = {.headers = table[1]}, b = {.headers = table[2]};
        size_t len = 0, k = 0;
        while (len < size) {
            int x, y;
            len += 1 + (size_t)data[k++ % size] % (size / 32 + 2);
            if (len > size)
                len = size;
            x = kd_parse_more(buf, len, &scan, &a);
            y = kd_parse_request(buf, len, &b);
            if (x != y)
                abort();
            if (x == KD_ERROR && a.error_status != b.error_status)
                abort();
            if (x > 0 && (a.num_headers != b.num_headers || a.method_len != b.method_len ||
                          a.content_length != b.content_length || a.keepalive != b.keepalive ||
                          a.chunked != b.chunked || a.target_len != b.target_len))
                abort();
            if (x != KD_INCOMPLETE)
                break;
        }
    }
    free(buf);
    return 0;
}
