# Kamado::CGI::*: the CGI runner's glue over xs/cgi/kd_cgi_*.c. Included by Kamado.xs.

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

MODULE = Kamado    PACKAGE = Kamado::CGI::InProcess::World

PROTOTYPES: DISABLE

SV *
signal_state()
CODE:
{
    /* The handlers of every signal and of __DIE__ and __WARN__, copied:
     * read from perl's own table (reading %SIG is one lookup by name,
     * and a sigaction, per signal), so that a script's changes can be
     * found after each run for the price of a loop (changed_signals). */
    AV *state = newAV();
    int i;
    av_extend(state, SIG_SIZE + 1);
    for (i = 1; i < SIG_SIZE + 2; i++) {
        SV *now = kd_signal_now(aTHX_ i);
        av_push(state, now ? newSVsv(now) : newSV(0));
    }
    RETVAL = newRV_noinc((SV *)state);
}
OUTPUT:
    RETVAL

void
changed_signals(AV *state)
PPCODE:
{
    /* (name, handler in STATE) of each handler that is not as in STATE
     * (from signal_state): a code reference to another sub, another
     * string, set where it was not or the reverse; names as %SIG has
     * them, so that %SIG = (%SIG, changed_signals($state)) puts them back. */
    int i;
    for (i = 1; i <= SIG_SIZE + 1; i++) {
        SV **old = av_fetch(state, i - 1, 0);
        SV *was = old ? *old : &PL_sv_undef;
        if (!kd_signal_same(aTHX_ was, kd_signal_now(aTHX_ i))) {
            mXPUSHs(newSVpv(kd_signal_name(i), 0));
            XPUSHs(was);
        }
    }
}

int
world_enter(int in_fd, int out_fd, int err_fd, HV *env, HV *fixed, char *dir, SV *script, SV *line_ends)
CODE:
    /* Enters a run's world: descriptors 0-2 on IN_FD, OUT_FD, ERR_FD
     * (kd_stdio_enter), %ENV and the environment of the request ENV for
     * the script's FIXED part (kd_env_enter),
     * DIR the working directory, $0 SCRIPT, the special variables and
     * @INC (kd_specials_enter, $\ LINE_ENDS); the worker's signal handlers,
     * umask and selected handle noted, for world_leave. Returns the bits
     * of the closed standard handles (kd_point_std). */
    RETVAL = kd_world_enter(aTHX_ in_fd, out_fd, err_fd, env, fixed, dir, script, line_ends);
OUTPUT:
    RETVAL

void
world_leave(char *cwd)
PPCODE:
    /* The worker's world back (%ENV, descriptors, $0, the special
     * variables and @INC, the selected handle, CWD, umask); returns the bits of the standard handles the
     * script closed, then (name, handler) for each signal handler the run
     * changed, to be put back in %SIG (which only perl can do). */
    PUTBACK;
    kd_world_leave(aTHX_ cwd);
    SPAGAIN;

void
new_page(SV *format, SV *format_glob, SV *top, SV *top_glob)
CODE:
{
    /* STDOUT's page state as a new process has it, with the run's
     * formats (their names, FORMAT and TOP, and references to their
     * globs): what `select STDOUT; ($-, $%, $=, $~, $^) = (0, 0, 60,
     * FORMAT, TOP)` does (perl keeps it in the handle, from one run to the
     * next), without the select, five magic sets and two lookups of the
     * globs by name. */
    GV *gv = kd_std_gv(aTHX_ 1);
    IO *io = gv ? GvIOn(gv) : NULL;
    if (!io || !SvROK(format_glob) || !isGV_with_GP(SvRV(format_glob))
        || !SvROK(top_glob) || !isGV_with_GP(SvRV(top_glob)))
        XSRETURN_EMPTY;
    IoLINES_LEFT(io) = 0;
    IoPAGE(io) = 0;
    IoPAGE_LEN(io) = 60;
    if (!IoFMT_NAME(io) || strNE(IoFMT_NAME(io), SvPV_nolen(format))) {
        Safefree(IoFMT_NAME(io));
        IoFMT_NAME(io) = savesvpv(format);
    }
    IoFMT_GV(io) = (GV *)SvRV(format_glob);
    if (!IoTOP_NAME(io) || strNE(IoTOP_NAME(io), SvPV_nolen(top))) {
        Safefree(IoTOP_NAME(io));
        IoTOP_NAME(io) = savesvpv(top);
    }
    IoTOP_GV(io) = (GV *)SvRV(top_glob);
}

IV
output_begin(int out_fd, int err_fd, IV max_err)
CODE:
    /* The files collecting a run's output and errors, made ready: the
     * output at its start (scripts look at tell(STDOUT)), the errors appended
     * to what earlier runs left (emptied past MAX_ERR bytes). Returns
     * where this run's errors start. */
    RETVAL = kd_output_begin(out_fd, err_fd, max_err);
OUTPUT:
    RETVAL

SV *
read_from(int fd, IV offset)
CODE:
    /* What file FD holds from OFFSET to its end (pread: the descriptor's
     * position, shared with the script's STDOUT or STDERR, stays). */
    RETVAL = kd_read_range(aTHX_ fd, (off_t)offset, -1);
OUTPUT:
    RETVAL

SV *
read_output(int out_fd)
CODE:
    /* What the run wrote to the output file OUT_FD (made ready by
     * output_begin): up to the position the script's STDOUT and its
     * children share. */
    RETVAL = kd_read_output(aTHX_ out_fd);
OUTPUT:
    RETVAL

void
flush_all()
CODE:
    /* what every handle has buffered, written: before a script's STDIO
     * are swapped in and out (IO::Handle's flush per handle costs more) */
    PerlIO_flush((PerlIO *)NULL);

MODULE = Kamado    PACKAGE = Kamado::CGI::Output

PROTOTYPES: DISABLE

SV *
_parse(SV *output)
CODE:
{
    /* OUTPUT's head parsed (src/proto/kd_cgi_head.c), once it holds the empty
     * line that ends it; undef before. Returns { status, headers =>
     * [name, value...], rest }, or { error => why }, or { redirect =>
     * path } for a Location with a local path and no Status; a
     * Last-Modified in RFC 1123 form. */
    STRLEN len;
    const char *o = SvPV(output, len);
    kd_cgi_field some[32], *fields = some;
    kd_cgi_head h;
    SV *modified = NULL;
    HV *result;
    AV *headers;
    size_t i;
    if (!kd_cgi_output_parse(o, len, &h, some, 32))
        XSRETURN_UNDEF;
    if (h.error == KD_CGI_HEAD_OK && h.nfields > 32 && !h.redirect) {
        Newx(fields, h.nfields, kd_cgi_field);
        kd_cgi_output_parse(o, len, &h, fields, h.nfields);
    }
    result = newHV();
    RETVAL = newRV_noinc((SV *)result);
    if (h.error != KD_CGI_HEAD_OK) {
        SV *why = newSVpvf("malformed header from script. Bad %s: ", kd_cgi_head_error_what(h.error));
        sv_catpvn(why, o + h.bad_off, h.bad_len > 80 ? 80 : h.bad_len);
        if (h.bad_len > 80)
            sv_catpvs(why, "...");
        (void)hv_stores(result, "error", why);
    } else if (h.redirect) {
        (void)hv_stores(result, "redirect", newSVpvn(o + h.location_off, h.location_len));
    } else {
        headers = newAV();
        if (h.nfields)
            av_extend(headers, 2 * h.nfields - 1);
        for (i = 0; i < h.nfields; i++) {
            const kd_cgi_field *f = &fields[i];
            if (f->name_len == 0) {
                /* a folded line: the field before goes on */
                SV *last = *av_fetch(headers, av_count(headers) - 1, 0);
                sv_catpvs(last, " ");
                sv_catpvn(last, o + f->value_off, f->value_len);
                continue;
            }
            av_push(headers, newSVpvn(o + f->name_off, f->name_len));
            av_push(headers, newSVpvn(o + f->value_off, f->value_len));
            if (h.modified >= 0 && i == h.modified_field)
                modified = *av_fetch(headers, av_count(headers) - 1, 0);
        }
        if (modified) {
            /* (after the folded lines, which the date replaces too) */
            char date[KD_HTTP_DATE_LEN + 1];
            size_t n = kd_cgi_head_modified(&h, (long long)time(NULL), date);
            sv_setpvn(modified, date, n);
        }
        (void)hv_stores(result, "status", newSViv(h.status));
        (void)hv_stores(result, "headers", newRV_noinc((SV *)headers));
        (void)hv_stores(result, "rest", newSVpvn(o + h.rest_off, len - h.rest_off));
    }
    if (fields != some)
        Safefree(fields);
}
OUTPUT:
    RETVAL

MODULE = Kamado    PACKAGE = Kamado::CGI::Env

PROTOTYPES: DISABLE

SV *
request(HV *env, HV *fixed)
CODE:
    /* a new hash (see kd_request_env) */
    RETVAL = newRV_noinc((SV *)kd_request_env(aTHX_ env, fixed));
OUTPUT:
    RETVAL

MODULE = Kamado    PACKAGE = Kamado::CGI::InProcess::Snapshot

PROTOTYPES: DISABLE

void
_restore_vars(AV *vars)
PPCODE:
{
    /* (see kd_snapshot_restore; it calls perl, so the globs to close are
     * pushed only once it is done) */
    AV *opened = (AV *)sv_2mortal((SV *)newAV());
    SSize_t i, n;
    kd_snapshot_restore(aTHX_ vars, opened);
    n = (SSize_t)av_count(opened);
    EXTEND(SP, n);
    for (i = 0; i < n; i++)
        PUSHs(*av_fetch(opened, i, 0));
}

MODULE = Kamado    PACKAGE = Kamado::CGI::Process::Relay

PROTOTYPES: DISABLE

void
collect(int out_fd, int err_fd, double hold, UV max)
PPCODE:
{
    /* (output, errors, output still open, errors still open): what a
     * script wrote to its pipes until its output ended, for at most HOLD
     * seconds, up to about MAX bytes of output (Kamado::CGI::Process::Relay). */
    SV *out = sv_2mortal(newSVpvs(""));
    SV *err = sv_2mortal(newSVpvs(""));
    int out_open, err_open;
    kd_collect(aTHX_ out_fd, err_fd, hold, (STRLEN)max, out, err, &out_open, &err_open);
    EXTEND(SP, 4);
    PUSHs(out);
    PUSHs(err);
    mPUSHi(out_open);
    mPUSHi(err_open);
}

MODULE = Kamado    PACKAGE = Kamado::CGI::Mode::Fork

PROTOTYPES: DISABLE

int
send_with_fds(int sock, SV *payload, ...)
CODE:
{
    /* One message to a zygote (Kamado::CGI::Mode::Fork): PAYLOAD and the
     * descriptors that follow it. True, or false with $! set. */
    int fds[KD_MAX_PASS], n;
    STRLEN len;
    const char *p = SvPVbyte(payload, len);
    if (items - 2 > KD_MAX_PASS)
        croak("send_with_fds: at most %d descriptors", KD_MAX_PASS);
    for (n = 0; n < items - 2; n++)
        fds[n] = (int)SvIV(ST(n + 2));
    RETVAL = kd_send_with_fds(sock, p, len, fds, n);
    if (!RETVAL)
        SETERRNO(errno, 0);
}
OUTPUT:
    RETVAL

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
