# Kamado::CGI::InProcess::World: the world a script runs in inside the worker (xs/cgi/kd_cgi_world.c; its output files, kd_cgi_io.c). Included by Kamado.xs.

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
world_enter(int in_fd, int out_fd, int err_fd, HV *env, HV *fixed, char *dir, SV *script, SV *line_ends, int warnings = 0, IV max_err = -1)
CODE:
    /* Enters a run's world: descriptors 0-2 on IN_FD, OUT_FD, ERR_FD
     * (kd_stdio_enter), %ENV and the environment of the request ENV for
     * the script's FIXED part (kd_env_enter),
     * DIR the working directory, $0 SCRIPT, the special variables and
     * @INC (kd_specials_enter, $\ LINE_ENDS), $^W WARNINGS, $^T, @ARGV and
     * $_ (kd_run_vars_enter); the worker's signal handlers,
     * umask and selected handle noted, for world_leave; with MAX_ERR,
     * the output and error files made ready first (kd_output_begin: the
     * output at its start, the errors appended to what earlier runs left,
     * emptied past MAX_ERR bytes).
     * Returns the bits of the closed standard handles (kd_point_std). */
    RETVAL = kd_world_enter(aTHX_ in_fd, out_fd, err_fd, env, fixed, dir, script, line_ends, warnings, max_err);
OUTPUT:
    RETVAL

void
world_leave(char *cwd)
PPCODE:
    /* The worker's world back (%ENV, and the C library's zone when the
     * run had a TZ; descriptors, $0, the special variables and @INC, $^W
     * $^T @ARGV $_, the selected handle, CWD, umask); returns the bits of the standard handles the
     * script closed, what the run wrote to the error file world_enter
     * made ready (or undef), then (name, handler) for each signal handler
     * the run changed, to be put back in %SIG (which only perl can do). */
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

void
fresh_seed(int fd)
CODE:
{
    /* srand with four bytes of FD (/dev/urandom), as a new perl seeds
     * itself: read 4096 at a time, kept for the runs to come; what was
     * read is this process's (a forked worker reads its own). */
    static unsigned char seeds[4096];
    static size_t len, pos;
    static pid_t owner;
    static int from = -1;
    U32 seed = 0;
    if (owner != kd_current_pid() || from != fd) {
        len = pos = 0;
        owner = kd_current_pid();
        from = fd;
    }
    if (len - pos < sizeof seed) {
        ssize_t got = read(fd, seeds, sizeof seeds);
        len = got > 0 ? (size_t)got : 0;
        pos = 0;
    }
    if (len - pos >= sizeof seed) {
        Copy(seeds + pos, &seed, 1, U32);
        pos += sizeof seed;
    }
    (void)seedDrand01((Rand_seed_t)seed);
    PL_srand_called = TRUE;
}

SV *
read_output(int out_fd)
CODE:
    /* What the run wrote to the output file OUT_FD (made ready by
     * world_enter): up to the position the script's STDOUT and its
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
