/* kd_cgi.c - the CGI runner's bytes and syscalls: for the in-process
 * modes (Kamado::CGI::Registry), what is put aside while a script runs
 * in the worker; for the fork mode, the request sent to a script's
 * zygote in one message with its descriptors; for the fork and exec
 * modes, a script's output collected while it runs. Included by
 * Kamado.xs; its XS is xs/CGI.xsh. */

#include "perliol.h"    /* the layers of STDIN, STDOUT and STDERR: kd_std_sync */
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* kd_env_enter/kd_env_leave (world_enter, world_leave): the worker's %ENV and C
 * environment, put aside while a script runs in-process */
static struct {
    int active;
    char **worker_environ;
    HV *worker_hv;
    char **array;      /* what environ pointed at for the run */
    char **strings;    /* its NAME=VALUE strings, ours to free */
    size_t count;
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
        /* the array the run ended with is ours, or ours as perl
         * reallocated it, with the strings perl left in it */
        if (now && now != env_swap.worker_environ && now != PL_origenviron) {
            for (i = 0; now[i]; i++)
                safesysfree(now[i]);
            safesysfree(now);
        }
    } else {
        /* setenv(3) moved to an array of its own, if it was called: ours
         * and every string we made are still ours */
        for (i = 0; i < env_swap.count; i++)
            safesysfree(env_swap.strings[i]);
        safesysfree(env_swap.array);
    }
    safesysfree(env_swap.strings);
    env_swap.active = 0;
}

/* The CGI variables of a request, from the PSGI ENV and the script's
 * FIXED part ({ vars, set, unset }, made once by Kamado::CGI::Env::fixed,
 * where the rules are told), as a list of names and values (pointing at
 * ENV's and FIXED's own values, or at mortal ones), for a new hash
 * (Kamado::CGI::Env::request) or straight into the runs' %ENV
 * (kd_env_enter). In Perl, the hash, the Host's port and the HTTP_
 * headers cost a hello request 75,000 instructions. */
typedef struct {
    size_t count, size;
    struct kd_var { const char *key; I32 klen; SV *value; } *var;    /* in buffer's string */
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
static void
kd_vars_put(kd_vars *v, const char *key, I32 klen, SV *value, int replace)
{
    size_t i;
    if (replace)
        for (i = 0; i < v->count; i++)
            if (v->var[i].klen == klen && memEQ(v->var[i].key, key, klen)) {
                if (value)
                    v->var[i].value = value;
                else
                    v->var[i] = v->var[--v->count];
                return;
            }
    if (!value || v->count >= v->size)
        return;    /* (not reached: the list is made as long as all there can be) */
    v->var[v->count].key = key;
    v->var[v->count].klen = klen;
    v->var[v->count].value = value;
    v->count++;
}

#define KD_PUT(v, name, value) kd_vars_put((v), "" name "", sizeof(name) - 1, (value), 0)

static HV *
kd_fixed_part(pTHX_ HV *fixed, const char *name, I32 len, svtype type)
{
    SV **svp = hv_fetch(fixed, name, len, 0);
    return svp && SvROK(*svp) && SvTYPE(SvRV(*svp)) == type ? (HV *)SvRV(*svp) : NULL;
}

static void
kd_request_vars(pTHX_ HV *env, HV *fixed, kd_vars *v)
{
    HV *vars = kd_fixed_part(aTHX_ fixed, "vars", 4, SVt_PVHV);
    HV *set = kd_fixed_part(aTHX_ fixed, "set", 3, SVt_PVHV);
    AV *unset = (AV *)kd_fixed_part(aTHX_ fixed, "unset", 5, SVt_PVAV);
    SV *host_sv, *port, *scheme, *software, *value, *host = NULL, *signature;
    HE *he;
    STRLEN len;
    const char *h;
    /* the fixed ones, the ones the request gives (20 at the most), its
     * headers, --cgi-env's */
    v->count = 0;
    v->size = (vars ? HvUSEDKEYS(vars) : 0) + 20 + HvUSEDKEYS(env) + (set ? HvUSEDKEYS(set) : 0);
    v->var = (struct kd_var *)SvGROW(v->buffer, v->size * sizeof *v->var);
    software = vars ? KD_FETCH(vars, "SERVER_SOFTWARE") : NULL;
    if (vars) {
        hv_iterinit(vars);
        while ((he = hv_iternext(vars))) {
            I32 klen;
            const char *key = hv_iterkey(he, &klen);
            kd_vars_put(v, key, klen, SvOK(HeVAL(he)) ? HeVAL(he) : NULL, 0);
        }
    }
    /* SERVER_NAME: the Host without its port (an IPv6 literal keeps its
     * brackets) */
    host_sv = KD_FETCH(env, "HTTP_HOST");
    if (!host_sv)
        host_sv = KD_FETCH(env, "SERVER_NAME");
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
    port = KD_FETCH(env, "SERVER_PORT");
    scheme = KD_FETCH(env, "psgi.url_scheme");
    KD_PUT(v, "SERVER_PROTOCOL", KD_FETCH(env, "SERVER_PROTOCOL"));
    KD_PUT(v, "SERVER_NAME", host);
    KD_PUT(v, "SERVER_PORT", port);
    value = KD_FETCH(env, "SERVER_ADDR");
    KD_PUT(v, "SERVER_ADDR", value ? value : sv_2mortal(newSVpvs("127.0.0.1")));
    KD_PUT(v, "REQUEST_METHOD", KD_FETCH(env, "REQUEST_METHOD"));
    KD_PUT(v, "REQUEST_SCHEME", scheme);
    KD_PUT(v, "REQUEST_URI", KD_FETCH(env, "REQUEST_URI"));
    value = KD_FETCH(env, "QUERY_STRING");
    KD_PUT(v, "QUERY_STRING", value ? value : sv_2mortal(newSVpvs("")));
    KD_PUT(v, "REMOTE_ADDR", KD_FETCH(env, "REMOTE_ADDR"));
    KD_PUT(v, "REMOTE_PORT", KD_FETCH(env, "REMOTE_PORT"));
    /* Debian's apache2 has ServerSignature On */
    signature = sv_2mortal(newSVpvs("<address>"));
    if (software)
        sv_catsv(signature, software);
    sv_catpvs(signature, " Server at ");
    if (host)
        sv_catsv(signature, host);
    sv_catpvs(signature, " Port ");
    if (port)
        sv_catsv(signature, port);
    sv_catpvs(signature, "</address>\n");
    KD_PUT(v, "SERVER_SIGNATURE", signature);
    if (scheme && strEQ(SvPV_nolen(scheme), "https"))
        KD_PUT(v, "HTTPS", sv_2mortal(newSVpvs("on")));
    value = KD_FETCH(env, "CONTENT_TYPE");
    if (value && (SvPV(value, len), len > 0))
        KD_PUT(v, "CONTENT_TYPE", value);
    value = KD_FETCH(env, "CONTENT_LENGTH");
    if (value && (SvPV(value, len), len > 0))
        KD_PUT(v, "CONTENT_LENGTH", value);
    /* the request's headers, but those Apache never passes (httpoxy, the
     * credentials) */
    hv_iterinit(env);
    while ((he = hv_iternext(env))) {
        I32 klen;
        const char *key = hv_iterkey(he, &klen);
        SV *val = HeVAL(he);
        if (klen < 5 || memcmp(key, "HTTP_", 5) != 0 || !SvOK(val))
            continue;
        if ((klen == 10 && memEQ(key, "HTTP_PROXY", 10))
            || (klen == 18 && memEQ(key, "HTTP_AUTHORIZATION", 18))
            || (klen == 24 && memEQ(key, "HTTP_PROXY_AUTHORIZATION", 24)))
            continue;
        kd_vars_put(v, key, klen, val, 0);
    }
    /* PassEnv/SetEnv: --cgi-env NAME or NAME=VALUE (an unset NAME removes it) */
    if (set) {
        hv_iterinit(set);
        while ((he = hv_iternext(set))) {
            I32 klen;
            const char *key = hv_iterkey(he, &klen);
            kd_vars_put(v, key, klen, HeVAL(he), 1);
        }
    }
    if (unset) {
        SSize_t i;
        for (i = 0; i <= av_tindex(unset); i++) {
            SV **name = av_fetch(unset, i, 0);
            if (name) {
                STRLEN nlen;
                const char *n = SvPV(*name, nlen);
                kd_vars_put(v, n, (I32)nlen, NULL, 1);
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
        (void)hv_store(cgi, v.var[i].key, v.var[i].klen, newSVsv(v.var[i].value), 0);
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
 * the same from one request to the next): a new hash a run cost a
 * magic element and two allocations per variable, and as many frees. */
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
    /* (perl's my_setenv allocates and frees these with safesysmalloc) */
    env_swap.strings = (char **)safesysmalloc((v.count + 1) * sizeof(char *));
    env_swap.array = (char **)safesysmalloc((v.count + 1) * sizeof(char *));
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
        SV **old = hv_fetch(hv, key, klen, 0), *sv;
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
            (void)hv_store(hv, key, klen, sv, 0);
        }
        mg->mg_private = stamp;
        entry = (char *)safesysmalloc(klen + vlen + 2);
        Copy(key, entry, klen, char);
        entry[klen] = '=';
        Copy(val, entry + klen + 1, vlen, char);
        entry[klen + 1 + vlen] = '\0';
        env_swap.strings[i] = env_swap.array[i] = entry;
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
    env_swap.strings[v.count] = env_swap.array[v.count] = NULL;
    env_swap.count = v.count;
    kd_vars_end(&v);
    env_swap.worker_environ = environ;
    env_swap.worker_hv = GvHV(PL_envgv);
    GvHV(PL_envgv) = (HV *)SvREFCNT_inc_simple_NN((SV *)hv);
    environ = env_swap.array;
    env_swap.active = 1;
}

/* kd_stdio_enter/kd_stdio_leave (world_enter, world_leave): descriptors 0, 1 and 2
 * of a run. dup2 keeps perl's STDIN, STDOUT and STDERR on their numbers,
 * so that system, exec, pipes and sysread see the run's files as a CGI
 * process sees its own. */
static struct {
    int active;
    int saved[3];      /* the worker's 0, 1 and 2, dup'd */
    int autoflush;     /* the worker's $| on STDOUT */
} std_swap;

static GV *
kd_std_gv(pTHX_ int n)
{
    SV **svp;
    if (n != 1)
        return n == 0 ? PL_stdingv : PL_stderrgv;
    /* (straight from main::'s stash: gv_fetchpv parses the name first,
     * four times a run) */
    svp = hv_fetchs(PL_defstash, "STDOUT", 0);
    return svp && isGV_with_GP(*svp) ? (GV *)*svp : gv_fetchpvs("main::STDOUT", GV_ADD, SVt_PVIO);
}

/* Perl's handle F after dup2 put another file on its descriptor: what it
 * kept of the old file (buffered input, end of file) forgotten, its
 * position read from the new one (REWIND: set to 0 first). Where F is
 * perl's usual :unix:perlio with nothing left to write, this is done in
 * place with one lseek, where PerlIO_seek takes two (it seeks, then asks
 * where it is): 12 system calls a run became 6. */
static void
kd_std_sync(pTHX_ PerlIO *f, int rewind)
{
    PerlIOl *top = f ? *f : NULL;
    PerlIOl *below = top ? top->next : NULL;
    if (top && below && top->tab == PERLIO_FUNCS_CAST(&PerlIO_perlio) && below->tab == PERLIO_FUNCS_CAST(&PerlIO_unix)
        && !(top->flags & PERLIO_F_WRBUF)) {
        PerlIOBuf *b = PerlIOSelf(f, PerlIOBuf);
        off_t pos = lseek(PerlIO_fileno(f), 0, rewind ? SEEK_SET : SEEK_CUR);
        if (b->buf)
            b->ptr = b->end = b->buf;
        top->flags &= ~(PERLIO_F_RDBUF | PERLIO_F_EOF);
        below->flags &= ~PERLIO_F_EOF;
        /* (a pipe has no position: left as it was, as PerlIO_seek leaves it) */
        if (pos >= 0)
            b->posn = pos;
        return;
    }
    (void)PerlIO_seek(f, 0, rewind ? SEEK_SET : SEEK_CUR);
}

/* Points 0, 1 and 2 at FDS and makes perl's handles on them fit: STDIN's
 * buffered input, of another file, dropped; the position STDOUT and
 * STDERR keep read again (tell(STDOUT), which CGI::Carp asks, must be
 * this file's); with RESET_LAYERS, a script's binmode undone. Returns a
 * bit for each handle that is closed: the caller opens it again on its
 * descriptor. */
static int
kd_point_std(pTHX_ const int *fds, int reset_layers)
{
    int n, closed = 0;
    for (n = 0; n < 3; n++) {
        GV *gv = kd_std_gv(aTHX_ n);
        IO *io = gv ? GvIO(gv) : NULL;
        PerlIO *f = io ? IoIFP(io) : NULL;
        PerlIO *out = io && IoOFP(io) ? IoOFP(io) : f;
        int open = f && PerlIO_fileno(f) >= 0;
        /* (what is buffered for the descriptor's old file goes there) */
        if (open && n > 0)
            (void)PerlIO_flush(out);
        if (dup2(fds[n], n) < 0)
            croak("Can't dup2 to descriptor %d: %s", n, Strerror(errno));
        if (!open) {
            closed |= 1 << n;
            continue;
        }
        if (n == 0) {
            kd_std_sync(aTHX_ f, 1);
            /* (as perl's seek: $. and the "<FH> line N" of warnings are
             * STDIN's, not those of the file the worker read last) */
            PL_last_in_gv = gv;
        } else {
            kd_std_sync(aTHX_ out, 0);
        }
        if (reset_layers) {
            (void)PerlIO_binmode(aTHX_ f, IoTYPE(io), O_BINARY, NULL);
            if (out != f)
                (void)PerlIO_binmode(aTHX_ out, IoTYPE(io), O_BINARY, NULL);
        }
    }
    return closed;
}

static IO *
kd_stdout_io(pTHX)
{
    GV *gv = kd_std_gv(aTHX_ 1);
    return gv ? GvIO(gv) : NULL;
}

static int
kd_stdio_leave(pTHX)
{
    int n, closed;
    IO *io;
    if (!std_swap.active)
        return 0;
    /* the script's last output, as perl would flush it at exit */
    PerlIO_flush((PerlIO *)NULL);
    closed = kd_point_std(aTHX_ std_swap.saved, 1);
    for (n = 0; n < 3; n++)
        close(std_swap.saved[n]);
    io = kd_stdout_io(aTHX);
    if (io && std_swap.autoflush)
        IoFLAGS(io) |= IOf_FLUSH;
    std_swap.active = 0;
    return closed;
}

static int
kd_stdio_enter(pTHX_ int in_fd, int out_fd, int err_fd)
{
    int fds[3], n;
    IO *io;
    /* (a run that died before its stdio_leave: the worker's first) */
    (void)kd_stdio_leave(aTHX);
    for (n = 0; n < 3; n++) {
        std_swap.saved[n] = fcntl(n, F_DUPFD_CLOEXEC, 3);
        if (std_swap.saved[n] < 0) {
            int e = errno;
            while (n-- > 0)
                close(std_swap.saved[n]);
            croak("Can't dup descriptor %d: %s", n < 0 ? 0 : n, Strerror(e));
        }
    }
    /* the run starts without the worker's $| (a CGI process has none) */
    io = kd_stdout_io(aTHX);
    std_swap.autoflush = io && (IoFLAGS(io) & IOf_FLUSH) ? 1 : 0;
    if (io)
        IoFLAGS(io) &= ~IOf_FLUSH;
    std_swap.active = 1;
    fds[0] = in_fd;
    fds[1] = out_fd;
    fds[2] = err_fd;
    return kd_point_std(aTHX_ fds, 0);
}

/* A run's `my` scalars as a new process has them. At the end of a call
 * perl empties a sub's lexicals in place and keeps their bodies for the
 * next call: a variable that held a string keeps its string body, and
 * `my $n = 0; $n += $_ for ...` then takes perl's slow path at every
 * step (13% of such a loop), where under CGI the first call has a plain
 * integer. Called before a run, with CV's lexicals out of scope (its
 * depth 0): each emptied scalar of its own (not captured from outside,
 * not `our` or `state`, not held elsewhere) that is more than an
 * integer is replaced by a new one, marked stale as perl marks them. */
static void
kd_fresh_lexicals(pTHX_ CV *cv)
{
    PADNAMELIST *names;
    PAD *pad;
    PADOFFSET ix, max;
    if (CvDEPTH(cv) != 0 || CvISXSUB(cv) || !CvPADLIST(cv) || PadlistMAX(CvPADLIST(cv)) < 1)
        return;
    names = PadlistNAMES(CvPADLIST(cv));
    pad = PadlistARRAY(CvPADLIST(cv))[1];
    max = (PADOFFSET)PadnamelistMAX(names);
    if (max > (PADOFFSET)AvFILLp(pad))
        max = (PADOFFSET)AvFILLp(pad);
    for (ix = 1; ix <= max; ix++) {
        PADNAME *pn = PadnamelistARRAY(names)[ix];
        SV *sv = AvARRAY(pad)[ix];
        if (!pn || PadnameLEN(pn) < 2 || PadnamePV(pn)[0] != '$' || PadnameOUTER(pn) || PadnameIsOUR(pn)
            || PadnameIsSTATE(pn) || !sv)
            continue;
        if (SvTYPE(sv) <= SVt_IV || SvTYPE(sv) >= SVt_PVAV || SvREFCNT(sv) != 1 || SvOK(sv) || SvROK(sv)
            || SvMAGICAL(sv) || SvOBJECT(sv) || SvREADONLY(sv) || !SvPADSTALE(sv))
            continue;
        AvARRAY(pad)[ix] = newSV(0);
        SvPADSTALE_on(AvARRAY(pad)[ix]);
        SvREFCNT_dec_NN(sv);
    }
}

#define KD_SPECIALS 6

/* The locale a CGI process gets from the run's environment: LC_ALL, else
 * LANG, else C. The worker stays in it between runs (switching back and
 * forth would load the locale files twice a request), so only a script
 * that changed it, or a run with another environment, costs a switch.
 * Through perl's setlocale, which keeps perl's own state in step. */
static SV *kd_run_locale;

static void
kd_locale_keep(void)
{
    const char *want = SvPVX(kd_run_locale), *now = Perl_setlocale(LC_ALL, NULL);
    if (!now || strNE(now, want))
        (void)Perl_setlocale(LC_ALL, want);
}

static void
kd_locale_enter(pTHX_ HV *env)
{
    SV **svp = hv_fetchs(env, "LC_ALL", 0);
    if (!svp || !SvOK(*svp))
        svp = hv_fetchs(env, "LANG", 0);
    if (!kd_run_locale)
        kd_run_locale = newSVpvs("");
    if (svp && SvOK(*svp))
        sv_setsv(kd_run_locale, *svp);
    else
        sv_setpvs(kd_run_locale, "C");
    (void)SvPV_nolen(kd_run_locale);    /* (a string, for SvPVX) */
    kd_locale_keep();
}

/* Kamado::CGI::World::world_enter/world_leave: what a run changes in
 * the worker, put aside and back in one call each way: the signal
 * handlers (compared after the run), umask, the selected handle,
 * descriptors 0-2, %ENV and the environment, the working directory. */
static struct {
    int active;
    Mode_t umask;
    GV *selected;
    SV *signals[SIG_SIZE + 2];    /* copies; [SIG_SIZE], [SIG_SIZE + 1]: __DIE__, __WARN__ */
    SV *program;                  /* the worker's $0 */
    SV *script;                   /* the run's */
    SV *special[KD_SPECIALS];     /* the worker's $/ $\ $, $" $; $@, copied */
    int errno_was;                /* $! */
    I32 status, status_posix;     /* $? */
    AV *inc;                      /* @INC's elements as the worker had them */
} world;

/* The special variables a run starts with as a new perl has them (with
 * $\ from the script's #! -l): set and put back through their magic, so
 * that what perl keeps of them (PL_rs for $/) follows; $! and $? are
 * errno and perl's status, kept as they are (their magic makes strings).
 * In Perl, `local (...) = (...)` for them and @INC was 11% of a hello run. */
static GV *
kd_special_gv(pTHX_ int i)
{
    static GV *gvs[KD_SPECIALS];
    static const char *const names[KD_SPECIALS] = { "/", "\\", ",", "\"", ";", "@" };
    if (!gvs[i])
        gvs[i] = gv_fetchpv(names[i], GV_ADD | GV_NOTQUAL, SVt_PV);
    return gvs[i];
}

/* Whether @INC holds what WAS holds (the same strings, in order). */
static int
kd_inc_same(pTHX_ AV *inc, AV *was)
{
    SSize_t j, n = av_count(inc);
    if (!was || n != (SSize_t)av_count(was))
        return 0;
    for (j = 0; j < n; j++) {
        SV **a = av_fetch(inc, j, 0), **b = av_fetch(was, j, 0);
        STRLEN la, lb;
        const char *pa, *pb;
        if (!a || !b || SvROK(*a) != SvROK(*b))
            return 0;
        if (SvROK(*a)) {
            if (SvRV(*a) != SvRV(*b))
                return 0;
            continue;
        }
        pa = SvPV(*a, la);
        pb = SvPV(*b, lb);
        if (la != lb || memNE(pa, pb, la))
            return 0;
    }
    return 1;
}

static void
kd_specials_enter(pTHX_ SV *line_ends)
{
    int i;
    AV *inc = GvAVn(PL_incgv);
    for (i = 0; i < KD_SPECIALS; i++) {
        SV *sv = GvSVn(kd_special_gv(aTHX_ i));
        if (!world.special[i])
            world.special[i] = newSV(0);
        sv_setsv(world.special[i], sv);
        switch (i) {
        case 0: sv_setpvs_mg(sv, "\n"); break;
        case 1: sv_setsv_mg(sv, line_ends); break;
        case 3: sv_setpvs_mg(sv, " "); break;
        case 4: sv_setpvs_mg(sv, "\034"); break;
        case 5: sv_setpvs_mg(sv, ""); break;
        default: sv_set_undef(sv); SvSETMAGIC(sv); break;
        }
    }
    world.errno_was = errno;
    errno = 0;
    world.status = PL_statusvalue;
    world.status_posix = PL_statusvalue_posix;
    PL_statusvalue = PL_statusvalue_posix = 0;
    /* @INC: the run changes the worker's own ("use lib" in a script), put
     * back as it was afterwards if it changed; its elements are copied
     * only when the worker's have changed since they were last */
    if (!kd_inc_same(aTHX_ inc, world.inc)) {
        SSize_t j, n = av_count(inc);
        if (world.inc)
            SvREFCNT_dec((SV *)world.inc);
        world.inc = newAV();
        for (j = 0; j < n; j++) {
            SV **e = av_fetch(inc, j, 0);
            av_push(world.inc, e ? newSVsv(*e) : newSV(0));
        }
    }
}

static void
kd_specials_leave(pTHX)
{
    int i;
    AV *inc = GvAVn(PL_incgv);
    for (i = 0; i < KD_SPECIALS; i++)
        sv_setsv_mg(GvSVn(kd_special_gv(aTHX_ i)), world.special[i]);
    errno = world.errno_was;
    PL_statusvalue = world.status;
    PL_statusvalue_posix = world.status_posix;
    if (world.inc && !kd_inc_same(aTHX_ inc, world.inc)) {
        SSize_t j, n = av_count(world.inc);
        av_clear(inc);
        for (j = 0; j < n; j++)
            av_push(inc, newSVsv(*av_fetch(world.inc, j, 0)));
    }
}

/* The handlers of signals 1 .. SIG_SIZE - 1, then of __DIE__ (SIG_SIZE)
 * and __WARN__ (SIG_SIZE + 1): perl's own table, read without %SIG's
 * lookup by name and sigaction per signal. */
static SV *
kd_signal_now(pTHX_ int i)
{
    return i < SIG_SIZE ? (PL_psig_ptr ? PL_psig_ptr[i] : NULL) : i == SIG_SIZE ? PL_diehook : PL_warnhook;
}

static const char *
kd_signal_name(int i)
{
    return i < SIG_SIZE ? PL_sig_name[i] : i == SIG_SIZE ? "__DIE__" : "__WARN__";
}

/* Whether handler NOW is handler WAS: a code reference to the same sub,
 * the same string, both unset. */
static int
kd_signal_same(pTHX_ SV *was, SV *now)
{
    if (!now || !SvOK(now))
        return !SvOK(was);
    if (SvROK(now) || SvROK(was))
        return SvROK(now) && SvROK(was) && SvRV(now) == SvRV(was);
    return SvOK(was) && sv_eq(now, was);
}

static int
kd_world_enter(pTHX_ int in_fd, int out_fd, int err_fd, HV *env, HV *fixed, const char *dir, SV *script, SV *line_ends)
{
    int i, closed;
    SV *program = get_sv("0", GV_ADD);
    /* the worker's, noted (kept as they are when a run died before its
     * world_leave: what is noted is still the worker's) */
    if (!world.active) {
        for (i = 1; i < SIG_SIZE + 2; i++) {
            SV *now = kd_signal_now(aTHX_ i);
            if (!world.signals[i])
                world.signals[i] = newSV(0);
            if (now)
                sv_setsv(world.signals[i], now);
            else if (SvOK(world.signals[i]))    /* (most have none, run after run) */
                sv_set_undef(world.signals[i]);
        }
        world.umask = PerlLIO_umask(0);
        (void)PerlLIO_umask(world.umask);
        world.selected = (GV *)SvREFCNT_inc_simple(PL_defoutgv);
        /* $0, without its magic: the process's title is left as it is
         * (set, it is a prctl and a copy over argv, and as many to put it
         * back) */
        if (!world.program)
            world.program = newSV(0);
        sv_setsv_flags(world.program, program, SV_NOSTEAL);
    }
    if (world.script)
        SvREFCNT_dec(world.script);
    world.script = newSVsv(script);
    sv_setsv_flags(program, script, SV_NOSTEAL);
    if (world.active)
        kd_specials_leave(aTHX);
    kd_specials_enter(aTHX_ line_ends);
    world.active = 1;
    closed = kd_stdio_enter(aTHX_ in_fd, out_fd, err_fd);
    kd_env_enter(aTHX_ env, fixed);
    kd_locale_enter(aTHX_ GvHV(PL_envgv));
    (void)chdir(dir);    /* (as perl's chdir in the script's place: no error) */
    return closed;
}

/* Back to the worker's directory CWD (its getcwd when it started): by a
 * descriptor opened on it once, fchdir costs a fifth of a chdir, which
 * walks the path each time. */
static void
kd_chdir_worker(const char *cwd)
{
    static int fd = -1;
    static char *path;
    if (!path || strNE(path, cwd)) {
        if (fd >= 0)
            close(fd);
        free(path);
        path = strdup(cwd);
        fd = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd < 0 || fchdir(fd) != 0)
        (void)chdir(cwd);
}

/* Leaves the run's world; pushes on the stack the bits of the standard
 * handles the script closed, then (name, handler) for each signal whose
 * handler the run changed. */
static void
kd_world_leave(pTHX_ const char *cwd)
{
    dSP;
    int i, closed;
    SV *program = get_sv("0", GV_ADD);
    if (!world.active)
        return;
    world.active = 0;
    kd_locale_keep();
    kd_specials_leave(aTHX);
    /* (a script that set $0 changed the title: it is put back too) */
    if (world.script && sv_eq(program, world.script))
        sv_setsv_flags(program, world.program, SV_NOSTEAL);
    else
        sv_setsv_mg(program, world.program);
    kd_env_leave(aTHX);
    closed = kd_stdio_leave(aTHX);
    if (world.selected) {
        setdefout(world.selected);    /* (takes a reference of its own) */
        SvREFCNT_dec(world.selected);
        world.selected = NULL;
    }
    kd_chdir_worker(cwd);
    (void)PerlLIO_umask(world.umask);
    mXPUSHi(closed);
    for (i = 1; i < SIG_SIZE + 2; i++) {
        if (!kd_signal_same(aTHX_ world.signals[i], kd_signal_now(aTHX_ i))) {
            mXPUSHs(newSVpv(kd_signal_name(i), 0));
            mXPUSHs(newSVsv(world.signals[i]));
        }
    }
    PUTBACK;
}

/* See output_begin in xs/CGI.xsh. The output file is not emptied for
 * each run: a run's output is what lies before the file's position when
 * it ends (the script and the children it starts share that position),
 * and what earlier runs left past it is not read. Emptying it each time
 * gave its page back and made the next write take a new one: 5 us of a
 * hello request's 6. It is emptied only after a long output. */
#define KD_OUTPUT_KEEP (64 * 1024)
static off_t output_end;    /* where the last run's output ended */

static IV
kd_output_begin(int out_fd, int err_fd, IV max_err)
{
    off_t end;
    if (output_end > KD_OUTPUT_KEEP && ftruncate(out_fd, 0) != 0)
        croak("Can't empty the output file: %s", Strerror(errno));
    output_end = 0;
    if (lseek(out_fd, 0, SEEK_SET) < 0)
        croak("Can't seek the output file: %s", Strerror(errno));
    end = lseek(err_fd, 0, SEEK_END);
    if (end > (off_t)max_err) {
        if (ftruncate(err_fd, 0) != 0)
            croak("Can't empty the error file: %s", Strerror(errno));
        end = lseek(err_fd, 0, SEEK_SET);
    }
    if (end < 0)
        croak("Can't seek the error file: %s", Strerror(errno));
    return (IV)end;
}

/* What file FD holds from OFFSET to END (-1: to its end). */
static SV *
kd_read_range(pTHX_ int fd, off_t offset, off_t end)
{
    struct stat st;
    SV *bytes;
    STRLEN got = 0;
    if (end < 0) {
        if (fstat(fd, &st) != 0)
            croak("Can't stat descriptor %d: %s", fd, Strerror(errno));
        end = st.st_size;
    }
    bytes = newSVpvs("");
    if (end <= offset)
        return bytes;
    SvGROW(bytes, (STRLEN)(end - offset) + 1);
    while (offset + (off_t)got < end) {
        ssize_t n = pread(fd, SvPVX(bytes) + got, (size_t)(end - offset) - got, offset + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            croak("Can't read descriptor %d: %s", fd, Strerror(errno));
        if (n == 0)
            break;
        got += (STRLEN)n;
    }
    SvCUR_set(bytes, got);
    *SvEND(bytes) = '\0';
    return bytes;
}

/* See read_output in xs/CGI.xsh. */
static SV *
kd_read_output(pTHX_ int out_fd)
{
    off_t end = lseek(out_fd, 0, SEEK_CUR);
    if (end < 0)
        croak("Can't seek the output file: %s", Strerror(errno));
    output_end = end;
    return kd_read_range(aTHX_ out_fd, 0, end);
}

/* Kamado::CGI::Mode::Fork / Kamado::CGI::Zygote: a request to a zygote is one
 * message: an 8-byte head (the payload's length, the number of
 * descriptors), the payload, and up to KD_MAX_PASS descriptors
 * (SCM_RIGHTS, arriving with its first byte). */
#define KD_MAX_PASS 4

/* Sends the message on the stream socket SOCK; 1, or 0 with errno set. */
static int
kd_send_with_fds(int sock, const char *payload, STRLEN len, const int *fds, int nfds)
{
    unsigned char head[8];
    struct iovec iov[2];
    struct msghdr m;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * KD_MAX_PASS)];
    } control;
    size_t total = sizeof head + len, sent = 0;
    int first = 1;
    if (nfds > KD_MAX_PASS) {
        errno = EINVAL;
        return 0;
    }
    head[0] = (unsigned char)(len >> 24); head[1] = (unsigned char)(len >> 16);
    head[2] = (unsigned char)(len >> 8);  head[3] = (unsigned char)len;
    head[4] = head[5] = head[6] = 0;      head[7] = (unsigned char)nfds;
    while (sent < total) {
        ssize_t n;
        int k = 0;
        memset(&m, 0, sizeof m);
        if (sent < sizeof head) {
            iov[k].iov_base = head + sent;
            iov[k++].iov_len = sizeof head - sent;
            iov[k].iov_base = (void *)payload;
            iov[k++].iov_len = len;
        } else {
            iov[k].iov_base = (void *)(payload + (sent - sizeof head));
            iov[k++].iov_len = total - sent;
        }
        m.msg_iov = iov;
        m.msg_iovlen = k;
        if (first && nfds > 0) {
            struct cmsghdr *cm;
            memset(&control, 0, sizeof control);
            m.msg_control = control.buf;
            m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
            cm = CMSG_FIRSTHDR(&m);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
            memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
        }
        n = sendmsg(sock, &m, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        first = 0;
        sent += (size_t)n;
    }
    return 1;
}

/* Reads one message from SOCK: the payload into PAYLOAD, the descriptors
 * into FDS (their count returned), or -1 at the end of the stream or on
 * an error. */
static int
kd_recv_with_fds(pTHX_ int sock, SV *payload, int *fds)
{
    unsigned char head[8];
    size_t got = 0, len, want;
    int nfds = 0;
    struct cmsghdr *cm;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * KD_MAX_PASS)];
    } control;
    /* the head, with the descriptors: to the byte, never beyond (the next
     * message's descriptors must not be taken with this one's) */
    while (got < sizeof head) {
        struct iovec iov;
        struct msghdr m;
        ssize_t n;
        memset(&m, 0, sizeof m);
        iov.iov_base = head + got;
        iov.iov_len = sizeof head - got;
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = control.buf;
        m.msg_controllen = sizeof control.buf;
        n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto fail;
        for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
            int i, count;
            if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
                continue;
            count = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (i = 0; i < count; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
                if (nfds < KD_MAX_PASS)
                    fds[nfds++] = fd;
                else
                    close(fd);
            }
        }
        got += (size_t)n;
    }
    len = ((size_t)head[0] << 24) | ((size_t)head[1] << 16) | ((size_t)head[2] << 8) | head[3];
    if (head[7] != nfds)
        goto fail;
    SvGROW(payload, len + 1);
    for (want = 0; want < len; ) {
        ssize_t n = read(sock, SvPVX(payload) + want, len - want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            goto fail;
        want += (size_t)n;
    }
    SvCUR_set(payload, len);
    *SvEND(payload) = '\0';
    SvPOK_only(payload);
    return nfds;
  fail:
    while (nfds > 0)
        close(fds[--nfds]);
    return -1;
}

/* Kamado::CGI::Relay: what a script writes to its output and error pipes
 * (OUT_FD, ERR_FD) until its output ends, or for HOLD seconds, or until
 * MAX bytes of output. Appends to OUT and ERR; sets *OUT_OPEN and
 * *ERR_OPEN to whether each pipe is still open. */
static void
kd_collect(pTHX_ int out_fd, int err_fd, double hold, STRLEN max, SV *out, SV *err, int *out_open, int *err_open)
{
    struct timespec now, until;
    char buf[65536];
    *out_open = out_fd >= 0;
    *err_open = err_fd >= 0;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)hold;
    until.tv_nsec += (long)((hold - (double)(time_t)hold) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (*out_open && SvCUR(out) < max) {
        struct pollfd p[2];
        int np = 0, i, ms, r;
        clock_gettime(CLOCK_MONOTONIC, &now);
        ms = (int)((until.tv_sec - now.tv_sec) * 1000 + (until.tv_nsec - now.tv_nsec) / 1000000);
        if (ms < 0)
            ms = 0;
        p[np].fd = out_fd;
        p[np++].events = POLLIN;
        if (*err_open) {
            p[np].fd = err_fd;
            p[np++].events = POLLIN;
        }
        r = poll(p, np, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;    /* the time is up (or poll failed: the caller's loop goes on) */
        for (i = 0; i < np; i++) {
            ssize_t n;
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            n = read(p[i].fd, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (n > 0) {
                sv_catpvn(p[i].fd == out_fd ? out : err, buf, (STRLEN)n);
                continue;
            }
            if (p[i].fd == out_fd)
                *out_open = 0;
            else
                *err_open = 0;
        }
    }
    /* what the errors pipe holds already, and whether it ended too */
    while (*err_open) {
        struct pollfd p;
        ssize_t n;
        p.fd = err_fd;
        p.events = POLLIN;
        if (poll(&p, 1, 0) <= 0)
            break;
        n = read(err_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (n == 0)
            *err_open = 0;
        else
            sv_catpvn(err, buf, (STRLEN)n);
    }
}

/* Kamado::CGI::Snapshot: a script's package variables put back after a
 * run, from VARS ([glob ref, scalar, array ref, hash ref, was open]...,
 * see Snapshot.pm): what the Perl loop did for each glob, in C (a legacy
 * script with fifty globals paid a thousand Perl ops a request for it).
 * A value that is a reference is deep-copied by the Perl's _copy, so
 * that the run cannot change the snapshot through it. Adds to OPENED the
 * globs whose files the run opened, for the caller to close (perl's
 * close, with its flush and lock release). */
static SV *
kd_snapshot_copy(pTHX_ SV *value)
{
    dSP;
    SV *copy;
    int n;
    ENTER;
    SAVETMPS;
    PUSHMARK(SP);
    XPUSHs(value);
    PUTBACK;
    n = call_pv("Kamado::CGI::Snapshot::_copy", G_SCALAR);
    SPAGAIN;
    copy = n == 1 ? newSVsv(POPs) : newSV(0);
    PUTBACK;
    FREETMPS;
    LEAVE;
    return copy;
}

static int
kd_tied(SV *sv, char how)
{
    return SvRMAGICAL(sv) && mg_find(sv, how) != NULL;
}

static void
kd_snapshot_restore(pTHX_ AV *vars, AV *opened)
{
    SSize_t i, n = av_count(vars);
    for (i = 0; i < n; i++) {
        SV **varp = av_fetch(vars, i, 0), **slot;
        AV *var;
        GV *gv;
        SV *scalar, *array, *hash, *sv;
        IO *io;
        if (!varp || !SvROK(*varp) || SvTYPE(SvRV(*varp)) != SVt_PVAV)
            continue;
        var = (AV *)SvRV(*varp);
        if (av_count(var) < 5 || !(slot = av_fetch(var, 0, 0)) || !SvROK(*slot) || !isGV_with_GP(SvRV(*slot)))
            continue;
        gv = (GV *)SvRV(*slot);
        scalar = *av_fetch(var, 1, 0);
        array = *av_fetch(var, 2, 0);
        hash = *av_fetch(var, 3, 0);
        /* a file the run opened is closed, as at a process's exit (a
         * lock it holds is released) */
        io = GvIOp(gv);
        if (io && IoIFP(io) && PerlIO_fileno(IoIFP(io)) >= 0 && !SvTRUE(*av_fetch(var, 4, 0)))
            av_push(opened, newRV_inc((SV *)gv));
        sv = SvOK(scalar) ? GvSVn(gv) : GvSV(gv);
        if (sv && !kd_tied(sv, PERL_MAGIC_tiedscalar) && !SvREADONLY(sv)) {
            if (SvROK(scalar)) {
                SV *copy = kd_snapshot_copy(aTHX_ scalar);
                sv_setsv_mg(sv, copy);
                SvREFCNT_dec(copy);
            } else if (SvOK(scalar) || SvOK(sv) || SvMAGICAL(sv)) {
                sv_setsv_mg(sv, scalar);
            }
        }
        if (GvAV(gv) && !kd_tied((SV *)GvAV(gv), PERL_MAGIC_tied)) {
            AV *av = GvAV(gv);
            if (SvROK(array)) {
                SV *copy = kd_snapshot_copy(aTHX_ array);
                AV *from = SvROK(copy) && SvTYPE(SvRV(copy)) == SVt_PVAV ? (AV *)SvRV(copy) : NULL;
                SSize_t j, count = from ? av_count(from) : 0;
                av_clear(av);
                for (j = 0; j < count; j++) {
                    SV **e = av_fetch(from, j, 0);
                    av_store(av, j, e ? newSVsv(*e) : newSV(0));
                }
                SvREFCNT_dec(copy);
            } else if (av_count(av) > 0) {
                av_clear(av);
            }
        }
        if (GvHV(gv) && !kd_tied((SV *)GvHV(gv), PERL_MAGIC_tied)) {
            HV *hv = GvHV(gv);
            if (SvROK(hash)) {
                SV *copy = kd_snapshot_copy(aTHX_ hash);
                HV *from = SvROK(copy) && SvTYPE(SvRV(copy)) == SVt_PVHV ? (HV *)SvRV(copy) : NULL;
                HE *he;
                hv_clear(hv);
                if (from) {
                    hv_iterinit(from);
                    while ((he = hv_iternext(from)))
                        (void)hv_store_ent(hv, hv_iterkeysv(he), newSVsv(HeVAL(he)), 0);
                }
                SvREFCNT_dec(copy);
            } else if (HvUSEDKEYS(hv) > 0) {
                hv_clear(hv);
            }
        }
    }
}
