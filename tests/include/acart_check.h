/* Checks for the C unit tests: count failures, say where, keep going. Every C test program
 * checks through this header and exits non-zero when check_failures is (check_report(), or
 * its own summary).
 *
 * The count is one per program. Where a program's checks are in several files (tb5's tests
 * and their fixtures, tb5_test.c), each defines ACART_CHECK_SHARED_COUNT before including
 * this header and one of them defines `int check_failures;`. */
#ifndef ACART_TESTS_CHECK_H
#define ACART_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#ifdef ACART_CHECK_SHARED_COUNT
extern int check_failures;
#else
static int check_failures;
#endif

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

/* Both values on failure (in hex). */
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);             \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %s failed: 0x%llx != 0x%llx\n", __FILE__, __LINE__, #a,  \
                    #b, a_, b_);                                                                   \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

/* A failed check whose caller says more: "file:line: what" and the printf-style message. */
__attribute__((format(printf, 4, 5))) static inline void
check_failed(const char *file, int line, const char *what, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: %s: ", file, line, what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    check_failures++;
}

/* CHECK with a printf-style message that gives the values involved. */
#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond))                                                                               \
            check_failed(__FILE__, __LINE__, "CHECK failed: " #cond, __VA_ARGS__);                 \
    } while (0)

static inline int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
