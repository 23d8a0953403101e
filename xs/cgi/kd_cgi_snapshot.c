/* kd_cgi_snapshot.c - a script's package variables put back after an
 * in-process run.
 * The CGI runner's C, with the perl API: included by Kamado.xs after
 * the parts before it (kd_cgi_vars.c, kd_cgi_env.c, kd_cgi_world.c, kd_cgi_io.c,
 * kd_cgi_snapshot.c); their XS is xs/CGI*.xsh, a file per Perl package. */

/* Kamado::CGI::InProcess::Snapshot: a script's package variables put back after a
 * run, from VARS ([glob ref, scalar, array ref, hash ref, was open]...,
 * see Snapshot.pm): what the Perl loop did for each glob, in C (a legacy
 * script with fifty globals paid a thousand Perl ops a request for it).
 * A value that is a reference is deep-copied by the Perl's _copy, so
 * that the run cannot change the snapshot through it. A scalar holding
 * what kd_snapshot_kept keeps is left as the run left it. Adds to OPENED the
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
    n = call_pv("Kamado::CGI::InProcess::Snapshot::_copy", G_SCALAR);
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

/* What a run leaves in a package scalar and the next run finds: a
 * database handle (DBI::db, or a class derived from it) that stays
 * connected (see Kamado::DBI::survives) and a PersistentPerl /
 * CGI::SpeedyCGI object, the idiom of scripts written
 * for a persistent perl (our $dbh; connect unless defined). */
static int
kd_snapshot_kept(pTHX_ SV *sv)
{
    if (!SvROK(sv) || !SvOBJECT(SvRV(sv)))
        return 0;
    if (sv_derived_from(sv, "PersistentPerl"))
        return 1;
    if (!sv_derived_from(sv, "DBI::db"))
        return 0;
    /* not a handle Kamado::DBI closes at the end of the request */
    if (get_cv("Kamado::DBI::survives", 0)) {
        dSP;
        int n, kept = 1;
        ENTER;
        SAVETMPS;
        PUSHMARK(SP);
        XPUSHs(sv);
        PUTBACK;
        n = call_pv("Kamado::DBI::survives", G_SCALAR | G_EVAL);
        SPAGAIN;
        if (n == 1)
            kept = SvTRUE(POPs);
        PUTBACK;
        FREETMPS;
        LEAVE;
        return kept;
    }
    return 1;
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
        if (sv && !kd_tied(sv, PERL_MAGIC_tiedscalar) && !SvREADONLY(sv) && !kd_snapshot_kept(aTHX_ sv)) {
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

/* Kamado::CGI::InProcess::Snapshot::restore's loop: every package of the snapshot
 * SELF put back (kd_snapshot_restore), after a new scan of those whose
 * stash has another number of names than at the last scan ($self->_scan:
 * a variable the last run made); the globs to close pushed on OPENED. */
static void kd_snapshot_restore_all(pTHX_ SV *self, AV *opened)
{
    SV **svp =
        SvROK(self) && SvTYPE(SvRV(self)) == SVt_PVHV ? hv_fetchs((HV *)SvRV(self), "packages", 0) : NULL;
    HV *packages;
    AV *list;
    HE *he;
    SSize_t i, n;
    if (!svp || !SvROK(*svp) || SvTYPE(SvRV(*svp)) != SVt_PVHV)
        return;
    packages = (HV *)SvRV(*svp);
    /* (the names first: _scan runs perl) */
    list = (AV *)sv_2mortal((SV *)newAV());
    hv_iterinit(packages);
    while ((he = hv_iternext(packages)))
        av_push(list, newSVhek(HeKEY_hek(he)));
    n = (SSize_t)av_count(list);
    for (i = 0; i < n; i++) {
        SV *package = *av_fetch(list, i, 0);
        HE *pe = hv_fetch_ent(packages, package, 0, 0);
        HV *p;
        SV **stash, **names, **vars;
        if (!pe || !SvROK(HeVAL(pe)) || SvTYPE(SvRV(HeVAL(pe))) != SVt_PVHV)
            continue;
        p = (HV *)SvRV(HeVAL(pe));
        stash = hv_fetchs(p, "stash", 0);
        names = hv_fetchs(p, "names", 0);
        if (!stash || !SvROK(*stash) || SvTYPE(SvRV(*stash)) != SVt_PVHV || !names ||
            (IV)HvUSEDKEYS((HV *)SvRV(*stash)) != SvIV(*names)) {
            dSP;
            ENTER;
            SAVETMPS;
            PUSHMARK(SP);
            XPUSHs(self);
            XPUSHs(package);
            mXPUSHi(0);
            PUTBACK;
            call_method("_scan", G_DISCARD);
            FREETMPS;
            LEAVE;
        }
        vars = hv_fetchs(p, "vars", 0);
        if (vars && SvROK(*vars) && SvTYPE(SvRV(*vars)) == SVt_PVAV)
            kd_snapshot_restore(aTHX_(AV *) SvRV(*vars), opened);
    }
}
