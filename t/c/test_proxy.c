/* t/c/test_proxy.c: table-driven C unit tests for src/proto/kd_proxy.c, as TAP.
 * Run by t/c-proxy.t (system compiler, then clang ASan+UBSan if present).
 *
 * PROXY headers (kd_proxy_parse): each case is parsed whole from a heap
 * buffer of exactly its length, then at every prefix length in a buffer
 * of that length (so ASan sees a read past it): a prefix of a valid
 * header is KD_PROXY_INCOMPLETE, of a bad one INCOMPLETE or ERROR, never a
 * success; a valid header is parsed again with a request after it (the
 * same length), and fed a byte at a time as the loop would. Then address
 * blocks (kd_cidr_parse, kd_cidr_match) and the X-Forwarded-* fields
 * (kd_forwarded_resolve).
 */
#include "../../src/kd_engine.c"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"

#define OK_ 1
#define BAD 0

typedef struct {
    const char *name;
    const char *bytes;
    size_t len;                     /* 0: strlen(bytes) */
    int valid;
    int local;
    const char *src;                /* expected source, as text; NULL when local */
    int src_port;
    const char *dst;
    int dst_port;
} pcase;

/* version 2 headers, spelled out */
#define SIG "\r\n\r\n\0\r\nQUIT\n"
#define V2_TCP4 SIG "\x21\x11\x00\x0c" "\xc0\x00\x02\x01" "\xc6\x33\x64\x07" "\x30\x39" "\x01\xbb"
#define V2_TCP6 SIG "\x21\x21\x00\x24" \
    "\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01" \
    "\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02" "\xd4\x31" "\x00\x50"
#define V2_TLVS SIG "\x21\x11\x00\x18" "\x0a\x01\x02\x03" "\x0a\x00\x00\x01" "\x00\x01" "\x00\x02" \
    "\x02\x00\x05" "host1" "\x04\x00\x01" "z"
#define V2_LOCAL SIG "\x20\x00\x00\x00"
#define V2_LOCAL_ADDR SIG "\x20\x11\x00\x0c" "\x01\x02\x03\x04" "\x05\x06\x07\x08" "\x00\x01" "\x00\x02"
#define V2_UNSPEC SIG "\x21\x00\x00\x00"
#define L(s) s, sizeof(s) - 1

static const pcase pcases[] = {
    {"v1 TCP4", "PROXY TCP4 192.0.2.1 198.51.100.7 12345 443\r\n", 0, OK_, 0, "192.0.2.1", 12345, "198.51.100.7", 443},
    {"v1 TCP6", "PROXY TCP6 2001:db8::1 2001:db8::2 54321 80\r\n", 0, OK_, 0, "2001:db8::1", 54321, "2001:db8::2", 80},
    {"v1 TCP6, a mapped IPv4", "PROXY TCP6 ::ffff:192.0.2.9 ::1 1 2\r\n", 0, OK_, 0, "::ffff:192.0.2.9", 1, "::1", 2},
    {"v1 ports 0 and 65535", "PROXY TCP4 1.2.3.4 5.6.7.8 0 65535\r\n", 0, OK_, 0, "1.2.3.4", 0, "5.6.7.8", 65535},
    {"v1 UNKNOWN", "PROXY UNKNOWN\r\n", 0, OK_, 1, NULL, 0, NULL, 0},
    {"v1 UNKNOWN with anything after it", "PROXY UNKNOWN ffff::1 x y z\r\n", 0, OK_, 1, NULL, 0, NULL, 0},
    {"v1 at the longest (107 bytes)",
     "PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n",
     0, OK_, 0, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535},
    {"v1 UNKNOWN at 108 bytes", "PROXY UNKNOWN "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 without CRLF for 107 bytes", "PROXY UNKNOWN "
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 three fields", "PROXY TCP4 1.2.3.4 5.6.7.8 80\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 five fields", "PROXY TCP4 1.2.3.4 5.6.7.8 80 81 82\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 two spaces", "PROXY TCP4 1.2.3.4  5.6.7.8 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 a trailing space", "PROXY TCP4 1.2.3.4 5.6.7.8 80 81 \r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 TCP4 with IPv6 addresses", "PROXY TCP4 ::1 ::2 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 TCP6 with IPv4 addresses", "PROXY TCP6 1.2.3.4 5.6.7.8 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 a bad address", "PROXY TCP4 1.2.3.256 5.6.7.8 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 a host name", "PROXY TCP4 example.com 5.6.7.8 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 port 65536", "PROXY TCP4 1.2.3.4 5.6.7.8 65536 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 port with a leading zero", "PROXY TCP4 1.2.3.4 5.6.7.8 080 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 port with a sign", "PROXY TCP4 1.2.3.4 5.6.7.8 +80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 a bare LF", "PROXY TCP4 1.2.3.4 5.6.7.8 80 81\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 CR without LF", "PROXY TCP4 1.2.3.4 5.6.7.8 80 81\rX\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 a NUL", L("PROXY TCP4 1.2.3.4\0 5.6.7.8 80 81\r\n"), BAD, 0, NULL, 0, NULL, 0},
    {"v1 lower case", "proxy TCP4 1.2.3.4 5.6.7.8 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 protocol lower case", "PROXY tcp4 1.2.3.4 5.6.7.8 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 UDP4", "PROXY UDP4 1.2.3.4 5.6.7.8 80 81\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 UNKNOWNX", "PROXY UNKNOWNX\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v1 nothing", "PROXY \r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"an HTTP request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"PROXY without a space", "PROXYTCP4\r\n", 0, BAD, 0, NULL, 0, NULL, 0},
    {"v2 TCP4", L(V2_TCP4), OK_, 0, "192.0.2.1", 12345, "198.51.100.7", 443},
    {"v2 TCP6", L(V2_TCP6), OK_, 0, "2001:db8::1", 54321, "2001:db8::2", 80},
    {"v2 TCP4 with TLVs (skipped)", L(V2_TLVS), OK_, 0, "10.1.2.3", 1, "10.0.0.1", 2},
    {"v2 LOCAL", L(V2_LOCAL), OK_, 1, NULL, 0, NULL, 0},
    {"v2 LOCAL with addresses (ignored)", L(V2_LOCAL_ADDR), OK_, 1, NULL, 0, NULL, 0},
    {"v2 UNSPEC", L(V2_UNSPEC), OK_, 1, NULL, 0, NULL, 0},
    {"v2 version 1", L(SIG "\x11\x11\x00\x0c" "\x01\x02\x03\x04" "\x05\x06\x07\x08" "\x00\x01" "\x00\x02"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 version 3", L(SIG "\x31\x11\x00\x0c" "\x01\x02\x03\x04" "\x05\x06\x07\x08" "\x00\x01" "\x00\x02"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 command 2", L(SIG "\x22\x11\x00\x0c" "\x01\x02\x03\x04" "\x05\x06\x07\x08" "\x00\x01" "\x00\x02"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 UDP4", L(SIG "\x21\x12\x00\x0c" "\x01\x02\x03\x04" "\x05\x06\x07\x08" "\x00\x01" "\x00\x02"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 UDP6", L(SIG "\x21\x22\x00\x24" "0123456789abcdef0123456789abcdef" "\x00\x01" "\x00\x02"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 family 0x41", L(SIG "\x21\x41\x00\x00"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 TCP4 too short for its addresses", L(SIG "\x21\x11\x00\x08" "\x01\x02\x03\x04" "\x05\x06\x07\x08"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 TCP6 too short for its addresses", L(SIG "\x21\x21\x00\x0c" "\x01\x02\x03\x04" "\x05\x06\x07\x08" "\x00\x01" "\x00\x02"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 a wrong signature", L("\r\n\r\n\0\r\nQUIX\n\x21\x11\x00\x00"), BAD, 0, NULL, 0, NULL, 0},
    {"v2 the signature cut by a CR LF", L("\r\n\r\nGET / HTTP/1.1\r\n"), BAD, 0, NULL, 0, NULL, 0},
};
#define NPCASES (sizeof pcases / sizeof pcases[0])

static int check_hdr(const pcase *c, const kd_proxy_hdr *h)
{
    char text[KD_ADDR_TEXT];
    if (h->local != c->local) {
        diag("local %d, want %d", h->local, c->local);
        return 0;
    }
    if (c->local)
        return 1;
    kd_addr_format(&h->src, text);
    if (strcmp(text, c->src) != 0 || h->src_port != c->src_port)
        diag("source %s:%d, want %s:%d", text, h->src_port, c->src, c->src_port);
    kd_addr_format(&h->dst, text);
    if (strcmp(text, c->dst) != 0 || h->dst_port != c->dst_port)
        diag("destination %s:%d, want %s:%d", text, h->dst_port, c->dst, c->dst_port);
    return 1;
}

static void run_pcase(const pcase *c)
{
    size_t len = c->len ? c->len : strlen(c->bytes), k;
    char *buf = malloc(len + 64);
    kd_proxy_hdr h;
    int rv, whole;

    /* whole, in a buffer of exactly its length */
    memcpy(buf, c->bytes, len);
    {
        char *exact = malloc(len);
        memcpy(exact, c->bytes, len);
        whole = kd_proxy_parse(exact, len, &h);
        free(exact);
    }
    if (c->valid) {
        if (whole != (int)len)
            diag("whole: %d, want %zu", whole, len);
        else
            check_hdr(c, &h);
    } else if (whole != KD_PROXY_ERROR) {
        diag("whole: %d, want KD_PROXY_ERROR", whole);
    }
    /* every prefix: never a success */
    for (k = 0; k < len; k++) {
        char *pre = malloc(k ? k : 1);
        memcpy(pre, c->bytes, k);
        rv = kd_proxy_parse(pre, k, &h);
        free(pre);
        if (c->valid && rv != KD_PROXY_INCOMPLETE) {
            diag("prefix %zu: %d, want KD_PROXY_INCOMPLETE", k, rv);
            break;
        }
        if (!c->valid && rv != KD_PROXY_INCOMPLETE && rv != KD_PROXY_ERROR) {
            diag("prefix %zu of a bad header: %d", k, rv);
            break;
        }
    }
    /* a request after it: the same length */
    if (c->valid) {
        memcpy(buf + len, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
        rv = kd_proxy_parse(buf, len + 27, &h);
        if (rv != (int)len)
            diag("with a request after it: %d, want %zu", rv, len);
    }
    free(buf);
    tap("%s", c->name);
}

/* A byte at a time, as reads that bring one byte each would: INCOMPLETE
 * until the last byte, whatever came before. */
static void run_bytewise(void)
{
    static const char v1[] = "PROXY TCP4 203.0.113.5 10.0.0.1 40000 80\r\nGET";
    static const char v2[] = V2_TLVS "GET";
    const char *in[2] = {v1, v2};
    size_t lens[2] = {sizeof v1 - 1, sizeof v2 - 1}, i, k;
    for (i = 0; i < 2; i++) {
        size_t hlen = lens[i] - 3;
        int done = 0;
        kd_proxy_hdr h;
        for (k = 1; k <= lens[i] && !done; k++) {
            int rv = kd_proxy_parse(in[i], k, &h);
            if (rv == KD_PROXY_INCOMPLETE && k < hlen)
                continue;
            if (rv != (int)hlen || k != hlen)
                diag("after %zu bytes: %d (header %zu bytes)", k, rv, hlen);
            done = 1;
        }
        tap("v%d header fed a byte at a time", (int)i + 1);
    }
}

/* ---- address blocks ---- */

typedef struct {
    const char *cidr;               /* NULL: ends the list */
    int ok;
    const char *in[4], *out[4];     /* addresses inside and outside it */
} ccase;

static const ccase ccases[] = {
    {"127.0.0.1/32", 1, {"127.0.0.1", "::ffff:127.0.0.1"}, {"127.0.0.2", "::1", "128.0.0.1"}},
    {"127.0.0.1", 1, {"127.0.0.1"}, {"127.0.0.0", "127.0.0.3"}},
    {"10.0.0.0/8", 1, {"10.0.0.0", "10.255.255.255", "::ffff:10.1.2.3"}, {"11.0.0.0", "9.255.255.255", "127.0.0.1"}},
    {"10.1.2.3/8", 1, {"10.200.0.1"}, {"11.1.2.3"}},            /* host bits cleared */
    {"192.168.0.0/23", 1, {"192.168.0.1", "192.168.1.255"}, {"192.168.2.0", "192.167.255.255"}},
    {"0.0.0.0/0", 1, {"1.2.3.4", "255.255.255.255"}, {"::1"}},
    {"::1", 1, {"::1"}, {"::2", "127.0.0.1"}},
    {"fd00::/8", 1, {"fd00::1", "fdff:ffff::"}, {"fe00::", "fc00::"}},
    {"2001:db8::/33", 1, {"2001:db8:7fff::1"}, {"2001:db8:8000::"}},
    {"::/0", 1, {"::", "ffff::1"}, {"1.2.3.4"}},
    {"::ffff:0:0/96", 1, {"::ffff:1.2.3.4"}, {"::fffe:1.2.3.4"}},
    {"1.2.3.4/33", 0, {NULL}, {NULL}}, {"::1/129", 0, {NULL}, {NULL}}, {"1.2.3.4/", 0, {NULL}, {NULL}}, {"1.2.3.4/-1", 0, {NULL}, {NULL}}, {"1.2.3.4/1x", 0, {NULL}, {NULL}},
    {"1.2.3.4/0008", 0, {NULL}, {NULL}}, {"1.2.3", 0, {NULL}, {NULL}}, {"example.com", 0, {NULL}, {NULL}}, {"", 0, {NULL}, {NULL}}, {"/8", 0, {NULL}, {NULL}},
    {"1.2.3.4 ", 0, {NULL}, {NULL}}, {"[::1]", 0, {NULL}, {NULL}}, {"fe80::1%eth0", 0, {NULL}, {NULL}},
};
#define NCCASES (sizeof ccases / sizeof ccases[0])

static void run_ccase(const ccase *c)
{
    kd_cidr cidr;
    int rv = kd_cidr_parse(c->cidr, strlen(c->cidr), &cidr), i;
    if ((rv == 0) != c->ok)
        diag("kd_cidr_parse: %d", rv);
    for (i = 0; rv == 0 && i < 4; i++) {
        kd_addr a;
        if (c->in[i] && (kd_addr_parse(c->in[i], strlen(c->in[i]), &a) != 0 || !kd_cidr_match(&cidr, 1, &a)))
            diag("%s should be inside", c->in[i]);
        if (c->out[i] && (kd_addr_parse(c->out[i], strlen(c->out[i]), &a) != 0 || kd_cidr_match(&cidr, 1, &a)))
            diag("%s should be outside", c->out[i]);
    }
    tap("block '%s'%s", c->cidr, c->ok ? "" : " refused");
}

static void run_list_match(void)
{
    kd_cidr list[3];
    kd_addr a;
    kd_cidr_parse("10.0.0.0/8", 10, &list[0]);
    kd_cidr_parse("fd00::/8", 8, &list[1]);
    kd_cidr_parse("127.0.0.1", 9, &list[2]);
    kd_addr_parse("127.0.0.1", 9, &a);
    ok(kd_cidr_match(list, 3, &a), "a list: the last block matches");
    kd_addr_parse("fd12::5", 7, &a);
    ok(kd_cidr_match(list, 3, &a), "a list: an IPv6 block matches");
    kd_addr_parse("192.0.2.1", 9, &a);
    ok(!kd_cidr_match(list, 3, &a), "a list: none matches");
    ok(!kd_cidr_match(list, 0, &a), "an empty list matches nothing");
}

/* ---- X-Forwarded-* ---- */

typedef struct {
    const char *name;
    const char *fields[13];         /* name, value, ...; NULL ends */
    const char *client;             /* NULL: none */
    int client_port;
    int scheme, port;
    const char *host;               /* NULL: none */
    size_t host_name_len;
    int host_port;
} fcase;

#define TRUSTED "10.0.0.0/8", "127.0.0.1", "fd00::/8"
#define NOHOST NULL, 0, -1

static const fcase fcases[] = {
    {"no fields", {NULL}, NULL, -1, 0, -1, NOHOST},
    {"one client", {"X-Forwarded-For", "203.0.113.9", NULL}, "203.0.113.9", -1, 0, -1, NOHOST},
    {"the rightmost untrusted", {"X-Forwarded-For", "198.51.100.1, 203.0.113.9, 10.0.0.2, 127.0.0.1", NULL},
     "203.0.113.9", -1, 0, -1, NOHOST},
    {"all trusted: the leftmost", {"X-Forwarded-For", "10.9.9.9, 10.0.0.2", NULL}, "10.9.9.9", -1, 0, -1, NOHOST},
    {"a forged left part is not used", {"X-Forwarded-For", "1.1.1.1, 203.0.113.9", NULL}, "203.0.113.9", -1, 0, -1, NOHOST},
    {"fields joined in order", {"X-Forwarded-For", "203.0.113.9, 10.0.0.5", "x-forwarded-for", "10.0.0.6", NULL},
     "203.0.113.9", -1, 0, -1, NOHOST},
    {"the last field first", {"X-Forwarded-For", "198.51.100.1", "X-Forwarded-For", "203.0.113.9", NULL},
     "203.0.113.9", -1, 0, -1, NOHOST},
    {"IPv6", {"X-Forwarded-For", "2001:db8::7, fd00::1", NULL}, "2001:db8::7", -1, 0, -1, NOHOST},
    {"IPv4 with a port", {"X-Forwarded-For", "203.0.113.9:4711", NULL}, "203.0.113.9", 4711, 0, -1, NOHOST},
    {"[IPv6] with a port", {"X-Forwarded-For", "[2001:db8::7]:4711", NULL}, "2001:db8::7", 4711, 0, -1, NOHOST},
    {"[IPv6]", {"X-Forwarded-For", "[2001:db8::7]", NULL}, "2001:db8::7", -1, 0, -1, NOHOST},
    {"empty elements and spaces", {"X-Forwarded-For", " ,203.0.113.9 ,,\t10.0.0.1 , ", NULL}, "203.0.113.9", -1, 0, -1, NOHOST},
    {"malformed rightmost: none", {"X-Forwarded-For", "203.0.113.9, unknown", NULL}, NULL, -1, 0, -1, NOHOST},
    {"malformed behind a trusted hop: the hop", {"X-Forwarded-For", "evil, 10.0.0.3", NULL}, "10.0.0.3", -1, 0, -1, NOHOST},
    {"malformed left of the client: the client", {"X-Forwarded-For", "evil, 203.0.113.9", NULL}, "203.0.113.9", -1, 0, -1, NOHOST},
    {"a host name is not an address", {"X-Forwarded-For", "example.com", NULL}, NULL, -1, 0, -1, NOHOST},
    {"a bad port", {"X-Forwarded-For", "203.0.113.9:99999", NULL}, NULL, -1, 0, -1, NOHOST},
    {"IPv6 with a port without brackets is IPv6", {"X-Forwarded-For", "2001:db8::7:80", NULL}, "2001:db8::7:80", -1, 0, -1, NOHOST},
    {"a mapped address of a trusted hop", {"X-Forwarded-For", "203.0.113.9, ::ffff:10.0.0.1", NULL}, "203.0.113.9", -1, 0, -1, NOHOST},
    {"X-Real-IP", {"X-Real-IP", "203.0.113.9", NULL}, "203.0.113.9", -1, 0, -1, NOHOST},
    {"X-Real-IP under X-Forwarded-For", {"X-Real-IP", "198.51.100.1", "X-Forwarded-For", "203.0.113.9", NULL},
     "203.0.113.9", -1, 0, -1, NOHOST},
    {"X-Real-IP malformed", {"X-Real-IP", "1.2.3.4, 5.6.7.8", NULL}, NULL, -1, 0, -1, NOHOST},
    {"X-Real-IP twice", {"X-Real-IP", "1.2.3.4", "X-Real-IP", "5.6.7.8", NULL}, NULL, -1, 0, -1, NOHOST},
    {"https", {"X-Forwarded-Proto", "https", NULL}, NULL, -1, KD_SCHEME_HTTPS, -1, NOHOST},
    {"HTTPS in capitals", {"x-forwarded-proto", "HTTPS", NULL}, NULL, -1, KD_SCHEME_HTTPS, -1, NOHOST},
    {"http", {"X-Forwarded-Proto", "http", NULL}, NULL, -1, KD_SCHEME_HTTP, -1, NOHOST},
    {"a list of schemes is ignored", {"X-Forwarded-Proto", "https, http", NULL}, NULL, -1, 0, -1, NOHOST},
    {"another scheme is ignored", {"X-Forwarded-Proto", "ftp", NULL}, NULL, -1, 0, -1, NOHOST},
    {"two Proto fields are ignored", {"X-Forwarded-Proto", "https", "X-Forwarded-Proto", "https", NULL}, NULL, -1, 0, -1, NOHOST},
    {"a port", {"X-Forwarded-Port", "8443", NULL}, NULL, -1, 0, 8443, NOHOST},
    {"port 0 is ignored", {"X-Forwarded-Port", "0", NULL}, NULL, -1, 0, -1, NOHOST},
    {"port 65536 is ignored", {"X-Forwarded-Port", "65536", NULL}, NULL, -1, 0, -1, NOHOST},
    {"a port that is not a number is ignored", {"X-Forwarded-Port", "443x", NULL}, NULL, -1, 0, -1, NOHOST},
    {"a host", {"X-Forwarded-Host", "www.example.com", NULL}, NULL, -1, 0, -1, "www.example.com", 15, -1},
    {"a host with a port", {"X-Forwarded-Host", "www.example.com:8443", NULL}, NULL, -1, 0, -1, "www.example.com:8443", 15, 8443},
    {"a list of hosts: the last", {"X-Forwarded-Host", "a.example, b.example", NULL}, NULL, -1, 0, -1, "b.example", 9, -1},
    {"an [IPv6] host with a port", {"X-Forwarded-Host", "[2001:db8::1]:8080", NULL}, NULL, -1, 0, -1, "[2001:db8::1]:8080", 13, 8080},
    {"a host with a slash is ignored", {"X-Forwarded-Host", "evil/x", NULL}, NULL, -1, 0, -1, NOHOST},
    {"a host with a space is ignored", {"X-Forwarded-Host", "a b", NULL}, NULL, -1, 0, -1, NOHOST},
    {"a host with an empty port is ignored", {"X-Forwarded-Host", "a.example:", NULL}, NULL, -1, 0, -1, NOHOST},
    {"an empty host is ignored", {"X-Forwarded-Host", "", NULL}, NULL, -1, 0, -1, NOHOST},
    {"underscore-free look-alikes do not count", {"X-Forwarded-Fo", "203.0.113.9", "X-Real-I", "1.2.3.4", NULL},
     NULL, -1, 0, -1, NOHOST},
};
#define NFCASES (sizeof fcases / sizeof fcases[0])

static void run_fcase(const fcase *c, const kd_cidr *trusted, int ntrusted)
{
    kd_header h[6];
    kd_forwarded f;
    size_t n = 0;
    char text[KD_ADDR_TEXT];
    while (c->fields[2 * n]) {
        h[n].name = c->fields[2 * n];
        h[n].name_len = strlen(h[n].name);
        h[n].value = c->fields[2 * n + 1];
        h[n].value_len = strlen(h[n].value);
        n++;
    }
    kd_forwarded_resolve(h, n, trusted, ntrusted, &f);
    if (!c->client != !f.have_client)
        diag("have_client %d", f.have_client);
    if (c->client && f.have_client) {
        kd_addr_format(&f.client, text);
        if (strcmp(text, c->client) != 0 || f.client_port != c->client_port)
            diag("client %s port %d, want %s port %d", text, f.client_port, c->client, c->client_port);
    }
    if (f.scheme != c->scheme)
        diag("scheme %d, want %d", f.scheme, c->scheme);
    if (f.port != c->port)
        diag("port %d, want %d", f.port, c->port);
    if (!c->host != !f.host)
        diag("host %s", f.host ? "given" : "none");
    if (c->host && f.host && (f.host_len != strlen(c->host) || memcmp(f.host, c->host, f.host_len) != 0 ||
                              f.host_name_len != c->host_name_len || f.host_port != c->host_port))
        diag("host '%.*s' (name %zu, port %d), want '%s' (%zu, %d)", (int)f.host_len, f.host,
             f.host_name_len, f.host_port, c->host, c->host_name_len, c->host_port);
    tap("forwarded: %s", c->name);
}

int main(void)
{
    static const char *blocks[] = {TRUSTED};
    kd_cidr trusted[3];
    size_t i;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; i < NPCASES; i++)
        run_pcase(&pcases[i]);
    run_bytewise();
    for (i = 0; i < NCCASES; i++)
        run_ccase(&ccases[i]);
    run_list_match();
    for (i = 0; i < 3; i++)
        if (kd_cidr_parse(blocks[i], strlen(blocks[i]), &trusted[i]) != 0)
            diag("trusted block %s", blocks[i]);
    tap("the trusted blocks of the forwarded cases parse");
    for (i = 0; i < NFCASES; i++)
        run_fcase(&fcases[i], trusted, 3);
    printf("# %zu PROXY cases, %zu blocks, %zu forwarded cases\n", (size_t)NPCASES, (size_t)NCCASES, (size_t)NFCASES);
    return done_testing();
}
