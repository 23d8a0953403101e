/* Code refs that call a method on an object: an async stream's responder
 * and its kamado.on_close. An app keeps both for as long as its stream
 * lasts; a Perl closure costs a pad and its targets on top of the CV, and
 * this costs the CV and one magic that holds the object and the method's
 * name. Included by Kamado.xs, before its XS part. */

static MGVTBL kd_method_cb_vtbl; /* marks the magic as ours */

/* the code ref's body: obj->method(@_), in the caller's context */
static XSPROTO(kd_method_cb_call)
{
    dXSARGS;
    MAGIC *mg = mg_findext((SV *)cv, PERL_MAGIC_ext, &kd_method_cb_vtbl);
    SV **base;
    I32 count;
    if (!mg)
        croak("a method callback without its object");
    /* the object goes in front of the arguments, where they are */
    EXTEND(SP, 1);
    base = PL_stack_base + ax;
    Move(base, base + 1, items, SV *);
    base[0] = mg->mg_obj;
    PUSHMARK(base - 1);
    PL_stack_sp = base + items;
    count = call_method(mg->mg_ptr, GIMME_V);
    XSRETURN(count);
}

static SV *kd_method_cb(pTHX_ SV *obj, SV *method)
{
    STRLEN len;
    const char *name = SvPV(method, len);
    CV *cv = newXS(NULL, kd_method_cb_call, __FILE__);
    SV *held = newSVsv(obj);
    sv_magicext((SV *)cv, held, PERL_MAGIC_ext, &kd_method_cb_vtbl, name, (I32)len);
    SvREFCNT_dec(held); /* the magic holds it */
    return newRV_noinc((SV *)cv);
}
