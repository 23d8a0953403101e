# Kamado::CGI::Process::Relay: a script process's output and errors relayed (xs/cgi/kd_cgi_io.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::CGI::Process::Relay

PROTOTYPES: DISABLE

void
collect(int out_fd, int err_fd, double hold, UV max)
PPCODE:
{
    /* (output, errors, output still open, errors still open): what a
     * script wrote to its pipes until its output ended, for at most HOLD
     * seconds, up to about MAX bytes of output (Kamado::CGI::Process::Relay). */
    SV *out = sv_2mortal(newSVpvs(""));
    SV *err = sv_2mortal(newSVpvs(""));
    int out_open, err_open;
    kd_collect(aTHX_ out_fd, err_fd, hold, (STRLEN)max, out, err, &out_open, &err_open);
    EXTEND(SP, 4);
    PUSHs(out);
    PUSHs(err);
    mPUSHi(out_open);
    mPUSHi(err_open);
}
