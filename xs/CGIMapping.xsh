# The XS of xs/cgi/kd_cgi_mapping.c: Kamado::CGI's cache of mappings.

MODULE = Kamado    PACKAGE = Kamado::CGI

PROTOTYPES: DISABLE

int
_mapping_fresh(HV *hit, SV *root)
CODE:
    /* Whether the cached mapping HIT still holds (kd_mapping_fresh). */
    RETVAL = kd_mapping_fresh(aTHX_ hit, root);
OUTPUT:
    RETVAL

MODULE = Kamado    PACKAGE = Kamado::CGI::ModeFile

SV *
key(AV *files)
CODE:
    /* What tells that some of FILES appeared, changed or went (kd_mode_key). */
    RETVAL = kd_mode_key(aTHX_ files);
OUTPUT:
    RETVAL
