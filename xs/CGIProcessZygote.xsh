# Kamado::CGI::Process::Zygote: the zygote's side: a request received, the child made, its quiet exit (xs/cgi/kd_cgi_io.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::CGI::Process::Zygote

PROTOTYPES: DISABLE

void
recv_with_fds(int sock)
PPCODE:
{
    /* One message sent by send_with_fds: (payload, descriptors...), or
     * nothing at the end of the stream or on an error (Kamado::CGI::Process::Zygote). */
    int fds[KD_MAX_PASS], n, i;
    SV *payload = sv_2mortal(newSVpvs(""));
    n = kd_recv_with_fds(aTHX_ sock, payload, fds);
    if (n < 0)
        XSRETURN_EMPTY;
    /* (read from outside, as sysread's: under -T the environment made
     * of it is tainted, as a CGI process's is) */
    if (TAINTING_get)
        SvTAINTED_on(payload);
    EXTEND(SP, n + 1);
    PUSHs(payload);
    for (i = 0; i < n; i++)
        mPUSHi(fds[i]);
}

void
_close_fds(...)
CODE:
{
    /* (the zygote loads no POSIX: its 2 MB are copied and scanned by
     * every fork) */
    int i;
    for (i = 0; i < items; i++)
        close((int)SvIV(ST(i)));
}

void
_become_child(int in_fd, int out_fd, int err_fd)
CODE:
{
    /* In a forked child: the CGI process, leading a process group (a
     * stop reaches what it starts too), with IN_FD, OUT_FD and ERR_FD as
     * its descriptors 0, 1 and 2. */
    int fds[3], n;
    fds[0] = in_fd; fds[1] = out_fd; fds[2] = err_fd;
    (void)setpgid(0, 0);
    for (n = 0; n < 3; n++)
        if (fds[n] != n && dup2(fds[n], n) < 0)
            _exit(126);
    for (n = 0; n < 3; n++)
        if (fds[n] > 2 && (n == 0 || fds[n] != fds[n - 1]))
            close(fds[n]);
}

void
_exit_now(int status)
CODE:
    _exit(status);

void
_exit_if_quiet(int status, SV *quiet = NULL)
CODE:
{
    /* Called by a forked CGI child (Kamado::CGI::Process::Zygote) from its END
     * block, the last one. Perl's exit from here (global destruction) walks
     * every SV of the heap the child shares with its zygote and writes to
     * every glob: copy-on-write faults, a sixth of the CPU a hello world
     * costs. When it would do nothing anyone can see, flush every handle
     * and _exit instead; otherwise return, and perl exits as usual.
     * "Nothing to see": no END block left to run, no exit hook of an XS
     * module, no child process (closing a pipe to one waits for it), no
     * object whose class has a DESTROY (or AUTOLOAD) perl would call
     * (kd_class_quiet), and no handle with a layer that does work when
     * popped (only unix, perlio, stdio, crlf, scalar). QUIET, an array of
     * code references, names XS destructors the caller has made idle
     * (Kamado::DBI's, once this child's own connections are closed). */
    SV *arena;
    AV *idle = quiet && SvROK(quiet) && SvTYPE(SvRV(quiet)) == SVt_PVAV ? (AV *)SvRV(quiet) : NULL;
    siginfo_t info;
    CV *regexp_destroy = get_cv("Regexp::DESTROY", 0);
    if (PL_endav && av_top_index(PL_endav) >= 0)
        XSRETURN_EMPTY;
    if (PL_exitlistlen)
        XSRETURN_EMPTY;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 || errno != ECHILD)
        XSRETURN_EMPTY;
    for (arena = PL_sv_arenaroot; arena; arena = MUTABLE_SV(SvANY(arena))) {
        const SV *const svend = &arena[SvREFCNT(arena)];
        SV *sv;
        for (sv = arena + 1; sv < svend; ++sv) {
            if (SvTYPE(sv) == (svtype)SVTYPEMASK || !SvREFCNT(sv))
                continue;    /* a free slot */
            if (SvTYPE(sv) == SVt_PVIO) {
                PerlIO *fs[2];
                int i;
                fs[0] = IoIFP(sv);
                fs[1] = IoOFP(sv);
                for (i = 0; i < 2; i++) {
                    PerlIO *f = fs[i];
                    while (f && *f) {
                        const char *name = (*f)->tab ? (*f)->tab->name : "";
                        if (strNE(name, "unix") && strNE(name, "perlio") && strNE(name, "stdio")
                            && strNE(name, "crlf") && strNE(name, "scalar"))
                            XSRETURN_EMPTY;
                        f = &(*f)->next;
                    }
                }
            }
            if (SvOBJECT(sv)) {
                HV *stash = SvSTASH(sv);
                if (!stash || !HvNAME_HEK(stash))
                    continue;    /* perl skips those too */
                if (!kd_class_quiet(aTHX_ stash, idle, regexp_destroy))
                    XSRETURN_EMPTY;
            }
        }
    }
    /* what perl's exit does that shows: the handles' buffers written */
    PerlIO_flush((PerlIO *)NULL);
    fflush(NULL);
    _exit(status);
}
