/*
 * Round trip of every wire structure in acart_wire.h: fill the fields, serialize with
 * memcpy, check the bytes at the offsets the host uses (literal numbers taken from the
 * host's layout, not offsetof), then deserialize into a fresh struct and read back.
 */
#include <string.h>

#include "acart_check.h"
#include "acart_wire.h"
#include "wire_image.h"

/* Serializes s into buf (the wire image: the structure's bytes as they go on TCP) and
 * decodes buf into back. The image is then tracked: by the next ROUND_TRIP or the end of
 * the test, every byte of it that carries a value must have been checked at its protocol
 * offset (wire_le, wire_bytes), or the test fails. */
#define ROUND_TRIP(s, buf, back)                                                                   \
    do {                                                                                           \
        _Static_assert(sizeof(buf) == sizeof(s), "buffer size");                                   \
        memcpy((buf), &(s), sizeof(s));                                                            \
        wire_track((buf), sizeof(buf));                                                            \
        memset(&(back), 0xA5, sizeof(back));                                                       \
        memcpy(&(back), (buf), sizeof(buf));                                                       \
    } while (0)

static void test_first_msg(void)
{
    struct sep_first_msg m = {0}, back;
    uint8_t b[24];
    m.msg_size = 24;
    m.proto_version = SEP_PROTOCOL_VERSION;
    m.per_cpu_buffer_size = 0x10000;
    m.reserved1 = 0x11223344;
    m.reserved2 = 0x0102030405060708ull;
    ROUND_TRIP(m, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 24);
    CHECK_EQ(wire_le(b, 4, 4), 6);
    CHECK_EQ(wire_le(b, 8, 4), 0x10000);
    CHECK_EQ(wire_le(b, 12, 4), 0x11223344);
    CHECK_EQ(wire_le(b, 16, 8), 0x0102030405060708ull);
    CHECK_EQ(back.per_cpu_buffer_size, 0x10000);
}

static void test_target_status(void)
{
    struct sep_target_status m = {0}, back;
    uint8_t b[296];
    m.msg_size = 296;
    m.proto_version = 6;
    m.status = -5;
    m.os_info_offset = 48;
    m.os_info_size = 200;
    m.collect_switch_offset = 248;
    m.collect_switch_size = 8;
    m.hardware_info_offset = 256;
    m.hardware_info_size = 40;
    m.os_info.os_family = 7;
    memcpy(m.os_info.sysname, "acart", 6);
    memcpy(m.os_info.release, "1.0", 4);
    memcpy(m.os_info.version, "qemu-pc", 8);
    m.collect_switch.bits = SEP_SWITCH_UNCORE_SUPPORTED | SEP_SWITCH_DATA_TRANSFER_MODE |
                            (SEP_AGENT_GUEST_VM << SEP_SWITCH_AGENT_MODE_SHIFT);
    m.hardware_info.num_cpus = 4;
    m.hardware_info.family = 6;
    m.hardware_info.model = 0x55;
    m.hardware_info.stepping = 4;
    m.hardware_info.tsc_freq = 2100000000ull;
    ROUND_TRIP(m, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 296);
    CHECK_EQ(wire_le(b, 4, 4), 6);
    CHECK_EQ(wire_le(b, 8, 4), 0xFFFFFFFBu);
    CHECK_EQ(wire_le(b, 24, 4), 48);
    CHECK_EQ(wire_le(b, 28, 4), 200);
    CHECK_EQ(wire_le(b, 32, 4), 248);
    CHECK_EQ(wire_le(b, 36, 4), 8);
    CHECK_EQ(wire_le(b, 40, 4), 256);
    CHECK_EQ(wire_le(b, 44, 4), 40);
    CHECK_EQ(wire_le(b, 48, 4), 7);
    CHECK(wire_bytes(b, 56, "acart", 6));
    CHECK(wire_bytes(b, 120, "1.0", 4));
    CHECK(wire_bytes(b, 184, "qemu-pc", 8));
    /* bit 5 uncore, bits 7:6 agent mode 2, bit 9 delayed transfer */
    CHECK_EQ(wire_le(b, 248, 4), (1u << 5) | (2u << 6) | (1u << 9));
    CHECK_EQ(wire_le(b, 256, 4), 4);
    CHECK_EQ(wire_le(b, 260, 4), 6);
    CHECK_EQ(wire_le(b, 264, 4), 0x55);
    CHECK_EQ(wire_le(b, 268, 4), 4);
    CHECK_EQ(wire_le(b, 272, 8), 2100000000ull);
    CHECK_EQ(back.hardware_info.tsc_freq, 2100000000ull);
    CHECK_EQ(back.status, -5);
}

static void test_data_first_msg(void)
{
    struct sep_data_first_msg m = {6, SEP_DATA_UNCORE, 3}, back;
    uint8_t b[8];
    ROUND_TRIP(m, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 6);
    CHECK_EQ(wire_le(b, 4, 2), 2);
    CHECK_EQ(wire_le(b, 6, 2), 3);
    CHECK_EQ(back.data_id, 3);
}

static void test_ctrl_header(void)
{
    struct sep_ctrl_header h = {0}, back;
    uint8_t b[48];
    h.header_size = 48;
    h.proto_version = 6;
    h.command_id = SEP_OP_EM_CONFIG_NEXT;
    h.status = SEP_STATUS_DRIVER_COMM_FAILED;
    h.to_target_data_size = 4720;
    h.from_target_data_size = 0x1122334455667788ull;
    h.reserved1 = 1;
    h.reserved2 = 2;
    ROUND_TRIP(h, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 48);
    CHECK_EQ(wire_le(b, 4, 4), 6);
    CHECK_EQ(wire_le(b, 8, 4), 25);
    CHECK_EQ(wire_le(b, 12, 4), 159);
    CHECK_EQ(wire_le(b, 16, 8), 4720);
    CHECK_EQ(wire_le(b, 24, 8), 0x1122334455667788ull);
    CHECK_EQ(wire_le(b, 32, 8), 1);
    CHECK_EQ(wire_le(b, 40, 8), 2);
    CHECK_EQ(back.to_target_data_size, 4720);
}

static void test_ctrl_response(void)
{
    uint8_t b[48];
    struct sep_ctrl_header ok = sep_ctrl_response(SEP_OP_VERSION, SEP_STATUS_SUCCESS, 4);
    memcpy(b, &ok, sizeof b);
    CHECK_EQ(wire_le(b, 0, 4), 48);
    CHECK_EQ(wire_le(b, 4, 4), SEP_PROTOCOL_VERSION);
    CHECK_EQ(wire_le(b, 8, 4), 51);
    CHECK_EQ(wire_le(b, 12, 4), 0);
    CHECK_EQ(wire_le(b, 16, 8), 0);
    CHECK_EQ(wire_le(b, 24, 8), 4);
    CHECK_EQ(wire_le(b, 32, 8) | wire_le(b, 40, 8), 0);

    /* A failed response carries no payload, whatever the handler would have sent. */
    struct sep_ctrl_header bad =
        sep_ctrl_response(SEP_OP_GET_THREAD_COUNT, SEP_STATUS_DRIVER_COMM_FAILED, 4);
    memcpy(b, &bad, sizeof b);
    CHECK_EQ(wire_le(b, 8, 4), 88);
    CHECK_EQ(wire_le(b, 12, 4), 159);
    CHECK_EQ(wire_le(b, 24, 8), 0);
}

static void test_drv_version_and_setup(void)
{
    struct sep_drv_version v = {5, 17, 5, 0}, vback;
    uint8_t vb[4];
    ROUND_TRIP(v, vb, vback);
    CHECK_EQ(wire_le(vb, 0, 4), 0x00051105u);

    struct sep_drv_setup_info s = {0}, sback;
    uint8_t sb[32];
    s.modes = SEP_SETUP_NMI_MODE | SEP_SETUP_PEBS_ACCESSIBLE | (2ull << SEP_SETUP_DRV_TYPE_SHIFT);
    s.reserved4 = 0xABCDull;
    ROUND_TRIP(s, sb, sback);
    CHECK_EQ(wire_le(sb, 0, 8), 1u | (1u << 11) | (2u << 21));
    CHECK_EQ(wire_le(sb, 24, 8), 0xABCD);
}

static void test_platform_info(void)
{
    static struct sep_platform_info p, back;
    static uint8_t b[15440];
    memset(&p, 0, sizeof p);
    p.info = 0x80838F1011500ull;
    p.ddr_freq_index = 3;
    p.misc_valid = 1;
    p.vmm_timer_freq = 1000;
    p.misc_info = 0x850089;
    p.ufs_freq = 9;
    p.dimm_info[0].platform_id = 0x11;
    p.dimm_info[0].socket_num = 0x22;
    p.dimm_info[SEP_NUM_DIMMS - 1].reserved2 = 0x33;
    p.energy_multiplier = 14;
    p.reserved6 = 0x44;
    ROUND_TRIP(p, b, back);
    CHECK_EQ(wire_le(b, 0, 8), 0x80838F1011500ull);
    CHECK_EQ(wire_le(b, 8, 8), 3);
    CHECK_EQ(wire_le(b, 16, 1), 1);
    CHECK_EQ(wire_le(b, 20, 4), 1000);
    CHECK_EQ(wire_le(b, 24, 8), 0x850089);
    CHECK_EQ(wire_le(b, 32, 8), 9);
    CHECK_EQ(wire_le(b, 40, 4), 0x11);
    CHECK_EQ(wire_le(b, 40 + 22, 2), 0x22);
    CHECK_EQ(wire_le(b, 40 + 383 * 40 + 32, 8), 0x33);
    CHECK_EQ(wire_le(b, 15400, 8), 14);
    CHECK_EQ(wire_le(b, 15432, 8), 0x44);
    CHECK_EQ(back.energy_multiplier, 14);
}

static void test_log_control(void)
{
    struct sep_driver_log_control c = {0}, back;
    uint8_t b[296];
    c.command = SEP_LOG_CONTROL_ADJUST_VERBOSITY;
    c.data[0] = 0xFE;
    c.data[255] = 0xFF;
    c.reserved2 = 0x77;
    c.reserved5 = 0x88;
    ROUND_TRIP(c, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 1);
    CHECK_EQ(wire_le(b, 8, 1), 0xFE);
    CHECK_EQ(wire_le(b, 263, 1), 0xFF);
    CHECK_EQ(wire_le(b, 264, 8), 0x77);
    CHECK_EQ(wire_le(b, 288, 8), 0x88);
}

static void test_drv_config(void)
{
    struct sep_drv_config c = {0}, back;
    uint8_t b[104];
    /* The values the conformance suite sends with INIT_DRIVER. */
    c.size = 120;
    c.version = 1;
    c.num_events = 1;
    c.seed_name_len = 5;
    c.seed_name = 0x00007FFF12345678ull;
    c.cpu_mask = 0x00007FFF9ABCDEF0ull;
    c.collection_config = SEP_DRV_CFG_READ_PSTATE_MSRS | SEP_DRV_CFG_DS_AREA_AVAILABLE;
    c.target_pid = 42;
    c.os_of_interest = 3;
    c.unc_timer_interval = 10;
    c.unc_em_factor = 100;
    c.p_state_trigger_index = -1;
    c.multi_pebs_enabled = 1;
    c.emon_timer_interval = 7;
    c.unc_collect_in_intr_enabled = 1;
    c.reserved6 = 0x66;
    ROUND_TRIP(c, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 120);
    CHECK_EQ(wire_le(b, 4, 2), 1);
    CHECK_EQ(wire_le(b, 8, 4), 1);
    CHECK_EQ(wire_le(b, 20, 4), 5);
    CHECK_EQ(wire_le(b, 24, 8), 0x00007FFF12345678ull);
    CHECK_EQ(wire_le(b, 32, 8), 0x00007FFF9ABCDEF0ull);
    CHECK_EQ(wire_le(b, 40, 8), 17408); /* 0x4400, the suite's own comment */
    CHECK_EQ(wire_le(b, 48, 8), 42);
    CHECK_EQ(wire_le(b, 56, 4), 3);
    CHECK_EQ(wire_le(b, 60, 2), 10);
    CHECK_EQ(wire_le(b, 62, 2), 100);
    CHECK_EQ(wire_le(b, 64, 4), 0xFFFFFFFFu);
    CHECK_EQ(wire_le(b, 68, 4), 1);
    CHECK_EQ(wire_le(b, 72, 4), 7);
    CHECK_EQ(wire_le(b, 76, 4), 1);
    CHECK_EQ(wire_le(b, 96, 8), 0x66);
    CHECK_EQ(back.p_state_trigger_index, -1);
}

static void test_dev_config(void)
{
    static struct sep_dev_config c, back;
    static uint8_t b[4080];
    memset(&c, 0, sizeof c);
    /* The values the conformance suite sends with INIT. */
    c.dispatch_id = 2;
    c.results_offset = 48;
    c.max_gp_counters = 4;
    c.pebs_mode = 1;
    c.enable_bit_fields = SEP_DEV_CFG_COLLECT_LBRS | SEP_DEV_CFG_COLLECT_OS_CALLSTACKS;
    c.emon_unc_offset[0] = 0xA1;
    c.emon_unc_offset[SEP_MAX_EMON_GROUPS - 1] = 0xA2;
    c.ebc_group_id_offset = 0xB1;
    c.num_perf_metrics = 4;
    c.emon_perf_metrics_offset = 0x1234;
    c.device_scope = 2;
    c.num_events = 1;
    c.device_index = 3;
    c.reserved4 = 0x99;
    ROUND_TRIP(c, b, back);
    CHECK_EQ(wire_le(b, 4, 4), 2);
    CHECK_EQ(wire_le(b, 8, 4), 1);
    CHECK_EQ(wire_le(b, 16, 4), 48);
    CHECK_EQ(wire_le(b, 20, 4), 4);
    CHECK_EQ(wire_le(b, 32, 8), (1u << 1) | (1u << 19));
    CHECK_EQ(wire_le(b, 40, 4), 0xA1);
    CHECK_EQ(wire_le(b, 40 + 999 * 4, 4), 0xA2);
    CHECK_EQ(wire_le(b, 4040, 4), 0xB1);
    CHECK_EQ(wire_le(b, 4044, 1), 4);
    CHECK_EQ(wire_le(b, 4046, 2), 0x1234);
    CHECK_EQ(wire_le(b, 4048, 4), 2);
    CHECK_EQ(wire_le(b, 4052, 4), 1);
    CHECK_EQ(wire_le(b, 4056, 2), 3);
    CHECK_EQ(wire_le(b, 4072, 8), 0x99);
    CHECK_EQ(back.device_index, 3);
}

static void test_dev_unc_config(void)
{
    static struct sep_dev_unc_config c, back;
    static uint8_t b[4048];
    memset(&c, 0, sizeof c);
    c.dispatch_id = 120;
    c.results_offset = 32;
    c.device_type = 1;
    c.num_events = 2;
    c.emon_unc_offset[1] = 5;
    c.device_index = 1;
    c.num_units = 4;
    c.reserved3 = 0x31;
    ROUND_TRIP(c, b, back);
    CHECK_EQ(wire_le(b, 4, 4), 120);
    CHECK_EQ(wire_le(b, 8, 4), 32);
    CHECK_EQ(wire_le(b, 12, 4), 1);
    CHECK_EQ(wire_le(b, 20, 4), 2);
    CHECK_EQ(wire_le(b, 28, 4), 5);
    CHECK_EQ(wire_le(b, 4024, 2), 1);
    CHECK_EQ(wire_le(b, 4026, 2), 4);
    CHECK_EQ(wire_le(b, 4040, 8), 0x31);
}

static void test_cpu_topology(void)
{
    struct sep_cpu_topology t[2], back[2];
    uint8_t b[144];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 2; i++) {
        t[i].cpu_number = (uint32_t)i;
        t[i].socket_master = i == 0;
        t[i].core_master = 1;
        t[i].thr_master = 1;
        t[i].cpu_module_num = (uint32_t)i;
        t[i].cpu_module_master = 1;
        t[i].cpu_num_modules = 2;
        t[i].arch_perfmon_ver = 4;
        t[i].num_gp_counters = 4;
        t[i].num_fixed_counters = 3;
        t[i].reserved4 = 0x1000u + (uint64_t)i;
    }
    ROUND_TRIP(t, b, back);
    CHECK_EQ(wire_le(b, 72 + 0, 4), 1);
    CHECK_EQ(wire_le(b, 12, 4), 1);
    CHECK_EQ(wire_le(b, 72 + 12, 4), 0);
    CHECK_EQ(wire_le(b, 72 + 24, 4), 1);
    CHECK_EQ(wire_le(b, 32, 4), 2);
    CHECK_EQ(wire_le(b, 40, 4), 4);
    CHECK_EQ(wire_le(b, 44, 4), 4);
    CHECK_EQ(wire_le(b, 48, 4), 3);
    CHECK_EQ(wire_le(b, 72 + 64, 8), 0x1001);
    for (unsigned k = 0; k < 2; k++) { /* the flags and counts every entry carries */
        CHECK_EQ(wire_le(b, 72 * k + 16, 4), 1);
        CHECK_EQ(wire_le(b, 72 * k + 20, 4), 1);
        CHECK_EQ(wire_le(b, 72 * k + 28, 4), 1);
        CHECK_EQ(wire_le(b, 72 * k + 32, 4), 2);
        CHECK_EQ(wire_le(b, 72 * k + 40, 4), 4);
        CHECK_EQ(wire_le(b, 72 * k + 44, 4), 4);
        CHECK_EQ(wire_le(b, 72 * k + 48, 4), 3);
    }
    CHECK_EQ(wire_le(b, 64, 8), 0x1000);
}

static void test_event_config(void)
{
    struct sep_event_config c = {0}, back;
    uint8_t b[144];
    /* The values the conformance suite sends with EM_GROUPS. */
    c.num_groups = 1;
    c.em_mode = SEP_EM_DISABLED;
    c.em_factor = -1;
    c.em_event_num = -1;
    c.sample_size = 48;
    c.max_gp_events = 4;
    c.max_fixed_counters = 3;
    c.lbr_offset = 0x44;
    c.num_groups_unc = 1;
    c.pebs_tsc_offset = 0x55;
    c.reserved4 = 0x66;
    ROUND_TRIP(c, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 1);
    CHECK_EQ(wire_le(b, 4, 4), 0xFFFFFFFFu);
    CHECK_EQ(wire_le(b, 8, 4), 0xFFFFFFFFu);
    CHECK_EQ(wire_le(b, 12, 4), 0xFFFFFFFFu);
    CHECK_EQ(wire_le(b, 16, 4), 48);
    CHECK_EQ(wire_le(b, 20, 4), 4);
    CHECK_EQ(wire_le(b, 24, 4), 3);
    CHECK_EQ(wire_le(b, 40, 4), 0x44);
    CHECK_EQ(wire_le(b, 72, 4), 1);
    CHECK_EQ(wire_le(b, 108, 4), 0x55);
    CHECK_EQ(wire_le(b, 136, 8), 0x66);
    CHECK_EQ(back.em_mode, -1);
}

static void test_event_desc(void)
{
    struct sep_event_desc d = {0}, back;
    uint8_t b[112];
    d.sample_size = 48;
    d.lbr_offset = 48;
    d.lbr_num_regs = 32;
    d.uncore_ebc_offset = 32;
    d.perfmetrics_size = 8;
    d.applicable_counters_offset = 0x10;
    d.lbr_info_size = 0x20;
    d.reserved3 = 0x30;
    ROUND_TRIP(d, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 48);
    CHECK_EQ(wire_le(b, 12, 4), 48);
    CHECK_EQ(wire_le(b, 16, 4), 32);
    CHECK_EQ(wire_le(b, 44, 4), 32);
    CHECK_EQ(wire_le(b, 80, 4), 8);
    CHECK_EQ(wire_le(b, 84, 2), 0x10);
    CHECK_EQ(wire_le(b, 94, 2), 0x20);
    CHECK_EQ(wire_le(b, 104, 8), 0x30);
}

static void test_ecb_header_and_entry(void)
{
    static struct sep_ecb_header h, back;
    static uint8_t b[1728];
    memset(&h, 0, sizeof h);
    h.version = SEP_ECB_VERSION;
    h.num_entries = 21;
    h.group_id = 2;
    h.num_events = 1;
    h.cccr_start = 0;
    h.cccr_pop = 9;
    h.escr_start = 16;
    h.escr_pop = 5;
    h.data_start = 9;
    h.data_pop = 7;
    h.flags = SEP_ECB_BL_BYPASS;
    h.pmu_timer_interval = 3;
    h.size_of_allocation = 4720;
    h.pcidev_entry_node.bar_mask = 0x7FFFFF8000ull;
    h.num_pci_devices = 1;
    h.pcidev_entry_list = 0xFFFF888000000000ull;
    h.device_type = SEP_DEVICE_CORE;
    h.operations[SEP_PMU_OP_GLOBAL_STATUS].operation_type = SEP_PMU_OP_GLOBAL_STATUS;
    h.operations[SEP_PMU_OP_GLOBAL_STATUS].register_start = 21;
    h.operations[SEP_PMU_OP_GLOBAL_STATUS].register_len = 1;
    h.descriptor_id = 1;
    h.metric_start = 4;
    h.metric_pop = 5;
    h.mmio_bar_list[7].reserved10 = 0x10;
    h.num_mmio_secondary_bar = 2;
    h.reserved8 = 0x88;
    ROUND_TRIP(h, b, back);
    CHECK_EQ(wire_le(b, 0, 1), 2);
    CHECK_EQ(wire_le(b, 4, 4), 21);
    CHECK_EQ(wire_le(b, 8, 4), 2);
    CHECK_EQ(wire_le(b, 20, 4), 9);
    CHECK_EQ(wire_le(b, 12, 4), 1);
    CHECK_EQ(wire_le(b, 28, 4), 5);
    CHECK_EQ(wire_le(b, 24, 4), 16);
    CHECK_EQ(wire_le(b, 32, 4), 9);
    CHECK_EQ(wire_le(b, 36, 4), 7);
    CHECK_EQ(wire_le(b, 40, 2), 2);
    CHECK_EQ(wire_le(b, 42, 1), 3);
    CHECK_EQ(wire_le(b, 44, 4), 4720);
    CHECK_EQ(wire_le(b, 56 + 16, 8), 0x7FFFFF8000ull);
    CHECK_EQ(wire_le(b, 192, 4), 1);
    CHECK_EQ(wire_le(b, 200, 8), 0xFFFF888000000000ull);
    CHECK_EQ(wire_le(b, 208, 4), 1);
    CHECK_EQ(wire_le(b, 216 + 17 * 24, 4), 17);
    CHECK_EQ(wire_le(b, 216 + 17 * 24 + 4, 4), 21);
    CHECK_EQ(wire_le(b, 216 + 17 * 24 + 8, 4), 1);
    CHECK_EQ(wire_le(b, 984, 4), 1);
    CHECK_EQ(wire_le(b, 992, 4), 4);
    CHECK_EQ(wire_le(b, 996, 4), 5);
    CHECK_EQ(wire_le(b, 1000 + 7 * 88 + 80, 8), 0x10);
    CHECK_EQ(wire_le(b, 1704, 4), 2);
    CHECK_EQ(wire_le(b, 1720, 8), 0x88);

    struct sep_event_reg e = {0}, eback;
    uint8_t eb[136];
    e.reg_type = SEP_REG_DATA;
    e.unit_id = 1;
    e.event_id_index = 7;
    e.counter_event_offset = 40;
    e.event_reg_id.reg_id = 0x30B;
    e.event_reg_id.pci_func_no = 4;
    e.event_reg_id.bar_index = 1;
    e.reg_value = 0xFFFFFFDE6E40ull;
    e.desc_id = 1;
    e.flags = SEP_EVREG_FIXED_REG | SEP_EVREG_LBR_VALUE;
    e.max_bits = 0xFFFFFFFFFFFFull;
    e.counter_type = 2;
    e.event_scope = 1;
    e.reg_prog_type = 3;
    e.reg_rw_type = 1;
    e.secondary_pci_offset_mask = 0x5A;
    e.core_event_id = 0x1234;
    e.aux_read_mask = 0xA5;
    e.reserved4 = 0xC3;
    ROUND_TRIP(e, eb, eback);
    CHECK_EQ(wire_le(eb, 0, 1), 4);
    CHECK_EQ(wire_le(eb, 1, 1), 1);
    CHECK_EQ(wire_le(eb, 2, 2), 7);
    CHECK_EQ(wire_le(eb, 4, 2), 40);
    CHECK_EQ(wire_le(eb, 8, 4), 0x30B);
    CHECK_EQ(wire_le(eb, 20, 4), 4);
    CHECK_EQ(wire_le(eb, 28, 4), 1);
    CHECK_EQ(wire_le(eb, 48, 8), 0xFFFFFFDE6E40ull);
    CHECK_EQ(wire_le(eb, 56, 2), 1);
    CHECK_EQ(wire_le(eb, 58, 2), 0x300);
    CHECK_EQ(wire_le(eb, 64, 8), 0xFFFFFFFFFFFFull);
    CHECK_EQ(wire_le(eb, 76, 4), 2);
    CHECK_EQ(wire_le(eb, 80, 4), 1);
    CHECK_EQ(wire_le(eb, 84, 1), 3);
    CHECK_EQ(wire_le(eb, 85, 1), 1);
    CHECK_EQ(wire_le(eb, 88, 8), 0x5A);
    CHECK_EQ(wire_le(eb, 96, 4), 0x1234);
    CHECK_EQ(wire_le(eb, 112, 8), 0xA5);
    CHECK_EQ(wire_le(eb, 128, 8), 0xC3);
}

static void test_ioctl_status(void)
{
    struct sep_ioctl_status s = {0}, back;
    uint8_t b[48];
    s.drv_status = SEP_STATUS_INVALID_PROG_INFO;
    s.reg_prog_type = 1;
    s.reg_key1 = 0x1B;
    s.reg_key2 = 9;
    s.reserved6 = 0x66;
    ROUND_TRIP(s, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 228);
    CHECK_EQ(wire_le(b, 4, 1), 1);
    CHECK_EQ(wire_le(b, 8, 8), 0x1B);
    CHECK_EQ(wire_le(b, 16, 4), 9);
    CHECK_EQ(wire_le(b, 40, 8), 0x66);
}

static void test_sysinfo(void)
{
    struct sep_sysinfo si = {0}, siback;
    uint8_t sib[72];
    si.node_array.offset = 72;
    si.min_app_address = ~0ull;
    si.page_size = 4096;
    si.allocation_granularity = 4096;
    si.reserved3[2] = 0x3;
    ROUND_TRIP(si, sib, siback);
    CHECK_EQ(wire_le(sib, 4, 4), 0);
    CHECK_EQ(wire_le(sib, 8, 8), 72);
    CHECK_EQ(wire_le(sib, 16, 8), ~0ull);
    CHECK_EQ(wire_le(sib, 32, 4), 4096);
    CHECK_EQ(wire_le(sib, 36, 4), 4096);
    CHECK_EQ(wire_le(sib, 64, 8), 3);

    struct sep_sysinfo_array_hdr h = {0}, hback;
    uint8_t hb[64];
    h.hdr_size = 64;
    h.next.offset = 0;
    h.num_entries = 4;
    h.entry_size = 104;
    h.type = SEP_SYSINFO_TYPE_PER_CPU;
    h.subtype = SEP_SYSINFO_SUB_X86;
    ROUND_TRIP(h, hb, hback);
    CHECK_EQ(wire_le(hb, 0, 4), 64);
    CHECK_EQ(wire_le(hb, 52, 4), 4);
    CHECK_EQ(wire_le(hb, 56, 4), 104);
    CHECK_EQ(wire_le(hb, 60, 2), 1);
    CHECK_EQ(wire_le(hb, 62, 2), 1);

    struct sep_sysinfo_node n = {0}, nback;
    uint8_t nb[48];
    n.node_num_available = 4;
    n.node_physical_memory = 512ull << 20;
    n.percpu_array.offset = 184;
    ROUND_TRIP(n, nb, nback);
    CHECK_EQ(wire_le(nb, 8, 4), 4);
    CHECK_EQ(wire_le(nb, 16, 8), 512ull << 20);
    CHECK_EQ(wire_le(nb, 32, 8), 184);

    struct sep_sysinfo_cpu c = {0}, cback;
    uint8_t cb[104];
    c.cpu_number = 3;
    c.cpu_speed_mhz = SEP_SYSINFO_NA32;
    c.cpu_cache_l2_kb = 256;
    c.cpuid_array.offset = 664;
    c.cpu_tsc_offset = -12;
    c.platform_id = 0x17;
    c.cpu_package_num = 1;
    c.cpu_threads_per_core = 2;
    c.cpu_num_modules = 2;
    c.arch_perfmon_ver = 4;
    c.num_gp_counters = 4;
    c.num_fixed_counters = 3;
    ROUND_TRIP(c, cb, cback);
    CHECK_EQ(wire_le(cb, 0, 4), 3);
    CHECK_EQ(wire_le(cb, 4, 4), 0xFFFFFFFFu);
    CHECK_EQ(wire_le(cb, 12, 4), 256);
    CHECK_EQ(wire_le(cb, 24, 8), 664);
    CHECK_EQ(wire_le(cb, 32, 8), (uint64_t)-12);
    CHECK_EQ(wire_le(cb, 48, 8), 0x17);
    CHECK_EQ(wire_le(cb, 56, 2), 1);
    CHECK_EQ(wire_le(cb, 62, 2), 2);
    CHECK_EQ(wire_le(cb, 66, 2), 2);
    CHECK_EQ(wire_le(cb, 72, 4), 4);
    CHECK_EQ(wire_le(cb, 76, 4), 4);
    CHECK_EQ(wire_le(cb, 80, 4), 3);

    struct sep_sysinfo_cpuid id = {0xA, 0x07300404, 0, 0, 0x603}, idback;
    uint8_t idb[20];
    ROUND_TRIP(id, idb, idback);
    CHECK_EQ(wire_le(idb, 0, 4), 0xA);
    CHECK_EQ(wire_le(idb, 4, 4), 0x07300404);
    CHECK_EQ(wire_le(idb, 16, 4), 0x603);
}

static void test_sample_drop_info(void)
{
    struct sep_sample_drop_info d = {0}, back;
    uint8_t b[324];
    d.size = 2;
    d.drop_info[0].cpu_id = 0;
    d.drop_info[0].sampled = 1000;
    d.drop_info[1].cpu_id = 1;
    d.drop_info[1].dropped = 7;
    d.drop_info[19].os_id = 0x19;
    ROUND_TRIP(d, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 2);
    CHECK_EQ(wire_le(b, 4 + 8, 4), 1000);
    CHECK_EQ(wire_le(b, 4 + 16 + 4, 4), 1);
    CHECK_EQ(wire_le(b, 4 + 16 + 12, 4), 7);
    CHECK_EQ(wire_le(b, 4 + 19 * 16, 4), 0x19);

    /* acart's extension: the reasons behind each CPU's count. */
    static struct acart_drop_reasons r, rback;
    static uint8_t rb[8 + 32 * ACART_MAX_DROP_REASON_CPUS];
    memset(&r, 0, sizeof r);
    r.size = 2;
    r.flags = ACART_DROP_REASONS_DELIVERED;
    r.cpu[1].cpu_id = 1;
    r.cpu[1].ring_full = 2;
    r.cpu[1].no_counter = 3;
    r.cpu[1].malformed = 4;
    r.cpu[1].collision = 5;
    r.cpu[1].stuck = 6;
    r.cpu[1].stuck_resets = 7;
    r.cpu[ACART_MAX_DROP_REASON_CPUS - 1].delivered = 0x63;
    ROUND_TRIP(r, rb, rback);
    CHECK_EQ(wire_le(rb, 0, 4), 2);
    CHECK_EQ(wire_le(rb, 4, 4), 1);
    for (unsigned k = 0; k < 7; k++)
        CHECK_EQ(wire_le(rb, 8 + 32 + 4 * k, 4), 1 + k);
    CHECK_EQ(wire_le(rb, 8 + 32 * 63 + 28, 4), 0x63);
}

static void test_task_info(void)
{
    struct sep_task_info t = {0}, back;
    uint8_t b[48];
    t.id = 0x1234;
    memcpy(t.name, "net", 4);
    t.address_space_id = 7;
    ROUND_TRIP(t, b, back);
    CHECK_EQ(wire_le(b, 0, 8), 0x1234);
    CHECK(wire_bytes(b, 8, "net", 4));
    CHECK_EQ(wire_le(b, 40, 8), 7);
}

static void test_sample_pc(void)
{
    struct sep_sample_pc s = {0}, back;
    uint8_t b[48];
    s.descriptor_id = 1;
    s.osid = 0;
    s.iip = 0x0010234Full;
    s.ipsr = 0x202;
    s.cs = 0x08;
    s.cpu_and_os = 3 | (SEP_MODE_32BIT << SEP_SAMPLE_CODE_MODE_SHIFT);
    s.tid = 17;
    s.pid_rec_index = 5;
    s.bit_fields2 = SEP_SAMPLE_IA64PC | SEP_SAMPLE_PID_RAW | SEP_SAMPLE_TID_IS_RAW |
                    (9u << SEP_SAMPLE_EVENT_INDEX_SHIFT);
    s.tsc = 0x123456789ull;
    ROUND_TRIP(s, b, back);
    CHECK_EQ(wire_le(b, 0, 4), 1);
    CHECK_EQ(wire_le(b, 8, 8), 0x0010234F);
    CHECK_EQ(wire_le(b, 16, 8), 0x202);
    CHECK_EQ(wire_le(b, 24, 2), 8);
    /* cpuNum bits 11:0 = 3, codeMode bits 14:13 = 2 */
    CHECK_EQ(wire_le(b, 26, 2), 3u | (2u << 13));
    CHECK_EQ(wire_le(b, 28, 4), 17);
    CHECK_EQ(wire_le(b, 32, 4), 5);
    /* eventIndex bits 27:20, tidIsRaw 28, IA64PC 29, pidRecIndexRaw 30 */
    CHECK_EQ(wire_le(b, 36, 4), (9u << 20) | (1u << 28) | (1u << 29) | (1u << 30));
    CHECK_EQ(wire_le(b, 40, 8), 0x123456789ull);

    struct sep_uncore_sample_pc u = {0}, uback;
    uint8_t ub[32];
    u.descriptor_id = 1;
    u.cpu_num = 2;
    u.pkg_num = 1;
    u.flags = 1;
    u.tsc = 99;
    ROUND_TRIP(u, ub, uback);
    CHECK_EQ(wire_le(ub, 0, 4), 1);
    CHECK_EQ(wire_le(ub, 8, 2), 2);
    CHECK_EQ(wire_le(ub, 10, 2), 1);
    CHECK_EQ(wire_le(ub, 12, 4), 1);
    CHECK_EQ(wire_le(ub, 24, 8), 99);
}

static void test_module_record(void)
{
    struct sep_module_record m = {0}, back;
    uint8_t b[80];
    m.rec_length = 96;
    m.segment_bits = SEP_MODE_32BIT;
    m.selector = 0x08;
    m.segment_number = 2;
    m.flags = SEP_MODREC_EXE | SEP_MODREC_PID_RAW | SEP_MODREC_TSC_USED;
    m.length64 = 0x20000;
    m.load_addr64 = 0x100000;
    m.pid_rec_index = 1;
    m.unload_tsc = ~0ull;
    m.path_length = 12;
    m.filename_offset = 0;
    m.page_offset_high = 0x1;
    m.tsc = 0x42;
    m.parent_pid = 0;
    m.page_offset_low = 0x2;
    ROUND_TRIP(m, b, back);
    CHECK_EQ(wire_le(b, 0, 2), 96);
    CHECK_EQ(wire_le(b, 2, 2), 2);
    CHECK_EQ(wire_le(b, 4, 2), 8);
    CHECK_EQ(wire_le(b, 8, 4), 2);
    CHECK_EQ(wire_le(b, 12, 4), 1u | (1u << 3) | (1u << 5));
    CHECK_EQ(wire_le(b, 16, 8), 0x20000);
    CHECK_EQ(wire_le(b, 24, 8), 0x100000);
    CHECK_EQ(wire_le(b, 32, 4), 1);
    CHECK_EQ(wire_le(b, 40, 8), ~0ull);
    CHECK_EQ(wire_le(b, 52, 2), 12);
    CHECK_EQ(wire_le(b, 60, 4), 1);
    CHECK_EQ(wire_le(b, 64, 8), 0x42);
    CHECK_EQ(wire_le(b, 76, 4), 2);
    CHECK_EQ(back.load_addr64, 0x100000);
}

/* Each test's last image must be fully checked too. */
static void run(const char *name, void (*test)(void))
{
    test();
    if (wire_untracked())
        fprintf(stderr, "%s: its wire image holds bytes no check read\n", name), check_failures++;
}
#define RUN(test) run(#test, test)

int main(void)
{
    RUN(test_first_msg);
    RUN(test_target_status);
    RUN(test_data_first_msg);
    RUN(test_ctrl_header);
    RUN(test_ctrl_response);
    RUN(test_drv_version_and_setup);
    RUN(test_platform_info);
    RUN(test_log_control);
    RUN(test_drv_config);
    RUN(test_dev_config);
    RUN(test_dev_unc_config);
    RUN(test_cpu_topology);
    RUN(test_event_config);
    RUN(test_event_desc);
    RUN(test_ecb_header_and_entry);
    RUN(test_ioctl_status);
    RUN(test_sysinfo);
    RUN(test_sample_drop_info);
    RUN(test_task_info);
    RUN(test_sample_pc);
    RUN(test_module_record);
    return check_report("test_wire_layout");
}
