# Kamado::CGI::Output: a CGI script's head parsed (src/proto/kd_cgi_head.c). Included by Kamado.xs.

MODULE = Kamado    PACKAGE = Kamado::CGI::Output

PROTOTYPES: DISABLE

SV *
_parse(SV *output, int psgi = 0)
CODE:
{
    /* OUTPUT's head parsed (src/proto/kd_cgi_head.c), once it holds the empty
     * line that ends it; undef before. Returns { status, headers =>
     * [name, value...], rest }, or { error => why }, or { redirect =>
     * path } for a Location with a local path and no Status; a
     * Last-Modified in RFC 1123 form. With PSGI, a head that parsed
     * gives the PSGI response [status, headers, [rest]] instead. */
    STRLEN len;
    const char *o = SvPV(output, len);
    kd_cgi_field some[32], *fields = some;
    kd_cgi_head h;
    SV *modified = NULL;
    HV *result;
    AV *headers;
    size_t i;
    if (!kd_cgi_output_parse(o, len, &h, some, 32))
        XSRETURN_UNDEF;
    if (h.error == KD_CGI_HEAD_OK && h.nfields > 32 && !h.redirect) {
        Newx(fields, h.nfields, kd_cgi_field);
        kd_cgi_output_parse(o, len, &h, fields, h.nfields);
    }
    /* (no hash for a PSGI response: it is made below) */
    result = psgi && h.error == KD_CGI_HEAD_OK && !h.redirect ? NULL : newHV();
    RETVAL = result ? newRV_noinc((SV *)result) : NULL;
    if (h.error != KD_CGI_HEAD_OK) {
        SV *why = newSVpvf("malformed header from script. Bad %s: ", kd_cgi_head_error_what(h.error));
        sv_catpvn(why, o + h.bad_off, h.bad_len > 80 ? 80 : h.bad_len);
        if (h.bad_len > 80)
            sv_catpvs(why, "...");
        (void)hv_stores(result, "error", why);
    } else if (h.redirect) {
        (void)hv_stores(result, "redirect", newSVpvn(o + h.location_off, h.location_len));
    } else {
        headers = newAV();
        if (h.nfields)
            av_extend(headers, 2 * h.nfields - 1);
        for (i = 0; i < h.nfields; i++) {
            const kd_cgi_field *f = &fields[i];
            if (f->name_len == 0) {
                /* a folded line: the field before goes on */
                SV *last = *av_fetch(headers, av_count(headers) - 1, 0);
                sv_catpvs(last, " ");
                sv_catpvn(last, o + f->value_off, f->value_len);
                continue;
            }
            av_push(headers, newSVpvn(o + f->name_off, f->name_len));
            av_push(headers, newSVpvn(o + f->value_off, f->value_len));
            if (h.modified >= 0 && i == h.modified_field)
                modified = *av_fetch(headers, av_count(headers) - 1, 0);
        }
        if (modified) {
            /* (after the folded lines, which the date replaces too) */
            char date[KD_HTTP_DATE_LEN + 1];
            size_t n = kd_cgi_head_modified(&h, (long long)time(NULL), date);
            sv_setpvn(modified, date, n);
        }
        if (result) {
            (void)hv_stores(result, "status", newSViv(h.status));
            (void)hv_stores(result, "headers", newRV_noinc((SV *)headers));
            (void)hv_stores(result, "rest", newSVpvn(o + h.rest_off, len - h.rest_off));
        } else {
            AV *res = newAV(), *body = newAV();
            av_extend(res, 2);
            av_push(res, newSViv(h.status));
            av_push(res, newRV_noinc((SV *)headers));
            av_push(body, newSVpvn(o + h.rest_off, len - h.rest_off));
            av_push(res, newRV_noinc((SV *)body));
            RETVAL = newRV_noinc((SV *)res);
        }
    }
    if (fields != some)
        Safefree(fields);
}
OUTPUT:
    RETVAL
