/* Checking helpers of the wire tests: the common checks, and reading wire bytes. */
#ifndef ACART_TESTS_WIRE_CHECK_H
#define ACART_TESTS_WIRE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "acart_check.h"

/* Little-endian value of n bytes at buf + off, read byte by byte so the check does not
 * depend on the struct definitions under test. */
static inline uint64_t wire_le(const uint8_t *buf, size_t off, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)buf[off + i] << (8 * i);
    return v;
}

#endif
