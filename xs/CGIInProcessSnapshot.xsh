# Kamado::CGI::InProcess::Snapshot: a script's package variables put back (xs/cgi/kd_cgi_snapshot.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::CGI::InProcess::Snapshot

PROTOTYPES: DISABLE

void
_restore(SV *self)
PPCODE:
{
    /* restore's loop (kd_snapshot_restore_all; it calls perl, so the
     * globs to close are pushed only once it is done) */
    AV *opened = (AV *)sv_2mortal((SV *)newAV());
    SSize_t i, n;
    kd_snapshot_restore_all(aTHX_ self, opened);
    n = (SSize_t)av_count(opened);
    EXTEND(SP, n);
    for (i = 0; i < n; i++)
        PUSHs(*av_fetch(opened, i, 0));
}
