# Kamado::CGI::Env: the CGI environment of a request (xs/cgi/kd_cgi_vars.c, xs/cgi/kd_cgi_env.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::CGI::Env

PROTOTYPES: DISABLE

SV *
request(HV *env, HV *fixed)
CODE:
    /* a new hash (see kd_request_env) */
    RETVAL = newRV_noinc((SV *)kd_request_env(aTHX_ env, fixed));
OUTPUT:
    RETVAL
