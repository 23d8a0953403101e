# Kamado::Scoreboard: glue over src/kd_scoreboard.c. Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Scoreboard

PROTOTYPES: DISABLE

Kamado::Scoreboard
new(char *klass, int slots)
CODE:
{
    PERL_UNUSED_VAR(klass);
    if (slots < 1 || slots > KD_SB_MAX_SLOTS)
        croak("Kamado::Scoreboard->new: 1 to %d slots, not %d", KD_SB_MAX_SLOTS, slots);
    Newxz(RETVAL, 1, kd_sb);
    if (kd_sb_create(RETVAL, (unsigned)slots) != 0) {
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
claim(Kamado::Scoreboard self, int slot, UV generation = 0)
ALIAS:
    clear = 1
PPCODE:
    /* the generation's: a slot for a worker about to be forked; a reaped one's */
    if (!self->writable || slot < 0 || (unsigned)slot >= self->header->nslots)
        croak("Kamado::Scoreboard: no writable slot %d", slot);
    if (ix)
        kd_sb_clear(self, (unsigned)slot);
    else
        kd_sb_claim(self, (unsigned)slot, (uint32_t)generation);
    XSRETURN_YES;

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
        (void)hv_stores(h, "requests", newSVuv((UV)s->requests));
        (void)hv_stores(h, "seconds", newSVnv(age > 0 ? age : 0));
        (void)hv_stores(h, "request", newSVpvn(s->request, strnlen(s->request, KD_SB_REQUEST_LEN)));
        mPUSHs(newRV_noinc((SV *)h));
    }
}

