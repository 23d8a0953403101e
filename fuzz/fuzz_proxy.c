/* libFuzzer harness: src/proto/kd_proxy.c on arbitrary bytes.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined fuzz/fuzz_proxy.c -o fuzz/build/fuzz_proxy_libfuzzer
 *
 * Byte 0 chooses what the rest is:
 *   even: a PROXY protocol header (kd_proxy_parse), in a heap buffer of
 *     exactly its size. Beyond "no crash": a success claims no more bytes
 *     than it was given (107 at most for version 1), parses to the same
 *     length from exactly those bytes, and is KD_PROXY_INCOMPLETE one byte
 *     short of them; the addresses it gives format and parse back.
 *   odd: request fields, one per line, "name:value" (kd_forwarded_resolve
 *     with a fixed trusted list), and the first line as an address block
 *     (kd_cidr_parse). The host points inside its field, the ports are in
 *     range, a client address formats and parses back to itself.
 */
#include "../src/kd_engine.c"
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 16

static void round_trip(const kd_addr *a)
{
    char text[KD_ADDR_TEXT];
    kd_addr b;
    size_t n = kd_addr_format(a, text);
    if (n == 0 || kd_addr_parse(text, n, &b) != 0 || b.family != a->family ||
        memcmp(a->b, b.b, a->family == 6 ? 16 : 4) != 0)
        abort();
}

static void fuzz_header(const char *buf, size_t size)
{
    kd_proxy_hdr h;
    int rv = kd_proxy_parse(buf, size, &h);
    if (rv == KD_PROXY_INCOMPLETE || rv == KD_PROXY_ERROR)
        return;
    if (rv <= 0 || (size_t)rv > size || (h.version == 1 && rv > KD_PROXY_V1_MAX) ||
        (h.version != 1 && h.version != 2) || rv > KD_PROXY_V2_MAX)
        abort();
    if (kd_proxy_parse(buf, (size_t)rv, &h) != rv || kd_proxy_parse(buf, (size_t)rv - 1, &h) != KD_PROXY_INCOMPLETE)
        abort();
    kd_proxy_parse(buf, (size_t)rv, &h);
    if (!h.local) {
        if (h.src_port < 0 || h.src_port > 65535 || h.dst_port < 0 || h.dst_port > 65535 ||
            h.src.family != h.dst.family)
            abort();
        round_trip(&h.src);
        round_trip(&h.dst);
    }
}

static void fuzz_fields(const char *buf, size_t size)
{
    static const char *blocks[] = {"10.0.0.0/8", "127.0.0.1", "fd00::/8", "::ffff:192.168.0.0/112"};
    kd_cidr trusted[4], c;
    kd_header h[MAX_FIELDS];
    kd_forwarded f;
    const char *p = buf, *end = buf + size;
    size_t n = 0, i;
    for (i = 0; i < 4; i++)
        if (kd_cidr_parse(blocks[i], strlen(blocks[i]), &trusted[i]) != 0)
            abort();
    while (p < end && n < MAX_FIELDS) {
        const char *eol = memchr(p, '\n', (size_t)(end - p)), *colon;
        if (!eol)
            eol = end;
        if (n == 0 && kd_cidr_parse(p, (size_t)(eol - p), &c) == 0) {
            if (c.bits < 0 || c.bits > (c.net.family == 6 ? 128 : 32))
                abort();
            round_trip(&c.net);
        }
        colon = memchr(p, ':', (size_t)(eol - p));
        if (colon) {
            h[n].name = p;
            h[n].name_len = (size_t)(colon - p);
            h[n].value = colon + 1;
            h[n].value_len = (size_t)(eol - colon - 1);
            n++;
        }
        p = eol + 1;
    }
    kd_forwarded_resolve(h, n, trusted, 4, &f);
    if (f.have_client) {
        round_trip(&f.client);
        if (f.client_port < -1 || f.client_port > 65535)
            abort();
    } else if (f.client_port != -1) {
        abort();
    }
    if (f.scheme < KD_SCHEME_NONE || f.scheme > KD_SCHEME_HTTPS || f.port == 0 || f.port > 65535 ||
        f.port < -1)
        abort();
    if (f.host) {
        if (f.host < buf || f.host + f.host_len > end || f.host_len == 0 || f.host_len > 255 ||
            f.host_name_len == 0 || f.host_name_len > f.host_len || f.host_port == 0 ||
            f.host_port > 65535 || (f.host_port < 0) != (f.host_name_len == f.host_len))
            abort();
        for (i = 0; i < f.host_len; i++)
            if (f.host[i] == ',' || f.host[i] == ' ' || f.host[i] == '/' || (unsigned char)f.host[i] < 0x21)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *buf;
    if (size < 1)
        return 0;
    buf = malloc(size - 1 ? size - 1 : 1);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    if (data[0] & 1)
        fuzz_fields(buf, size - 1);
    else
        fuzz_header(buf, size - 1);
    free(buf);
    return 0;
}
