/* kd_cgi_vars.c - the CGI meta-variables of a request, made from its
 * PSGI env and the script's fixed part: for a new hash
 * (Kamado::CGI::Env::request) or for a run's %ENV (kd_cgi_env.c).
 * The CGI runner's C, with the perl API: included by Kamado.xs before
 * the other parts (kd_cgi_env.c, kd_cgi_world.c, kd_cgi_io.c,
 * kd_cgi_snapshot.c); their XS is xs/CGI*.xsh, a file per Perl package. */

/* The CGI variables of a request, from the PSGI ENV and the script's
 * FIXED part ({ vars, set, unset }, made once by Kamado::CGI::Env::fixed,
 * where the rules are told), as a list of names and values (pointing at
 * ENV's and FIXED's own values, or at mortal ones), for a new hash
 * (Kamado::CGI::Env::request) or straight into the runs' %ENV
 * (kd_env_enter). In C, as it runs for every CGI request. */
typedef struct {
    size_t count, size;
    struct kd_var {
        const char *key;
        I32 klen;
        U32 hash;
        SV *value;
    } * var; /* in buffer's string; hash: 0 if not known */
    SV *buffer;
    int kept;
} kd_vars;

/* The list's buffer is kept from one request to the next; a mortal one
 * while it is in use (a value's magic calling perl, which asks again). */
static SV *kd_vars_kept;
static int kd_vars_busy;

static void kd_vars_begin(pTHX_ kd_vars *v)
{
    v->kept = !kd_vars_busy;
    if (v->kept) {
        if (!kd_vars_kept)
            kd_vars_kept = newSVpvs("");
        v->buffer = kd_vars_kept;
        kd_vars_busy = 1;
    } else {
        v->buffer = sv_2mortal(newSVpvs(""));
    }
}

static void kd_vars_end(kd_vars *v)
{
    if (v->kept)
        kd_vars_busy = 0;
}

static SV *kd_env_fetch(pTHX_ HV *hv, const char *key, I32 klen)
{
    SV **svp = hv_fetch(hv, key, klen, 0);
    return svp && SvOK(*svp) ? *svp : NULL;
}

#define KD_FETCH(hv, key) kd_env_fetch(aTHX_(hv), "" key "", sizeof(key) - 1)

/* Adds NAME (unless VALUE is NULL); with REPLACE, over one of that name. */
static void kd_vars_put(kd_vars *v, const char *key, I32 klen, U32 hash, SV *value, int replace)
{
    size_t i;
    if (replace)
        for (i = 0; i < v->count; i++)
            if (v->var[i].klen == klen && memEQ(v->var[i].key, key, klen)) {
                if (value) {
                    v->var[i].value = value;
                    v->var[i].hash = hash;
                } else
                    v->var[i] = v->var[--v->count];
                return;
            }
    if (!value || v->count >= v->size)
        return; /* (not reached: the list is made as long as all there can be) */
    v->var[v->count].key = key;
    v->var[v->count].klen = klen;
    v->var[v->count].hash = hash;
    v->var[v->count].value = value;
    v->count++;
}

#define KD_PUT(v, name, value)       kd_vars_put((v), "" name "", sizeof(name) - 1, 0, (value), 0)
/* (NAME as the env's key E, with its hash) */
#define KD_PUT_AS(v, name, e, value) kd_vars_put((v), "" name "", sizeof(name) - 1, hash[e], (value), 0)

/* A walk over a hash's entries, the table read in place (hv_iternext
 * costs several times more an entry), or through hv_iternext for a tied
 * one; the hash is not changed meanwhile. */
typedef struct {
    HV *hv;
    STRLEN bucket;
    HE *he;
    int tied;
} kd_walk;

static void kd_walk_begin(pTHX_ kd_walk *w, HV *hv)
{
    w->hv = hv;
    w->bucket = 0;
    w->he = NULL;
    w->tied = SvRMAGICAL(hv) ? 1 : 0;
    if (w->tied)
        hv_iterinit(hv);
}

static HE *kd_walk_next(pTHX_ kd_walk *w)
{
    HE **array = HvARRAY(w->hv);
    HE *he;
    if (w->tied)
        return hv_iternext(w->hv);
    if (!array)
        return NULL;
    he = w->he ? HeNEXT(w->he) : array[w->bucket];
    for (;;) {
        /* (a restricted hash's deleted keys) */
        while (he && HeVAL(he) == &PL_sv_placeholder)
            he = HeNEXT(he);
        if (he || w->bucket >= HvMAX(w->hv))
            break;
        he = array[++w->bucket];
    }
    w->he = he;
    return he;
}

/* (the key's hash, for a fetch from another hash: 0, not known, when
 * the key is the tied hash's) */
#define KD_WALK_HASH(w, he) ((w)->tied || HeKLEN(he) == HEf_SVKEY ? 0 : HeHASH(he))

static HV *kd_fixed_part(pTHX_ HV *fixed, const char *name, I32 len, svtype type)
{
    SV **svp = hv_fetch(fixed, name, len, 0);
    return svp && SvROK(*svp) && SvTYPE(SvRV(*svp)) == type ? (HV *)SvRV(*svp) : NULL;
}

/* SERVER_SIGNATURE for SOFTWARE, HOST and PORT (each may be NULL). The
 * last one made is kept with what it was made from (KEEP: the list being
 * made is the kept one, not one made while it is busy), as most requests
 * of a worker have the same three. */
static SV *kd_signature(pTHX_ SV *software, SV *host, SV *port, int keep)
{
    static SV *kept, *from;
    static STRLEN from_len[3];
    SV *parts[3], *sig;
    STRLEN len[3];
    const char *pv[3], *at;
    int i, same = keep && kept && !SvUTF8(kept);
    parts[0] = software;
    parts[1] = host;
    parts[2] = port;
    for (i = 0; i < 3; i++) {
        pv[i] = parts[i] ? SvPV(parts[i], len[i]) : "";
        if (!parts[i])
            len[i] = 0;
        if (parts[i] && SvUTF8(parts[i]))
            same = 0;
    }
    if (same) {
        at = SvPVX(from);
        for (i = 0; i < 3 && same; i++) {
            same = from_len[i] == len[i] && memEQ(at, pv[i], len[i]);
            at += len[i];
        }
        if (same)
            return kept;
    }
    if (keep) {
        if (!kept) {
            kept = newSVpvs("");
            from = newSVpvs("");
        }
        SvCUR_set(from, 0);
        for (i = 0; i < 3; i++) {
            sv_catpvn(from, pv[i], len[i]);
            from_len[i] = len[i];
        }
        sig = kept;
        sv_setpvs(sig, "<address>");
    } else {
        sig = sv_2mortal(newSVpvs("<address>"));
    }
    if (software)
        sv_catsv(sig, software);
    sv_catpvs(sig, " Server at ");
    if (host)
        sv_catsv(sig, host);
    sv_catpvs(sig, " Port ");
    if (port)
        sv_catsv(sig, port);
    sv_catpvs(sig, "</address>\n");
    return sig;
}

/* The PSGI env's keys kd_request_vars reads, picked out in its one walk
 * over the env (its headers being there too), rather than looked up one
 * by one */
enum {
    KD_E_HOST,
    KD_E_SERVER_NAME,
    KD_E_SERVER_PORT,
    KD_E_SCHEME,
    KD_E_PROTOCOL,
    KD_E_ADDR,
    KD_E_METHOD,
    KD_E_URI,
    KD_E_QUERY,
    KD_E_REMOTE_ADDR,
    KD_E_REMOTE_PORT,
    KD_E_ID,
    KD_E_TYPE,
    KD_E_LENGTH,
    KD_E_COUNT
};
static const struct {
    const char *name;
    I32 len;
} kd_env_keys[KD_E_COUNT] = {
    {"HTTP_HOST", 9},        {"SERVER_NAME", 11},    {"SERVER_PORT", 11},    {"psgi.url_scheme", 15},
    {"SERVER_PROTOCOL", 15}, {"SERVER_ADDR", 11},    {"REQUEST_METHOD", 14}, {"REQUEST_URI", 11},
    {"QUERY_STRING", 12},    {"REMOTE_ADDR", 11},    {"REMOTE_PORT", 11},    {"kamado.request_id", 17},
    {"CONTENT_TYPE", 12},    {"CONTENT_LENGTH", 14},
};

/* Which of kd_env_keys KEY is (but HTTP_HOST), or -1: by its length,
 * then compared with names of that length (at a constant length, the
 * compiler's compares in place) */
static int kd_env_key(const char *key, I32 klen)
{
#define KD_IS(name, e)                                                                                       \
    if (memEQ(key, name, sizeof(name) - 1))                                                                  \
        return e;
    switch (klen) {
    case 11:
        KD_IS("SERVER_NAME", KD_E_SERVER_NAME)
        KD_IS("SERVER_PORT", KD_E_SERVER_PORT)
        KD_IS("SERVER_ADDR", KD_E_ADDR)
        KD_IS("REQUEST_URI", KD_E_URI)
        KD_IS("REMOTE_ADDR", KD_E_REMOTE_ADDR)
        KD_IS("REMOTE_PORT", KD_E_REMOTE_PORT)
        break;
    case 12:
        KD_IS("QUERY_STRING", KD_E_QUERY)
        KD_IS("CONTENT_TYPE", KD_E_TYPE)
        break;
    case 14:
        KD_IS("REQUEST_METHOD", KD_E_METHOD)
        KD_IS("CONTENT_LENGTH", KD_E_LENGTH)
        break;
    case 15:
        KD_IS("psgi.url_scheme", KD_E_SCHEME)
        KD_IS("SERVER_PROTOCOL", KD_E_PROTOCOL)
        break;
    case 17:
        KD_IS("kamado.request_id", KD_E_ID)
        break;
    }
#undef KD_IS
    return -1;
}

/* Walks ENV: its keys above in GOT (NULL: absent or undef) and their
 * hashes in HASH (0: not known; the same names' in the runs' %ENV), its headers
 * (but those Apache never passes: httpoxy, the credentials) in HEADERS;
 * returns how many. */
static size_t kd_env_walk(pTHX_ HV *env, SV **got, U32 *hash, struct kd_var *headers)
{
    kd_walk w;
    HE *he;
    size_t n = 0;
    int j;
    for (j = 0; j < KD_E_COUNT; j++) {
        got[j] = NULL;
        hash[j] = 0;
    }
    if (SvRMAGICAL(env))
        for (j = 0; j < KD_E_COUNT; j++)
            got[j] = kd_env_fetch(aTHX_ env, kd_env_keys[j].name, kd_env_keys[j].len);
    kd_walk_begin(aTHX_ & w, env);
    while ((he = kd_walk_next(aTHX_ & w))) {
        I32 klen;
        const char *key = hv_iterkey(he, &klen);
        SV *val = HeVAL(he);
        if (klen < 5 || memcmp(key, "HTTP_", 5) != 0) {
            if (!w.tied && (j = kd_env_key(key, klen)) >= 0) {
                got[j] = SvOK(val) ? val : NULL;
                hash[j] = KD_WALK_HASH(&w, he);
            }
            continue;
        }
        if (!SvOK(val))
            continue;
        if (klen == 9 && memEQ(key, "HTTP_HOST", 9) && !w.tied)
            got[KD_E_HOST] = val;
        if ((klen == 10 && memEQ(key, "HTTP_PROXY", 10)) ||
            (klen == 18 && memEQ(key, "HTTP_AUTHORIZATION", 18)) ||
            (klen == 24 && memEQ(key, "HTTP_PROXY_AUTHORIZATION", 24)))
            continue;
        headers[n].key = key;
        headers[n].klen = klen;
        headers[n].hash = KD_WALK_HASH(&w, he);
        headers[n].value = val;
        n++;
    }
    return n;
}

static void kd_request_vars(pTHX_ HV *env, HV *fixed, kd_vars *v)
{
    HV *vars = kd_fixed_part(aTHX_ fixed, "vars", 4, SVt_PVHV);
    HV *set = kd_fixed_part(aTHX_ fixed, "set", 3, SVt_PVHV);
    AV *unset = (AV *)kd_fixed_part(aTHX_ fixed, "unset", 5, SVt_PVAV);
    SV *host_sv, *port, *scheme, *software, *value, *host = NULL, *got[KD_E_COUNT];
    U32 hash[KD_E_COUNT];
    HE *he;
    kd_walk w;
    STRLEN len;
    const char *h;
    size_t i, headers;
    /* the fixed ones, the ones the request gives (20 at the most), its
     * headers, --cgi-env's */
    v->count = 0;
    v->size = (vars ? HvUSEDKEYS(vars) : 0) + 20 + HvUSEDKEYS(env) + (set ? HvUSEDKEYS(set) : 0);
    /* (the headers found first, after the list's room) */
    v->var = (struct kd_var *)SvGROW(v->buffer, (v->size + HvUSEDKEYS(env)) * sizeof *v->var);
    headers = kd_env_walk(aTHX_ env, got, hash, v->var + v->size);
    software = vars ? KD_FETCH(vars, "SERVER_SOFTWARE") : NULL;
    if (vars) {
        kd_walk_begin(aTHX_ & w, vars);
        while ((he = kd_walk_next(aTHX_ & w))) {
            I32 klen;
            const char *key = hv_iterkey(he, &klen);
            kd_vars_put(v, key, klen, KD_WALK_HASH(&w, he), SvOK(HeVAL(he)) ? HeVAL(he) : NULL, 0);
        }
    }
    /* SERVER_NAME: the Host without its port (an IPv6 literal keeps its
     * brackets) */
    host_sv = got[KD_E_HOST];
    if (!host_sv)
        host_sv = got[KD_E_SERVER_NAME];
    if (host_sv) {
        host = sv_2mortal(newSVsv(host_sv));
        h = SvPV(host, len);
        if (memchr(h, ':', len) &&
            !(len >= 2 && h[0] == '[' && h[len - 1] == ']' && !memchr(h + 1, ']', len - 2))) {
            STRLEN end = len;
            while (end > 0 && isDIGIT(h[end - 1]))
                end--;
            if (end < len && end > 0 && h[end - 1] == ':')
                SvCUR_set(host, end - 1);
        }
    }
    port = got[KD_E_SERVER_PORT];
    scheme = got[KD_E_SCHEME];
    KD_PUT_AS(v, "SERVER_PROTOCOL", KD_E_PROTOCOL, got[KD_E_PROTOCOL]);
    KD_PUT_AS(v, "SERVER_NAME", KD_E_SERVER_NAME, host);
    KD_PUT_AS(v, "SERVER_PORT", KD_E_SERVER_PORT, port);
    value = got[KD_E_ADDR];
    KD_PUT_AS(v, "SERVER_ADDR", KD_E_ADDR, value ? value : sv_2mortal(newSVpvs("127.0.0.1")));
    KD_PUT_AS(v, "REQUEST_METHOD", KD_E_METHOD, got[KD_E_METHOD]);
    KD_PUT(v, "REQUEST_SCHEME", scheme);
    KD_PUT_AS(v, "REQUEST_URI", KD_E_URI, got[KD_E_URI]);
    value = got[KD_E_QUERY];
    KD_PUT_AS(v, "QUERY_STRING", KD_E_QUERY, value ? value : sv_2mortal(newSVpvs("")));
    KD_PUT_AS(v, "REMOTE_ADDR", KD_E_REMOTE_ADDR, got[KD_E_REMOTE_ADDR]);
    KD_PUT_AS(v, "REMOTE_PORT", KD_E_REMOTE_PORT, got[KD_E_REMOTE_PORT]);
    /* the request's id, by mod_unique_id's name */
    KD_PUT(v, "UNIQUE_ID", got[KD_E_ID]);
    /* Debian's apache2 has ServerSignature On */
    KD_PUT(v, "SERVER_SIGNATURE", kd_signature(aTHX_ software, host, port, v->kept));
    if (scheme && strEQ(SvPV_nolen(scheme), "https"))
        KD_PUT(v, "HTTPS", sv_2mortal(newSVpvs("on")));
    value = got[KD_E_TYPE];
    if (value && (SvPV(value, len), len > 0))
        KD_PUT_AS(v, "CONTENT_TYPE", KD_E_TYPE, value);
    value = got[KD_E_LENGTH];
    if (value && (SvPV(value, len), len > 0))
        KD_PUT_AS(v, "CONTENT_LENGTH", KD_E_LENGTH, value);
    /* the request's headers */
    for (i = 0; i < headers; i++) {
        struct kd_var *hd = v->var + v->size + i;
        kd_vars_put(v, hd->key, hd->klen, hd->hash, hd->value, 0);
    }
    /* PassEnv/SetEnv: --cgi-env NAME or NAME=VALUE (an unset NAME removes it) */
    if (set) {
        kd_walk_begin(aTHX_ & w, set);
        while ((he = kd_walk_next(aTHX_ & w))) {
            I32 klen;
            const char *key = hv_iterkey(he, &klen);
            kd_vars_put(v, key, klen, KD_WALK_HASH(&w, he), HeVAL(he), 1);
        }
    }
    if (unset) {
        SSize_t i;
        for (i = 0; i <= av_tindex(unset); i++) {
            SV **name = av_fetch(unset, i, 0);
            if (name) {
                STRLEN nlen;
                const char *n = SvPV(*name, nlen);
                kd_vars_put(v, n, (I32)nlen, 0, NULL, 1);
            }
        }
    }
}

/* Kamado::CGI::Env::request: the variables in a new hash. */
static HV *kd_request_env(pTHX_ HV *env, HV *fixed)
{
    kd_vars v;
    HV *cgi = newHV();
    size_t i;
    kd_vars_begin(aTHX_ & v);
    kd_request_vars(aTHX_ env, fixed, &v);
    for (i = 0; i < v.count; i++)
        (void)hv_store(cgi, v.var[i].key, v.var[i].klen, newSVsv(v.var[i].value), v.var[i].hash);
    kd_vars_end(&v);
    return cgi;
}
