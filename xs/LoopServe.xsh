# Kamado::Loop::serve: the worker's request cycle, its app called from C
# for the plain requests (xs/serve.c says which), so that Perl runs only
# for the app. Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Loop

PROTOTYPES: DISABLE

void
serve(Kamado::Loop self, int timeout_ms, SV *app, SV *stop, SV *idle, IV pid, SV *log, SV *served_ref, IV budget, NV retire_at, SV *call)
PPCODE:
{
    /* Takes the next request, as next_request does; and, when call is
     * true, serves the requests while each is plain and its answer
     * common, the process is pid, and neither the scalar stop refers to
     * nor that of the glob idle refers to is true (the access-log line
     * of each is made when log is true). Returns as next_request does
     * (nothing: no request; or (fd, env, body kind[, answers]) of a
     * request left to the caller), or those and (response, cleanup
     * handlers) after the app was called, or those and (what
     * write_response returned) after its response was written; or -1
     * when, after a request it served, a flag is set (the signals that
     * came meanwhile dispatched first); -2 when that request spent the
     * budget (the scalar served_ref refers to counts the requests when
     * budget is not 0), -3 when the wall clock is past retire_at (when
     * not 0). */
    SV *stopping, *count = NULL;
    GV *idle_gv;
    int served = 0, calls = SvTRUE(call), logs = SvTRUE(log);
    if (!SvROK(stop) || SvROK(SvRV(stop)) || !SvROK(idle) || !isGV_with_GP(SvRV(idle)))
        croak("Kamado::Loop::serve: stop must be a scalar reference, idle a glob reference");
    stopping = SvRV(stop);
    idle_gv = (GV *)SvRV(idle);
    if (budget > 0) {
        if (!SvROK(served_ref) || SvROK(SvRV(served_ref)))
            croak("Kamado::Loop::serve: served must be a scalar reference");
        count = SvRV(served_ref);
    }
    PUTBACK;
    for (;; served++) {
        kd_conn *c;
        HV *env;
        SV *env_rv, *res, *cleanup, *status;
        AV *headers, *body;
        int fd, sent;
        if (served) {
            /* between two requests: the signals come now, as in Perl */
            PERL_ASYNC_CHECK();
            if (SvTRUE(stopping) || SvTRUE(GvSVn(idle_gv)))
                XSRETURN_IV(-1);
        }
        if (!(c = take_request(aTHX_ self, timeout_ms)))
            XSRETURN_EMPTY;
        fd = c->fd;
        env = self->last_env;
        env_rv = newRV_inc((SV *)env);
        if (!calls || !plain_request(aTHX_ self, c, env)) {
            SPAGAIN;
            EXTEND(SP, 4);
            mPUSHi(fd);
            mPUSHs(env_rv);
            mPUSHi(kd_conn_body_kind(c));
            if (loop_answers(self))
                mPUSHi(loop_answers(self));
            PUTBACK;
            return;
        }
        /* (what Perl would dispatch before it calls the app) */
        PERL_ASYNC_CHECK();
        cleanup = env_get(aTHX_ env, K_CLEANUP);
        cleanup = cleanup ? newSVsv(cleanup) : newSV(0);
        ENTER;
        SAVETMPS;
        SPAGAIN;
        PUSHMARK(SP);
        XPUSHs(env_rv);
        PUTBACK;
        (void)call_sv(app, G_SCALAR | G_EVAL);
        SPAGAIN;
        res = SvREFCNT_inc(POPs);
        PUTBACK;
        FREETMPS;
        LEAVE;
        sent = -2;                    /* (not written) */
        if (kd_current_pid() == (pid_t)pid && !harakiri(aTHX_ env) && common_response(aTHX_ res, &status, &headers, &body)) {
            sent = respond(aTHX_ self, serving_conn(aTHX_ self, fd), status, headers, body);
            if (sent == KD_SENT_OK && plain_av(cleanup) && AvFILLp((AV *)SvRV(cleanup)) < 0) {
                SvREFCNT_dec(res);
                SvREFCNT_dec(cleanup);
                if (logs)
                    log_served(aTHX_ self, env);
                /* the env's objects go now, and its hash serves the next
                 * request */
                SvREFCNT_dec(env_rv);
                env_done(aTHX_ self);
                if (count) {
                    IV n = SvIV(count) + 1;
                    sv_setiv(count, n);
                    if (n >= budget)
                        XSRETURN_IV(-2);
                }
                if (retire_at > 0 && kd_wall() >= retire_at)
                    XSRETURN_IV(-3);
                continue;
            }
        }
        /* the rest is the caller's, from where it stopped */
        SPAGAIN;
        EXTEND(SP, 7);
        mPUSHi(fd);
        mPUSHs(env_rv);
        mPUSHi(KD_BODY_NONE);
        mPUSHi(0);
        mPUSHs(res);
        mPUSHs(cleanup);
        if (sent != -2)
            PUSHs(sent_sv(aTHX_ sent));
        PUTBACK;
        return;
    }
}
