/* Kamado::Loop's request cycle: the next request taken and its env
 * built (next_request). Included by Kamado.xs, after xs/env.c and
 * xs/logline.c. */

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
