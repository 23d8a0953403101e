# Kamado::Scoreboard: glue over src/board/kd_scoreboard.c. Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Scoreboard

PROTOTYPES: DISABLE

Kamado::Scoreboard
new(char *klass, int slots)
ALIAS:
    new_shared = 1
CODE:
{
    /* new_shared: in a memfd, whose descriptor (fd) can be sent */
    PERL_UNUSED_VAR(klass);
    if (slots < 1 || slots > KD_SB_MAX_SLOTS)
        croak("Kamado::Scoreboard->new: 1 to %d slots, not %d", KD_SB_MAX_SLOTS, slots);
    Newxz(RETVAL, 1, kd_sb);
    if ((ix ? kd_sb_create_shared(RETVAL, (unsigned)slots) : kd_sb_create(RETVAL, (unsigned)slots)) != 0) {
        int e = errno;
        Safefree(RETVAL);
        croak("Can't create the scoreboard: %s\n", strerror(e));
    }
}
OUTPUT:
    RETVAL

void
publish(Kamado::Scoreboard self, char *path)
PPCODE:
    if (!self->writable)
        croak("Kamado::Scoreboard->publish: an attached board is not the server's");
    if (kd_sb_publish(self, path) != 0)
        croak("Can't publish the scoreboard at %s: %s\n", path, strerror(errno));
    XSRETURN_YES;

void
refresh(Kamado::Scoreboard self)
PPCODE:
    /* true, or false with $! set */
    if (kd_sb_refresh(self) != 0) {
        SETERRNO(errno, 0);
        XSRETURN_NO;
    }
    XSRETURN_YES;

Kamado::Scoreboard
attach_fd(char *klass, int fd)
CODE:
{
    /* a shared board's memfd, mapped read-only; undef and $! */
    PERL_UNUSED_VAR(klass);
    Newxz(RETVAL, 1, kd_sb);
    if (kd_sb_attach_fd(RETVAL, fd) != 0) {
        int e = errno;
        Safefree(RETVAL);
        SETERRNO(e, 0);
        XSRETURN_UNDEF;
    }
}
OUTPUT:
    RETVAL

int
fd(Kamado::Scoreboard self)
CODE:
    RETVAL = self->mem_fd;
OUTPUT:
    RETVAL

void
send_fd(char *klass, int sock, SV *msg, int fd = -1)
PPCODE:
{
    /* a message, and a descriptor unless -1, without waiting; true, or
     * false with $! */
    STRLEN len;
    const char *p = SvPV(msg, len);
    PERL_UNUSED_VAR(klass);
    if (kd_sb_send_fd(sock, p, len, fd) != 0) {
        SETERRNO(errno, 0);
        XSRETURN_NO;
    }
    XSRETURN_YES;
}

void
recv_fd(char *klass, int sock)
PPCODE:
{
    /* (message, descriptor or -1), or empty with $! (EAGAIN: none) */
    char buf[256];
    int fd;
    ssize_t n = kd_sb_recv_fd(sock, buf, sizeof buf, &fd);
    PERL_UNUSED_VAR(klass);
    if (n < 0) {
        SETERRNO(errno, 0);
        XSRETURN_EMPTY;
    }
    EXTEND(SP, 2);
    mPUSHs(newSVpvn(buf, (STRLEN)n));
    mPUSHi(fd);
}

Kamado::Scoreboard
attach(char *klass, char *path)
CODE:
{
    /* an outside reader's view of a --scoreboard file; undef and $! if
     * it cannot be read */
    PERL_UNUSED_VAR(klass);
    Newxz(RETVAL, 1, kd_sb);
    if (kd_sb_attach(RETVAL, path) != 0) {
        int e = errno;
        Safefree(RETVAL);
        SETERRNO(e, 0);
        XSRETURN_UNDEF;
    }
}
OUTPUT:
    RETVAL

void
DESTROY(Kamado::Scoreboard self)
CODE:
    kd_sb_unmap(self);
    Safefree(self);

int
size(Kamado::Scoreboard self)
CODE:
    RETVAL = (int)self->header->nslots;
OUTPUT:
    RETVAL

int
generation_pid(Kamado::Scoreboard self)
CODE:
    RETVAL = self->header->generation_pid;
OUTPUT:
    RETVAL

void
claim(Kamado::Scoreboard self, int slot, UV generation = 0, UV pool = 0)
ALIAS:
    clear = 1
PPCODE:
    /* the generation's: a slot for a worker about to be forked; a reaped one's */
    if (!self->writable || slot < 0 || (unsigned)slot >= self->header->nslots)
        croak("Kamado::Scoreboard: no writable slot %d", slot);
    if (ix)
        kd_sb_clear(self, (unsigned)slot);
    else
        kd_sb_claim(self, (unsigned)slot, (uint32_t)generation, (uint32_t)pool);
    XSRETURN_YES;

void
set_generation(Kamado::Scoreboard self, UV number, UV npools = 1)
PPCODE:
    /* the generation's number and how many pools it has (the default one
     * included): the header's */
    if (!self->writable || npools < 1 || npools > KD_SB_POOLS)
        croak("Kamado::Scoreboard->set_generation: not writable, or not 1 to %d pools", KD_SB_POOLS);
    self->header->generation = (uint32_t)number;
    self->header->npools = (uint32_t)npools;
    self->header->generation_pid = (int32_t)getpid();
    XSRETURN_YES;

void
count_exit(Kamado::Scoreboard self, int cause)
PPCODE:
    /* a worker exited; cause an index into @Kamado::Scoreboard::EXITS */
    if (!self->writable || cause < 0 || cause >= KD_SB_EXITS)
        croak("Kamado::Scoreboard->count_exit: not writable, or no cause %d", cause);
    self->header->exits[cause]++;
    XSRETURN_YES;

void
read_memory(Kamado::Scoreboard self, int slot, int pid)
PPCODE:
    /* slot's memory fields from /proc/PID/smaps_rollup: true, or false
     * with $! (the fields then 0) */
    if (!self->writable || slot < 0 || (unsigned)slot >= self->header->nslots)
        croak("Kamado::Scoreboard: no writable slot %d", slot);
    if (kd_sb_read_memory(self, (unsigned)slot, pid) != 0) {
        SETERRNO(errno, 0);
        XSRETURN_NO;
    }
    XSRETURN_YES;

SV *
info(Kamado::Scoreboard self)
CODE:
{
    /* the header and the board's totals: { generation, generation_pid,
     * started, pools, exits => [...], totals => counts } */
    const kd_sb_header *h = self->header;
    HV *info = newHV();
    AV *exits = newAV();
    kd_sb_counts t;
    unsigned k, npools = h->npools < 1 ? 1 : h->npools > KD_SB_POOLS ? KD_SB_POOLS : h->npools;
    for (k = 0; k < KD_SB_EXITS; k++)
        av_push(exits, newSVuv((UV)h->exits[k]));
    kd_sb_totals(self, &t);
    (void)hv_stores(info, "generation", newSVuv(h->generation));
    (void)hv_stores(info, "generation_pid", newSViv(h->generation_pid));
    (void)hv_stores(info, "started", newSVnv(h->started));
    (void)hv_stores(info, "pools", newSVuv(npools));
    (void)hv_stores(info, "exits", newRV_noinc((SV *)exits));
    (void)hv_stores(info, "totals", newRV_noinc((SV *)counts_hv(aTHX_ &t, npools)));
    RETVAL = newRV_noinc((SV *)info);
}
OUTPUT:
    RETVAL

void
bounds(...)
PPCODE:
{
    /* the upper bounds of the duration buckets, seconds (+Inf not included) */
    int k;
    EXTEND(SP, KD_SB_BUCKETS - 1);
    for (k = 0; k < KD_SB_BUCKETS - 1; k++)
        mPUSHn(kd_sb_bounds[k]);
}

void
set_pid(Kamado::Scoreboard self, int slot, int pid)
PPCODE:
    if (!self->writable || slot < 0 || (unsigned)slot >= self->header->nslots)
        croak("Kamado::Scoreboard: no writable slot %d", slot);
    self->slots[slot].pid = pid;
    XSRETURN_YES;

void
slots(Kamado::Scoreboard self)
PPCODE:
{
    /* every slot, as a hash: slot pid generation state connections
     * requests seconds (in this state) request */
    int i, n = (int)self->header->nslots;
    double now = kd_sb_clock();
    /* (since is the coarse clock's, started the precise one's: the same
     * clock, at different resolutions) */
    EXTEND(SP, n);
    for (i = 0; i < n; i++) {
        const kd_sb_slot *s = &self->slots[i];
        HV *h = newHV();
        unsigned state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
        double age = now - s->since;
        (void)hv_stores(h, "slot", newSVuv(i));
        (void)hv_stores(h, "pid", newSViv(s->pid));
        (void)hv_stores(h, "generation", newSVuv(s->generation));
        (void)hv_stores(h, "state", newSVpv(kd_sb_state_name(state), 0));
        (void)hv_stores(h, "connections", newSVuv(s->connections));
        (void)hv_stores(h, "streams", newSVuv(s->streams));
        (void)hv_stores(h, "requests", newSVuv((UV)s->requests));
        (void)hv_stores(h, "seconds", newSVnv(age > 0 ? age : 0));
        (void)hv_stores(h, "request", newSVpvn(s->request, strnlen(s->request, KD_SB_REQUEST_LEN)));
        /* the current request's age (the last one's, when idle) */
        (void)hv_stores(h, "request_seconds", newSVnv(s->started > 0 && now > s->started ? now - s->started : 0));
        (void)hv_stores(h, "pool", newSVuv(s->pool));
        (void)hv_stores(h, "private", newSVuv((UV)s->mem_private));
        (void)hv_stores(h, "shared", newSVuv((UV)s->mem_shared));
        (void)hv_stores(h, "pss", newSVuv((UV)s->mem_pss));
        (void)hv_stores(h, "counts", newRV_noinc((SV *)counts_hv(aTHX_ &s->counts, 0)));
        mPUSHs(newRV_noinc((SV *)h));
    }
}

