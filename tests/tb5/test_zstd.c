/*
 * test_zstd.c - format version 2's compressed blocks (docs/tb5-format.md, "Blocks"): data
 * and bind sections are zstd frames of whole records and read back exactly; a block that
 * would not shrink is stored; every way a zstd block can be damaged gives its own error
 * naming the section, block and file offset; a version 1 file (a committed fixture) still
 * reads, and is extended in version 1's layout.
 */
#include <stdlib.h>
#include <string.h>

#include "tb5_test.h"
#include "tb5_internal.h"

#define NSAMPLES 100000
#define RECORD   (sizeof(TBRW_SampleRecordPC) + sizeof(TBRW_SampleRecordTSC))

static TBRW_MODULE modules[2];
static TBRW_SampleRecordPC samples[NSAMPLES];
static TBRW_U64 tscs[NSAMPLES];

/* Samples like a hotspot's: few addresses, two threads, a TSC that moves on. */
static void make_samples(void)
{
    modules[0] = fx_module(428, 0x630E0000, 0x27000, 0, (TBRW_U64)-1, TBRW_MODULE_IS_EXE,
                           L"ProjNavigator.dll");
    modules[1] =
        fx_module(0, 0xC0000000, 0x100000, 0, (TBRW_U64)-1, TBRW_MODULE_GLOBAL_LOAD, L"kernel");
    for (int i = 0; i < NSAMPLES; i++) {
        samples[i] = fx_sample(428, 7 + i % 2, 0x630E0000 + (TBRW_U32)(i * 7919 % 64) * 16, 0);
        tscs[i] = 1000 + (TBRW_U64)i * 2000 + (TBRW_U64)(i % 8);
    }
}

/* Samples no compressor can shrink: every byte from splitmix64. */
static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void make_noise(void)
{
    uint64_t state = 1;
    for (int i = 0; i < NSAMPLES; i++) {
        uint8_t *b = (uint8_t *)&samples[i];
        for (size_t k = 0; k < sizeof(samples[i]); k += 8) {
            uint64_t v = splitmix(&state);
            memcpy(b + k, &v, 8);
        }
        tscs[i] = splitmix(&state);
    }
}

/* A whole file in memory, and what its directory says. */
struct image {
    uint8_t *bytes;
    long size;
    uint64_t dir;
    uint32_t nsec, nblk;
};

static int load(const char *path, struct image *im)
{
    FILE *f = fopen(path, "rb");
    im->size = fx_file_size(path);
    im->bytes = malloc((size_t)im->size);
    CHECK(f && im->bytes && fread(im->bytes, 1, (size_t)im->size, f) == (size_t)im->size);
    if (f)
        fclose(f);
    const uint8_t *t = im->bytes + im->size - TB5_TRAILER_SIZE;
    im->dir = tb5_get64(t + TB5_TRL_DIR_OFFSET);
    im->nsec = tb5_get32(t + TB5_TRL_SECTIONS);
    im->nblk = tb5_get32(t + TB5_TRL_BLOCKS);
    return 0;
}

static void save(const char *path, struct image *im)
{
    /* A damaged directory must still pass its checksums to reach the block checks. */
    uint8_t *t = im->bytes + im->size - TB5_TRAILER_SIZE;
    uint64_t len = tb5_get64(t + TB5_TRL_DIR_LENGTH);
    tb5_put32(t + TB5_TRL_DIR_CRC, tb5_crc32c(0, im->bytes + im->dir, len));
    tb5_put32(t + TB5_TRL_CRC, tb5_crc32c(0, t, TB5_TRL_CRC));
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(im->bytes, 1, (size_t)im->size, f) == (size_t)im->size);
    if (f)
        fclose(f);
}

static uint8_t *section_entry(struct image *im, uint16_t kind, uint32_t stream)
{
    for (uint32_t i = 0; i < im->nsec; i++) {
        uint8_t *e = im->bytes + im->dir + (size_t)i * TB5_SECTION_ENTRY_SIZE;
        if (tb5_get16(e + TB5_SEC_KIND) == kind && tb5_get32(e + TB5_SEC_STREAM) == stream)
            return e;
    }
    CHECK(!"section not in the directory");
    return im->bytes + im->dir;
}

static uint8_t *block_entry(struct image *im, const uint8_t *sec, uint32_t n)
{
    uint32_t first = tb5_get32(sec + TB5_SEC_FIRST_BLOCK);
    return im->bytes + im->dir + (size_t)im->nsec * TB5_SECTION_ENTRY_SIZE +
           (size_t)(first + n) * TB5_BLOCK_ENTRY_SIZE;
}

static void count_encodings(struct image *im, uint16_t kind, uint32_t stream, uint32_t *stored,
                            uint32_t *zstd)
{
    const uint8_t *sec = section_entry(im, kind, stream);
    *stored = *zstd = 0;
    for (uint32_t i = 0; i < tb5_get32(sec + TB5_SEC_BLOCK_COUNT); i++) {
        const uint8_t *b = block_entry(im, sec, i);
        uint32_t enc = tb5_get32(b + TB5_BLK_ENCODING);
        *stored += enc == TB5_ENC_STORED;
        *zstd += enc == TB5_ENC_ZSTD;
        /* Whole records per block, all but the last a full MiB of them. */
        CHECK(tb5_get32(b + TB5_BLK_RAW_LENGTH) % tb5_get32(sec + TB5_SEC_RECORD_SIZE) == 0);
        if (i + 1 < tb5_get32(sec + TB5_SEC_BLOCK_COUNT))
            CHECK(tb5_get32(b + TB5_BLK_RAW_LENGTH) ==
                  TB5_BLOCK_BYTES - TB5_BLOCK_BYTES % tb5_get32(sec + TB5_SEC_RECORD_SIZE));
    }
}

struct compare {
    TBRW_U64 next;
    int mismatches;
};

static TBRW_U32 compare_data(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct compare *c = user;
    const uint8_t *rec = data;
    CHECK(size == n * RECORD);
    for (TBRW_U32 i = 0; i < n; i++, rec += RECORD, c->next++) {
        TBRW_U64 tsc;
        memcpy(&tsc, rec + sizeof(TBRW_SampleRecordPC), sizeof(tsc));
        c->mismatches += c->next >= NSAMPLES ||
                         memcmp(rec, &samples[c->next], sizeof(TBRW_SampleRecordPC)) != 0 ||
                         tsc != tscs[c->next];
    }
    return 1;
}

static void check_reads_back(const char *path)
{
    struct compare c = {0, 0};
    TBRW_PTR p;
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_enumerate_data(p, 0, compare_data, &c, 0));
    CHECK(c.next == NSAMPLES && c.mismatches == 0);
    /* From a record inside the third block: a read that starts mid-block. */
    c.next = 60000;
    CHECK_OK(TBRW_enumerate_data(p, 0, compare_data, &c, 60000));
    CHECK(c.next == NSAMPLES && c.mismatches == 0);
    CHECK_OK(TBRW_close(p));
}

struct bound {
    TBRW_U64 n, in_exe;
};

static TBRW_U32 count_bound(const void *data, TBRW_U32 size, TBRW_U64 n, const DATA_BIND_STRUCT *b,
                            TBRW_U32 bsize, void *user)
{
    (void)data, (void)size, (void)bsize;
    struct bound *c = user;
    for (TBRW_U64 i = 0; i < n; i++)
        c->in_exe += b[i].module_index == 0;
    c->n += n;
    return 1;
}

static void test_streams_are_compressed(void)
{
    const char *path = tb5_scratch("compressed.tb5");
    struct image im;
    uint32_t stored, zstd;
    struct bound b = {0, 0};
    TBRW_PTR p;

    make_samples();
    fx_write_file(path, modules, 2, samples, tscs, NSAMPLES);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_OK(TBRW_dobind(p, 0));
    CHECK_OK(TBRW_close(p));
    check_reads_back(path);
    load(path, &im);
    CHECK(tb5_get16(im.bytes + TB5_HDR_VERSION_MAJOR) == TB5_FORMAT_MAJOR);
    count_encodings(&im, TB5_K_DATA, 0, &stored, &zstd);
    CHECK(stored == 0 && zstd == 4); /* 4 MB of records in blocks of 1,048,560 bytes */
    count_encodings(&im, TB5_K_DATA_BIND, 0, &stored, &zstd);
    CHECK(stored == 0 && zstd == 3);
    /* Records and bind results together, against the records alone. */
    CHECK(im.size < 0.4 * NSAMPLES * RECORD);
    free(im.bytes);

    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_bind_enumerate_data(p, 0, count_bound, &b, 0));
    CHECK(b.n == NSAMPLES && b.in_exe == NSAMPLES);
    CHECK_OK(TBRW_close(p));
}

static void test_incompressible_blocks_are_stored(void)
{
    const char *path = tb5_scratch("noise.tb5");
    struct image im;
    uint32_t stored, zstd;

    make_noise();
    fx_write_file(path, modules, 2, samples, tscs, NSAMPLES);
    check_reads_back(path);
    load(path, &im);
    count_encodings(&im, TB5_K_DATA, 0, &stored, &zstd);
    CHECK(stored == 4 && zstd == 0);
    CHECK(im.size > (long)(NSAMPLES * RECORD));
    free(im.bytes);
}

static TBRW_U32 ignore(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    (void)data, (void)size, (void)n, (void)user;
    return 1;
}

/* Opens path and reads stream 0; the first failure must be want, saying each of says. */
static void check_damage(const char *path, TBRW_U32 want, const char *says1, const char *says2)
{
    TBRW_PTR p = NULL;
    TBRW_U32 rc = TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ);
    if (rc == TBRW_SUCCESS) {
        rc = TBRW_enumerate_data(p, 0, ignore, NULL, 0);
        CHECK_RC(rc, want);
        CHECK_OK(TBRW_close(p));
    } else {
        CHECK_RC(rc, want);
    }
    const char *detail = tb5_error_detail(rc);
    if (!strstr(detail, says1) || !strstr(detail, says2)) {
        fprintf(stderr, "detail \"%s\" does not say \"%s\" and \"%s\"\n", detail, says1, says2);
        check_failures++;
    }
}

static void test_damaged_zstd_blocks_have_precise_errors(void)
{
    char *good = strdup(tb5_scratch("good.tb5")), *path = strdup(tb5_scratch("bad.tb5"));
    struct image im;
    char where[128], entry[96];

    make_samples();
    fx_write_file(good, modules, 2, samples, tscs, NSAMPLES);
#define DAMAGE(change)                                                                             \
    do {                                                                                           \
        load(good, &im);                                                                           \
        uint8_t *sec = section_entry(&im, TB5_K_DATA, 0), *blk = block_entry(&im, sec, 1);         \
        uint64_t off = tb5_get64(blk + TB5_BLK_OFFSET), len = tb5_get64(blk + TB5_BLK_LENGTH);     \
        snprintf(where, sizeof where,                                                              \
                 "stream 0 data section: block 1 (zstd frame of %llu bytes at file offset %llu",   \
                 (unsigned long long)len, (unsigned long long)off);                                \
        /* The directory's checks name the entry by its index among all block entries. */          \
        snprintf(entry, sizeof entry, "block %u (entry at byte offset %llu)",                      \
                 tb5_get32(sec + TB5_SEC_FIRST_BLOCK) + 1, (unsigned long long)(blk - im.bytes));  \
        (void)sec, (void)off, (void)len;                                                           \
        change;                                                                                    \
        save(path, &im);                                                                           \
        free(im.bytes);                                                                            \
    } while (0)

    /* The frame's content: zstd's own check of its blocks, or its content checksum. */
    DAMAGE(im.bytes[off + len / 2] ^= 0x5A);
    {
        TBRW_PTR p;
        CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
        TBRW_U32 rc = TBRW_enumerate_data(p, 0, ignore, NULL, 0);
        CHECK(rc == TBRW_CORRUPT_FILE || rc == TBRW_CHECKSUM_MISMATCH);
        CHECK(strstr(tb5_error_detail(rc), where) && strstr(tb5_error_detail(rc), "zstd: "));
        CHECK_OK(TBRW_close(p));
    }
    DAMAGE(im.bytes[off + len - 1] ^= 0x01);
    check_damage(path, TBRW_CHECKSUM_MISMATCH, where, "doesn't match checksum");
    /* The block entry and the frame disagree. */
    DAMAGE(tb5_put64(blk + TB5_BLK_LENGTH, len - 100));
    check_damage(path, TBRW_CORRUPT_FILE, "block 1 (zstd frame of", "the frame is cut short");
    DAMAGE(tb5_put64(blk + TB5_BLK_LENGTH, len + 3));
    check_damage(path, TBRW_CORRUPT_FILE, "block 1 (zstd frame of", "the frame ends after");
    /* One more record in the directory than the frame holds. */
    DAMAGE(tb5_put32(blk + TB5_BLK_RAW_LENGTH, tb5_get32(blk + TB5_BLK_RAW_LENGTH) + RECORD);
           tb5_put64(sec + TB5_SEC_LENGTH, tb5_get64(sec + TB5_SEC_LENGTH) + RECORD);
           tb5_put64(sec + TB5_SEC_RECORD_COUNT, tb5_get64(sec + TB5_SEC_RECORD_COUNT) + 1));
    check_damage(path, TBRW_CORRUPT_FILE, where, "declares another content size");
    /* What the directory alone shows is refused at open. */
    DAMAGE(tb5_put32(blk + TB5_BLK_RAW_LENGTH, 32u << 20));
    check_damage(path, TBRW_CORRUPT_FILE, entry, "a zstd frame of");
    /* Two blocks trade a byte: the section's length holds, block 1 is no whole records. */
    DAMAGE(tb5_put32(blk + TB5_BLK_RAW_LENGTH, tb5_get32(blk + TB5_BLK_RAW_LENGTH) + 1);
           tb5_put32(block_entry(&im, sec, 2) + TB5_BLK_RAW_LENGTH,
                     tb5_get32(block_entry(&im, sec, 2) + TB5_BLK_RAW_LENGTH) - 1));
    check_damage(path, TBRW_CORRUPT_FILE, entry, "holds no whole number of 40-byte records");
    DAMAGE(tb5_put32(blk + TB5_BLK_ENCODING, 9));
    check_damage(path, TBRW_CORRUPT_FILE, entry, "encoding 9 is not known");
    DAMAGE(tb5_put32(blk + TB5_BLK_ENCODING, TB5_ENC_STORED));
    check_damage(path, TBRW_CORRUPT_FILE, entry, "stored as is");
    /* A frame past the end of the data (its entry points into the directory). */
    DAMAGE(tb5_put64(blk + TB5_BLK_OFFSET, im.dir - 10));
    check_damage(path, TBRW_CORRUPT_FILE, entry, "outside the data area");
#undef DAMAGE
    free(good);
    free(path);
}

/* tests/fixtures/tb5/v1-plain.tb5: `acart import` of tests/fuzz/make-seeds' "plain"
 * collection, written by format version 1 (3 samples at 0x400100 on CPU 0, 2 at 0x400200
 * on CPU 1, bound). */
static TBRW_U32 check_v1_records(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    const uint8_t *rec = data;
    TBRW_U32 *seen = user;
    for (TBRW_U32 i = 0; i < n; i++, rec += size / n, (*seen)++)
        CHECK(tb5_get32(rec + TB5_LEG_IP) == (*seen < 3 ? 0x400100u : 0x400200u));
    return 1;
}

static TBRW_U32 count_records(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    (void)data, (void)size;
    *(TBRW_U64 *)user += n;
    return 1;
}

static void check_v1(const char *path, TBRW_U32 streams)
{
    struct image im;
    TBRW_U32 seen = 0, n = 0, bound = 0;
    TBRW_PTR p;

    load(path, &im);
    CHECK(tb5_get16(im.bytes + TB5_HDR_VERSION_MAJOR) == TB5_FORMAT_MAJOR_V1);
    CHECK(tb5_get64(im.bytes + im.size - TB5_TRAILER_SIZE + TB5_TRL_DIR_LENGTH) ==
          (uint64_t)im.nsec * TB5_SECTION_ENTRY_SIZE + (uint64_t)im.nblk * TB5_BLOCK_ENTRY_SIZE_V1);
    free(im.bytes);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_get_number_data_streams(p, &n));
    CHECK(n == streams);
    CHECK_OK(TBRW_is_bound(p, 0, &bound));
    CHECK(bound == 1);
    CHECK_OK(TBRW_enumerate_data(p, 0, check_v1_records, &seen, 0));
    CHECK(seen == 5);
    if (streams == 2) {
        TBRW_U64 records = 0;
        CHECK_OK(TBRW_enumerate_data(p, 1, count_records, &records, 0));
        CHECK(records == NSAMPLES);
    }
    CHECK_OK(TBRW_close(p));
}

static void test_version1_file_reads_and_extends(void)
{
    const char *path = tb5_scratch("v1.tb5");
    TBRW_SAMPREC_DESC_ENTRY d;
    TBRW_STREAM_INFO info;
    TBRW_PTR p;

    check_v1(ACART_TB5_V1_FIXTURE, 1);
    {
        struct image im;
        load(ACART_TB5_V1_FIXTURE, &im);
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(im.bytes, 1, (size_t)im.size, f) == (size_t)im.size);
        if (f)
            fclose(f);
        free(im.bytes);
    }
    /* A stream of 8-byte ips that would compress: in a version 1 file it is stored. */
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_OK(TBRW_writing_stream(p, 1));
    memset(&info, 0, sizeof(info));
    info.stream_info_size = sizeof(info);
    info.stream_type = TBRW_CUSTOM_STREAM;
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_set_stream_info(p, 1, &info));
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_EVENT_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_EVENT_DESCRIPTION_SECTION));
    memset(&d, 0, sizeof(d));
    d.desc_size = sizeof(d);
    d.desc_type = ST_IP;
    d.desc_subtype = SST_EIP;
    d.desc_data_size = 8;
    d.desc_name.soi_ptr = (TBRW_CHAR *)L"ip";
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 1, &d));
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_DATA_SECTION));
    for (TBRW_U64 i = 0; i < NSAMPLES; i++) {
        TBRW_U64 ip = 0x400000 + i % 16;
        CHECK_OK(TBRW_add_data(p, 1, sizeof(ip), &ip));
    }
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_DATA_SECTION));
    CHECK_OK(TBRW_done_stream(p, 1));
    CHECK_OK(TBRW_close(p));
    check_v1(path, 2);
    CHECK(fx_file_size(path) > (long)NSAMPLES * 8);
}

/* The byte planes are the format (byte k of record r at k * n + r), whatever the code path:
 * tiles of 16 records by 8 bytes, the bytes past them, the records past the last tile. */
static void test_byte_planes_are_the_documented_layout(void)
{
    enum { N = 37, SIZE = 44 };
    static uint8_t records[N * SIZE], planes[N * SIZE], back[N * SIZE];
    int wrong = 0;

    for (int r = 0; r < N; r++)
        for (int k = 0; k < SIZE; k++)
            records[r * SIZE + k] = (uint8_t)(r * 7 + k * 131);
    tb5_shuffle(records, planes, N, SIZE);
    for (int r = 0; r < N; r++)
        for (int k = 0; k < SIZE; k++)
            wrong += planes[k * N + r] != records[r * SIZE + k];
    CHECK(wrong == 0);
    tb5_unshuffle(planes, back, N, SIZE);
    CHECK(memcmp(back, records, sizeof(records)) == 0);
}

int main(void)
{
    static const struct tb5_test tests[] = {
        TB5_TEST(test_byte_planes_are_the_documented_layout),
        TB5_TEST(test_streams_are_compressed),
        TB5_TEST(test_incompressible_blocks_are_stored),
        TB5_TEST(test_damaged_zstd_blocks_have_precise_errors),
        TB5_TEST(test_version1_file_reads_and_extends),
    };
    return tb5_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
