/* libFuzzer harness: the access log's formats and escaping
 * (src/proto/kd_logfmt.c) on arbitrary LogFormat strings and values.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_logfmt.c -o fuzz/build/fuzz_logfmt_libfuzzer
 *
 * Input: a format, any bytes, compiled from a heap buffer of exactly its
 * length (ASan sees a read past it). Beyond "no crash": a compiled
 * format has at most KD_LF_MAX_OPS ops of known kinds, each argument
 * inside the format's own text store, no two text ops in a row, and its
 * text ops hold only bytes of the input, or the - of %l. The same bytes
 * escaped as a log value are printable ASCII, with every " and \ after a
 * backslash, and unescape to the input. */
#include "../src/kd_engine.c"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int fuzz_hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static kd_logfmt f;
    char *buf = malloc(size ? size : 1);
    kd_lf_buf b = {NULL, 0, 0};
    size_t i, j;
    int k;
    memcpy(buf, data, size);
    if (kd_logfmt_compile(&f, buf, size) == 0) {
        if (f.nops < 0 || f.nops > KD_LF_MAX_OPS || f.text_len > KD_LF_MAX_TEXT)
            abort();
        for (k = 0; k < f.nops; k++) {
            const kd_lf_op *op = &f.ops[k];
            if (op->kind < KD_LF_TEXT || op->kind > KD_LF_RESP_HEADER)
                abort();
            if (op->arg_len && (op->arg < f.text || op->arg + op->arg_len > f.text + f.text_len))
                abort();
            if (op->kind == KD_LF_TEXT) {
                if (k > 0 && f.ops[k - 1].kind == KD_LF_TEXT)
                    abort();
                for (i = 0; i < op->arg_len; i++)
                    if (op->arg[i] != '-' && !memchr(buf, op->arg[i], size))
                        abort();
            }
        }
    }
    if (kd_lf_put_escaped(&b, buf, size, 1) != 0)
        abort();
    for (i = 0, j = 0; i < b.len; i++) {
        char c = b.buf[i];
        if (c < 0x20 || c > 0x7e)
            abort();
        if (size == 0) {
            if (b.len != 1 || c != '-')
                abort();
            break;
        }
        if (c == '"')
            abort();                  /* every quote escaped */
        if (c == '\\') {
            if (i + 1 >= b.len)
                abort();
            c = b.buf[++i];
            if (c == 'x') {
                if (i + 2 >= b.len || fuzz_hexval(b.buf[i + 1]) < 0 || fuzz_hexval(b.buf[i + 2]) < 0)
                    abort();
                c = (char)(fuzz_hexval(b.buf[i + 1]) * 16 + fuzz_hexval(b.buf[i + 2]));
                i += 2;
            } else if (c != '"' && c != '\\') {
                abort();
            }
        }
        if (j >= size || buf[j++] != c)
            abort();
    }
    if (size && j != size)
        abort();
    free(b.buf);
    free(buf);
    return 0;
}
