/* kd_cgi_world.c - the rest of what an in-process run puts aside and
 * gives back: descriptors 0-2 and perl's handles on them, `my` scalars,
 * the locale, special variables, signal handlers, the directory.
 * The CGI runner's C, with the perl API: included by Kamado.xs after
 * the parts before it (kd_cgi_vars.c, kd_cgi_env.c, kd_cgi_world.c, kd_cgi_io.c,
 * kd_cgi_snapshot.c); their XS is xs/CGI*.xsh, a file per Perl package. */

#include "perliol.h"    /* the layers of STDIN, STDOUT and STDERR: kd_std_sync */

/* (kd_cgi_io.c's, for the run's output and error files) */
static IV kd_output_begin(int out_fd, int err_fd, IV max_err);
static SV *kd_read_range(pTHX_ int fd, off_t offset, off_t end);

/* kd_stdio_enter/kd_stdio_leave (world_enter, world_leave): descriptors 0, 1 and 2
 * of a run. dup2 keeps perl's STDIN, STDOUT and STDERR on their numbers,
 * so that system, exec, pipes and sysread see the run's files as a CGI
 * process sees its own. */
static struct {
    int active;
    int saved[3];      /* the worker's 0, 1 and 2, dup'd */
    off_t pos[3];      /* where perl's handles on them were (-1: not known) */
    int autoflush;     /* the worker's $| on STDOUT */
} std_swap;

static GV *
kd_std_gv(pTHX_ int n)
{
    SV **svp;
    if (n != 1)
        return n == 0 ? PL_stdingv : PL_stderrgv;
    /* (straight from main::'s stash: gv_fetchpv parses the name first,
     * four times a run) */
    svp = hv_fetchs(PL_defstash, "STDOUT", 0);
    return svp && isGV_with_GP(*svp) ? (GV *)*svp : gv_fetchpvs("main::STDOUT", GV_ADD, SVt_PVIO);
}

/* Perl's handle F after dup2 put another file on its descriptor: what it
 * kept of the old file (buffered input, end of file) forgotten, its
 * position read from the new one (REWIND: set to 0 first), or POS where
 * it is known (-1: not known). Where F is perl's usual :unix:perlio
 * with nothing left to write, this is done in place with one lseek (none
 * for a known position), where PerlIO_seek takes two (it seeks, then
 * asks where it is). Returns the position it had before (-1: not
 * known). */
static off_t kd_std_sync(pTHX_ PerlIO *f, int rewind, off_t known)
{
    PerlIOl *top = f ? *f : NULL;
    PerlIOl *below = top ? top->next : NULL;
    if (top && below && top->tab == PERLIO_FUNCS_CAST(&PerlIO_perlio) && below->tab == PERLIO_FUNCS_CAST(&PerlIO_unix)
        && !(top->flags & PERLIO_F_WRBUF)) {
        PerlIOBuf *b = PerlIOSelf(f, PerlIOBuf);
        off_t was = b->posn;
        off_t pos = known >= 0 ? known : lseek(PerlIO_fileno(f), 0, rewind ? SEEK_SET : SEEK_CUR);
        if (b->buf)
            b->ptr = b->end = b->buf;
        top->flags &= ~(PERLIO_F_RDBUF | PERLIO_F_EOF);
        below->flags &= ~PERLIO_F_EOF;
        /* (a pipe has no position: left as it was, as PerlIO_seek leaves it) */
        if (pos >= 0)
            b->posn = pos;
        return was;
    }
    (void)PerlIO_seek(f, 0, rewind ? SEEK_SET : SEEK_CUR);
    return -1;
}

/* Whether binmode would leave F as it is: perl's usual :unix:perlio,
 * neither layer marked :utf8 (its binmode walks the layers, clearing
 * that mark and popping :crlf, :encoding and :utf8 ones). */
static int kd_std_binary(PerlIO *f)
{
    PerlIOl *top = f ? *f : NULL;
    PerlIOl *below = top ? top->next : NULL;
    return top && below && !below->next && top->tab == PERLIO_FUNCS_CAST(&PerlIO_perlio) &&
           below->tab == PERLIO_FUNCS_CAST(&PerlIO_unix) && !((top->flags | below->flags) & PERLIO_F_UTF8);
}

/* Points 0, 1 and 2 at FDS and makes perl's handles on them fit: STDIN's
 * buffered input, of another file, dropped; the position STDOUT and
 * STDERR keep set to the new file's (tell(STDOUT), which CGI::Carp
 * asks, must be this file's): POS[n] where known (-1: read from the
 * file), their old ones noted in WAS (-1: not known); with RESET_LAYERS,
 * a script's binmode undone. Returns a bit for each handle that is
 * closed: the caller opens it again on its descriptor. */
static int kd_point_std(pTHX_ const int *fds, int reset_layers, const off_t *pos, off_t *was)
{
    int n, closed = 0;
    for (n = 0; n < 3; n++) {
        GV *gv = kd_std_gv(aTHX_ n);
        was[n] = -1;
        IO *io = gv ? GvIO(gv) : NULL;
        PerlIO *f = io ? IoIFP(io) : NULL;
        PerlIO *out = io && IoOFP(io) ? IoOFP(io) : f;
        int open = f && PerlIO_fileno(f) >= 0;
        /* (what is buffered for the descriptor's old file goes there) */
        if (open && n > 0)
            (void)PerlIO_flush(out);
        if (dup2(fds[n], n) < 0)
            croak("Can't dup2 to descriptor %d: %s", n, Strerror(errno));
        if (!open) {
            closed |= 1 << n;
            continue;
        }
        if (n == 0) {
            (void)kd_std_sync(aTHX_ f, 1, -1);
            /* (as perl's seek: $. and the "<FH> line N" of warnings are
             * STDIN's, not those of the file the worker read last) */
            PL_last_in_gv = gv;
        } else {
            was[n] = kd_std_sync(aTHX_ out, 0, pos[n]);
        }
        if (reset_layers) {
            if (!kd_std_binary(f))
                (void)PerlIO_binmode(aTHX_ f, IoTYPE(io), O_BINARY, NULL);
            if (out != f && !kd_std_binary(out))
                (void)PerlIO_binmode(aTHX_ out, IoTYPE(io), O_BINARY, NULL);
        }
    }
    return closed;
}

static IO *
kd_stdout_io(pTHX)
{
    GV *gv = kd_std_gv(aTHX_ 1);
    return gv ? GvIO(gv) : NULL;
}

static int
kd_stdio_leave(pTHX)
{
    int n, closed;
    off_t was[3];
    IO *io;
    if (!std_swap.active)
        return 0;
    /* the script's last output, as perl would flush it at exit */
    PerlIO_flush((PerlIO *)NULL);
    /* (the worker's STDOUT and STDERR where they were: what else wrote
     * to their files meanwhile moves them no more than between two of
     * the worker's own writes) */
    closed = kd_point_std(aTHX_ std_swap.saved, 1, std_swap.pos, was);
    for (n = 0; n < 3; n++)
        close(std_swap.saved[n]);
    io = kd_stdout_io(aTHX);
    if (io && std_swap.autoflush)
        IoFLAGS(io) |= IOf_FLUSH;
    std_swap.active = 0;
    return closed;
}

static int kd_stdio_enter(pTHX_ int in_fd, int out_fd, int err_fd, const off_t *pos)
{
    int fds[3], n;
    IO *io;
    /* (a run that died before its stdio_leave: the worker's first) */
    (void)kd_stdio_leave(aTHX);
    for (n = 0; n < 3; n++) {
        std_swap.saved[n] = fcntl(n, F_DUPFD_CLOEXEC, 3);
        if (std_swap.saved[n] < 0) {
            int e = errno;
            while (n-- > 0)
                close(std_swap.saved[n]);
            croak("Can't dup descriptor %d: %s", n < 0 ? 0 : n, Strerror(e));
        }
    }
    /* the run starts without the worker's $| (a CGI process has none) */
    io = kd_stdout_io(aTHX);
    std_swap.autoflush = io && (IoFLAGS(io) & IOf_FLUSH) ? 1 : 0;
    if (io)
        IoFLAGS(io) &= ~IOf_FLUSH;
    std_swap.active = 1;
    fds[0] = in_fd;
    fds[1] = out_fd;
    fds[2] = err_fd;
    return kd_point_std(aTHX_ fds, 0, pos, std_swap.pos);
}

/* A run's `my` scalars as a new process has them. At the end of a call
 * perl empties a sub's lexicals in place and keeps their bodies for the
 * next call: a variable that held a string keeps its string body, and
 * `my $n = 0; $n += $_ for ...` then takes perl's slow path at every
 * step, where under CGI the first call has a plain
 * integer. Called before a run, with CV's lexicals out of scope (its
 * depth 0): each emptied scalar of its own (not captured from outside,
 * not `our` or `state`, not held elsewhere) that is more than an
 * integer is replaced by a new one, marked stale as perl marks them. */
static void
kd_fresh_lexicals(pTHX_ CV *cv)
{
    PADNAMELIST *names;
    PAD *pad;
    PADOFFSET ix, max;
    if (CvDEPTH(cv) != 0 || CvISXSUB(cv) || !CvPADLIST(cv) || PadlistMAX(CvPADLIST(cv)) < 1)
        return;
    names = PadlistNAMES(CvPADLIST(cv));
    pad = PadlistARRAY(CvPADLIST(cv))[1];
    max = (PADOFFSET)PadnamelistMAX(names);
    if (max > (PADOFFSET)AvFILLp(pad))
        max = (PADOFFSET)AvFILLp(pad);
    for (ix = 1; ix <= max; ix++) {
        PADNAME *pn = PadnamelistARRAY(names)[ix];
        SV *sv = AvARRAY(pad)[ix];
        if (!pn || PadnameLEN(pn) < 2 || PadnamePV(pn)[0] != '$' || PadnameOUTER(pn) || PadnameIsOUR(pn)
            || PadnameIsSTATE(pn) || !sv)
            continue;
        if (SvTYPE(sv) <= SVt_IV || SvTYPE(sv) >= SVt_PVAV || SvREFCNT(sv) != 1 || SvOK(sv) || SvROK(sv)
            || SvMAGICAL(sv) || SvOBJECT(sv) || SvREADONLY(sv) || !SvPADSTALE(sv))
            continue;
        AvARRAY(pad)[ix] = newSV(0);
        SvPADSTALE_on(AvARRAY(pad)[ix]);
        SvREFCNT_dec_NN(sv);
    }
}

#define KD_SPECIALS 6

/* The locale a CGI process gets from the run's environment: LC_ALL, else
 * LANG, else C. The worker stays in it between runs (switching back and
 * forth would load the locale files twice a request), so only a script
 * that changed it, or a run with another environment, costs a switch.
 * Through perl's setlocale, which keeps perl's own state in step. */
static SV *kd_run_locale;

static void
kd_locale_keep(void)
{
    const char *want = SvPVX(kd_run_locale), *now = Perl_setlocale(LC_ALL, NULL);
    if (!now || strNE(now, want))
        (void)Perl_setlocale(LC_ALL, want);
}

static void
kd_locale_enter(pTHX_ HV *env)
{
    SV **svp = hv_fetchs(env, "LC_ALL", 0);
    if (!svp || !SvOK(*svp))
        svp = hv_fetchs(env, "LANG", 0);
    if (!kd_run_locale)
        kd_run_locale = newSVpvs("");
    if (svp && SvOK(*svp))
        sv_setsv(kd_run_locale, *svp);
    else
        sv_setpvs(kd_run_locale, "C");
    (void)SvPV_nolen(kd_run_locale);    /* (a string, for SvPVX) */
    kd_locale_keep();
}

/* Kamado::CGI::InProcess::World::world_enter/world_leave: what a run changes in
 * the worker, put aside and back in one call each way: the signal
 * handlers (compared after the run), umask, the selected handle,
 * descriptors 0-2, %ENV and the environment, the working directory. */
static struct {
    int active;
    Mode_t umask;
    GV *selected;
    SV *signals[SIG_SIZE + 2];    /* copies; [SIG_SIZE], [SIG_SIZE + 1]: __DIE__, __WARN__ */
    SV *program;                  /* the worker's $0 */
    SV *script;                   /* the run's */
    SV *special[KD_SPECIALS];     /* the worker's $/ $\ $, $" $; $@, copied */
    int errno_was;                /* $! */
    I32 status, status_posix;     /* $? */
    AV *inc;                      /* @INC's elements as the worker had them */
    U8 dowarn;                    /* $^W */
    Time_t basetime;              /* $^T */
    AV *argv;                     /* @ARGV */
    SV *defsv;                    /* $_ */
    int tz;                       /* whether the run's %ENV had a TZ */
    int err_fd;                   /* the run's error file (-1: none made ready) */
    IV err_start;                 /* where the run's errors start in it */
} world;

/* The special variables a run starts with as a new perl has them (with
 * $\ from the script's #! -l): set and put back through their magic, so
 * that what perl keeps of them (PL_rs for $/) follows; $! and $? are
 * errno and perl's status, kept as they are (their magic makes strings).
 * In C, as this runs for every run. */
static GV *
kd_special_gv(pTHX_ int i)
{
    static GV *gvs[KD_SPECIALS];
    static const char *const names[KD_SPECIALS] = { "/", "\\", ",", "\"", ";", "@" };
    if (!gvs[i])
        gvs[i] = gv_fetchpv(names[i], GV_ADD | GV_NOTQUAL, SVt_PV);
    return gvs[i];
}

/* $0 (its glob found once, as kd_special_gv's) */
static SV *kd_program_sv(pTHX)
{
    static GV *gv;
    if (!gv)
        gv = gv_fetchpvs("0", GV_ADD | GV_NOTQUAL, SVt_PV);
    return GvSVn(gv);
}

/* Whether @INC holds what WAS holds (the same strings, in order). */
static int
kd_inc_same(pTHX_ AV *inc, AV *was)
{
    SSize_t j, n = av_count(inc);
    if (!was || n != (SSize_t)av_count(was))
        return 0;
    for (j = 0; j < n; j++) {
        /* (@INC's array read in place unless tied, as av_fetch would) */
        SV **a = SvRMAGICAL(inc) ? av_fetch(inc, j, 0) : AvARRAY(inc) + j, **b = AvARRAY(was) + j;
        STRLEN la, lb;
        const char *pa, *pb;
        if (a && *a && *b && SvPOK(*a) && !SvGMAGICAL(*a) && !SvROK(*a) && SvPOK(*b)) {
            /* (the usual case, a plain string: compared without SvPV) */
            if (SvCUR(*a) != SvCUR(*b) || memNE(SvPVX(*a), SvPVX(*b), SvCUR(*a)))
                return 0;
            continue;
        }
        if (!a || !*a || !*b || SvROK(*a) != SvROK(*b))
            return 0;
        if (SvROK(*a)) {
            if (SvRV(*a) != SvRV(*b))
                return 0;
            continue;
        }
        pa = SvPV(*a, la);
        pb = SvPV(*b, lb);
        if (la != lb || memNE(pa, pb, la))
            return 0;
    }
    return 1;
}

static void
kd_specials_enter(pTHX_ SV *line_ends)
{
    int i;
    AV *inc = GvAVn(PL_incgv);
    for (i = 0; i < KD_SPECIALS; i++) {
        SV *sv = GvSVn(kd_special_gv(aTHX_ i));
        if (!world.special[i])
            world.special[i] = newSV(0);
        sv_setsv(world.special[i], sv);
        switch (i) {
        case 0: sv_setpvs_mg(sv, "\n"); break;
        case 1: sv_setsv_mg(sv, line_ends); break;
        case 3: sv_setpvs_mg(sv, " "); break;
        case 4: sv_setpvs_mg(sv, "\034"); break;
        case 5: sv_setpvs_mg(sv, ""); break;
        default: sv_set_undef(sv); SvSETMAGIC(sv); break;
        }
    }
    world.errno_was = errno;
    errno = 0;
    world.status = PL_statusvalue;
    world.status_posix = PL_statusvalue_posix;
    PL_statusvalue = PL_statusvalue_posix = 0;
    /* @INC: the run changes the worker's own ("use lib" in a script), put
     * back as it was afterwards if it changed; its elements are copied
     * only when the worker's have changed since they were last */
    if (!kd_inc_same(aTHX_ inc, world.inc)) {
        SSize_t j, n = av_count(inc);
        if (world.inc)
            SvREFCNT_dec((SV *)world.inc);
        world.inc = newAV();
        for (j = 0; j < n; j++) {
            SV **e = av_fetch(inc, j, 0);
            av_push(world.inc, e ? newSVsv(*e) : newSV(0));
        }
    }
}

static void
kd_specials_leave(pTHX)
{
    int i;
    AV *inc = GvAVn(PL_incgv);
    for (i = 0; i < KD_SPECIALS; i++)
        sv_setsv_mg(GvSVn(kd_special_gv(aTHX_ i)), world.special[i]);
    errno = world.errno_was;
    PL_statusvalue = world.status;
    PL_statusvalue_posix = world.status_posix;
    if (world.inc && !kd_inc_same(aTHX_ inc, world.inc)) {
        SSize_t j, n = av_count(world.inc);
        av_clear(inc);
        for (j = 0; j < n; j++)
            av_push(inc, newSVsv(*av_fetch(world.inc, j, 0)));
    }
}

/* The handlers of signals 1 .. SIG_SIZE - 1, then of __DIE__ (SIG_SIZE)
 * and __WARN__ (SIG_SIZE + 1): perl's own table, read without %SIG's
 * lookup by name and sigaction per signal. */
static SV *
kd_signal_now(pTHX_ int i)
{
    return i < SIG_SIZE ? (PL_psig_ptr ? PL_psig_ptr[i] : NULL) : i == SIG_SIZE ? PL_diehook : PL_warnhook;
}

static const char *
kd_signal_name(int i)
{
    return i < SIG_SIZE ? PL_sig_name[i] : i == SIG_SIZE ? "__DIE__" : "__WARN__";
}

/* Whether handler NOW is handler WAS: a code reference to the same sub,
 * the same string, both unset. */
static int
kd_signal_same(pTHX_ SV *was, SV *now)
{
    if (!now || !SvOK(now))
        return !SvOK(was);
    if (SvROK(now) || SvROK(was))
        return SvROK(now) && SvROK(was) && SvRV(now) == SvRV(was);
    return SvOK(was) && sv_eq(now, was);
}

/* What `local $^W = WARNINGS; local $^T = time; local @ARGV = (); local
 * $_` would do for the run, and undo: the worker's values put aside,
 * the run's fresh ones in their place (a new array, a new scalar), as a
 * new perl has them. */
static void kd_run_vars_enter(pTHX_ int warnings)
{
    world.dowarn = PL_dowarn;
    /* (as $^W's magic: not under -W or -X) */
    if (!(PL_dowarn & G_WARN_ALL_MASK))
        PL_dowarn = (PL_dowarn & ~G_WARN_ON) | (warnings ? G_WARN_ON : G_WARN_OFF);
    world.basetime = PL_basetime;
    PL_basetime = time(NULL);
    world.argv = GvAV(PL_argvgv);
    GvAV(PL_argvgv) = newAV();
    world.defsv = GvSV(PL_defgv);
    GvSV(PL_defgv) = newSV(0);
}

static void kd_run_vars_leave(pTHX)
{
    SV *sv = GvSV(PL_defgv);
    AV *av = GvAV(PL_argvgv);
    GvSV(PL_defgv) = world.defsv;
    SvREFCNT_dec(sv);
    GvAV(PL_argvgv) = world.argv;
    SvREFCNT_dec((SV *)av);
    world.defsv = NULL;
    world.argv = NULL;
    PL_basetime = world.basetime;
    if (!(PL_dowarn & G_WARN_ALL_MASK))
        PL_dowarn = (PL_dowarn & ~G_WARN_ON) | (world.dowarn & G_WARN_ON);
}

static int kd_world_enter(pTHX_ int in_fd, int out_fd, int err_fd, HV *env, HV *fixed, const char *dir,
                          SV *script, SV *line_ends, int warnings, IV max_err)
{
    int i, closed;
    off_t pos[3] = {-1, -1, -1};
    SV *program = kd_program_sv(aTHX);
    /* the output and error files made ready first (kd_output_begin: it
     * may croak, before anything is changed) */
    world.err_fd = -1;
    if (max_err >= 0) {
        world.err_start = kd_output_begin(out_fd, err_fd, max_err);
        world.err_fd = err_fd;
        /* (the output file at its start, the error file at its end) */
        pos[1] = 0;
        pos[2] = (off_t)world.err_start;
    }
    /* the worker's, noted (kept as they are when a run died before its
     * world_leave: what is noted is still the worker's) */
    if (!world.active) {
        for (i = 1; i < SIG_SIZE + 2; i++) {
            SV *now = kd_signal_now(aTHX_ i);
            if (!world.signals[i])
                world.signals[i] = newSV(0);
            if (now)
                sv_setsv(world.signals[i], now);
            else if (SvOK(world.signals[i]))    /* (most have none, run after run) */
                sv_set_undef(world.signals[i]);
        }
        world.umask = PerlLIO_umask(0);
        (void)PerlLIO_umask(world.umask);
        world.selected = (GV *)SvREFCNT_inc_simple(PL_defoutgv);
        /* $0, without its magic: the process's title is left as it is
         * (set, it is a prctl and a copy over argv, and as many to put it
         * back) */
        if (!world.program)
            world.program = newSV(0);
        sv_setsv_flags(world.program, program, SV_NOSTEAL);
    }
    if (world.script)
        SvREFCNT_dec(world.script);
    world.script = newSVsv(script);
    sv_setsv_flags(program, script, SV_NOSTEAL);
    if (world.active) {
        kd_specials_leave(aTHX);
        kd_run_vars_leave(aTHX);
    }
    kd_specials_enter(aTHX_ line_ends);
    kd_run_vars_enter(aTHX_ warnings);
    world.active = 1;
    closed = kd_stdio_enter(aTHX_ in_fd, out_fd, err_fd, pos);
    kd_env_enter(aTHX_ env, fixed);
    world.tz = hv_exists(GvHVn(PL_envgv), "TZ", 2);
    kd_locale_enter(aTHX_ GvHV(PL_envgv));
    (void)chdir(dir);    /* (as perl's chdir in the script's place: no error) */
    return closed;
}

/* Back to the worker's directory CWD (its getcwd when it started): by a
 * descriptor opened on it once, as fchdir does not walk the path as chdir
 * does each time. */
static void
kd_chdir_worker(const char *cwd)
{
    static int fd = -1;
    static char *path;
    if (!path || strNE(path, cwd)) {
        if (fd >= 0)
            close(fd);
        free(path);
        path = strdup(cwd);
        fd = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd < 0 || fchdir(fd) != 0)
        (void)chdir(cwd);
}

/* Leaves the run's world; pushes on the stack the bits of the standard
 * handles the script closed, what the run wrote to its error file (undef
 * when world_enter made none ready), then (name, handler) for each
 * signal whose handler the run changed. */
static void
kd_world_leave(pTHX_ const char *cwd)
{
    dSP;
    int i, closed;
    SV *program = kd_program_sv(aTHX);
    if (!world.active)
        return;
    world.active = 0;
    kd_locale_keep();
    kd_specials_leave(aTHX);
    kd_run_vars_leave(aTHX);
    if (GvHV(PL_envgv) && hv_exists(GvHV(PL_envgv), "TZ", 2))
        world.tz = 1;
    /* (a script that set $0 changed the title: it is put back too) */
    if (world.script && sv_eq(program, world.script))
        sv_setsv_flags(program, world.program, SV_NOSTEAL);
    else
        sv_setsv_mg(program, world.program);
    kd_env_leave(aTHX);
    /* (the C library keeps the zone TZ gave it: the worker's again) */
    if (world.tz)
        tzset();
    closed = kd_stdio_leave(aTHX);
    if (world.selected) {
        setdefout(world.selected);    /* (takes a reference of its own) */
        SvREFCNT_dec(world.selected);
        world.selected = NULL;
    }
    kd_chdir_worker(cwd);
    (void)PerlLIO_umask(world.umask);
    mXPUSHi(closed);
    if (world.err_fd >= 0)
        mXPUSHs(kd_read_range(aTHX_ world.err_fd, (off_t)world.err_start, -1));
    else
        XPUSHs(&PL_sv_undef);
    for (i = 1; i < SIG_SIZE + 2; i++) {
        if (!kd_signal_same(aTHX_ world.signals[i], kd_signal_now(aTHX_ i))) {
            mXPUSHs(newSVpv(kd_signal_name(i), 0));
            mXPUSHs(newSVsv(world.signals[i]));
        }
    }
    PUTBACK;
}
