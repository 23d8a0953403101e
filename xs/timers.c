/* The worker's request timers and its pid, as the XS of Kamado uses them. Included by Kamado.xs, before its XS part. */

/* --request-timeout: two POSIX timers per worker. The soft one sends USR2,
 * which the worker turns into a die in the app; the hard one sends VTALRM,
 * whose C handler (Kamado::Loop's last_words) answers 504 and hands what
 * the loop holds to a finisher, then ends the worker at the signal's
 * default action, even when the app is stuck where no Perl handler can
 * run. */
static timer_t request_timers[2];
static pid_t request_timers_pid;     /* who made them (0: not this process) */

static double request_deadlines[2];  /* when each timer goes off (CLOCK_MONOTONIC), 0: off */

/* (a child has no timers: made again when it sets one; a getpid() per
 * use cost three system calls a CGI run) */
static void
kd_forget_timers(void)
{
    request_timers_pid = 0;
    request_deadlines[0] = request_deadlines[1] = 0;
}

/* This process's pid, noted: perl's $$ is a getpid() each time it is
 * read (three a CGI run). Forgotten in a forked child. */
static pid_t kd_pid;

static void
kd_after_fork(void)
{
    kd_forget_timers();
    kd_pid = 0;
}

/* kd_pid, noted at its first use in this process */
static pid_t kd_current_pid(void)
{
    if (!kd_pid)
        kd_pid = getpid();
    return kd_pid;
}

/* Arms the soft and hard timers SOFT and HARD seconds from now (0: off);
 * 0 with errno set if that failed. */
static int
kd_request_timer_set(double soft, double hard)
{
    static const int signals[2] = { SIGUSR2, SIGVTALRM };
    double when[2], now = kd_now();
    int i, ok = 1;
    when[0] = soft;
    when[1] = hard;
    if (!request_timers_pid) {
        for (i = 0; i < 2; i++) {
            struct sigevent ev;
            memset(&ev, 0, sizeof ev);
            ev.sigev_notify = SIGEV_SIGNAL;
            ev.sigev_signo = signals[i];
            if (timer_create(CLOCK_MONOTONIC, &ev, &request_timers[i]) != 0)
                return 0;
        }
        request_timers_pid = getpid();
    }
    for (i = 0; i < 2; i++) {
        struct itimerspec its;
        memset(&its, 0, sizeof its);
        its.it_value.tv_sec = (time_t)when[i];
        its.it_value.tv_nsec = (long)((when[i] - (double)(time_t)when[i]) * 1e9);
        if (timer_settime(request_timers[i], 0, &its, NULL) != 0)
            ok = 0;
        request_deadlines[i] = when[i] > 0 ? now + when[i] : 0;
    }
    return ok;
}

/* Seconds left on the soft and hard timers, into LEFT (0: disarmed or
 * gone off), from the deadlines noted when they were set: every setting
 * goes through kd_request_timer_set (no timer_gettime per request). */
static void
kd_request_timer_left(double left[2])
{
    int i;
    double now = 0;
    for (i = 0; i < 2; i++) {
        left[i] = 0;
        if (request_deadlines[i] > 0) {
            if (!now)
                now = request_timers_pid ? kd_now() : -1;
            if (now > 0 && request_deadlines[i] > now)
                left[i] = request_deadlines[i] - now;
        }
    }
}

/* The server's deadlines while a CGI run has borrowed the timers. */
static struct {
    int active;
    double left[2];
    double since;
} borrowed_timer;
