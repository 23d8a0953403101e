/* libFuzzer harness: the memory reader of the scoreboard
 * (kd_sb_parse_memory in src/board/kd_scoreboard.c) on arbitrary
 * /proc/PID/smaps_rollup text.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_smaps.c -o fuzz/build/fuzz_smaps_libfuzzer
 *
 * Input: the text, any bytes, in a heap buffer of exactly its length (no
 * NUL after it: ASan sees a read past it). Beyond "no crash": 0 or -1,
 * zeros with -1, whole kB (multiples of 1024), and the same result for
 * the same text followed by a line that names none of the fields. */
#include "../src/kd_engine.c"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 12);
    uint64_t v[3], w[3];
    int rv, rw;
    memcpy(buf, data, size);
    rv = kd_sb_parse_memory(buf, size, &v[0], &v[1], &v[2]);
    if (rv != 0 && rv != -1)
        abort();
    if (rv == -1 && (v[0] || v[1] || v[2]))
        abort();
    if (v[0] % 1024 || v[1] % 1024 || v[2] % 1024)
        abort();
    memcpy(buf + size, "\nRss: 7 kB\n", 11);
    rw = kd_sb_parse_memory(buf, size + 11, &w[0], &w[1], &w[2]);
    /* (text ending mid-line: the added newline may complete a number) */
    if (size > 0 && data[size - 1] == '\n' && (rw != rv || memcmp(v, w, sizeof v) != 0))
        abort();
    free(buf);
    return 0;
}
