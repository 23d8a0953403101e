/* kd_cgi.c - the CGI runner's in-process modes (Kamado::CGI::Registry):
 * what is put aside while a script runs in the worker. Included by
 * Kamado.xs. */

/* Kamado::CGI::Registry::env_enter/env_leave: the worker's %ENV and C
 * environment, put aside while a script runs in-process */
static struct {
    int active;
    char **worker_environ;
    HV *worker_hv;
    char **array;      /* what environ pointed at for the run */
    char **strings;    /* its NAME=VALUE strings, ours to free */
    size_t count;
} env_swap;

extern char **environ;

/* Whether perl edits `environ` itself (its my_setenv reallocating the
 * array and freeing the strings it replaces, with safesysmalloc) rather
 * than through setenv(3), which copies a foreign array into one of the C
 * library's own. */
#ifdef PERL_USE_SAFE_PUTENV
#  define KD_PERL_OWNS_ENVIRON 0
#else
#  define KD_PERL_OWNS_ENVIRON (!PL_use_safe_putenv)
#endif

static void
kd_env_leave(pTHX)
{
    HV *hv;
    char **now = environ;
    size_t i;
    if (!env_swap.active)
        return;
    environ = env_swap.worker_environ;
    hv = GvHV(PL_envgv);
    GvHV(PL_envgv) = env_swap.worker_hv;
    /* (a reference the script kept to its %ENV no longer reaches the
     * environment; freeing the hash must not clear it either) */
    if (hv) {
        sv_unmagic((SV *)hv, PERL_MAGIC_env);
        SvREFCNT_dec(hv);
    }
    if (KD_PERL_OWNS_ENVIRON) {
        /* the array the run ended with is ours, or ours as perl
         * reallocated it, with the strings perl left in it */
        if (now && now != env_swap.worker_environ && now != PL_origenviron) {
            for (i = 0; now[i]; i++)
                safesysfree(now[i]);
            safesysfree(now);
        }
    } else {
        /* setenv(3) moved to an array of its own, if it was called: ours
         * and every string we made are still ours */
        for (i = 0; i < env_swap.count; i++)
            safesysfree(env_swap.strings[i]);
        safesysfree(env_swap.array);
    }
    safesysfree(env_swap.strings);
    env_swap.active = 0;
}

/* Kamado::CGI::Registry::stdio_enter/stdio_leave: descriptors 0, 1 and 2
 * of a run. dup2 keeps perl's STDIN, STDOUT and STDERR on their numbers,
 * so that system, exec, pipes and sysread see the run's files as a CGI
 * process sees its own. */
static struct {
    int active;
    int saved[3];      /* the worker's 0, 1 and 2, dup'd */
    int autoflush;     /* the worker's $| on STDOUT */
} std_swap;

static GV *
kd_std_gv(pTHX_ int n)
{
    return n == 0 ? PL_stdingv : n == 2 ? PL_stderrgv : gv_fetchpvs("main::STDOUT", GV_ADD, SVt_PVIO);
}

/* Points 0, 1 and 2 at FDS and makes perl's handles on them fit: STDIN's
 * buffered input, of another file, dropped; the position STDOUT and
 * STDERR keep read again (tell(STDOUT), which CGI::Carp asks, must be
 * this file's); with RESET_LAYERS, a script's binmode undone. Returns a
 * bit for each handle that is closed: the caller opens it again on its
 * descriptor. */
static int
kd_point_std(pTHX_ const int *fds, int reset_layers)
{
    int n, closed = 0;
    for (n = 0; n < 3; n++) {
        GV *gv = kd_std_gv(aTHX_ n);
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
            (void)PerlIO_seek(f, 0, SEEK_SET);
            /* (as perl's seek: $. and the "<FH> line N" of warnings are
             * STDIN's, not those of the file the worker read last) */
            PL_last_in_gv = gv;
        } else {
            (void)PerlIO_seek(out, 0, SEEK_CUR);
        }
        if (reset_layers) {
            (void)PerlIO_binmode(aTHX_ f, IoTYPE(io), O_BINARY, NULL);
            if (out != f)
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
    IO *io;
    if (!std_swap.active)
        return 0;
    /* the script's last output, as perl would flush it at exit */
    PerlIO_flush((PerlIO *)NULL);
    closed = kd_point_std(aTHX_ std_swap.saved, 1);
    for (n = 0; n < 3; n++)
        close(std_swap.saved[n]);
    io = kd_stdout_io(aTHX);
    if (io && std_swap.autoflush)
        IoFLAGS(io) |= IOf_FLUSH;
    std_swap.active = 0;
    return closed;
}

static int
kd_stdio_enter(pTHX_ int in_fd, int out_fd, int err_fd)
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
    return kd_point_std(aTHX_ fds, 0);
}

/* See output_begin in Kamado.xs. */
static IV
kd_output_begin(int out_fd, int err_fd, IV max_err)
{
    off_t end;
    if (ftruncate(out_fd, 0) != 0 || lseek(out_fd, 0, SEEK_SET) < 0)
        croak("Can't empty the output file: %s", Strerror(errno));
    end = lseek(err_fd, 0, SEEK_END);
    if (end > (off_t)max_err) {
        if (ftruncate(err_fd, 0) != 0)
            croak("Can't empty the error file: %s", Strerror(errno));
        end = lseek(err_fd, 0, SEEK_SET);
    }
    if (end < 0)
        croak("Can't seek the error file: %s", Strerror(errno));
    return (IV)end;
}

/* See read_from in Kamado.xs. */
static SV *
kd_read_from(pTHX_ int fd, off_t offset)
{
    struct stat st;
    SV *bytes;
    STRLEN got = 0;
    if (fstat(fd, &st) != 0)
        croak("Can't stat descriptor %d: %s", fd, Strerror(errno));
    bytes = newSVpvs("");
    if (st.st_size <= offset)
        return bytes;
    SvGROW(bytes, (STRLEN)(st.st_size - offset) + 1);
    for (;;) {
        ssize_t n;
        if (SvLEN(bytes) - got < 4096)
            SvGROW(bytes, SvLEN(bytes) * 2);
        n = pread(fd, SvPVX(bytes) + got, SvLEN(bytes) - got - 1, offset + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            croak("Can't read descriptor %d: %s", fd, Strerror(errno));
        if (n == 0)
            break;
        got += (STRLEN)n;
    }
    SvCUR_set(bytes, got);
    *SvEND(bytes) = '\0';
    return bytes;
}
