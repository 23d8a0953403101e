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
_commands(SV *db, ...)
PPCODE:
{
    /* (a database name is at most 64 characters of 4 bytes; the
     * statements, a SET ROLE of a role's name and SET autocommit=0) */
    char out[2048];
    const char *sql[8];
    size_t sqllen[8];
    STRLEN dblen = 0, len;
    const char *name = SvOK(db) ? SvPVbyte(db, dblen) : "";
    unsigned count = 0, nsql = 0;
    I32 i;
    if (items - 1 > 8)
        XSRETURN_EMPTY;
    for (i = 1; i < items; i++) {
        sql[nsql] = SvPVbyte(ST(i), len);
        sqllen[nsql++] = len;
    }
    len = kd_myreset_build(out, sizeof out, name, dblen, sql, sqllen, nsql, &count);
    if (!len)
        XSRETURN_EMPTY;
    EXTEND(SP, 2);
    mPUSHp(out, len);
    mPUSHu(count);
}
