MODULE = Kamado    PACKAGE = Kamado::DBI::Reset::MariaDB

# The session reset's I/O on the driver's socket (src/proto/kd_myreset.c): true
# when it was written, or when its answers came, each an OK.

int
_send(int fd, SV *bytes, int timeout_ms)
CODE:
{
    STRLEN len;
    const char *buf = SvPVbyte(bytes, len);
    RETVAL = fd >= 0 && kd_myreset_send(fd, buf, len, timeout_ms) == 0;
}
OUTPUT:
    RETVAL

int
_settle(int fd, unsigned want, int timeout_ms)
CODE:
    RETVAL = fd >= 0 && kd_myreset_settle(fd, want, timeout_ms) == 0;
OUTPUT:
    RETVAL

void
_commands(SV *db, int autocommit_off)
PPCODE:
{
    /* (a database name is at most 64 characters of 4 bytes) */
    char out[512];
    STRLEN dblen = 0;
    const char *name = SvOK(db) ? SvPVbyte(db, dblen) : "";
    unsigned count = 0;
    size_t len = kd_myreset_build(out, sizeof out, name, dblen, autocommit_off, &count);
    if (!len)
        XSRETURN_EMPTY;
    EXTEND(SP, 2);
    mPUSHp(out, len);
    mPUSHu(count);
}
