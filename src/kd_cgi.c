/* kd_cgi.c - the CGI runner's in-process modes (Kamado::CGI::Registry):
 * what is put aside while a script runs in the worker. Included by
 * Kamado.xs. */

/* Kamado::CGI::Registry::env_enter/env_leave: the worker's %ENV and C
 * environment, put aside while a script runs in-process */
static struct {
    int active;
    char **worker_environ;
    HV *worker_hv;
    char **array;      /* what environ pointed at for the run */
    char **strings;    /* its NAME=VALUE strings, ours to free */
    size_t count;
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
    /* (a reference the script kept to its %ENV no longer reaches the
     * environment; freeing the hash must not clear it either) */
    if (hv) {
        sv_unmagic((SV *)hv, PERL_MAGIC_env);
        SvREFCNT_dec(hv);
    }
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
