/*
 * shuffle.c - byte planes of fixed-size records, the form in which compressed blocks
 * store them (docs/tb5-format.md, "Blocks"). Records of a stream differ in a few bytes
 * (the address, the time stamp's low bytes) and repeat the rest; with byte k of every
 * record side by side, the repeated bytes are long runs, which zstd encodes in a few
 * instructions: a block of samples compressed 3 times faster, into half the bytes, than
 * its records as they are. The planes are made in tiles of 16 records by 8 bytes with
 * SSE2 (every x86-64 has it), byte by byte elsewhere.
 */
#include <string.h>

#include "tb5_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>

#define TILE_RECORDS 16
#define UNROLL       _Pragma("GCC unroll 8")

/* 16 records' bytes k..k+7 (at in, size apart) to planes k..k+7 (at out, n apart). */
static inline void tile_to_planes(const uint8_t *in, size_t size, uint8_t *out, size_t n)
{
    __m128i a[8], b[8], c[8];

    /* a[j]: records 2j, 2j+1, byte by byte; b: 4 records, 2 bytes; c: 8 records, 4 bytes. */
    UNROLL for (int j = 0; j < 8; j++) a[j] =
        _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(in + (size_t)(2 * j) * size)),
                          _mm_loadl_epi64((const __m128i *)(in + (size_t)(2 * j + 1) * size)));
    UNROLL for (int p = 0; p < 4; p++)
    {
        b[2 * p] = _mm_unpacklo_epi16(a[2 * p], a[2 * p + 1]);     /* bytes 0-3 */
        b[2 * p + 1] = _mm_unpackhi_epi16(a[2 * p], a[2 * p + 1]); /* bytes 4-7 */
    }
    UNROLL for (int h = 0; h < 2; h++)
    {
        for (int q = 0; q < 2; q++) {
            c[4 * h + 2 * q] = _mm_unpacklo_epi32(b[4 * q + h], b[4 * q + 2 + h]);
            c[4 * h + 2 * q + 1] = _mm_unpackhi_epi32(b[4 * q + h], b[4 * q + 2 + h]);
        }
    }
    /* c[4h + 2q + s]: records 8q..8q+7 of bytes 4h+2s, 4h+2s+1. */
    UNROLL for (int h = 0; h < 2; h++)
    {
        for (int s = 0; s < 2; s++) {
            int col = 4 * h + 2 * s;
            _mm_storeu_si128((__m128i *)(out + (size_t)col * n),
                             _mm_unpacklo_epi64(c[4 * h + s], c[4 * h + 2 + s]));
            _mm_storeu_si128((__m128i *)(out + (size_t)(col + 1) * n),
                             _mm_unpackhi_epi64(c[4 * h + s], c[4 * h + 2 + s]));
        }
    }
}

/* The inverse: planes k..k+7 (16 bytes each, n apart) to 16 records' bytes k..k+7. */
static inline void planes_to_tile(const uint8_t *in, size_t n, uint8_t *out, size_t size)
{
    __m128i p[8], a[8], b[8];

    UNROLL for (int c = 0; c < 8; c++) p[c] =
        _mm_loadu_si128((const __m128i *)(in + (size_t)c * n));
    /* a[2i + h]: bytes 2i, 2i+1 of records 8h..8h+7. */
    UNROLL for (int i = 0; i < 4; i++)
    {
        a[2 * i] = _mm_unpacklo_epi8(p[2 * i], p[2 * i + 1]);
        a[2 * i + 1] = _mm_unpackhi_epi8(p[2 * i], p[2 * i + 1]);
    }
    /* b[4g + 2h + l]: bytes 4g..4g+3 of records 8h+4l..8h+4l+3. */
    UNROLL for (int g = 0; g < 2; g++)
    {
        for (int h = 0; h < 2; h++) {
            b[4 * g + 2 * h] = _mm_unpacklo_epi16(a[4 * g + h], a[4 * g + 2 + h]);
            b[4 * g + 2 * h + 1] = _mm_unpackhi_epi16(a[4 * g + h], a[4 * g + 2 + h]);
        }
    }
    /* Bytes 0-7 of records 4m..4m+3 (m = 2h + l), two records per register. */
    UNROLL for (int m = 0; m < 4; m++)
    {
        __m128i lo = _mm_unpacklo_epi32(b[m], b[4 + m]), hi = _mm_unpackhi_epi32(b[m], b[4 + m]);
        uint8_t *r = out + (size_t)(4 * m) * size;
        _mm_storel_epi64((__m128i *)r, lo);
        _mm_storel_epi64((__m128i *)(r + size), _mm_unpackhi_epi64(lo, lo));
        _mm_storel_epi64((__m128i *)(r + 2 * size), hi);
        _mm_storel_epi64((__m128i *)(r + 3 * size), _mm_unpackhi_epi64(hi, hi));
    }
}
#else
#define TILE_RECORDS 0
#endif

void tb5_shuffle(const uint8_t *in, uint8_t *out, size_t n, uint32_t size)
{
    size_t r = 0;

#if TILE_RECORDS
    for (; size >= 8 && r + TILE_RECORDS <= n; r += TILE_RECORDS) {
        uint32_t k = 0;
        for (; k + 8 <= size; k += 8)
            tile_to_planes(in + r * size + k, size, out + (size_t)k * n + r, n);
        for (; k < size; k++)
            for (size_t j = r; j < r + TILE_RECORDS; j++)
                out[k * n + j] = in[j * size + k];
    }
#endif
    for (; r < n; r++)
        for (uint32_t k = 0; k < size; k++)
            out[k * n + r] = in[r * size + k];
}

void tb5_unshuffle(const uint8_t *in, uint8_t *out, size_t n, uint32_t size)
{
    size_t r = 0;

#if TILE_RECORDS
    for (; size >= 8 && r + TILE_RECORDS <= n; r += TILE_RECORDS) {
        uint32_t k = 0;
        for (; k + 8 <= size; k += 8)
            planes_to_tile(in + (size_t)k * n + r, n, out + r * size + k, size);
        for (; k < size; k++)
            for (size_t j = r; j < r + TILE_RECORDS; j++)
                out[j * size + k] = in[k * n + j];
    }
#endif
    for (; r < n; r++)
        for (uint32_t k = 0; k < size; k++)
            out[r * size + k] = in[k * n + r];
}
