/* kd_proxy.c: PROXY protocol headers, address blocks, X-Forwarded-*. See kd_proxy.h. */
#include "kd_proxy.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

int kd_addr_parse(const char *s, size_t len, kd_addr *a)
{
    char text[KD_ADDR_TEXT];
    int v6;
    if (len == 0 || len >= sizeof text || memchr(s, '\0', len))
        return -1;
    memcpy(text, s, len);
    text[len] = '\0';
    v6 = memchr(s, ':', len) != NULL;
    memset(a, 0, sizeof *a);
    a->family = v6 ? 6 : 4;
    return inet_pton(v6 ? AF_INET6 : AF_INET, text, a->b) == 1 ? 0 : -1;
}

size_t kd_addr_format(const kd_addr *a, char *out)
{
    if (!inet_ntop(a->family == 6 ? AF_INET6 : AF_INET, a->b, out, KD_ADDR_TEXT)) {
        out[0] = '\0';
        return 0;
    }
    return strlen(out);
}

int kd_cidr_parse(const char *s, size_t len, kd_cidr *c)
{
    const char *slash = memchr(s, '/', len);
    size_t alen = slash ? (size_t)(slash - s) : len;
    int bits = 0, max, i;
    if (kd_addr_parse(s, alen, &c->net) != 0)
        return -1;
    max = c->net.family == 6 ? 128 : 32;
    if (slash) {
        const char *p = slash + 1, *end = s + len;
        if (p == end || end - p > 3)
            return -1;
        for (; p < end; p++) {
            if (*p < '0' || *p > '9')
                return -1;
            bits = bits * 10 + (*p - '0');
        }
        if (bits > max)
            return -1;
    } else {
        bits = max;
    }
    c->bits = bits;
    for (i = 0; i < max / 8; i++) {
        int keep = bits - i * 8;
        c->net.b[i] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (unsigned char)(0xff << (8 - keep));
    }
    return 0;
}

static int in_block(const kd_cidr *c, const unsigned char *b)
{
    int whole = c->bits / 8, rest = c->bits % 8;
    if (memcmp(c->net.b, b, (size_t)whole) != 0)
        return 0;
    return rest == 0 || ((b[whole] ^ c->net.b[whole]) & (0xff << (8 - rest)) & 0xff) == 0;
}

int kd_cidr_match(const kd_cidr *list, int n, const kd_addr *a)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    int v4 = a->family == 6 && memcmp(a->b, mapped, sizeof mapped) == 0, i;
    for (i = 0; i < n; i++) {
        if (list[i].net.family == a->family && in_block(&list[i], a->b))
            return 1;
        if (v4 && list[i].net.family == 4 && in_block(&list[i], a->b + 12))
            return 1;
    }
    return 0;
}

/* 0..65535 in decimal, no sign, no leading zero. 0 or -1. */
static int parse_port(const char *s, size_t len, int *port)
{
    size_t i;
    long v = 0;
    if (len == 0 || len > 5 || (len > 1 && s[0] == '0'))
        return -1;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

/* ---- PROXY protocol ---- */

static const char v2_sig[12] = {'\r', '\n', '\r', '\n', '\0', '\r', '\n', 'Q', 'U', 'I', 'T', '\n'};

/* "TCP4 SRC DST SPORT DPORT" (family 4 or 6) in line[0..len). */
static int parse_v1_tcp(const char *line, size_t len, int family, kd_proxy_hdr *h)
{
    const char *tok[4], *p = line, *end = line + len;
    size_t tlen[4];
    int i;
    for (i = 0; i < 4; i++) {
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        tok[i] = p;
        tlen[i] = (size_t)((i < 3 ? (sp ? sp : end) : end) - p);
        if (tlen[i] == 0 || (i < 3 && !sp) || (i == 3 && memchr(p, ' ', tlen[i])))
            return -1;
        p += tlen[i] + 1;
    }
    if (kd_addr_parse(tok[0], tlen[0], &h->src) != 0 || h->src.family != family ||
        kd_addr_parse(tok[1], tlen[1], &h->dst) != 0 || h->dst.family != family ||
        parse_port(tok[2], tlen[2], &h->src_port) != 0 ||
        parse_port(tok[3], tlen[3], &h->dst_port) != 0)
        return -1;
    return 0;
}

static int parse_v1(const char *buf, size_t len, kd_proxy_hdr *h)
{
    size_t i, n = len < KD_PROXY_V1_MAX ? len : KD_PROXY_V1_MAX;
    const char *line;
    size_t line_len;
    /* printable ASCII up to CRLF: garbage fails before the line is whole */
    for (i = 6; i < n; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch == '\r') {
            if (i + 1 >= KD_PROXY_V1_MAX)
                return KD_PROXY_ERROR;
            if (i + 1 == len)
                return KD_PROXY_INCOMPLETE;
            if (buf[i + 1] != '\n')
                return KD_PROXY_ERROR;
            break;
        }
        if (ch < 0x20 || ch > 0x7e)
            return KD_PROXY_ERROR;
    }
    if (i == n)
        return n == KD_PROXY_V1_MAX ? KD_PROXY_ERROR : KD_PROXY_INCOMPLETE;
    line = buf + 6;
    line_len = i - 6;
    h->version = 1;
    h->local = 0;
    if (line_len >= 7 && memcmp(line, "UNKNOWN", 7) == 0 && (line_len == 7 || line[7] == ' ')) {
        h->local = 1;                 /* what follows UNKNOWN is ignored */
    } else if (line_len > 5 && memcmp(line, "TCP4 ", 5) == 0) {
        if (parse_v1_tcp(line + 5, line_len - 5, 4, h) != 0)
            return KD_PROXY_ERROR;
    } else if (line_len > 5 && memcmp(line, "TCP6 ", 5) == 0) {
        if (parse_v1_tcp(line + 5, line_len - 5, 6, h) != 0)
            return KD_PROXY_ERROR;
    } else {
        return KD_PROXY_ERROR;
    }
    return (int)(i + 2);
}

/* A version 2 address block of FAMILY at A: the source and destination
 * addresses (N bytes each), then the source and destination ports. */
static void v2_addresses(const unsigned char *a, size_t n, int family, kd_proxy_hdr *h)
{
    memset(&h->src, 0, sizeof h->src);
    memset(&h->dst, 0, sizeof h->dst);
    h->src.family = h->dst.family = family;
    memcpy(h->src.b, a, n);
    memcpy(h->dst.b, a + n, n);
    h->src_port = a[2 * n] << 8 | a[2 * n + 1];
    h->dst_port = a[2 * n + 2] << 8 | a[2 * n + 3];
    h->local = 0;
}

static int parse_v2(const unsigned char *b, size_t len, kd_proxy_hdr *h)
{
    size_t total, alen;
    int cmd;
    if (len < 16)
        return KD_PROXY_INCOMPLETE;
    if (b[12] >> 4 != 2)
        return KD_PROXY_ERROR;
    cmd = b[12] & 0x0f;
    if (cmd > 1)                      /* LOCAL or PROXY */
        return KD_PROXY_ERROR;
    alen = (size_t)b[14] << 8 | b[15];
    total = 16 + alen;
    if (total > KD_PROXY_V2_MAX)
        return KD_PROXY_ERROR;
    if (len < total)
        return KD_PROXY_INCOMPLETE;
    h->version = 2;
    h->local = 1;
    if (cmd == 0)                     /* LOCAL: the proxy's own connection (a health check) */
        return (int)total;
    switch (b[13]) {
    case 0x11:                        /* TCP over IPv4 */
        if (alen < 12)
            return KD_PROXY_ERROR;
        v2_addresses(b + 16, 4, 4, h);
        break;
    case 0x21:                        /* TCP over IPv6 */
        if (alen < 36)
            return KD_PROXY_ERROR;
        v2_addresses(b + 16, 16, 6, h);
        break;
    case 0x00:                        /* UNSPEC: the connection's own addresses */
        break;
    case 0x31:                        /* a unix socket: no address REMOTE_ADDR can hold */
        if (alen < 216)
            return KD_PROXY_ERROR;
        break;
    default:                          /* datagrams: not for a stream server */
        return KD_PROXY_ERROR;
    }
    return (int)total;                /* TLVs, if any, are skipped */
}

int kd_proxy_parse(const char *buf, size_t len, kd_proxy_hdr *h)
{
    size_t n;
    if (len == 0)
        return KD_PROXY_INCOMPLETE;
    if (buf[0] == 'P') {
        n = len < 6 ? len : 6;
        if (memcmp(buf, "PROXY ", n) != 0)
            return KD_PROXY_ERROR;
        return n < 6 ? KD_PROXY_INCOMPLETE : parse_v1(buf, len, h);
    }
    n = len < sizeof v2_sig ? len : sizeof v2_sig;
    if (memcmp(buf, v2_sig, n) != 0)
        return KD_PROXY_ERROR;
    return parse_v2((const unsigned char *)buf, len, h);
}

/* ---- X-Forwarded-* ---- */

static int is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* ADDRESS, IPV4:PORT, [IPV6] or [IPV6]:PORT. 0 or -1. */
static int parse_element(const char *s, size_t len, kd_addr *a, int *port)
{
    const char *colon;
    *port = -1;
    if (len > 0 && s[0] == '[') {
        const char *rb = memchr(s, ']', len);
        size_t rest;
        if (!rb || kd_addr_parse(s + 1, (size_t)(rb - s - 1), a) != 0 || a->family != 6)
            return -1;
        rest = len - (size_t)(rb - s) - 1;
        if (rest == 0)
            return 0;
        return rb[1] == ':' ? parse_port(rb + 2, rest - 1, port) : -1;
    }
    colon = memchr(s, ':', len);
    if (colon && !memchr(colon + 1, ':', len - (size_t)(colon - s) - 1)) {
        if (kd_addr_parse(s, (size_t)(colon - s), a) != 0 || a->family != 4)
            return -1;
        return parse_port(colon + 1, len - (size_t)(colon - s) - 1, port);
    }
    return kd_addr_parse(s, len, a);
}

/* The value without the OWS at its ends. */
static const char *trim(const char *s, size_t *len)
{
    while (*len > 0 && is_ows(s[0]))
        s++, (*len)--;
    while (*len > 0 && is_ows(s[*len - 1]))
        (*len)--;
    return s;
}

/* Walks one X-Forwarded-For value from its right end. 1 when the walk is
 * over (an untrusted or malformed element), 0 to go on leftwards. */
static int walk_xff(const char *v, size_t end, const kd_cidr *trusted, int ntrusted,
                    kd_forwarded *out)
{
    while (end > 0) {
        size_t start, elen;
        const char *e;
        kd_addr a;
        int port;
        while (end > 0 && (is_ows(v[end - 1]) || v[end - 1] == ','))
            end--;
        if (end == 0)
            break;
        start = end;
        while (start > 0 && v[start - 1] != ',')
            start--;
        elen = end - start;
        e = trim(v + start, &elen);
        if (parse_element(e, elen, &a, &port) != 0)
            return 1;                 /* never trusted blindly: the walk ends */
        out->have_client = 1;
        out->client = a;
        out->client_port = port;
        if (!kd_cidr_match(trusted, ntrusted, &a))
            return 1;
        end = start;
    }
    return 0;
}

/* host name, IPv4 or [IPv6], then maybe ":PORT". 0 or -1. */
static int parse_host(const char *s, size_t len, size_t *name_len, int *port)
{
    size_t i = 0;
    *port = -1;
    if (len == 0 || len > 255)
        return -1;
    if (s[0] == '[') {
        kd_addr a;
        const char *rb = memchr(s, ']', len);
        if (!rb || kd_addr_parse(s + 1, (size_t)(rb - s - 1), &a) != 0 || a.family != 6)
            return -1;
        i = (size_t)(rb - s) + 1;
    } else {
        for (; i < len && s[i] != ':'; i++) {
            char c = s[i];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '.' || c == '_' || c == '~'))
                return -1;
        }
        if (i == 0)
            return -1;
    }
    *name_len = i;
    if (i == len)
        return 0;
    if (s[i] != ':' || parse_port(s + i + 1, len - i - 1, port) != 0 || *port == 0)
        return -1;
    return 0;
}

void kd_forwarded_resolve(const kd_header *headers, size_t n, const kd_cidr *trusted,
                          int ntrusted, kd_forwarded *out)
{
    const kd_header *real_ip = NULL, *proto = NULL, *fport = NULL, *fhost = NULL;
    int xff = 0, nreal = 0, nproto = 0, nport = 0;
    size_t i;

    memset(out, 0, sizeof *out);
    out->client_port = out->port = out->host_port = -1;
    for (i = 0; i < n; i++) {
        const kd_header *h = &headers[i];
        if (h->name_len < 9 || (h->name[0] | 0x20) != 'x' || h->name[1] != '-')
            continue;
        if (kd_ci_eq(h->name, h->name_len, "x-forwarded-for"))
            xff = 1;
        else if (kd_ci_eq(h->name, h->name_len, "x-real-ip"))
            real_ip = h, nreal++;
        else if (kd_ci_eq(h->name, h->name_len, "x-forwarded-proto"))
            proto = h, nproto++;
        else if (kd_ci_eq(h->name, h->name_len, "x-forwarded-port"))
            fport = h, nport++;
        else if (kd_ci_eq(h->name, h->name_len, "x-forwarded-host"))
            fhost = h;                /* repeated: one list, its last element wins */
    }
    if (xff) {
        /* the fields are one list, in order: the last field's right end first */
        for (i = n; i-- > 0;)
            if (kd_ci_eq(headers[i].name, headers[i].name_len, "x-forwarded-for") &&
                walk_xff(headers[i].value, headers[i].value_len, trusted, ntrusted, out))
                break;
    } else if (real_ip && nreal == 1) {
        size_t len = real_ip->value_len;
        const char *v = trim(real_ip->value, &len);
        out->have_client = parse_element(v, len, &out->client, &out->client_port) == 0;
        if (!out->have_client)
            out->client_port = -1;
    }
    if (proto && nproto == 1) {
        size_t len = proto->value_len;
        const char *v = trim(proto->value, &len);
        if (kd_ci_eq(v, len, "https"))
            out->scheme = KD_SCHEME_HTTPS;
        else if (kd_ci_eq(v, len, "http"))
            out->scheme = KD_SCHEME_HTTP;
    }
    if (fport && nport == 1) {
        size_t len = fport->value_len;
        const char *v = trim(fport->value, &len);
        int p;
        if (parse_port(v, len, &p) == 0 && p > 0)
            out->port = p;
    }
    if (fhost) {
        const char *v = fhost->value, *comma;
        size_t len = fhost->value_len;
        while ((comma = memchr(v, ',', len)) != NULL) {
            len -= (size_t)(comma - v) + 1;
            v = comma + 1;
        }
        v = trim(v, &len);
        if (parse_host(v, len, &out->host_name_len, &out->host_port) == 0) {
            out->host = v;
            out->host_len = len;
        }
    }
}
