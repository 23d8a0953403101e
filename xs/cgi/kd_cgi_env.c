/* kd_cgi_env.c - a CGI run's environment: the worker's %ENV and C
 * environ put aside while a script runs in-process, and the run's made
 * from the request's variables (kd_cgi_vars.c).
 * The CGI runner's C, with the perl API: included by Kamado.xs after
 * kd_cgi_vars.c, before kd_cgi_world.c, kd_cgi_io.c and
 * kd_cgi_snapshot.c; their XS is xs/CGI*.xsh, a file per Perl package. */

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
