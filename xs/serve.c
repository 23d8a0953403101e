/* Kamado::Loop's request cycle: the next request taken and its env
 * built (next_request), and what Kamado::Loop::serve needs to serve the
 * plain ones with the app called from C. Included by Kamado.xs, after
 * xs/env.c and xs/logline.c.
 *
 * serve decides nothing: what a plain request and a common response are
 * is what Kamado::Server's handle_request leaves to the loop without a
 * look (no body, no Upgrade, the worker's empty input, [status,
 * [headers], [body]]); anything else goes back to it. */

/* The next request ready within timeout_ms (its env in x->last_env), or
 * NULL when there is none (or a signal came). */
static kd_conn *take_request(pTHX_ kd_xs *x, int timeout_ms)
{
    kd_conn *c;
    int rv;
    forget_request_id(aTHX_ x);
    rv = kd_loop_next(x->loop, timeout_ms, &c);
    if (rv < 0)
        croak("Can't wait for connections: %s", strerror(errno));
    if (rv == 0)
        return NULL;
    x->resp_status = 0;
    x->resp_bytes = 0;
    (void)build_env(aTHX_ x, c);
    if (x->logging) {
        x->req_start = kd_wall();
        if (x->resp_headers) {
            SvREFCNT_dec((SV *)x->resp_headers);
            x->resp_headers = NULL;
        }
    }
    return c;
}

/* The requests the loop answered itself and the faults it saw, to be
 * logged with the request just taken. */
static int loop_answers(const kd_xs *x)
{
    return x->loop->nanswers + x->loop->nfaults;
}

/* The value of an env_keys entry in env, or NULL. */
static SV *env_get(pTHX_ HV *env, int k)
{
    HE *he = hv_fetch_ent(env, env_keys[k].key, 0, env_keys[k].hash);
    return he ? HeVAL(he) : NULL;
}

/* Whether the request c just taken is one the app is called for as it
 * is: no body, no Upgrade, its psgi.input the worker's empty one, and
 * nothing the loop answered itself to log first. */
static int plain_request(pTHX_ kd_xs *x, kd_conn *c, HV *env)
{
    SV *input;
    if (kd_conn_body_kind(c) != KD_BODY_NONE || loop_answers(x))
        return 0;
    if (hv_exists(env, "HTTP_UPGRADE", 12))
        return 0;
    input = env_get(aTHX_ env, K_INPUT);
    return input && SvTRUE(input);
}

/* The array sv refers to when it is a plain one (no class, no magic),
 * or NULL. */
static AV *plain_av(SV *sv)
{
    AV *av;
    if (!sv || SvMAGICAL(sv) || !SvROK(sv))
        return NULL;
    av = (AV *)SvRV(sv);
    return SvTYPE(av) == SVt_PVAV && !SvOBJECT(av) && !SvMAGICAL(av) ? av : NULL;
}

/* Whether the app's answer res is the common one, [status, [headers],
 * [body]]: then *status, *headers and *body are its parts. */
static int common_response(pTHX_ SV *res, SV **status, AV **headers, AV **body)
{
    AV *r = plain_av(res);
    if (!r || AvFILLp(r) != 2 || !(*headers = plain_av(AvARRAY(r)[1])) || !(*body = plain_av(AvARRAY(r)[2])))
        return 0;
    *status = AvARRAY(r)[0] ? AvARRAY(r)[0] : &PL_sv_undef;
    return 1;
}

/* Whether the app asked for the worker to end (psgix.harakiri.commit). */
static int harakiri(pTHX_ HV *env)
{
    SV **v = hv_fetchs(env, "psgix.harakiri.commit", 0);
    return v && SvTRUE(*v);
}
