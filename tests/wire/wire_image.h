/* Wire bytes in the wire tests: reading little-endian fields byte by byte, and proving that
 * every byte of a structure's image was read by a check (acart_check.h's). */
#ifndef ACART_TESTS_WIRE_IMAGE_H
#define ACART_TESTS_WIRE_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acart_check.h"

/* The wire image under check (wire_track) and which of its bytes a check has read. A
 * structure's image is only proven when every byte that carries a value was read at the
 * offset the protocol gives it: wire_untracked() fails the test for a non-zero byte no
 * check looked at (a field at the wrong offset, or one the test forgot). */
#define WIRE_MAX_IMAGE 65536
static const uint8_t *wire_image;
static size_t wire_image_len;
static uint8_t wire_seen[WIRE_MAX_IMAGE];
static uint8_t wire_copy[WIRE_MAX_IMAGE]; /* the image as tracked: the buffer may be gone */

static inline void wire_mark(const uint8_t *buf, size_t off, size_t n)
{
    if (wire_image && buf == wire_image && off + n <= wire_image_len && off + n <= WIRE_MAX_IMAGE)
        for (size_t i = 0; i < n; i++)
            wire_seen[off + i] = 1;
}

/* Bytes of the tracked image that hold a value no check read; 0 when it is fully proven.
 * Ends the tracking. */
static inline size_t wire_untracked(void)
{
    size_t unread = 0;
    for (size_t i = 0; wire_image && i < wire_image_len; i++) {
        if (wire_copy[i] && !wire_seen[i]) {
            fprintf(stderr, "wire image: byte %zu (0x%02x) was checked by nobody\n", i,
                    wire_copy[i]);
            unread++;
        }
    }
    wire_image = 0;
    return unread;
}

/* Starts tracking `buf` (after checking the previous image). */
static inline void wire_track(const uint8_t *buf, size_t len)
{
    CHECK_EQ(wire_untracked(), 0);
    CHECK(len <= WIRE_MAX_IMAGE);
    wire_image = buf;
    wire_image_len = len <= WIRE_MAX_IMAGE ? len : 0;
    for (size_t i = 0; i < wire_image_len; i++) {
        wire_seen[i] = 0;
        wire_copy[i] = buf[i];
    }
}

/* Little-endian value of n bytes at buf + off, read byte by byte so the check does not
 * depend on the struct definitions under test. */
static inline uint64_t wire_le(const uint8_t *buf, size_t off, size_t n)
{
    uint64_t v = 0;
    wire_mark(buf, off, n);
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)buf[off + i] << (8 * i);
    return v;
}

/* 1 when the n bytes at buf + off are `expected`. */
static inline int wire_bytes(const uint8_t *buf, size_t off, const void *expected, size_t n)
{
    wire_mark(buf, off, n);
    return memcmp(buf + off, expected, n) == 0;
}

#endif
