/* kd_date.c: HTTP dates as Apache's mod_cgi reads them. See kd_date.h. */
#include "kd_date.h"

#include <string.h>

/* The byte at I of S (LEN bytes), as a NUL-terminated string would have it. */
static int kd_date_at(const char *s, size_t len, size_t i)
{
    return i < len ? (unsigned char)s[i] : 0;
}

/* apr_date_checkmask: '@' an upper-case letter, '$' a lower-case one,
 * '#' a digit, '~' a digit or a space, '*' anything from there on; any
 * other character itself. The data must end where the mask ends. */
static int kd_date_mask(const char *s, size_t len, const char *mask)
{
    size_t i;
    for (i = 0;; i++) {
        int d = kd_date_at(s, len, i);
        switch (mask[i]) {
        case '\0': return d == 0;
        case '*': return 1;
        case '@': if (!(d >= 'A' && d <= 'Z')) return 0; break;
        case '$': if (!(d >= 'a' && d <= 'z')) return 0; break;
        case '#': if (!(d >= '0' && d <= '9')) return 0; break;
        case '~': if (d != ' ' && !(d >= '0' && d <= '9')) return 0; break;
        default: if (mask[i] != d) return 0; break;
        }
    }
}

static const char kd_months[12][4] = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};
static const char kd_wdays[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };

#define KD_D(i) (d[i] - '0')

long long kd_http_date_parse(const char *s, size_t len)
{
    const char *d, *mon_s, *tim;
    size_t left;
    long long year, mday, hour, min, sec, days, y;
    int mon;
    static const int offset[12] = { 306, 337, 0, 31, 61, 92, 122, 153, 184, 214, 245, 275 };

    /* a NUL ends the string for APR */
    {
        const char *nul = memchr(s, '\0', len);
        if (nul)
            len = (size_t)(nul - s);
    }
    while (len > 0 && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
        s++, len--;
    if (len == 0)
        return -1;
    /* past the weekday and the space after it */
    d = memchr(s, ' ', len);
    if (!d)
        return -1;
    d++;
    left = len - (size_t)(d - s);
    if (kd_date_mask(d, left, "## @$$ #### ##:##:## *")) {
        year = (KD_D(7) * 10 + KD_D(8) - 19) * 100;
        if (year < 0)
            return -1;
        year += KD_D(9) * 10 + KD_D(10);
        mday = KD_D(0) * 10 + KD_D(1);
        mon_s = d + 3;
        tim = d + 12;
    } else if (kd_date_mask(d, left, "##-@$$-## ##:##:## *")) {
        year = KD_D(7) * 10 + KD_D(8);
        if (year < 70)
            year += 100;
        mday = KD_D(0) * 10 + KD_D(1);
        mon_s = d + 3;
        tim = d + 10;
    } else if (kd_date_mask(d, left, "@$$ ~# ##:##:## ####*")) {
        year = (KD_D(16) * 10 + KD_D(17) - 19) * 100;
        if (year < 0)
            return -1;
        year += KD_D(18) * 10 + KD_D(19);
        mday = (d[4] == ' ' ? 0 : KD_D(4) * 10) + KD_D(5);
        mon_s = d;
        tim = d + 7;
    } else if (kd_date_mask(d, left, "# @$$ #### ##:##:## *")) {
        year = (KD_D(6) * 10 + KD_D(7) - 19) * 100;
        if (year < 0)
            return -1;
        year += KD_D(8) * 10 + KD_D(9);
        mday = KD_D(0);
        mon_s = d + 2;
        tim = d + 11;
    } else {
        return -1;
    }
    if (mday <= 0 || mday > 31)
        return -1;
    hour = (tim[0] - '0') * 10 + (tim[1] - '0');
    min = (tim[3] - '0') * 10 + (tim[4] - '0');
    sec = (tim[6] - '0') * 10 + (tim[7] - '0');
    /* (61: APR lets leap seconds through, and so carries them over) */
    if (hour > 23 || min > 59 || sec > 61)
        return -1;
    for (mon = 0; mon < 12; mon++)
        if (memcmp(mon_s, kd_months[mon], 3) == 0)
            break;
    if (mon == 12)
        return -1;
    if (mday == 31 && (mon == 3 || mon == 5 || mon == 8 || mon == 10))
        return -1;
    /* (year counts from 1900 here, as APR's tm_year) */
    if (mon == 1 && (mday > 29 || (mday == 29 && ((year & 3) || (year % 100 == 0 && year % 400 != 100)))))
        return -1;
    /* apr_time_exp_get: days from 1 March 1900, the leap day last */
    y = mon < 2 ? year - 1 : year;
    days = y * 365 + y / 4 - y / 100 + (y / 100 + 3) / 4;
    days += offset[mon] + mday - 1;
    days -= 25508;    /* 1 January 1970 */
    days = ((days * 24 + hour) * 60 + min) * 60 + sec;
    return days < 0 ? -1 : days;
}

size_t kd_http_date_format(long long t, char out[KD_HTTP_DATE_LEN + 1])
{
    long long days, secs, z, era, doe, yoe, doy, mp, y;
    int mday, mon, i;
    char *p = out;
    /* 253402300800: 1 January 10000 */
    if (t < 0 || t >= 253402300800LL)
        return 0;
    days = t / 86400;
    secs = t % 86400;
    /* the civil date of a day count (Howard Hinnant's days_from_civil, inverted) */
    z = days + 719468;
    era = z / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    mday = (int)(doy - (153 * mp + 2) / 5 + 1);
    mon = (int)(mp < 10 ? mp + 3 : mp - 9);
    if (mon <= 2)
        y++;
    memcpy(p, kd_wdays[(days + 4) % 7], 3);    /* 1 January 1970 was a Thursday */
    p += 3;
    *p++ = ',';
    *p++ = ' ';
    *p++ = (char)('0' + mday / 10);
    *p++ = (char)('0' + mday % 10);
    *p++ = ' ';
    memcpy(p, kd_months[mon - 1], 3);
    p += 3;
    *p++ = ' ';
    for (i = 3; i >= 0; i--)
        p[i] = (char)('0' + y % 10), y /= 10;
    p += 4;
    *p++ = ' ';
    *p++ = (char)('0' + secs / 36000);
    *p++ = (char)('0' + secs / 3600 % 10);
    *p++ = ':';
    *p++ = (char)('0' + secs % 3600 / 600);
    *p++ = (char)('0' + secs % 600 / 60);
    *p++ = ':';
    *p++ = (char)('0' + secs % 60 / 10);
    *p++ = (char)('0' + secs % 10);
    memcpy(p, " GMT", 5);
    return KD_HTTP_DATE_LEN;
}
