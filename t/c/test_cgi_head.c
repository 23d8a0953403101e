/* t/c/test_cgi_head.c: table-driven C unit tests for src/proto/kd_cgi_head.c,
 * the CGI output head parser, printed as TAP ("ok N - name", diagnostics
 * as "# ...", plan "1..N" last). Run by t/c-cgi-head.t (system compiler,
 * then clang ASan+UBSan if present).
 *
 * Each case is a script's output, parsed from a heap copy of exactly its
 * size (so ASan reports a read past it), and its result rendered as the
 * XS renders it for Perl: "incomplete", "error <message>", "redirect
 * <path>", or "<status> [name=value]... rest=<rest>", with folded lines
 * joined to their field by one space, a Last-Modified as the date sent. The rules are Apache mod_cgi's
 * (util_script.c), as t/cgi-output.t checks them through Perl.
 */
#include "../../src/kd_engine.c"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_no = 0, failures = 0;

/* printable form of bytes: \r \n \xNN */
static size_t esc(char *o, size_t room, const char *s, size_t n)
{
    size_t i, j = 0;
    for (i = 0; i < n && j + 5 < room; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\r') { o[j++] = '\\'; o[j++] = 'r'; }
        else if (c == '\n') { o[j++] = '\\'; o[j++] = 'n'; }
        else if (c < 0x20 || c >= 0x7f) j += (size_t)snprintf(o + j, room - j, "\\x%02x", c);
        else o[j++] = (char)c;
    }
    o[j] = '\0';
    return j;
}

static void append(char *b, size_t room, const char *fmt, ...)
{
    size_t n = strlen(b);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b + n, room - n, fmt, ap);
    va_end(ap);
}

static void add_bytes(char *b, size_t room, const char *s, size_t len)
{
    size_t n = strlen(b);
    esc(b + n, room - n, s, len);
}

/* the time the Last-Modified cases are run at: 2001-09-09 01:46:40 */
#define NOW 1000000000LL

/* the result as the XS turns it into Perl values */
static void render(const char *o, size_t len, size_t room, char *b, size_t bsize)
{
    kd_cgi_field *fields = room ? malloc(room * sizeof *fields) : NULL;
    kd_cgi_head h;
    size_t i;
    b[0] = '\0';
    if (!kd_cgi_output_parse(o, len, &h, fields, room)) {
        append(b, bsize, "incomplete");
    } else if (h.error != KD_CGI_HEAD_OK) {
        append(b, bsize, "error Bad %s: ", kd_cgi_head_error_what(h.error));
        add_bytes(b, bsize, o + h.bad_off, h.bad_len > 80 ? 80 : h.bad_len);
        if (h.bad_len > 80)
            append(b, bsize, "...");
    } else if (h.redirect) {
        append(b, bsize, "redirect ");
        add_bytes(b, bsize, o + h.location_off, h.location_len);
    } else if (h.nfields > room) {
        append(b, bsize, "%zu fields, room for %zu", h.nfields, room);
    } else {
        int in_modified = 0;
        append(b, bsize, "%d", h.status);
        for (i = 0; i < h.nfields; i++) {
            if (fields[i].name_len == 0 && in_modified)
                continue;           /* the date replaces the folded lines too */
            in_modified = 0;
            if (h.modified >= 0 && i == h.modified_field) {
                char date[KD_HTTP_DATE_LEN + 1];
                kd_cgi_head_modified(&h, NOW, date);
                append(b, bsize, " [");
                add_bytes(b, bsize, o + fields[i].name_off, fields[i].name_len);
                append(b, bsize, "=%s]", date);
                in_modified = 1;
                continue;
            }
            if (fields[i].name_len == 0) {
                size_t n = strlen(b);
                b[n - 1] = ' ';    /* the "]" of the field before */
                add_bytes(b, bsize, o + fields[i].value_off, fields[i].value_len);
                append(b, bsize, "]");
                continue;
            }
            append(b, bsize, " [");
            add_bytes(b, bsize, o + fields[i].name_off, fields[i].name_len);
            append(b, bsize, "=");
            add_bytes(b, bsize, o + fields[i].value_off, fields[i].value_len);
            append(b, bsize, "]");
        }
        append(b, bsize, " rest=");
        add_bytes(b, bsize, o + h.rest_off, len - h.rest_off);
    }
    free(fields);
}

static void check(const char *name, const char *in, size_t len, size_t room, const char *want)
{
    char got[4096];
    char *copy = malloc(len ? len : 1);
    int pass;
    memcpy(copy, in, len);
    render(copy, len, room, got, sizeof got);
    free(copy);
    pass = strcmp(got, want) == 0;
    test_no++;
    if (!pass)
        failures++;
    printf("%sok %d - %s\n", pass ? "" : "not ", test_no, name);
    if (!pass)
        printf("#   got:  %s\n#   want: %s\n", got, want);
    fflush(stdout);
}

typedef struct {
    const char *name, *in;
    size_t len;
    const char *want;
} ccase;

#define C(name, in, want) { name, in, sizeof(in) - 1, want }

static const ccase cases[] = {
    /* where the head ends */
    C("LF head", "Content-Type: text/html\n\nhello", "200 [Content-Type=text/html] rest=hello"),
    C("CRLF head", "Content-Type: text/html\r\n\r\nhi", "200 [Content-Type=text/html] rest=hi"),
    C("LF then CRLF", "A: b\n\r\nrest", "200 [A=b] rest=rest"),
    C("CRLF then LF", "A: b\r\n\nrest", "200 [A=b] rest=rest"),
    C("rest keeps its own line ends", "A: b\n\n\r\n\nx\r\n", "200 [A=b] rest=\\r\\n\\nx\\r\\n"),
    C("empty line first (LF)", "\nbody", "200 rest=body"),
    C("empty line first (CRLF)", "\r\nbody", "200 rest=body"),
    C("empty output", "", "incomplete"),
    C("no empty line yet", "Content-Type: text/plain\n", "incomplete"),
    C("CR CR is not an empty line", "A: b\r\r", "incomplete"),
    C("half a CRLF empty line", "A: b\r\n\r", "incomplete"),
    C("a lone CR first", "\rA: b\n\n", "error Bad header: \\rA: b"),
    /* fields */
    C("fields in order, repeats kept", "Set-Cookie: a=1\nSet-Cookie: b=2\nX: y\n\n",
      "200 [Set-Cookie=a=1] [Set-Cookie=b=2] [X=y] rest="),
    C("value trimmed of spaces and tabs", "A: \t v w \t\n\n", "200 [A=v w] rest="),
    C("empty value", "X-Empty:\n\n", "200 [X-Empty=] rest="),
    C("no space after the colon", "A:b\n\n", "200 [A=b] rest="),
    C("colon in the value", "A: b: c\n\n", "200 [A=b: c] rest="),
    C("CR inside a value stays", "A: b\rc\n\n", "200 [A=b\\rc] rest="),
    C("a second CR before LF stays", "A: b\r\r\n\n", "200 [A=b\\r] rest="),
    C("NUL in a value", "A: b\0c\n\n", "200 [A=b\\x00c] rest="),
    C("last line without LF: the empty line's CR is not the value's", "A: b\r\n\r\n", "200 [A=b] rest="),
    /* folding */
    C("folded lines joined by one space", "X: first\n  second\n\tthird\nY: z\n\n",
      "200 [X=first second third] [Y=z] rest="),
    C("folded line keeps its trailing blanks", "X: a\n b \n\n", "200 [X=a b ] rest="),
    C("folded after Status continues the field before", "X: a\nStatus: 404\n b\n\n",
      "404 [X=a b] rest="),
    C("folded line first is a bad header", " X: a\n\n", "error Bad header:  X: a"),
    C("folded after only a Status is a bad header", "Status: 200\n b\n\n", "error Bad header:  b"),
    /* bad lines */
    C("no colon", "Bad line here\n\n", "error Bad header: Bad line here"),
    C("space before the colon", "A : b\n\n", "error Bad header: A : b"),
    C("empty name", ": b\n\n", "error Bad header: : b"),
    C("a lone CR line", "A: b\n\r\r\n\n", "error Bad header: \\r"),
    C("bad line after good ones", "A: b\nnope\n\n", "error Bad header: nope"),
    C("long bad line cut at 80",
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n\n",
      "error Bad header: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."),
    /* Status */
    C("Status with reason", "Status: 404 Not Found\r\nContent-Type: text/plain\r\n\r\nnope",
      "404 [Content-Type=text/plain] rest=nope"),
    C("Status any case, not a field", "sTaTuS: 201\n\n", "201 rest="),
    C("Status without reason", "Status: 503\n\n", "503 rest="),
    C("last Status wins", "Status: 404\nStatus: 410\n\n", "410 rest="),
    C("Status 3 digits then punctuation", "Status: 200.5\n\n", "200 rest="),
    C("Status letters", "Status: 20x\n\n", "error Bad Status: 20x"),
    C("Status too short", "Status: 20\n\n", "error Bad Status: 20"),
    C("Status empty", "Status:\n\n", "error Bad Status: "),
    C("Status four digits", "Status: 2000\n\n", "error Bad Status: 2000"),
    C("Status word after digits", "Status: 200OK\n\n", "error Bad Status: 200OK"),
    C("Status underscore after digits", "Status: 200_\n\n", "error Bad Status: 200_"),
    C("Status Latin-1 letter after digits", "Status: 200\xe9\n\n", "error Bad Status: 200\\xe9"),
    C("Status Latin-1 micro after digits", "Status: 200\xb5\n\n", "error Bad Status: 200\\xb5"),
    C("Status Latin-1 times sign is no letter", "Status: 200\xd7\n\n", "200 rest="),
    C("Status Latin-1 superscript is no letter", "Status: 200\xb2\n\n", "200 rest="),
    C("Status 000 means none", "Status: 000\n\n", "200 rest="),
    C("Statuses is a field", "Statuses: 1\n\n", "200 [Statuses=1] rest="),
    /* Location */
    C("local Location: redirect", "Location: /other?q=1\nX: y\n\n", "redirect /other?q=1"),
    C("local Location trimmed", "Location:  /x \t\n\n", "redirect /x"),
    C("last Location wins", "Location: http://a/\nLocation: /b\n\n", "redirect /b"),
    C("remote Location: 302", "Location: http://example.com/\n\n", "302 [Location=http://example.com/] rest="),
    C("empty Location: 302", "Location:\n\n", "302 [Location=] rest="),
    C("Location with Status: no redirect", "Status: 301\nLocation: /x\n\n", "301 [Location=/x] rest="),
    C("Location with Status 000: redirect", "Status: 000\nLocation: /x\n\n", "redirect /x"),
    C("folding does not change the redirect path", "Location: /a\n b\n\n", "redirect /a"),
    C("folded remote Location", "Location: http://a/\n b\n\n", "302 [Location=http://a/ b] rest="),
    C("LOCATION any case", "LOCATION: /up\n\n", "redirect /up"),
    /* Last-Modified (the dates themselves: t/c/test_date.c) */
    C("Last-Modified in RFC 1123 form", "Last-Modified: Sun Nov  6 08:49:37 1994\n\n",
      "200 [Last-Modified=Sun, 06 Nov 1994 08:49:37 GMT] rest="),
    C("Last-Modified that is no date: dropped", "Last-Modified: yesterday\nX: y\n\n", "200 [X=y] rest="),
    C("two Last-Modified: one, at the first, the latest date",
      "last-modified: Sunday, 06-Nov-94 08:49:37 GMT\nX: a\nLast-Modified: Mon, 07 Nov 1994 08:49:37 GMT\n\n",
      "200 [last-modified=Mon, 07 Nov 1994 08:49:37 GMT] [X=a] rest="),
    C("Last-Modified after one that is no date", "Last-Modified: no\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT \n\n",
      "200 [Last-Modified=Sun, 06 Nov 1994 08:49:37 GMT] rest="),
    C("Last-Modified later than now: now", "Last-Modified: Sat, 01 Jan 2050 00:00:00 GMT\n\n",
      "200 [Last-Modified=Sun, 09 Sep 2001 01:46:40 GMT] rest="),
    C("Last-Modified folded: the date replaces it all", "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT\n more\nX: y\n\n",
      "200 [Last-Modified=Sun, 06 Nov 1994 08:49:37 GMT] [X=y] rest="),
    C("folded after a dropped Last-Modified continues the field before", "X: a\nLast-Modified: no\n b\n\n",
      "200 [X=a b] rest="),
};

#define NCASES (sizeof cases / sizeof cases[0])

static const char many[] =
    "A: 1\nB: 2\nC: 3\n d\nE: 5\nStatus: 204\nLocation: /x\n\nrest";

int main(void)
{
    size_t i;
    char name[128];
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; i < NCASES; i++)
        check(cases[i].name, cases[i].in, cases[i].len, 64, cases[i].want);
    /* room: what does not fit is counted, not stored; the answer is the same */
    for (i = 0; i <= 6; i++) {
        char want[128];
        snprintf(name, sizeof name, "room for %zu of 6 lines", i);
        snprintf(want, sizeof want, "6 fields, room for %zu", i);
        check(name, many, sizeof many - 1, i,
              i < 6 ? want : "204 [A=1] [B=2] [C=3 d] [E=5] [Location=/x] rest=rest");
    }
    printf("# %zu table cases\n", (size_t)NCASES);
    printf("1..%d\n", test_no);
    return failures ? 1 : 0;
}
