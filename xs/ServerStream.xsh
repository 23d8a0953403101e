# Kamado::Server::Stream: the code refs an async stream gives its app.
# Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::Server::Stream

PROTOTYPES: DISABLE

SV *
_method_cb(SV *obj, SV *method)
CODE:
    /* a code ref that calls obj->method(@_) (see xs/method_cb.c) */
    RETVAL = kd_method_cb(aTHX_ obj, method);
OUTPUT:
    RETVAL
