/*
 * Record counting on data channels (tools/collect/link/collect_records.c): streams of sample and
 * module records cut into pieces of every size give the same counts as whole; a record
 * that makes no sense, or a stream that ends inside a record, is reported with where.
 */
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "acart_check.h"
#include "collect_records.h"

#define CPU        2
#define NUM_EVENTS 2

static const uint32_t sizes[] = {48, 64, 1000};

/* Appends a sample record of descriptor desc for cpu; the bytes past 48 are a pattern. */
static size_t put_sample(uint8_t *buf, uint32_t desc, uint32_t cpu, uint32_t event, uint64_t n)
{
    struct sep_sample_pc r;
    memset(&r, 0, sizeof r);
    r.descriptor_id = desc;
    r.iip = 0x100000 + n;
    r.cpu_and_os = (uint16_t)(cpu | (SEP_MODE_32BIT << SEP_SAMPLE_CODE_MODE_SHIFT));
    r.bit_fields2 = event << SEP_SAMPLE_EVENT_INDEX_SHIFT;
    r.tsc = n;
    memcpy(buf, &r, sizeof r);
    for (size_t i = sizeof r; i < sizes[desc]; i++)
        buf[i] = (uint8_t)(i * 7 + n);
    return sizes[desc];
}

/* Feeds len bytes in pieces of `piece` bytes (the last one shorter). */
static void feed_in_pieces(struct record_scanner *s, const uint8_t *buf, size_t len, size_t piece)
{
    for (size_t at = 0; at < len; at += piece)
        records_feed(s, buf + at, len - at < piece ? len - at : piece);
}

static uint8_t stream[64 * 1024];

static size_t sample_stream(uint64_t *count)
{
    size_t len = 0;
    uint64_t n = 0;
    for (; len + 1000 < sizeof stream / 2; n++)
        len += put_sample(stream + len, (uint32_t)(n % 3 == 2 ? 2 : n % 2), CPU,
                          (uint32_t)(n % NUM_EVENTS), n);
    *count = n;
    return len;
}

static void test_samples_any_pieces(void)
{
    uint64_t expected;
    size_t len = sample_stream(&expected);
    static const size_t pieces[] = {1, 2, 3, 7, 47, 48, 49, 64, 999, 1000, 1001, 4096, 65536};
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
        struct record_scanner s;
        CHECK_EQ(records_init_samples(&s, CPU, sizes, 3, NUM_EVENTS), 0);
        feed_in_pieces(&s, stream, len, pieces[p]);
        CHECK_EQ(records_finish(&s), 0);
        CHECK_EQ(s.records, expected);
        CHECK_EQ(s.offset, len);
        records_free(&s);
    }
}

static void test_samples_truncated(void)
{
    uint64_t expected;
    size_t len = sample_stream(&expected);
    struct record_scanner s;
    CHECK_EQ(records_init_samples(&s, CPU, sizes, 3, NUM_EVENTS), 0);
    feed_in_pieces(&s, stream, len - 5, 100);
    CHECK_EQ(records_finish(&s), -1);
    CHECK_EQ(s.records, expected - 1);
    CHECK(strstr(s.error, "ends") != NULL);
    records_free(&s);

    CHECK_EQ(records_init_samples(&s, CPU, sizes, 3, NUM_EVENTS), 0);
    records_feed(&s, stream, 0);
    CHECK_EQ(records_finish(&s), 0);
    CHECK_EQ(s.records, 0);
    records_free(&s);
}

/* A bad record at record index 5, whatever the pieces: 5 counted, then a message. */
static void check_bad_sample(uint32_t desc, uint32_t cpu, uint32_t event, const char *words)
{
    size_t len = 0;
    for (uint64_t n = 0; n < 5; n++)
        len += put_sample(stream + len, 1, CPU, 0, n);
    size_t bad_at = len;
    struct sep_sample_pc r;
    memset(&r, 0, sizeof r);
    r.descriptor_id = desc;
    r.cpu_and_os = (uint16_t)cpu;
    r.bit_fields2 = event << SEP_SAMPLE_EVENT_INDEX_SHIFT;
    memcpy(stream + len, &r, sizeof r);
    len += 64; /* as if it had descriptor 1's size */
    for (uint64_t n = 6; n < 10; n++)
        len += put_sample(stream + len, 0, CPU, 0, n);
    for (size_t piece = 1; piece < 200; piece += 13) {
        struct record_scanner s;
        CHECK_EQ(records_init_samples(&s, CPU, sizes, 3, NUM_EVENTS), 0);
        feed_in_pieces(&s, stream, len, piece);
        CHECK_EQ(records_finish(&s), -1);
        CHECK_EQ(s.records, 5);
        CHECK_EQ(s.offset, bad_at);
        if (!strstr(s.error, words)) {
            fprintf(stderr, "message \"%s\" lacks \"%s\"\n", s.error, words);
            check_failures++;
        }
        records_free(&s);
    }
}

static void test_bad_samples(void)
{
    check_bad_sample(3, CPU, 0, "descriptor_id 3");
    check_bad_sample(1, CPU + 1, 0, "CPU 3 on the channel of CPU 2");
    check_bad_sample(1, CPU, NUM_EVENTS, "event 2");
}

static size_t put_module(uint8_t *buf, const char *path, int nul)
{
    struct sep_module_record m;
    size_t plen = strlen(path) + 1;
    memset(&m, 0, sizeof m);
    m.rec_length = (uint16_t)((sizeof m + plen + 7) & ~(size_t)7);
    m.path_length = (uint16_t)plen;
    m.load_addr64 = 0x100000;
    memcpy(buf, &m, sizeof m);
    memset(buf + sizeof m, 0, m.rec_length - sizeof m);
    memcpy(buf + sizeof m, path, plen - 1);
    if (!nul)
        buf[sizeof m + plen - 1] = 'x';
    return m.rec_length;
}

static void test_modules(void)
{
    static const char *paths[] = {"a", "acart-qemu-pc.elf", "/lib/libfoo.so.1", "1234567",
                                  "12345678"};
    size_t len = 0;
    for (int round = 0; round < 20; round++)
        for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
            len += put_module(stream + len, paths[i], 1);
    for (size_t piece = 1; piece < 300; piece += 7) {
        struct record_scanner s;
        CHECK_EQ(records_init_modules(&s), 0);
        feed_in_pieces(&s, stream, len, piece);
        CHECK_EQ(records_finish(&s), 0);
        CHECK_EQ(s.records, 100);
        CHECK_EQ(s.offset, len);
        records_free(&s);
    }

    /* A path without its NUL, then a record too short for its path. */
    struct record_scanner s;
    len = put_module(stream, "good", 1);
    len += put_module(stream + len, "bad", 0);
    CHECK_EQ(records_init_modules(&s), 0);
    feed_in_pieces(&s, stream, len, 5);
    CHECK_EQ(records_finish(&s), -1);
    CHECK_EQ(s.records, 1);
    CHECK(strstr(s.error, "NUL") != NULL);
    records_free(&s);

    len = put_module(stream, "good", 1);
    struct sep_module_record m;
    memset(&m, 0, sizeof m);
    m.rec_length = 88;
    m.path_length = 9;
    memcpy(stream + len, &m, sizeof m);
    len += 88;
    CHECK_EQ(records_init_modules(&s), 0);
    records_feed(&s, stream, len);
    CHECK_EQ(records_finish(&s), -1);
    CHECK_EQ(s.records, 1);
    CHECK(strstr(s.error, "cannot hold") != NULL);
    records_free(&s);
}

int main(void)
{
    test_samples_any_pieces();
    test_samples_truncated();
    test_bad_samples();
    test_modules();
    return check_report("test_collect_records");
}
