/* kd_spawn.h: the worker template's fork loop.
 *
 * Plain C99 + Linux, no perl.h. A process that only forks workers (the
 * template) waits here for what to fork next and forks it. Nothing of the
 * template's own memory is written between two forks but this code's
 * stack: each page it wrote would become the last worker's own copy.
 *
 * A worker is forked through a first child that exits at once, so it is
 * reparented to the nearest subreaper above the template (the generation,
 * which reaps and signals it as its own child). It goes on only once the
 * first child has been reaped: its parent is then the subreaper.
 */
#ifndef KD_SPAWN_H
#define KD_SPAWN_H

#include <stdint.h>

/* What the generation asks for, written to the template's pipe as it is. */
typedef struct {
    int32_t pool; /* the worker's pool (0: the default one) */
    int32_t slot; /* its scoreboard slot, -1 for none */
} kd_spawn_ask;

/* Reads asks from `ask` and answers each on `tell` with the pid of the
 * worker forked (an int32; -errno when it could not be). Returns 1 in a
 * worker, with *got its ask: `ask` and `tell` closed, signals as they were,
 * `deathsig` due when its parent (the subreaper) dies, and exited at once
 * if that parent is already gone. In the template, returns 0 when `ask`
 * is closed or a read fails, and -1 with errno EINTR when a signal came
 * (the caller handles it and calls again). */
int kd_spawn_next(int ask, int tell, int deathsig, kd_spawn_ask *got);

#endif
