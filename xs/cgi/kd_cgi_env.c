/* kd_cgi_env.c - a CGI run's environment: the CGI meta-variables made
 * from the request, and the worker's %ENV and C environ put aside while a
 * script runs in-process.
 * The CGI runner's C, with the perl API: included by Kamado.xs after
 * the parts before it (kd_cgi_env.c, kd_cgi_world.c, kd_cgi_io.c,
 * kd_cgi_snapshot.c); their XS is xs/CGI*.xsh, a file per Perl package. */

/* kd_env_enter/kd_env_leave (world_enter, world_leave): the worker's %ENV and C
 * environment, put aside while a script runs in-process */
static struct {
    int active;
    char **worker_environ;
    HV *worker_hv;
    char **array;      /* what environ pointed at for the run */
    char **strings;    /* its NAME=VALUE strings, ours, kept for the next run */
    size_t *lengths;   /* theirs (a NULL string: none kept at that place) */
    size_t slots;      /* how many pointers array is known to have room for */
    size_t count;      /* how many the run had */
    size_t kept;       /* how many places strings and lengths have */
    HV *run_hv;        /* the runs' %ENV, kept from one run to the next */
} env_swap;

extern char **environ;

/* Whether perl edits `environ` itself (its my_setenv reallocating the
 * array and freeing the strings it replaces, with safesysmalloc) rather
 * than through setenv(3), which copies a foreign array into one of the C
 * library's own. */
#ifdef PERL_USE_SAFE_PUTENV
#  define KD_PERL_OWNS_ENVIRON 0
#else
#  define KD_PERL_OWNS_ENVIRON (!PL_use_safe_putenv)
#endif

/* After a run that changed environ through perl (which owns it, its
 * my_setenv freeing a string it replaces or deletes, reallocating the
 * array to add one): the strings of ours still in NOW are kept for the
 * next run, those not there are forgotten (perl freed them), perl's own
 * are freed, and so is NOW unless it is still our array. */
static void kd_env_sort_out(char **now)
{
    size_t i, j, n;
    for (n = 0; now[n]; n++) {
        for (j = 0; j < env_swap.count && now[n] != env_swap.strings[j]; j++)
            ;
        if (j == env_swap.count)
            safesysfree(now[n]);
    }
    for (j = 0; j < env_swap.count; j++) {
        for (i = 0; i < n && now[i] != env_swap.strings[j]; i++)
            ;
        if (i == n)
            env_swap.strings[j] = NULL;
    }
    if (now == env_swap.array) {
        /* (perl's realloc may have shrunk it to what it holds) */
        env_swap.slots = n + 1;
    } else {
        /* (ours went in perl's realloc) */
        safesysfree(now);
        env_swap.array = NULL;
        env_swap.slots = 0;
    }
}

static void
kd_env_leave(pTHX)
{
    HV *hv;
    char **now = environ;
    size_t i;
    if (!env_swap.active)
        return;
    environ = env_swap.worker_environ;
    hv = GvHV(PL_envgv);
    GvHV(PL_envgv) = env_swap.worker_hv;
    /* (a hash the script put in %ENV's place, *ENV = {...}: freeing it
     * must not clear the environment; the runs' own hash is kept) */
    if (hv && hv != env_swap.run_hv)
        sv_unmagic((SV *)hv, PERL_MAGIC_env);
    SvREFCNT_dec(hv);
    if (KD_PERL_OWNS_ENVIRON) {
        if (now && now != env_swap.worker_environ && now != PL_origenviron) {
            int same = now == env_swap.array && !now[env_swap.count];
            for (i = 0; same && i < env_swap.count; i++)
                same = now[i] == env_swap.strings[i];
            if (!same)
                kd_env_sort_out(now);
            /* (a string perl made may have the address of one it freed:
             * what is kept is measured again) */
            for (i = 0; i < env_swap.count; i++)
                if (env_swap.strings[i])
                    env_swap.lengths[i] = strlen(env_swap.strings[i]);
        } else {
            /* (the run put another array in environ's place: what it
             * did to ours is not known, so nothing of it is kept) */
            env_swap.array = NULL;
            env_swap.slots = 0;
            for (i = 0; i < env_swap.count; i++)
                env_swap.strings[i] = NULL;
        }
    }
    /* (else setenv(3) moved to an array of its own, if it was called:
     * ours and every string we made are still ours, kept) */
    env_swap.active = 0;
}

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

static void
kd_vars_begin(pTHX_ kd_vars *v)
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

static void
kd_vars_end(kd_vars *v)
{
    if (v->kept)
        kd_vars_busy = 0;
}

static SV *
kd_env_fetch(pTHX_ HV *hv, const char *key, I32 klen)
{
    SV **svp = hv_fetch(hv, key, klen, 0);
    return svp && SvOK(*svp) ? *svp : NULL;
}

#define KD_FETCH(hv, key) kd_env_fetch(aTHX_ (hv), "" key "", sizeof(key) - 1)

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
        return;    /* (not reached: the list is made as long as all there can be) */
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

static HV *
kd_fixed_part(pTHX_ HV *fixed, const char *name, I32 len, svtype type)
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

static void
kd_request_vars(pTHX_ HV *env, HV *fixed, kd_vars *v)
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
        if (memchr(h, ':', len) && !(len >= 2 && h[0] == '[' && h[len - 1] == ']' && !memchr(h + 1, ']', len - 2))) {
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
static HV *
kd_request_env(pTHX_ HV *env, HV *fixed)
{
    kd_vars v;
    HV *cgi = newHV();
    size_t i;
    kd_vars_begin(aTHX_ &v);
    kd_request_vars(aTHX_ env, fixed, &v);
    for (i = 0; i < v.count; i++)
        (void)hv_store(cgi, v.var[i].key, v.var[i].klen, newSVsv(v.var[i].value), v.var[i].hash);
    kd_vars_end(&v);
    return cgi;
}

/* %ENV and the C environment of a script's run, the variables of the
 * request ENV for the script's FIXED part (kd_request_vars), in place of
 * the worker's until kd_env_leave: the same as
 * `local %ENV = %cgi`, for a fraction of the price. Perl's way sets
 * each variable with setenv(3) and, leaving, clears the environment
 * and sets each of the worker's again; here the runs get a hash of
 * their own (with %ENV's magic: what a script sets, deletes or clears
 * reaches the C environment through perl, as always) and `environ` an
 * array built in one go. The worker's hash and array are only put
 * aside. What the script does to `environ` (setenv copies it to an
 * array of the C library's own, unsetenv and clearenv edit it in
 * place) never frees ours: the array and its strings are freed at
 * kd_env_leave, whichever array environ points at by then. The runs'
 * hash is kept and brought up to date for each run (most values are
 * the same from one request to the next): a new hash for each run would
 * cost a magic element and two allocations per variable, and as many
 * frees. */
static void
kd_env_enter(pTHX_ HV *env, HV *fixed)
{
    static U16 stamp;
    kd_vars v;
    HE *he;
    size_t i;
    HV *hv;
    U32 magic;
    /* (a run that died before its env_leave: the worker's first) */
    kd_env_leave(aTHX);
    if (!env_swap.run_hv) {
        env_swap.run_hv = newHV();
        hv_magic(env_swap.run_hv, NULL, PERL_MAGIC_env);
    }
    hv = env_swap.run_hv;
    kd_vars_begin(aTHX_ &v);
    kd_request_vars(aTHX_ env, fixed, &v);
    /* (perl's my_setenv allocates and frees these with safesysmalloc;
     * the strings are kept from one run to the next, most being the
     * same, and remade where they differ) */
    if (env_swap.kept < v.count + 1) {
        size_t n = env_swap.kept;
        env_swap.kept = v.count + 16;
        env_swap.strings = (char **)safesysrealloc(env_swap.strings, env_swap.kept * sizeof(char *));
        env_swap.lengths = (size_t *)safesysrealloc(env_swap.lengths, env_swap.kept * sizeof(size_t));
        for (; n < env_swap.kept; n++)
            env_swap.strings[n] = NULL;
    }
    if (env_swap.slots < v.count + 1) {
        env_swap.slots = env_swap.kept;
        env_swap.array = (char **)safesysrealloc(env_swap.array, env_swap.slots * sizeof(char *));
    }
    /* The hash is edited with its magic off: deleting an element would
     * unset the variable in the worker's environment (still `environ`),
     * and a new element is given its %ENV magic here, as perl's store
     * would, so that what the script sets reaches the C environment.
     * Each element set for this run is stamped (in its magic's private
     * field); those not stamped are the last run's, gone now. */
    if (++stamp == 0)
        stamp = 1;
    magic = SvFLAGS(hv) & (SVs_GMG | SVs_SMG | SVs_RMG);
    SvFLAGS(hv) &= ~magic;
    for (i = 0; i < v.count; i++) {
        const char *key = v.var[i].key, *val;
        I32 klen = v.var[i].klen;
        STRLEN vlen;
        char *entry;
        U32 hash = v.var[i].hash;
        SV **old = (SV **)hv_common_key_len(hv, key, klen, HV_FETCH_JUST_SV, NULL, hash), *sv;
        MAGIC *mg = old ? mg_find(*old, PERL_MAGIC_envelem) : NULL;
        val = SvPV(v.var[i].value, vlen);
        if (mg) {
            sv = *old;
            if (SvREADONLY(sv) || SvROK(sv) || SvIsCOW(sv))
                sv_force_normal_flags(sv, SV_COW_DROP_PV);
            if (!SvPOK(sv) || SvCUR(sv) != vlen || memNE(SvPVX(sv), val, vlen) || SvUTF8(sv) != SvUTF8(v.var[i].value))
                sv_setsv_flags(sv, v.var[i].value, SV_NOSTEAL);
        } else {
            /* (not one of ours, or new: replaced) */
            sv = newSVsv(v.var[i].value);
            sv_magic(sv, NULL, PERL_MAGIC_envelem, key, klen);
            mg = mg_find(sv, PERL_MAGIC_envelem);
            (void)hv_store(hv, key, klen, sv, hash);
        }
        mg->mg_private = stamp;
        entry = env_swap.strings[i];
        if (!entry || env_swap.lengths[i] != (size_t)klen + 1 + vlen || memNE(entry, key, klen) ||
            entry[klen] != '=' || memNE(entry + klen + 1, val, vlen)) {
            safesysfree(entry);
            entry = (char *)safesysmalloc(klen + vlen + 2);
            Copy(key, entry, klen, char);
            entry[klen] = '=';
            Copy(val, entry + klen + 1, vlen, char);
            entry[klen + 1 + vlen] = '\0';
            env_swap.strings[i] = entry;
            env_swap.lengths[i] = klen + 1 + vlen;
        }
        env_swap.array[i] = entry;
    }
    /* what the last run had and this one has not (a header of its
     * request, or a variable its script set) */
    if (HvUSEDKEYS(hv) > v.count) {
        AV *gone = newAV();
        hv_iterinit(hv);
        while ((he = hv_iternext(hv))) {
            MAGIC *mg = mg_find(HeVAL(he), PERL_MAGIC_envelem);
            if (!mg || mg->mg_private != stamp)
                av_push(gone, newSVhek(HeKEY_hek(he)));
        }
        while (av_count(gone)) {
            SV *key = av_pop(gone);
            (void)hv_delete_ent(hv, key, G_DISCARD, 0);
            SvREFCNT_dec(key);
        }
        SvREFCNT_dec((SV *)gone);
    }
    SvFLAGS(hv) |= magic;
    env_swap.array[v.count] = NULL;
    env_swap.count = v.count;
    kd_vars_end(&v);
    env_swap.worker_environ = environ;
    env_swap.worker_hv = GvHV(PL_envgv);
    GvHV(PL_envgv) = (HV *)SvREFCNT_inc_simple_NN((SV *)hv);
    environ = env_swap.array;
    env_swap.active = 1;
}
