/* Kamado::Loop's glue: the PSGI env of a parsed head (behind a proxy,
 * the addresses X-Forwarded-* gives), and the request id in it. Included
 * by Kamado.xs, after xs/loop.c. */

/* %env keys the engine sets on every request, with their hashes computed
 * once at load time (the hash seed is fixed for the process and its
 * forked workers) */
enum {
    K_METHOD,
    K_URI,
    K_PROTOCOL,
    K_QUERY,
    K_ADDR,
    K_PORT,
    K_PATH,
    K_CL,
    K_CT,
    K_ID,
    K_INPUT,
    K_CLEANUP,
    K_COUNT
};
static struct {
    const char *name;
    I32 len;
    U32 hash;
    SV *key;
} env_keys[K_COUNT] = {
    {"REQUEST_METHOD", 14, 0, NULL},  {"REQUEST_URI", 11, 0, NULL},
    {"SERVER_PROTOCOL", 15, 0, NULL}, {"QUERY_STRING", 12, 0, NULL},
    {"REMOTE_ADDR", 11, 0, NULL},     {"REMOTE_PORT", 11, 0, NULL},
    {"PATH_INFO", 9, 0, NULL},        {"CONTENT_LENGTH", 14, 0, NULL},
    {"CONTENT_TYPE", 12, 0, NULL},    {"kamado.request_id", 17, 0, NULL},
    {"psgi.input", 10, 0, NULL},      {"psgix.cleanup.handlers", 22, 0, NULL},
};

/* Room in each listener's env template for every per-request key, so
 * that its copies never split buckets. Kamado::Server->prepare has it done
 * in the generation before the fork: a worker that splits a template
 * itself rewrites a hash it shares with the generation; then it is done. */
static void presize_templates(pTHX_ AV *templates)
{
    SSize_t i, n = av_len(templates) + 1;
    for (i = 0; i < n; i++) {
        SV **t = av_fetch(templates, i, 0);
        if (t && SvROK(*t) && SvTYPE(SvRV(*t)) == SVt_PVHV)
            hv_ksplit((HV *)SvRV(*t), 40);
    }
}

typedef char kd_env_keys_fit[K_COUNT <= sizeof(((kd_xs *)0)->slot_he) / sizeof(HE *) ? 1 : -1];

/* stored by a shared-key SV: the env's copy of the key is that string
 * table entry, taken without looking it up */
#define ENV_STORE(env, k, sv) \
    (void)hv_store_ent((env), env_keys[k].key, (sv), env_keys[k].hash)

/* Behind a proxy: the socket's peer kept as kamado.peer_addr and
 * kamado.peer_port, and, when it is trusted, what its X-Forwarded-* fields
 * say put where the app (and the access log, and a CGI script's
 * environment, both made from %env) looks: REMOTE_ADDR (and REMOTE_PORT
 * when the field gave one), psgi.url_scheme and HTTPS, SERVER_PORT, and
 * with --forwarded-host HTTP_HOST and SERVER_NAME. */
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
    if (!l->forwarded_host) {
        /* the client's own fields, unless the operator said the proxy sets them */
        f.host = NULL;
        f.port = f.host_port = -1;
    }
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

/* The template's entries by their shared key, for env_reset: an
 * open-addressed table of KD_TKEYS slots, which also has the keys the
 * engine sets on every request (env_keys: their entries in a reused env
 * are found on the same walk); false when the template has more keys
 * than it can hold (its envs are then never reused). */
static kd_tkey *tkey_add(kd_xs *x, const HEK *hek)
{
    UV k = PTR2UV(hek) >> 4;
    while (x->tkeys[k % KD_TKEYS].hek && x->tkeys[k % KD_TKEYS].hek != hek)
        k++;
    x->tkeys[k % KD_TKEYS].hek = hek;
    return &x->tkeys[k % KD_TKEYS];
}

static int template_keys(pTHX_ kd_xs *x, HV *tmpl)
{
    STRLEN i, max = HvMAX(tmpl);
    HE **array = HvARRAY(tmpl);
    Zero(x->tkeys, KD_TKEYS, kd_tkey);
    x->ntkeys = 0;
    x->tkeys_of = tmpl;
    if (!array || HvUSEDKEYS(tmpl) > KD_TKEYS / 2 || !HvSHAREKEYS(tmpl))
        return x->tkeys_ok = 0;
    for (i = 0; i <= max; i++) {
        HE *he;
        for (he = array[i]; he; he = HeNEXT(he)) {
            if (HeKLEN(he) == HEf_SVKEY)
                return x->tkeys_ok = 0;
            tkey_add(x, HeKEY_hek(he))->value = HeVAL(he);
            x->ntkeys++;
        }
    }
    for (i = 0; i < K_COUNT; i++)
        tkey_add(x, SvSHARED_HEK_FROM_PV(SvPVX(env_keys[i].key)))->slot = (int)i + 1;
    return x->tkeys_ok = 1;
}

/* The table's entry for an env entry's key, or NULL */
static const kd_tkey *tkey_of(const kd_xs *x, const HEK *hek)
{
    UV k = PTR2UV(hek) >> 4;
    for (;; k++) {
        const kd_tkey *t = &x->tkeys[k % KD_TKEYS];
        if (t->hek == hek)
            return t;
        if (!t->hek)
            return NULL;
    }
}

/* The env of the request just served, made ready for the next one
 * (env_done): entries of its template put back to the template's values,
 * every other plain value emptied (undef) for build_env to set again or
 * drop_stale to remove, and what is not plain (a value someone else
 * holds, magic) removed; references are let go of now, so the objects a
 * request left in its env go when it ends, as when its env was freed. The
 * hash is reused only when nothing but the loop holds it: an app that
 * keeps its env, or a weak reference to it, gets a new one next time.
 * Returns NULL when the env cannot be reused. (Freeing the env and
 * copying the template again cost more than all the rest of a hello
 * request's Perl.) */
static HV *env_reset(pTHX_ kd_xs *x)
{
    HV *env = x->last_env, *tmpl = x->last_template;
    HE **array, *gone[KD_TKEYS];
    STRLEN i, max;
    int ngone = 0, overflow = 0;
    UV tkeys = 0;
    x->nemptied = 0;
    Zero(x->slot_he, K_COUNT, HE *);

    if (!env || SvREFCNT(env) != 1 || SvMAGICAL(env) || SvOBJECT(env) || SvREADONLY(env) ||
        !HvSHAREKEYS(env) ||
        (SvOOK(env) && (HvAUX(env)->xhv_backreferences || HvEITER_get(env))))
        return NULL;
    if (x->tkeys_of != tmpl && !template_keys(aTHX_ x, tmpl))
        return NULL;
    if (!x->tkeys_ok || !(array = HvARRAY(env)))
        return NULL;
    max = HvMAX(env);
    for (i = 0; i <= max; i++) {
        HE *he;
        for (he = array[i]; he; he = HeNEXT(he)) {
            SV *v = HeVAL(he), *t;
            const kd_tkey *tk;
            if (HeKLEN(he) == HEf_SVKEY || SvREFCNT(v) != 1 || SvMAGICAL(v) || SvREADONLY(v) ||
                SvTYPE(v) > SVt_PVMG || SvOBJECT(v)) {
                if (ngone < KD_TKEYS)
                    gone[ngone++] = he;
                else
                    overflow = 1;
                continue;
            }
            tk = tkey_of(x, HeKEY_hek(he));
            if (tk && tk->slot)
                x->slot_he[tk->slot - 1] = he;
            if (tk && (t = tk->value)) {
                tkeys++;
                /* unchanged since the copy: the same referent, or the same bytes */
                if (SvROK(t) ? SvROK(v) && SvRV(v) == SvRV(t) :
                    SvPOK(t) && !SvROK(v) && SvPOK(v) && SvCUR(v) == SvCUR(t) &&
                        SvUTF8(v) == SvUTF8(t) && memEQ(SvPVX(v), SvPVX(t), SvCUR(v)))
                    continue;
                sv_setsv(v, t);
            } else {
                if (SvROK(v))
                    sv_setsv(v, &PL_sv_undef); /* lets go of the referent now */
                else
                    SvOK_off(v); /* keeps the buffer for the next value */
                if (x->nemptied >= 0 && x->nemptied < KD_TKEYS)
                    x->emptied[x->nemptied++] = he;
                else
                    x->nemptied = -1;
            }
        }
    }
    if (overflow)
        return NULL;                         /* (the caller drops it and copies) */
    /* (after the walk: a delete changes the chains walked) */
    for (i = 0; i < (STRLEN)ngone; i++)
        (void)hv_delete_ent(env, HeSVKEY_force(gone[i]), G_DISCARD, HeHASH(gone[i]));
    if (tkeys != x->ntkeys) {
        /* the app deleted some: put them back */
        for (i = 0; i < KD_TKEYS; i++) {
            const kd_tkey *t = &x->tkeys[i];
            if (t->hek && t->value &&
                !hv_common(env, NULL, HEK_KEY(t->hek), HEK_LEN(t->hek), HEK_FLAGS(t->hek), HV_FETCH_ISEXISTS,
                           NULL, HEK_HASH(t->hek)))
                (void)hv_common(env, NULL, HEK_KEY(t->hek), HEK_LEN(t->hek), HEK_FLAGS(t->hek),
                                HV_FETCH_ISSTORE, newSVsv(t->value), HEK_HASH(t->hek));
        }
    }
    return env;
}

/* Deletes he from env, by its own key and hash (no key SV made for it) */
static void delete_entry(pTHX_ HV *env, HE *he)
{
    if (HeKLEN(he) == HEf_SVKEY)
        (void)hv_delete_ent(env, HeKEY_sv(he), G_DISCARD, HeHASH(he));
    else
        (void)hv_common(env, NULL, HeKEY(he), (STRLEN)HeKLEN(he), HeKFLAGS(he), HV_DELETE | G_DISCARD, NULL,
                        HeHASH(he));
}

/* Removes what env_reset emptied and the request did not set again: no
 * value a request sets is undef, and template values are never emptied.
 * The entries env_reset noted are still env's (only a delete frees an
 * entry, and nothing deletes from env between the two), so only they are
 * looked at, unless there were more than it notes. */
static void drop_stale(pTHX_ kd_xs *x, HV *env)
{
    HE **array = HvARRAY(env), *gone[KD_TKEYS];
    STRLEN i, max = HvMAX(env);
    int ngone = 0, more = 0;
    if (x->nemptied >= 0) {
        for (i = 0; i < (STRLEN)x->nemptied; i++)
            if (!SvOK(HeVAL(x->emptied[i])))
                gone[ngone++] = x->emptied[i];
    } else {
        for (i = 0; i <= max; i++) {
            HE *he;
            for (he = array[i]; he; he = HeNEXT(he))
                if (!SvOK(HeVAL(he))) {
                    if (ngone < KD_TKEYS)
                        gone[ngone++] = he;
                    else
                        more = 1;
                }
        }
    }
    x->nemptied = 0;
    for (i = 0; i < (STRLEN)ngone; i++)
        delete_entry(aTHX_ env, gone[i]);
    if (more) {
        x->nemptied = -1;
        drop_stale(aTHX_ x, env);
    }
}

/* env's value for key k (its SV, reused when env held one: the entry
 * env_reset found, else looked up) */
static SV *env_slot(pTHX_ kd_xs *x, HV *env, int k)
{
    HE *he = x->slot_he[k];
    if (!he)
        he = hv_fetch_ent(env, env_keys[k].key, 1, env_keys[k].hash);
    return HeVAL(he);
}

/* What a request field's name makes in the env: HTTP_ and the name,
 * CONTENT_LENGTH, CONTENT_TYPE, or nothing (an underscore would let
 * "X_Forwarded_For" pose as X-Forwarded-For). */
enum { F_HTTP, F_CL, F_CT, F_SKIP };

static int field_kind(const char *name, size_t len)
{
    return memchr(name, '_', len)                ? F_SKIP :
           kd_ci_eq(name, len, "content-length") ? F_CL :
           kd_ci_eq(name, len, "content-type")   ? F_CT :
                                                   F_HTTP;
}

/* "HTTP_" and the name in upper case, - as _, at key */
static void field_env_key(const char *name, size_t len, char *key)
{
    size_t j;
    memcpy(key, "HTTP_", 5);
    for (j = 0; j < len; j++)
        key[5 + j] = name[j] == '-' ? '_' : (char)toUPPER(name[j]);
}

/* The entry of x->fnames for a field's name as it came: what it makes
 * (made again when the slot held another name), or NULL for a name too
 * long to keep. A worker's clients send few names, the same ones again
 * and again. */
static const kd_fname *field_name(pTHX_ kd_xs *x, const char *name, size_t len)
{
    kd_fname *e;
    if (len == 0 || len > KD_FNAME)
        return NULL;
    e = &x->fnames[(len * 7 + (unsigned char)name[0] + 3 * (unsigned char)name[len - 1]) % KD_FNAMES];
    if (e->len == len && memcmp(e->name, name, len) == 0)
        return e;
    e->len = (unsigned char)len;
    memcpy(e->name, name, len);
    e->kind = (unsigned char)field_kind(name, len);
    field_env_key(name, len, e->key);
    PERL_HASH(e->hash, e->key, len + 5);
    return e;
}

/* Whether sv is a reference to a glob whose handle is open */
static int handle_open(pTHX_ SV *sv)
{
    SV *gv = SvROK(sv) ? SvRV(sv) : NULL;
    return gv && isGV_with_GP(gv) && GvIOp((GV *)gv) && IoIFP(GvIOp((GV *)gv));
}

/* PSGI env for the head just parsed on c */
static HV *build_env(pTHX_ kd_xs *x, kd_conn *c)
{
    const kd_request *r = &c->req;
    HV *tmpl = (HV *)SvRV(*av_fetch(x->templates, c->listener, 0));
    HV *env = x->env_ready ? x->last_env : env_reset(aTHX_ x);
    int reused = env && x->last_template == tmpl;
    char *key = x->env_key;
    size_t i;
    SV *path;

    x->env_ready = 0;
    if (!reused) {
        if (x->last_env)
            SvREFCNT_dec((SV *)x->last_env);
        x->last_env = env = newHVhv(tmpl);
        x->last_template = tmpl;
        Zero(x->slot_he, K_COUNT, HE *);
    }
    sv_setpvn(env_slot(aTHX_ x, env, K_METHOD), r->method, r->method_len);
    sv_setpvn(env_slot(aTHX_ x, env, K_URI), r->target, r->target_len);
    sv_setpvn(env_slot(aTHX_ x, env, K_PROTOCOL), r->minor_version ? "HTTP/1.1" : "HTTP/1.0", 8);
    sv_setpvn(env_slot(aTHX_ x, env, K_QUERY), r->query ? r->query : "", r->query ? r->query_len : 0);
    sv_setpvn(env_slot(aTHX_ x, env, K_ADDR), c->remote_addr, c->remote_addr_len);
    sv_setiv(env_slot(aTHX_ x, env, K_PORT), c->remote_port);

    /* PATH_INFO is the percent-decoded path (CGI/PSGI convention) */
    path = env_slot(aTHX_ x, env, K_PATH);
    {
        char *d;
        const char *s = r->path, *e = r->path + r->path_len;
        SV_CHECK_THINKFIRST_COW_DROP(path);   /* a buffer shared with another value is not written */
        SvUPGRADE(path, SVt_PV);
        d = SvGROW(path, r->path_len + 1);
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
        SvPOK_only(path);
    }

    for (i = 0; i < r->num_headers; i++) {
        const kd_header *h = &r->headers[i];
        SV **slot;
        const kd_fname *e = field_name(aTHX_ x, h->name, h->name_len);
        int kind = e ? e->kind : field_kind(h->name, h->name_len);
        const char *k = e ? e->key : key;
        U32 hash = e ? e->hash : 0; /* (0: hv_common computes it) */

        if (kind == F_SKIP)
            continue;
        if (kind == F_CL || kind == F_CT) {
            sv_setpvn(env_slot(aTHX_ x, env, kind == F_CL ? K_CL : K_CT), h->value, h->value_len);
            continue;
        }
        if (!e) {
            if (h->name_len + 5 > x->env_key_cap) {
                x->env_key_cap = h->name_len + 5;
                Renew(x->env_key, x->env_key_cap, char);
                k = key = x->env_key;
            }
            field_env_key(h->name, h->name_len, key);
        }
        /* one lookup: the slot is new or emptied (undef), or holds an
         * earlier field of this request */
        slot = (SV **)hv_common(env, NULL, k, h->name_len + 5, 0, HV_FETCH_LVALUE | HV_FETCH_JUST_SV, NULL,
                                hash);
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
        id = env_slot(aTHX_ x, env, K_ID);
        sv_setpvn(id, x->id, x->id_len + len);
        if (x->id_gv)
            sv_setsv(GvSVn(x->id_gv), id);
    }
    /* what every request gets from the worker: a list for its cleanup
     * handlers, and, without a body, the worker's empty input while it
     * is open (empty_input) */
    {
        SV *rv = newRV_noinc((SV *)newAV());
        sv_setsv(env_slot(aTHX_ x, env, K_CLEANUP), rv);
        SvREFCNT_dec(rv);
    }
    if (x->empty_input && kd_conn_body_kind(c) == KD_BODY_NONE && handle_open(aTHX_ x->empty_input))
        sv_setsv(env_slot(aTHX_ x, env, K_INPUT), x->empty_input);
    if (reused)
        drop_stale(aTHX_ x, env);
    Zero(x->slot_he, K_COUNT, HE *); /* (drop_stale may have freed some) */
    return env;
}

/* The caller is done with the env it was given last (env_done): reset
 * for the next request now, or let go of when it cannot be reused. */
static void env_done(pTHX_ kd_xs *x)
{
    if (!x->last_env || x->env_ready)
        return;
    if (env_reset(aTHX_ x)) {
        x->env_ready = 1;
    } else {
        SvREFCNT_dec((SV *)x->last_env);
        x->last_env = NULL;
    }
}

/* Between requests, the id of none (see request_ids). */
static void forget_request_id(pTHX_ kd_xs *x)
{
    SV *sv = x->id_gv ? GvSV(x->id_gv) : NULL;
    if (sv && SvOK(sv))
        sv_setsv(sv, &PL_sv_undef);
}
