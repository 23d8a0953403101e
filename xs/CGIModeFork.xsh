# Kamado::CGI::Mode::Fork: a request sent to a zygote with its descriptors (xs/cgi/kd_cgi_io.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::CGI::Mode::Fork

PROTOTYPES: DISABLE

int
send_with_fds(int sock, SV *payload, ...)
CODE:
{
    /* One message to a zygote (Kamado::CGI::Mode::Fork): PAYLOAD and the
     * descriptors that follow it. True, or false with $! set. */
    int fds[KD_MAX_PASS], n;
    STRLEN len;
    const char *p = SvPVbyte(payload, len);
    if (items - 2 > KD_MAX_PASS)
        croak("send_with_fds: at most %d descriptors", KD_MAX_PASS);
    for (n = 0; n < items - 2; n++)
        fds[n] = (int)SvIV(ST(n + 2));
    RETVAL = kd_send_with_fds(sock, p, len, fds, n);
    if (!RETVAL)
        SETERRNO(errno, 0);
}
OUTPUT:
    RETVAL
