/* Minimal checking helpers shared by the wire tests: count failures, report where. */
#ifndef ACART_TESTS_WIRE_CHECK_H
#define ACART_TESTS_WIRE_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);             \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %s failed: 0x%llx != 0x%llx\n", __FILE__, __LINE__, #a,  \
                    #b, a_, b_);                                                                   \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

/* Little-endian value of n bytes at buf + off, read byte by byte so the check does not
 * depend on the struct definitions under test. */
static inline uint64_t wire_le(const uint8_t *buf, size_t off, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)buf[off + i] << (8 * i);
    return v;
}

static inline int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
