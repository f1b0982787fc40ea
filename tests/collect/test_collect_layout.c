/*
 * The set-up payloads that say what a sample record holds (tools/collect/setup/collect_layout.c),
 * byte by byte: DESC_NEXT, INIT and EM_GROUPS without call stacks (as `acart collect` always sent
 * them) and with call stacks of 1, 16 and 64 return addresses. The expected bytes are written here
 * at the offsets of the host's x86-64 layout, not through the structures the code under test fills,
 * so a wrong field or a stray byte shows.
 */
#include <string.h>

#include "acart_check.h"
#include "collect_layout.h"

#define DESC_SIZE   112
#define DEVICE_SIZE 4080
#define CONFIG_SIZE 144

static void put_u16(uint8_t *buf, size_t at, uint16_t v)
{
    memcpy(buf + at, &v, sizeof v);
}

static void put_u32(uint8_t *buf, size_t at, uint32_t v)
{
    memcpy(buf + at, &v, sizeof v);
}

static void put_u64(uint8_t *buf, size_t at, uint64_t v)
{
    memcpy(buf + at, &v, sizeof v);
}

static void check_bytes(const char *what, uint32_t depth, const void *got, const uint8_t *want,
                        size_t len)
{
    const uint8_t *g = got;
    for (size_t i = 0; i < len; i++) {
        if (g[i] != want[i]) {
            fprintf(stderr, "%s, depth %u: byte %zu is 0x%02x, expected 0x%02x\n", what,
                    (unsigned)depth, i, g[i], want[i]);
            check_failures++;
            return;
        }
    }
}

static void check_layout(uint32_t depth)
{
    struct collect_layout l;
    CHECK_EQ(collect_layout_init(&l, depth), 0);
    uint32_t stack = 8 * depth, size = 48 + stack, offset = depth ? 48 : 0;
    CHECK_EQ(l.sample_size, size);
    CHECK_EQ(l.callstack_offset, offset);
    CHECK_EQ(l.callstack_size, stack);

    /* DESC_NEXT: sample_size at 0, callstack_offset at 60, callstack_size at 64. */
    static uint8_t want_desc[DESC_SIZE];
    struct sep_event_desc desc;
    CHECK_EQ(sizeof desc, DESC_SIZE);
    memset(want_desc, 0, sizeof want_desc);
    memset(&desc, 0xA5, sizeof desc);
    put_u32(want_desc, 0, size);
    put_u32(want_desc, 60, offset);
    put_u32(want_desc, 64, stack);
    collect_layout_descriptor(&l, &desc);
    check_bytes("DESC_NEXT", depth, &desc, want_desc, DESC_SIZE);

    /* INIT: size, dispatch id 2, results after the record, 4 general counters, the core
     * device, the call stack flag (bit 19 of the 64-bit word at 32), the events. */
    static uint8_t want_dev[DEVICE_SIZE];
    static struct sep_dev_config dev;
    CHECK_EQ(sizeof dev, DEVICE_SIZE);
    memset(want_dev, 0, sizeof want_dev);
    memset(&dev, 0xA5, sizeof dev);
    put_u16(want_dev, 0, DEVICE_SIZE);
    put_u32(want_dev, 4, 2);
    put_u32(want_dev, 16, size);
    put_u32(want_dev, 20, 4);
    put_u32(want_dev, 24, 1);
    put_u64(want_dev, 32, depth ? 1ull << 19 : 0);
    put_u32(want_dev, 4052, 3);
    collect_layout_device(&l, 3, &dev);
    check_bytes("INIT", depth, &dev, want_dev, DEVICE_SIZE);

    /* EM_GROUPS: one group, no multiplexing, the record size, 4 general and 3 fixed
     * counters, the call stack at 96 (offset) and 100 (size). */
    static uint8_t want_config[CONFIG_SIZE];
    struct sep_event_config config;
    CHECK_EQ(sizeof config, CONFIG_SIZE);
    memset(want_config, 0, sizeof want_config);
    memset(&config, 0xA5, sizeof config);
    put_u32(want_config, 0, 1);
    put_u32(want_config, 4, 0xFFFFFFFFu);
    put_u32(want_config, 8, 0xFFFFFFFFu);
    put_u32(want_config, 12, 0xFFFFFFFFu);
    put_u32(want_config, 16, size);
    put_u32(want_config, 20, 4);
    put_u32(want_config, 24, 3);
    put_u32(want_config, 96, offset);
    put_u32(want_config, 100, stack);
    collect_layout_event_config(&l, &config);
    check_bytes("EM_GROUPS", depth, &config, want_config, CONFIG_SIZE);
}

int main(void)
{
    check_layout(0);
    check_layout(1);
    check_layout(COLLECT_CALLSTACK_DEFAULT_DEPTH);
    check_layout(COLLECT_CALLSTACK_MAX_DEPTH);
    CHECK_EQ(COLLECT_CALLSTACK_DEFAULT_DEPTH, 16);
    CHECK_EQ(COLLECT_CALLSTACK_MAX_DEPTH, 64);

    struct collect_layout l = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK_EQ(collect_layout_init(&l, COLLECT_CALLSTACK_MAX_DEPTH + 1), -1);

    /* LBRs after the call stack: the descriptor, INIT and EM_GROUPS say where. */
    struct sep_event_desc desc;
    struct sep_dev_config dev;
    struct sep_event_config ec;
    CHECK_EQ(collect_layout_init(&l, 4), 0);
    collect_layout_add_lbr(&l, 97);
    CHECK_EQ(l.lbr_offset, 48 + 32);
    CHECK_EQ(l.sample_size, 48 + 32 + 97 * 8);
    collect_layout_descriptor(&l, &desc);
    CHECK_EQ(desc.lbr_offset, 80);
    CHECK_EQ(desc.lbr_num_regs, 97);
    CHECK_EQ(desc.sample_size, l.sample_size);
    collect_layout_device(&l, 1, &dev);
    CHECK_EQ(dev.enable_bit_fields,
             SEP_DEV_CFG_COLLECT_OS_CALLSTACKS | SEP_DEV_CFG_COLLECT_LBRS | SEP_DEV_CFG_STORE_LBRS);
    collect_layout_event_config(&l, &ec);
    CHECK_EQ(ec.lbr_offset, 80);
    CHECK_EQ(ec.lbr_num_regs, 97);

    /* Memory information of load-latency samples (the reference's latency_offset_in_sample,
     * at byte 20 of the descriptor, its size at 24; also in EM_GROUPS): after the call stack,
     * before the LBRs, and INIT's latency-capture flag (bit 4). */
    uint8_t raw[sizeof desc];
    CHECK_EQ(collect_layout_init(&l, 4), 0);
    collect_layout_add_latency(&l);
    collect_layout_add_lbr(&l, 1);
    CHECK_EQ(l.latency_offset, 80);
    CHECK_EQ(l.latency_size, 40);
    CHECK_EQ(l.lbr_offset, 120);
    CHECK_EQ(l.sample_size, 128);
    collect_layout_descriptor(&l, &desc);
    memcpy(raw, &desc, sizeof raw);
    CHECK_EQ(raw[20], 80);
    CHECK_EQ(raw[24], 40);
    collect_layout_device(&l, 1, &dev);
    CHECK_EQ(dev.enable_bit_fields, SEP_DEV_CFG_COLLECT_OS_CALLSTACKS | SEP_DEV_CFG_COLLECT_LBRS |
                                        SEP_DEV_CFG_STORE_LBRS | SEP_DEV_CFG_LATENCY_CAPTURE);
    collect_layout_event_config(&l, &ec);
    CHECK_EQ(ec.latency_offset_in_sample, 80);
    CHECK_EQ(ec.latency_size_in_sample, 40);

    /* A stack copy (--callstack=dwarf) ends the record, 8-byte aligned, and is placed by the
     * descriptor's reserved2 (offset, byte 96) and reserved3 (size, byte 104): acart's
     * extension (acart_ext.h). Without it both stay zero, as VTune sends them. */
    CHECK_EQ(desc.reserved2, 0);
    CHECK_EQ(desc.reserved3, 0);
    CHECK_EQ(collect_layout_init(&l, 0), 0);
    collect_layout_add_lbr(&l, 1);
    collect_layout_add_stack_copy(&l, 2048);
    CHECK_EQ(l.stack_copy_offset, 56);
    CHECK_EQ(l.stack_copy_size, ACART_STACK_COPY_HEAD + 2048);
    CHECK_EQ(l.sample_size, 56 + 208 + 2048);
    collect_layout_descriptor(&l, &desc);
    memcpy(raw, &desc, sizeof raw);
    CHECK_EQ(raw[96], 56);
    CHECK_EQ(raw[104] | raw[105] << 8, 208 + 2048);
    CHECK_EQ(desc.sample_size, l.sample_size);
    return check_report("test_collect_layout");
}
