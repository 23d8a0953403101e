# Kamado::CGI::InProcess::Require: share_lexicals, a script's named subs pointed at its run's file-scoped lexicals (xs/cgi/kd_cgi_world.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::CGI::InProcess::Require

PROTOTYPES: DISABLE

void
share_lexicals(SV *outer_ref, ...)
CODE:
{
    /* A CGI script runs in-process as the body of one sub, its wrapper.
     * The named subs the script declares took the wrapper's file-scoped
     * lexicals once, when they were compiled, from the wrapper's first
     * pad; as each call of the wrapper ends, perl gives the next call
     * fresh variables ("will not stay shared"), so from the second
     * request on the named subs would see the first request's values
     * (doc/CGI-HAZARDS.md B1). Called before each run: points each named sub's
     * captured variables at the ones the wrapper's next call will use,
     * so that script and subs share them again, as under CGI. */
    CV *outer;
    PAD *outer_pad;
    I32 i;
    if (!SvROK(outer_ref) || SvTYPE(SvRV(outer_ref)) != SVt_PVCV)
        croak("share_lexicals: not a code reference");
    outer = (CV *)SvRV(outer_ref);
    if (CvDEPTH(outer) != 0 || !CvPADLIST(outer) || PadlistMAX(CvPADLIST(outer)) < 1)
        XSRETURN_EMPTY;
    /* (and the run's lexicals new, as a new process has them) */
    kd_fresh_lexicals(aTHX_ outer);
    outer_pad = PadlistARRAY(CvPADLIST(outer))[1];
    for (i = 1; i < items; i++) {
        SV *ref = ST(i);
        CV *cv;
        PADNAMELIST *names;
        PAD *pad;
        PADOFFSET ix;
        if (!SvROK(ref) || SvTYPE(SvRV(ref)) != SVt_PVCV)
            continue;
        cv = (CV *)SvRV(ref);
        if (CvOUTSIDE(cv) != outer || CvDEPTH(cv) != 0 || CvISXSUB(cv) || !CvPADLIST(cv)
            || PadlistMAX(CvPADLIST(cv)) < 1)
            continue;
        kd_fresh_lexicals(aTHX_ cv);
        names = PadlistNAMES(CvPADLIST(cv));
        pad = PadlistARRAY(CvPADLIST(cv))[1];
        for (ix = 1; ix <= (PADOFFSET)PadnamelistMAX(names) && ix <= (PADOFFSET)AvFILLp(pad); ix++) {
            PADNAME *pn = PadnamelistARRAY(names)[ix];
            PADOFFSET from;
            SV *want;
            if (!pn || !PadnameLEN(pn) || !PadnameOUTER(pn) || PadnameIsOUR(pn))
                continue;
            from = PARENT_PAD_INDEX(pn);
            if (!from || from > (PADOFFSET)AvFILLp(outer_pad))
                continue;
            want = AvARRAY(outer_pad)[from];
            if (want && AvARRAY(pad)[ix] != want) {
                SV *old = AvARRAY(pad)[ix];
                AvARRAY(pad)[ix] = SvREFCNT_inc_simple_NN(want);
                SvREFCNT_dec(old);
            }
        }
    }
}
