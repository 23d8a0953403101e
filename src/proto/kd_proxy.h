/* kd_proxy.h: what a connection says of the client behind a proxy.
 *
 * Plain C99, no perl.h: unit-tested (t/c/test_proxy.c) and fuzzed
 * (fuzz/fuzz_proxy.c) on its own. Nothing here allocates or prints; the
 * input is untrusted bytes, parsed in place.
 *
 *   - The PROXY protocol (HAProxy's, versions 1 and 2) header that a
 *     listener marked --proxy-protocol expects before the first request:
 *     kd_proxy_parse.
 *   - Addresses and CIDR blocks (--trusted-proxy) and matching an address
 *     against a list of blocks: decided once per connection.
 *   - The X-Forwarded-* and X-Real-IP fields of a request from a trusted
 *     peer: kd_forwarded_resolve.
 */
#ifndef KD_PROXY_H
#define KD_PROXY_H

#include <stddef.h>
#include <stdint.h>
#include "kd_parser.h"

/* An IPv4 (family 4, b[0..3]) or IPv6 (family 6, b[0..15]) address. */
typedef struct {
    int family;
    unsigned char b[16];
} kd_addr;

/* An address block: net with its host bits cleared, and the prefix. */
typedef struct {
    kd_addr net;
    int bits;
} kd_cidr;

/* Longest text kd_addr_format writes, NUL included (INET6_ADDRSTRLEN). */
#define KD_ADDR_TEXT 46

/* Parses an IPv4 or IPv6 literal s[0..len) (no brackets, no port, no
 * zone). 0, or -1 when it is not one. */
int kd_addr_parse(const char *s, size_t len, kd_addr *a);

/* The address as text ("10.0.0.1", "2001:db8::1") into out (at least
 * KD_ADDR_TEXT bytes); returns its length. */
size_t kd_addr_format(const kd_addr *a, char *out);

/* Parses "ADDRESS" or "ADDRESS/BITS" (0..32 or 0..128); host bits below
 * the prefix are cleared. 0, or -1 when malformed. */
int kd_cidr_parse(const char *s, size_t len, kd_cidr *c);

/* 1 when a lies in one of the n blocks. An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, what a dual-stack socket reports) matches as itself
 * and as its IPv4 address. */
int kd_cidr_match(const kd_cidr *list, int n, const kd_addr *a);

/* ---- PROXY protocol ---- */

#define KD_PROXY_INCOMPLETE (-2)
#define KD_PROXY_ERROR (-1)
#define KD_PROXY_V1_MAX 107         /* the longest version 1 line, CRLF included */
#define KD_PROXY_V2_MAX 65536       /* the longest version 2 header accepted, TLVs included */

typedef struct {
    int version;                    /* 1 or 2 */
    int local;                      /* no addresses (v1 UNKNOWN, v2 LOCAL or
                                     * UNSPEC/UNIX): the connection's own stand */
    kd_addr src, dst;               /* when !local */
    int src_port, dst_port;
} kd_proxy_hdr;

/* Parses the header at buf[0..len). Returns its length (the HTTP request
 * follows it) when complete, KD_PROXY_INCOMPLETE when more bytes may make
 * one, KD_PROXY_ERROR as soon as the bytes so far cannot begin a valid
 * header: a first byte that starts neither signature fails at once. */
int kd_proxy_parse(const char *buf, size_t len, kd_proxy_hdr *h);

/* ---- X-Forwarded-* ---- */

enum { KD_SCHEME_NONE = 0, KD_SCHEME_HTTP = 1, KD_SCHEME_HTTPS = 2 };

typedef struct {
    int have_client;                /* client holds the address to use */
    kd_addr client;
    int client_port;                /* from "ADDRESS:PORT" in the field; -1 none */
    int scheme;                     /* KD_SCHEME_*, from X-Forwarded-Proto */
    int port;                       /* X-Forwarded-Port; -1 none */
    const char *host;               /* X-Forwarded-Host (its last element); NULL none */
    size_t host_len;
    size_t host_name_len;           /* of host, without ":PORT" */
    int host_port;                  /* the port in host; -1 none */
} kd_forwarded;

/* What the fields of a request from a trusted peer say (none of it when
 * malformed):
 *   client: from X-Forwarded-For (all its fields, as one list), walked
 *     from the right past the addresses in trusted: the first one that is
 *     not; when all are, the leftmost; an element that is not an address
 *     stops the walk, the last address before it standing (none: no
 *     client). Without X-Forwarded-For, X-Real-IP when it is an address.
 *     An element is ADDRESS, IPV4:PORT, [IPV6] or [IPV6]:PORT.
 *   scheme: X-Forwarded-Proto when it is one "http" or "https" (any case).
 *   port: X-Forwarded-Port, 1 to 65535.
 *   host: the last element of X-Forwarded-Host, a host name, IPv4 or
 *     [IPv6], with an optional ":PORT".
 * The pointers point into the headers' values. */
void kd_forwarded_resolve(const kd_header *headers, size_t n, const kd_cidr *trusted,
                          int ntrusted, kd_forwarded *out);

#endif
