# Kamado: what a process asks of the kernel (parent death, subreaper, memory, the template's forks) and the request timers. Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado

PROTOTYPES: DISABLE

int
set_parent_death_signal(int sig)
CODE:
    /* a worker must not outlive a generation that was killed with KILL */
    RETVAL = prctl(PR_SET_PDEATHSIG, (unsigned long)sig) == 0;
OUTPUT:
    RETVAL

int
set_child_subreaper()
CODE:
    /* what a dead worker leaves running (a CGI script, what it started)
     * becomes the generation's child, not init's: it ends it at its exit */
    RETVAL = prctl(PR_SET_CHILD_SUBREAPER, 1UL) == 0;
OUTPUT:
    RETVAL

void
spawn_next(int ask, int tell, int deathsig)
PPCODE:
{
    /* the template's wait for the next worker to fork (src/sys/kd_spawn.c):
     * in a worker (pool, slot); in the template () at the end, (0) when a
     * signal came */
    kd_spawn_ask got;
    int r;
    PERL_FLUSHALL_FOR_CHILD; /* (nothing buffered is written twice) */
    r = kd_spawn_next(ask, tell, deathsig, &got);
    if (r == 1) {
        EXTEND(SP, 2);
        mPUSHi(got.pool);
        PUSHs(got.slot >= 0 ? sv_2mortal(newSViv(got.slot)) : &PL_sv_undef);
    } else if (r < 0) {
        mXPUSHi(0);
    }
}

int
release_free_memory()
CODE:
    /* the allocator's free pages given back to the kernel (all arenas,
     * inside the heap too): after a burst of streams a worker keeps the
     * memory it no longer uses, private and counted by --max-rss */
#ifdef __GLIBC__
    RETVAL = malloc_trim(0);
#else
    RETVAL = 0;                         /* (another libc: nothing to ask) */
#endif
OUTPUT:
    RETVAL

IV
resident_kb()
CODE:
{
    /* this process's resident set in KiB, from /proc/self/statm (the
     * second field, in pages): what --max-rss compares; -1 if unknown */
    char buf[128];
    long pages = -1;
    ssize_t n;
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    RETVAL = -1;
    if (fd >= 0) {
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            if (sscanf(buf, "%*s %ld", &pages) == 1)
                RETVAL = (IV)(pages * (sysconf(_SC_PAGESIZE) / 1024));
        }
    }
}
OUTPUT:
    RETVAL


IV
current_pid()
CODE:
    /* (noted, and forgotten in a forked child: xs/timers.c) */
    RETVAL = (IV)kd_current_pid();
OUTPUT:
    RETVAL

int
request_timer(double soft, double hard)
CODE:
    /* arms both timers (seconds from now), or disarms them with 0, 0 */
    RETVAL = kd_request_timer_set(soft, hard);
OUTPUT:
    RETVAL

int
borrow_request_timer(double limit, double grace)
CODE:
{
    /* A deadline of LIMIT seconds (and the hard one GRACE later) for a
     * while, unless the server's own comes sooner: 1 if it was set, 0 if
     * the server's stays. return_request_timer puts the server's back,
     * less the time spent. (One call each way: a CGI run in the worker
     * borrows the timers every request.) */
    kd_request_timer_left(borrowed_timer.left);
    borrowed_timer.since = kd_now();
    borrowed_timer.active = limit > 0 && (borrowed_timer.left[0] == 0 || borrowed_timer.left[0] > limit);
    if (borrowed_timer.active && !kd_request_timer_set(limit, limit + grace))
        croak("Can't set the request timers: %s", Strerror(errno));
    RETVAL = borrowed_timer.active;
}
OUTPUT:
    RETVAL

void
return_request_timer()
CODE:
{
    double spent, soft = 0, hard = 0;
    if (!borrowed_timer.active)
        XSRETURN_EMPTY;
    borrowed_timer.active = 0;
    spent = kd_now() - borrowed_timer.since;
    /* (a server deadline already past: at once, not never) */
    if (borrowed_timer.left[0] > 0) {
        soft = borrowed_timer.left[0] - spent > 0.001 ? borrowed_timer.left[0] - spent : 0.001;
        hard = borrowed_timer.left[1] - spent > 0.001 ? borrowed_timer.left[1] - spent : 0.001;
    }
    (void)kd_request_timer_set(soft, hard);
}
