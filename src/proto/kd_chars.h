/* kd_chars.h: the byte classes the request parser and the chunked decoder
 * share (kd_parser.c, kd_chunked.c). */
#ifndef KD_CHARS_H
#define KD_CHARS_H

/* tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
 *         "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA  (RFC 9110 5.6.2) */
/* Character classes: 1 a token character (RFC 9110 5.6.2), 2 allowed in
 * a Host reg-name (RFC 3986 unreserved, pct-encoded and sub-delims). */
#define C_TCHAR 1
#define C_HOST  2
static const unsigned char char_class[256] = {
    ['!'] = 3, ['#'] = 1, ['$'] = 3, ['%'] = 3, ['&'] = 3, ['\''] = 3, ['('] = 2, [')'] = 2, ['*'] = 3,
    ['+'] = 3, ['-'] = 3, ['.'] = 3, ['0'] = 3, ['1'] = 3, ['2'] = 3,  ['3'] = 3, ['4'] = 3, ['5'] = 3,
    ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3, [';'] = 2, ['='] = 2,  ['A'] = 3, ['B'] = 3, ['C'] = 3,
    ['D'] = 3, ['E'] = 3, ['F'] = 3, ['G'] = 3, ['H'] = 3, ['I'] = 3,  ['J'] = 3, ['K'] = 3, ['L'] = 3,
    ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3, ['R'] = 3,  ['S'] = 3, ['T'] = 3, ['U'] = 3,
    ['V'] = 3, ['W'] = 3, ['X'] = 3, ['Y'] = 3, ['Z'] = 3, ['^'] = 1,  ['_'] = 3, ['`'] = 1, ['a'] = 3,
    ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3,  ['h'] = 3, ['i'] = 3, ['j'] = 3,
    ['k'] = 3, ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3,  ['q'] = 3, ['r'] = 3, ['s'] = 3,
    ['t'] = 3, ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3, ['y'] = 3,  ['z'] = 3, ['|'] = 1, ['~'] = 3,
};

#define IS_TCHAR(c) (char_class[(unsigned char)(c)] & C_TCHAR)

/* Field values: HTAB, SP, VCHAR and obs-text. NUL, bare CR and other
 * controls are rejected (RFC 9110 section 5.5). */
static inline int is_value_char(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static inline int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
