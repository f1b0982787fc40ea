/*
 * crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
 * every tb5 section, the directory and the header. Every byte of a data stream is
 * checksummed as it is written, so on x86-64 the SSE4.2 crc32 instruction does it (it
 * computes exactly this CRC): slicing by 8 took a fifth of `acart import` once its blocks
 * were compressed. The instruction takes 3 cycles and 1 per issue, so a long buffer is
 * checksummed as three lanes at once, whose CRCs are then joined (crc_combine). Slicing by
 * 8 remains for other CPUs.
 */
#include <pthread.h>

#include "crc32c.h"
#include "wire.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#define HAVE_CRC32_INSN 1
#endif

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static int use_insn;

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++)
        for (int t = 1; t < 8; t++)
            crc_table[t][n] = (crc_table[t - 1][n] >> 8) ^ crc_table[0][crc_table[t - 1][n] & 0xff];
#ifdef HAVE_CRC32_INSN
    use_insn = __builtin_cpu_supports("sse4.2");
#endif
}

#ifdef HAVE_CRC32_INSN
/* The CRC of zero bytes appended to a message, as a matrix over GF(2) (zlib's
 * crc32_combine): vec times mat, and mat squared. */
static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
    uint32_t sum = 0;

    for (; vec; vec >>= 1, mat++)
        if (vec & 1)
            sum ^= *mat;
    return sum;
}

static void gf2_square(uint32_t *square, const uint32_t *mat)
{
    for (int n = 0; n < 32; n++)
        square[n] = gf2_times(mat, mat[n]);
}

/* The CRC of A then B from crc(A), crc(B) and B's length. */
static uint32_t crc_combine(uint32_t crc1, uint32_t crc2, size_t len2)
{
    uint32_t even[32], odd[32], row = 1;

    odd[0] = CRC32C_POLY; /* the operator for one zero bit */
    for (int n = 1; n < 32; n++, row <<= 1)
        odd[n] = row;
    gf2_square(even, odd); /* two zero bits */
    gf2_square(odd, even); /* four */
    while (len2) {         /* then a byte, two bytes, four... as len2's bits say */
        gf2_square(even, odd);
        if (len2 & 1)
            crc1 = gf2_times(even, crc1);
        len2 >>= 1;
        if (!len2)
            break;
        gf2_square(odd, even);
        if (len2 & 1)
            crc1 = gf2_times(odd, crc1);
        len2 >>= 1;
    }
    return crc1 ^ crc2;
}

/* crc_combine(crc1, 0, len) as one matrix: it is linear in crc1. Blocks are mostly of one
 * length, so each thread keeps the matrix of the last lane length (making it anew for every
 * block cost more than the crc32 instructions it saved). */
static uint32_t crc_shift(uint32_t crc, size_t len)
{
    static __thread size_t op_len;
    static __thread uint32_t op[32];

    if (len != op_len) {
        for (int n = 0; n < 32; n++)
            op[n] = crc_combine(1u << n, 0, len);
        op_len = len;
    }
    return gf2_times(op, crc);
}

/* Below this, joining lanes costs more than it saves. */
#define LANES_MIN 8192

__attribute__((target("sse4.2"))) static uint32_t crc_insn(uint32_t crc, const uint8_t *p,
                                                           size_t len)
{
    uint64_t c = crc;

    if (len >= LANES_MIN) {
        size_t lane = (len / 3) & ~(size_t)7;
        uint64_t c1 = 0xFFFFFFFFu, c2 = 0xFFFFFFFFu;
        for (size_t i = 0; i < lane; i += 8) {
            uint64_t v0, v1, v2;
            memcpy(&v0, p + i, 8);
            memcpy(&v1, p + lane + i, 8);
            memcpy(&v2, p + 2 * lane + i, 8);
            c = _mm_crc32_u64(c, v0);
            c1 = _mm_crc32_u64(c1, v1);
            c2 = _mm_crc32_u64(c2, v2);
        }
        c = ~(crc_shift(crc_shift(~(uint32_t)c, lane) ^ ~(uint32_t)c1, lane) ^ ~(uint32_t)c2);
        p += 3 * lane;
        len -= 3 * lane;
    }
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        c = _mm_crc32_u64(c, v);
        p += 8;
        len -= 8;
    }
    while (len--)
        c = _mm_crc32_u8((uint32_t)c, *p++);
    return (uint32_t)c;
}
#endif

uint32_t tb5_crc32c(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;

    pthread_once(&crc_once, crc_init);
#ifdef HAVE_CRC32_INSN
    if (use_insn)
        return ~crc_insn(~crc, p, len);
#endif
    crc = ~crc;
    while (len >= 8) {
        uint32_t lo = crc ^ tb5_get32(p);
        uint32_t hi = tb5_get32(p + 4);
        crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
              crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^
              crc_table[2][(hi >> 8) & 0xff] ^ crc_table[1][(hi >> 16) & 0xff] ^
              crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}
