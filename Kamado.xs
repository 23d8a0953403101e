/* Kamado.xs: glue between the C engine in src/ (its parts listed in
 * src/kd_engine.c) and Perl.
 *
 * C owns bytes and syscalls (src/); the glue only turns a parsed head into
 * %env and a PSGI response into a head and iovecs, and hands the CGI
 * runner the perl internals it needs. Connections cross into Perl as file
 * descriptor numbers. I/O failures return undef with $! set; croak is kept
 * for caller bugs. The parts, by role:
 *   xs/timers.c, xs/loop.c   C helpers of the XS below (perl API)
 *   xs/cgi/kd_cgi_*.c        the CGI runner's C (perl API): %ENV, the
 *                            world a script runs in, its I/O, snapshots
 *   xs/env.c, xs/logline.c   Kamado::Loop's %env and access-log lines
 *   xs/Loop.xsh              Kamado::Loop, the event loop
 *   xs/LoopWrite.xsh         Kamado::Loop's responses
 *   xs/serve.c,              Kamado::Loop::serve, the request cycle with
 *   xs/LoopServe.xsh         the app called from C
 *   xs/LoopLog.xsh           Kamado::Loop's access-log records
 *   xs/Scoreboard.xsh        Kamado::Scoreboard
 *   xs/Process.xsh           Kamado: prctl, memory, the template's forks, request timers
 *   xs/CGI*.xsh              Kamado::CGI::*, the CGI runner: one file per
 *                            package (xs/CGIProcessZygote.xsh holds
 *                            Kamado::CGI::Process::Zygote's XS)
 *   xs/DBI.xsh               Kamado::DBI::Reset::MariaDB's session reset
 */
#define PERL_NO_GET_CONTEXT
#include "EXTERN.h"
#include "perl.h"
#include "XSUB.h"

#include "src/kd_engine.c"     /* the plain-C engine, one translation unit */
/* the CGI runner's C, which needs perl's internals */
#include "xs/cgi/kd_cgi_vars.c"
#include "xs/cgi/kd_cgi_env.c"
#include "xs/cgi/kd_cgi_world.c"
#include "xs/cgi/kd_cgi_io.c"
#include "xs/cgi/kd_cgi_snapshot.c"
#include "xs/cgi/kd_cgi_mapping.c"
#include <sys/prctl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <time.h>
#include <pthread.h>
#include <sys/wait.h>
#include "perliol.h"      /* the layers of a handle: Kamado::CGI::Process::Zygote::_exit_if_quiet */

typedef kd_sb *Kamado__Scoreboard;

/* A board's counters as a hash (Kamado::Scoreboard): npools queues,
 * 0 for none. */
static HV *counts_hv(pTHX_ const kd_sb_counts *c, unsigned npools)
{
    HV *h = newHV();
    AV *status = newAV(), *buckets = newAV(), *queued = newAV();
    unsigned k;
    for (k = 0; k < 5; k++)
        av_push(status, newSVuv((UV)c->status[k]));
    for (k = 0; k < KD_SB_BUCKETS; k++)
        av_push(buckets, newSVuv((UV)c->buckets[k]));
    for (k = 0; k < npools; k++)
        av_push(queued, newSViv((IV)c->queued[k]));
    (void)hv_stores(h, "status", newRV_noinc((SV *)status));
    (void)hv_stores(h, "buckets", newRV_noinc((SV *)buckets));
    (void)hv_stores(h, "seconds", newSVnv(c->seconds));
    (void)hv_stores(h, "bytes_in", newSVuv((UV)c->bytes_in));
    (void)hv_stores(h, "bytes_out", newSVuv((UV)c->bytes_out));
    (void)hv_stores(h, "taken", newSVuv((UV)c->taken));
    (void)hv_stores(h, "queued", newRV_noinc((SV *)queued));
    (void)hv_stores(h, "blocked", newSVuv((UV)c->blocked));
    return h;
}

/* Whether CV is one of the code references in LIST (NULL: none). */
static int kd_cv_listed(pTHX_ AV *list, const CV *cv)
{
    SSize_t i, top = list ? av_top_index(list) : -1;
    for (i = 0; i <= top; i++) {
        SV **item = av_fetch(list, i, 0);
        if (item && SvROK(*item) && SvRV(*item) == (const SV *)cv)
            return 1;
    }
    return 0;
}

/* Whether destroying an object of the class STASH does nothing anyone
 * can see, as perl's curse() in sv.c decides whether to call a DESTROY:
 * none, a constant, an empty sub, Regexp's own no-op, or an XS one listed
 * in IDLE (made idle by the caller); not when AUTOLOAD would get the call. */
static int kd_class_quiet(pTHX_ HV *stash, AV *idle, CV *regexp_destroy)
{
    CV *destructor = NULL;
    GV *gv = gv_fetchmeth_pvn(stash, "DESTROY", 7, -1, 0);
    if (gv)
        destructor = GvCV(gv);
    if (!destructor)
        return !gv_fetchmeth_pvn(stash, "AUTOLOAD", 8, -1, 0);
    if (destructor == regexp_destroy || CvCONST(destructor))
        return 1;
    if (CvISXSUB(destructor))
        return kd_cv_listed(aTHX_ idle, destructor);
    return !CvSTART(destructor) || CvSTART(destructor)->op_next->op_type == OP_LEAVESUB
        || (CvSTART(destructor)->op_next->op_type == OP_PUSHMARK
            && CvSTART(destructor)->op_next->op_next->op_type == OP_RETURN);
}

#include "xs/timers.c"
#include "xs/loop.c"
#include "xs/env.c"
#include "xs/logline.c"
#include "xs/serve.c"
#include "xs/method_cb.c"

MODULE = Kamado    PACKAGE = Kamado

PROTOTYPES: DISABLE

INCLUDE: xs/Loop.xsh

INCLUDE: xs/LoopWrite.xsh

INCLUDE: xs/LoopServe.xsh

INCLUDE: xs/LoopStream.xsh

INCLUDE: xs/LoopLog.xsh

INCLUDE: xs/ServerStream.xsh

INCLUDE: xs/Scoreboard.xsh

INCLUDE: xs/Process.xsh

INCLUDE: xs/CGIInProcessRequire.xsh

INCLUDE: xs/CGIInProcessWorld.xsh

INCLUDE: xs/CGIOutput.xsh

INCLUDE: xs/CGIEnv.xsh

INCLUDE: xs/CGIInProcessSnapshot.xsh

INCLUDE: xs/CGIProcessRelay.xsh

INCLUDE: xs/CGIModeFork.xsh

INCLUDE: xs/CGIProcessZygote.xsh

INCLUDE: xs/CGIMapping.xsh

INCLUDE: xs/DBI.xsh
