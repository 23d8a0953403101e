/* tap.h: the TAP output the C unit tests in t/c/ share (each test is one
 * translation unit that includes this once). Two ways to report:
 *   ok(cond, fmt, ...)        one test, its name from a format
 *   diag(fmt, ...) ... tap(fmt, ...)
 *                             a test that passes when nothing was diagnosed
 *                             since the last tap(); the lines are printed
 *                             under a failing test
 * and done_testing() prints the plan and gives main's exit status. */
#ifndef KD_TAP_H
#define KD_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int test_no = 0, failures = 0;
static char why[8192];              /* diagnostics of the current test */
static size_t why_len = 0;

static inline void diag(const char *fmt, ...)
{
    va_list ap;
    int n;
    if (why_len >= sizeof why - 2)
        return;
    va_start(ap, fmt);
    n = vsnprintf(why + why_len, sizeof why - why_len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    why_len += (size_t)n;
    if (why_len > sizeof why - 2)
        why_len = sizeof why - 2;
    why[why_len++] = '\n';
    why[why_len] = '\0';
}

static inline int tap_report(int pass, const char *fmt, va_list ap)
{
    char *line, *nl;
    test_no++;
    if (!pass)
        failures++;
    printf("%sok %d - ", pass ? "" : "not ", test_no);
    vprintf(fmt, ap);
    putchar('\n');
    for (line = why; !pass && *line; line = nl + 1) {
        nl = strchr(line, '\n');
        printf("#   %.*s\n", (int)(nl - line), line);
    }
    why_len = 0;
    why[0] = '\0';
    fflush(stdout);
    return pass;
}

static inline int tap(const char *fmt, ...)
{
    va_list ap;
    int pass;
    va_start(ap, fmt);
    pass = tap_report(why_len == 0, fmt, ap);
    va_end(ap);
    return pass;
}

static inline int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cond = tap_report(cond && why_len == 0, fmt, ap);
    va_end(ap);
    return cond;
}

static inline int done_testing(void)
{
    printf("1..%d\n", test_no);
    return failures ? 1 : 0;
}

#endif
