/* Kamado::Loop's glue: the PSGI env of a parsed head (behind a proxy,
 * the addresses X-Forwarded-* gives), and the request id in it. Included
 * by Kamado.xs, after xs/loop.c. */

/* %env keys the engine sets on every request, with their hashes computed
 * once at load time (the hash seed is fixed for the process and its
 * forked workers) */
enum { K_METHOD, K_URI, K_PROTOCOL, K_QUERY, K_ADDR, K_PORT, K_PATH, K_CL, K_CT, K_ID, K_COUNT };
static struct { const char *name; I32 len; U32 hash; SV *key; } env_keys[K_COUNT] = {
    {"REQUEST_METHOD", 14, 0, NULL}, {"REQUEST_URI", 11, 0, NULL}, {"SERVER_PROTOCOL", 15, 0, NULL},
    {"QUERY_STRING", 12, 0, NULL}, {"REMOTE_ADDR", 11, 0, NULL}, {"REMOTE_PORT", 11, 0, NULL},
    {"PATH_INFO", 9, 0, NULL}, {"CONTENT_LENGTH", 14, 0, NULL}, {"CONTENT_TYPE", 12, 0, NULL},
    {"kamado.request_id", 17, 0, NULL},
};

/* stored by a shared-key SV: the env's copy of the key is that string
 * table entry, taken without looking it up */
#define ENV_STORE(env, k, sv) \
    (void)hv_store_ent((env), env_keys[k].key, (sv), env_keys[k].hash)

/* Behind a proxy: the socket's peer kept as kamado.peer_addr and
 * kamado.peer_port, and, when it is trusted, what its X-Forwarded-* fields
 * say put where the app (and the access log, and a CGI script's
 * environment, both made from %env) looks: REMOTE_ADDR (and REMOTE_PORT
 * when the field gave one), psgi.url_scheme and HTTPS, SERVER_PORT,
 * HTTP_HOST and SERVER_NAME. */
static void proxy_env(pTHX_ kd_loop *l, kd_conn *c, HV *env)
{
    kd_forwarded f;
    char text[KD_ADDR_TEXT];
    int port;
    (void)hv_stores(env, "kamado.peer_addr", c->proxied ? newSVpvn(c->peer_addr, c->peer_addr_len)
                                                         : newSVpvn(c->remote_addr, c->remote_addr_len));
    (void)hv_stores(env, "kamado.peer_port", newSViv(c->proxied ? c->peer_port : c->remote_port));
    if (!c->trusted)
        return;
    kd_forwarded_resolve(c->req.headers, c->req.num_headers, l->trusted, l->ntrusted, &f);
    if (f.have_client) {
        size_t n = kd_addr_format(&f.client, text);
        ENV_STORE(env, K_ADDR, newSVpvn(text, n));
        if (f.client_port >= 0)
            ENV_STORE(env, K_PORT, newSViv(f.client_port));
    }
    if (f.scheme == KD_SCHEME_HTTPS) {
        (void)hv_stores(env, "psgi.url_scheme", newSVpvs("https"));
        (void)hv_stores(env, "HTTPS", newSVpvs("on"));
    } else if (f.scheme == KD_SCHEME_HTTP) {
        (void)hv_stores(env, "psgi.url_scheme", newSVpvs("http"));
    }
    if (f.host) {
        (void)hv_stores(env, "HTTP_HOST", newSVpvn(f.host, f.host_len));
        (void)hv_stores(env, "SERVER_NAME", newSVpvn(f.host, f.host_name_len));
    }
    /* the port the client used: said outright, or in the host, or the
     * scheme's own */
    port = f.port > 0 ? f.port : f.host_port > 0 ? f.host_port :
           f.scheme == KD_SCHEME_HTTPS ? 443 : f.scheme == KD_SCHEME_HTTP ? 80 : 0;
    if (port)
        (void)hv_stores(env, "SERVER_PORT", newSViv(port));
}

/* PSGI env for the head just parsed on c */
static HV *build_env(pTHX_ kd_xs *x, kd_conn *c)
{
    const kd_request *r = &c->req;
    SV **tmpl = av_fetch(x->templates, c->listener, 0);
    HV *env = newHVhv((HV *)SvRV(*tmpl));
    char *key = x->env_key;
    size_t i;
    SV *path;

    ENV_STORE(env, K_METHOD, newSVpvn(r->method, r->method_len));
    ENV_STORE(env, K_URI, newSVpvn(r->target, r->target_len));
    ENV_STORE(env, K_PROTOCOL, newSVpvn(r->minor_version ? "HTTP/1.1" : "HTTP/1.0", 8));
    ENV_STORE(env, K_QUERY, r->query ? newSVpvn(r->query, r->query_len) : newSVpvs(""));
    ENV_STORE(env, K_ADDR, newSVpvn(c->remote_addr, c->remote_addr_len));
    ENV_STORE(env, K_PORT, newSViv(c->remote_port));

    /* PATH_INFO is the percent-decoded path (CGI/PSGI convention) */
    path = newSV(r->path_len + 1);
    SvPOK_on(path);
    {
        char *d = SvPVX(path);
        const char *s = r->path, *e = r->path + r->path_len;
        while (s < e) {
            int h1, h2;
            if (*s == '%' && e - s >= 3 && (h1 = hexval((unsigned char)s[1])) >= 0 &&
                (h2 = hexval((unsigned char)s[2])) >= 0) {
                *d++ = (char)(h1 * 16 + h2);
                s += 3;
            } else {
                *d++ = *s++;
            }
        }
        *d = '\0';
        SvCUR_set(path, d - SvPVX(path));
    }
    ENV_STORE(env, K_PATH, path);

    for (i = 0; i < r->num_headers; i++) {
        const kd_header *h = &r->headers[i];
        size_t j;
        SV **slot;

        /* underscores would let "X_Forwarded_For" pose as X-Forwarded-For */
        if (memchr(h->name, '_', h->name_len))
            continue;
        if (kd_ci_eq(h->name, h->name_len, "content-length")) {
            ENV_STORE(env, K_CL, newSVpvn(h->value, h->value_len));
            continue;
        }
        if (kd_ci_eq(h->name, h->name_len, "content-type")) {
            ENV_STORE(env, K_CT, newSVpvn(h->value, h->value_len));
            continue;
        }
        memcpy(key, "HTTP_", 5);
        for (j = 0; j < h->name_len; j++) {
            char ch = h->name[j];
            key[5 + j] = ch == '-' ? '_' : (char)toUPPER(ch);
        }
        /* one lookup: the slot is new (undef) or holds an earlier field */
        slot = hv_fetch(env, key, (I32)(h->name_len + 5), 1);
        if (SvOK(*slot)) {
            /* repeated fields are joined as one list (RFC 9110 5.3) */
            sv_catpvs(*slot, ", ");
            sv_catpvn(*slot, h->value, h->value_len);
        } else {
            sv_setpvn(*slot, h->value, h->value_len);
        }
    }
    /* absolute-form: the target's host wins over Host (RFC 9112 3.2.2) */
    if (r->authority_len)
        (void)hv_stores(env, "HTTP_HOST", newSVpvn(r->authority, r->authority_len));
    if (c->trusted || c->proxied)
        proxy_env(aTHX_ x->loop, c, env);
    if (x->id_len) {
        /* the prefix, then the count in decimal */
        char digits[20];
        unsigned long long n = ++x->id_count;
        size_t len = 0;
        SV *id;
        do {
            digits[len++] = (char)('0' + n % 10);
            n /= 10;
        } while (n);
        for (i = 0; i < len; i++)
            x->id[x->id_len + i] = digits[len - 1 - i];
        id = newSVpvn(x->id, x->id_len + len);
        if (x->id_gv)
            sv_setsv(GvSVn(x->id_gv), id);
        ENV_STORE(env, K_ID, id);
    }
    return env;
}

/* Between requests, the id of none (see request_ids). */
static void forget_request_id(pTHX_ kd_xs *x)
{
    SV *sv = x->id_gv ? GvSV(x->id_gv) : NULL;
    if (sv && SvOK(sv))
        sv_setsv(sv, &PL_sv_undef);
}
