/*
 * test_strings.c - UTF-8/wide conversion (9.4), unique-id strings (9.1, FAQ 7.6),
 * and the on-disk record tables (each adds up to its documented record size).
 */
#include <string.h>

#include "tb5_internal.h"
#include "tb5_test.h"

static void test_utf8_to_wide(void)
{
    const char *s = "a\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"; /* a é 中 😀 */
    wchar_t w[8];
    TBRW_U32 n = 0;

    CHECK_RC(TBRW_convert_utf8_to_wcs(s, NULL, &n), TBRW_BUFFER_TOO_SMALL);
    CHECK(n == (sizeof(wchar_t) == 4 ? 5 : 6));
    n = 2;
    CHECK_RC(TBRW_convert_utf8_to_wcs(s, w, &n), TBRW_BUFFER_TOO_SMALL);
    n = 8;
    CHECK_OK(TBRW_convert_utf8_to_wcs(s, w, &n));
    CHECK(w[0] == L'a' && w[1] == 0xE9 && w[2] == 0x4E2D);
    if (sizeof(wchar_t) == 4)
        CHECK((unsigned)w[3] == 0x1F600 && w[4] == 0);
    n = 8;
    CHECK_RC(TBRW_convert_utf8_to_wcs("\xc0\x80", w, &n), TBRW_INVALID_STRING);     /* overlong */
    CHECK_RC(TBRW_convert_utf8_to_wcs("\xed\xa0\x80", w, &n), TBRW_INVALID_STRING); /* surrogate */
    CHECK_RC(TBRW_convert_utf8_to_wcs("\xe4\xb8", w, &n), TBRW_INVALID_STRING);     /* cut short */
    CHECK_RC(TBRW_convert_utf8_to_wcs("\xf4\x90\x80\x80", w, &n), TBRW_INVALID_STRING);
    CHECK_RC(TBRW_convert_utf8_to_wcs(NULL, w, &n), TBRW_UNEXPECTED_NULL_PTR);
}

static void test_wide_to_utf8(void)
{
    char u[16];
    TBRW_U32 n = 0;

    CHECK_RC(TBRW_convert_wcs_to_utf8(L"a\u00e9\u4e2d", NULL, &n), TBRW_BUFFER_TOO_SMALL);
    CHECK(n == 7);
    CHECK_OK(TBRW_convert_wcs_to_utf8(L"a\u00e9\u4e2d", u, &n));
    CHECK(strcmp(u, "a\xc3\xa9\xe4\xb8\xad") == 0 && n == 7);
    n = sizeof(u);
    CHECK_OK(TBRW_convert_wcs_to_utf8(L"", u, &n));
    CHECK(n == 1 && u[0] == 0);
    if (sizeof(wchar_t) == 4) {
        const wchar_t bad[] = {0xD800, 0};
        n = sizeof(u);
        CHECK_RC(TBRW_convert_wcs_to_utf8(bad, u, &n), TBRW_INVALID_STRING);
    }
}

static void test_unique_ids(void)
{
    const char *path = tb5_scratch("strings.tb5");
    TBRW_HOST host = {0};
    TBRW_U32 need = 0;
    wchar_t buf[64];
    TBRW_STRING_OR_ID bogus;
    TBRW_PTR p;

    host.host_size = sizeof(host);
    host.host_name.soi_ptr = (TBRW_CHAR *)L"h\u00f6st";
    host.host_ip_address.soi_ptr = NULL; /* no string */
    CHECK_OK(
        TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    CHECK_OK(TBRW_writing_section(p, TBRW_SOFTWARE_SECTION));
    CHECK_OK(TBRW_set_host(p, &host));
    CHECK_OK(TBRW_done_section(p, TBRW_SOFTWARE_SECTION));
    /* Readable before close (the string is not yet in the file). */
    memset(&host, 0, sizeof(host));
    CHECK_OK(TBRW_get_host(p, sizeof(host), &host, NULL));
    CHECK(host.host_name.soi_uniqueid & TBRW_UNIQUEID_TAG);
    CHECK(strcmp(fx_string(p, host.host_name), "h\xc3\xb6st") == 0);
    CHECK_OK(TBRW_close(p));

    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_get_host(p, sizeof(host), &host, NULL));
    CHECK_RC(TBRW_convert_uniqueid_to_string(p, 0, &host.host_name, NULL, &need),
             TBRW_BUFFER_TOO_SMALL);
    CHECK(need == 5 * sizeof(wchar_t));
    CHECK_RC(TBRW_convert_uniqueid_to_string(p, need - 1, &host.host_name, buf, NULL),
             TBRW_BUFFER_TOO_SMALL);
    CHECK_OK(TBRW_convert_uniqueid_to_string(p, sizeof(buf), &host.host_name, buf, &need));
    CHECK(wcscmp(buf, L"h\u00f6st") == 0);
    /* FAQ 7.6: the NULL string has id 0, which is an invalid string */
    CHECK(host.host_ip_address.soi_uniqueid == 0);
    CHECK_RC(TBRW_convert_uniqueid_to_string(p, sizeof(buf), &host.host_ip_address, buf, NULL),
             TBRW_INVALID_STRING);
    bogus.soi_uniqueid = 12345; /* not tagged as an id */
    CHECK_RC(TBRW_convert_uniqueid_to_string(p, sizeof(buf), &bogus, buf, NULL),
             TBRW_INVALID_STRING);
    bogus.soi_uniqueid = TBRW_UNIQUEID_TAG | 1000000; /* past the pool */
    CHECK_RC(TBRW_convert_uniqueid_to_string(p, sizeof(buf), &bogus, buf, NULL),
             TBRW_INVALID_STRING);
    CHECK_OK(TBRW_close(p));
}

static void test_record_tables_match_sizes(void)
{
    for (size_t i = 0; i < tb5_num_codecs; i++) {
        const struct tb5_codec *c = tb5_all_codecs[i];
        if (tb5_codec_span(c) != c->disk_size)
            fprintf(stderr, "%s: fields add up to %u, record is %u\n", c->name, tb5_codec_span(c),
                    c->disk_size);
        CHECK(tb5_codec_span(c) == c->disk_size);
    }
}

static void test_record_encoding_is_little_endian(void)
{
    TBRW_MODULE m = fx_module(0x01020304, 0x1122334455667788ULL, 0x10, 0x99, 0x77, 0, NULL);
    uint8_t rec[TB5_REC_MODULE];
    TBRW_MODULE back;

    m.module_segment_type = TBRW_MODE_64BIT;
    m.module_name.soi_uniqueid = TBRW_UNIQUEID_TAG | 0x42;
    m.module_path.soi_uniqueid = 0;
    m.module_segment_name.soi_uniqueid = 0;
    CHECK_OK(tb5_encode(&tb5_codec_module, &m, rec, NULL, NULL));
    CHECK(rec[8] == 0x04 && rec[11] == 0x01);          /* module_associated_pid */
    CHECK(rec[28] == TBRW_MODE_64BIT && rec[29] == 0); /* the segment type word */
    CHECK(rec[48] == 0x88 && rec[55] == 0x11);         /* module_load_address */
    CHECK(rec[88] == 0x42 && rec[95] == 0x80);         /* module_name id, bit 63 set */
    tb5_decode(&tb5_codec_module, rec, &back);
    CHECK(back.module_load_address == m.module_load_address);
    CHECK(back.module_segment_type == TBRW_MODE_64BIT);
    CHECK(back.module_name.soi_uniqueid == m.module_name.soi_uniqueid);
    CHECK(tb5_crc32c(0, "123456789", 9) == 0xE3069283); /* the CRC-32C check value */
}

/* Bit by bit, from the definition: what every faster way must give. */
static uint32_t crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

/* Long buffers go through three lanes joined at the end (crc32c.c); lengths around the
 * lanes' threshold and split across calls, from unaligned starts. */
static void test_crc32c_long_buffers(void)
{
    static uint8_t buf[100003];
    static const size_t lengths[] = {0, 7, 8191, 8192, 8193, 24579, 65536, 100000};
    uint32_t x = 12345;
    int wrong = 0;

    for (size_t i = 0; i < sizeof(buf); i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (uint8_t)(x >> 16);
    }
    for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
        size_t n = lengths[i];
        uint32_t want = crc32c_bitwise(0, buf + 3, n);
        wrong += tb5_crc32c(0, buf + 3, n) != want;
        wrong += tb5_crc32c(tb5_crc32c(0, buf + 3, n / 3), buf + 3 + n / 3, n - n / 3) != want;
    }
    CHECK(wrong == 0);
}

int main(void)
{
    static const struct tb5_test tests[] = {
        TB5_TEST(test_utf8_to_wide),
        TB5_TEST(test_wide_to_utf8),
        TB5_TEST(test_unique_ids),
        TB5_TEST(test_crc32c_long_buffers),
        TB5_TEST(test_record_tables_match_sizes),
        TB5_TEST(test_record_encoding_is_little_endian),
    };
    return tb5_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
