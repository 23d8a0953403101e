/* libFuzzer harness: the request-head parser on arbitrary bytes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc fuzz/fuzz_parser.c -o fuzz/fuzz_parser.bin
 * Checks more than "no crash": a complete head never claims more bytes
 * than it was given, every header points inside the input, and an error
 * always carries a status. */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    kd_request r;
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
    free(buf);
    return 0;
}
