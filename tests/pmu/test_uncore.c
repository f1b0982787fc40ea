/* runtime/uncore/uncore.c on the simulated uncore (sim_uncore.c), behind the simulated CPU's CPUID:
 * VTune's UNC_IMC_DRAM_RW_SLICE0/1 ECB (tests/fixtures/aca) decoded entry by entry and
 * collected on a simulated Goldmont, the client uncore MSRs (ARB, CBo, UCLK) programmed and
 * counted on a simulated Skylake, every uncore register through the allowlist, and the
 * refusals where there is no uncore.
 *
 *   test_uncore FIXTURES_DIR */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart.h"
#include "acart_check.h"
#include "acart_wire.h"
#include "channel.h"
#include "ecb.h"
#include "msr_policy.h"
#include "sim_cpu.h"
#include "sim_uncore.h"
#include "uncore.h"

/* ---- what uncore.c needs from the rest of the runtime ---- */

static char last_log[512];

void agent_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_log, sizeof(last_log), fmt, ap);
    va_end(ap);
}

uint32_t aca_plat_cpu_index(void)
{
    return 0;
}

/* The uncore data channel: a byte sink of limited room. */
struct channel {
    uint8_t bytes[4096];
    uint32_t len, room;
};

uint32_t channel_send_room(const struct channel *ch)
{
    return ch->room;
}

int channel_send(struct channel *ch, const void *buf, uint32_t len)
{
    if (len > ch->room || ch->len + len > sizeof(ch->bytes))
        return ACA_ERR_INVALID;
    memcpy(ch->bytes + ch->len, buf, len);
    ch->len += len;
    ch->room -= len;
    return ACA_OK;
}

void channel_flush(struct channel *ch)
{
    (void)ch;
}

/* ---- helpers ---- */

static size_t read_file(const char *dir, const char *name, uint8_t *buf, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/aca/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static void start_session(uint16_t device_index, uint32_t num_events)
{
    struct sep_dev_unc_config cfg;
    struct sep_event_config ec;
    memset(&cfg, 0, sizeof(cfg));
    memset(&ec, 0, sizeof(ec));
    cfg.device_index = device_index;
    cfg.num_events = num_events;
    CHECK(uncore_set_num_devices(4) == SEP_STATUS_SUCCESS);
    CHECK(uncore_init_device(&cfg) == SEP_STATUS_SUCCESS);
    ec.num_groups_unc = 2;
    CHECK(uncore_set_groups(&ec) == SEP_STATUS_EM_TOO_MANY_EVENT_GROUPS);
    ec.num_groups_unc = 1;
    CHECK(uncore_set_groups(&ec) == SEP_STATUS_SUCCESS);
}

static const char imc_fixture[] =
    "bin_ecb.config_6_0_UNC_IMC_DRAM_RW_SLICE0_UNC_IMC_DRAM_RW_SLICE1";

/* The fixture holds no register write: two free-running 32-bit DRAM slice counters read
 * through MMIO from MCHBAR (PCI 0:0.0, offset 0x48), each count into its record slot. */
static void test_fixture_decodes(const uint8_t *bytes, size_t len, struct ecb *ecb)
{
    CHECK(len == 2680);
    CHECK(ecb_decode(bytes, len, ecb) == ECB_OK);
    CHECK(ecb->device_type == SEP_DEVICE_UNC_IMC);
    CHECK(ecb->num_events == 2 && ecb->descriptor_id == 1 && ecb->group_offset == 32);
    CHECK(ecb->bar.bus == 0 && ecb->bar.dev == 0 && ecb->bar.func == 0);
    CHECK(ecb->bar.bar_offset == 0x48 && ecb->bar.bar_mask == 0x7fffff8000ull);
    CHECK(ecb->bar.base_offset == 0x6000);
    CHECK(ecb->operations[SEP_PMU_OP_READ].start == 1 &&
          ecb->operations[SEP_PMU_OP_READ].count == 6);
    const uint32_t writes[] = {SEP_PMU_OP_WRITE, SEP_PMU_OP_ENABLE, SEP_PMU_OP_DISABLE};
    for (size_t k = 0; k < 3; k++)
        CHECK(ecb->operations[writes[k]].count == 0);
    unsigned used = 0;
    for (uint32_t i = 0; i < ecb->entry_count; i++) {
        const struct ecb_entry *e = &ecb->entries[i];
        if (e->reg_type == SEP_REG_EMPTY)
            continue;
        used++;
        CHECK(e->reg_type == SEP_REG_DATA && e->prog_type == SEP_REG_PROG_MMIO);
        CHECK(e->counter_type == SEP_UNC_COUNTER_FREERUN && e->data_size == 4);
        CHECK(e->max_bits == 0xffffffffull && e->value == 0);
        CHECK(e->reg_id == (i == 1 ? 0x6868u : 0x686cu));
        CHECK(e->counter_event_offset == (i == 1 ? 40 : 48));
        CHECK(e->event_index == i);
    }
    CHECK(used == 2);
}

static void test_fixture_runs_on_goldmont(const uint8_t *bytes, size_t len)
{
    static struct ecb ecb;
    struct msr_policy_limits limits;
    memset(&limits, 0, sizeof(limits));
    sim_reset(&sim_goldmont);
    sim_uncore_reset(SIM_UNCORE_GLM, 0);
    CHECK(uncore_probe(1, &limits) == NULL);
    CHECK(strcmp(uncore_model_name(), "Goldmont") == 0);
    CHECK(!limits.uncore_client && limits.imc_mmio_first == 0x6868 && limits.imc_mmio_len == 8);
    msr_policy_configure(&limits);

    /* The allowlist: MCHBAR read only, the two slice counters read only, nothing else. */
    CHECK(pci_policy_check(0, 0, 0, 0x48, 0) == MSR_POLICY_OK);
    CHECK(pci_policy_check(0, 0, 0, 0x48, 1) == MSR_POLICY_ERR_READ_ONLY);
    CHECK(pci_policy_check(0, 0, 0, 0x50, 0) == MSR_POLICY_ERR_UNLISTED);
    CHECK(pci_policy_check(0, 2, 0, 0x48, 0) == MSR_POLICY_ERR_UNLISTED);
    CHECK(mmio_policy_check(0, 0, 0, 0x48, 0x686c, 4, 0) == MSR_POLICY_OK);
    CHECK(mmio_policy_check(0, 0, 0, 0x48, 0x686c, 8, 0) == MSR_POLICY_ERR_UNLISTED);
    CHECK(mmio_policy_check(0, 0, 0, 0x48, 0x6868, 4, 1) == MSR_POLICY_ERR_READ_ONLY);
    CHECK(mmio_policy_check(0, 0, 0, 0x10, 0x6868, 4, 0) == MSR_POLICY_ERR_UNLISTED);
    CHECK(msr_policy_check(0xe01, 0) == MSR_POLICY_ERR_UNLISTED); /* no uncore MSRs here */

    test_fixture_decodes(bytes, len, &ecb);
    start_session(1, 2);
    CHECK(uncore_configure(&ecb, 56) == SEP_STATUS_SUCCESS);
    CHECK(uncore_configured());

    /* The counters run from power-on: the collection reports what happens after START. */
    struct sim_uncore_traffic before = {.slice_lines = {123456, 654321}};
    sim_uncore_run(&before);
    unsigned accesses = sim_uncore_accesses();
    CHECK(uncore_start(1000, 10) == 0);
    /* START: MCHBAR's two halves and each counter once; no write anywhere. */
    CHECK(sim_uncore_accesses() - accesses == 4);
    struct sim_uncore_traffic t = {.slice_lines = {100000, 50000}};
    sim_uncore_run(&t);
    uncore_poll(1009); /* within the interval: no read */
    uncore_poll(1010);
    struct sim_uncore_traffic wrap = {.slice_lines = {0xfffffff0u, 7}};
    sim_uncore_run(&wrap); /* slice 0 wraps its 32 bits past the last read */
    uncore_poll(1020);
    uncore_stop();
    CHECK(sim_uncore_faults() == 0);

    static struct channel ch;
    uint32_t queued;
    ch.room = 100; /* one record and a part of the next */
    CHECK(uncore_drain(&ch, &queued) == 0 && queued == 100);
    CHECK(uncore_blocked(&ch));
    ch.room = 4096;
    CHECK(uncore_drain(&ch, &queued) == 1 && queued == 3 * 56 - 100);
    CHECK(ch.len == 3 * 56);
    const uint64_t slice0[] = {100000, 100000 + 0xfffffff0ull, 100000 + 0xfffffff0ull};
    const uint64_t slice1[] = {50000, 50007, 50007};
    for (int r = 0; r < 3; r++) {
        const uint8_t *rec = ch.bytes + 56 * r;
        struct sep_uncore_sample_pc h;
        memcpy(&h, rec, sizeof(h));
        CHECK(h.descriptor_id == 1 && h.flags == SEP_UNCORE_VALID && h.tsc != 0);
        CHECK(u64_at(rec + 32) == 1); /* group 0, numbered from 1 */
        CHECK(u64_at(rec + 40) == slice0[r]);
        CHECK(u64_at(rec + 48) == slice1[r]);
    }
    uncore_reset();
    CHECK(!uncore_configured());

    /* A count slot outside the descriptor's record, and a counter outside the window. */
    start_session(1, 2);
    CHECK(uncore_configure(&ecb, 48) == SEP_STATUS_INVALID_EVENT_SIZE);
    ecb.entries[2].reg_id = 0x6870;
    CHECK(uncore_configure(&ecb, 56) == SEP_STATUS_INVALID_PROG_INFO);
    CHECK(strstr(last_log, "MMIO offset 0x6870 refused") != NULL);
    ecb.entries[2].reg_id = 0x686c;
    ecb.entries[2].prog_type = SEP_REG_PROG_PCI;
    CHECK(uncore_configure(&ecb, 56) == SEP_STATUS_INVALID_PROG_INFO);
    CHECK(strstr(last_log, "PCI register 0x686c refused") != NULL);
    uncore_reset();
}

/* A hand-made client ECB: ARB requests, CBo 0 lookups and uncore clocks, enabled
 * globally by WRITE and stopped by DISABLE. */
static size_t client_ecb(uint8_t *buf)
{
    struct {
        uint8_t type;
        uint32_t msr;
        uint64_t value;
        uint16_t offset;
        uint8_t counter_type;
    } regs[] = {
        /* WRITE 0..3 */
        {SEP_REG_CCCR, 0x3b2, 0x400181, 0, 0},
        {SEP_REG_CCCR, 0x700, 0x408f34, 0, 0},
        {SEP_REG_CCCR, 0x394, 1u << 22, 0, 0},
        {SEP_REG_CCCR, 0xe01, 1u << 29, 0, 0},
        /* DISABLE 4 */
        {SEP_REG_CCCR, 0xe01, 0, 0, 0},
        /* READ 5..7 */
        {SEP_REG_DATA, 0x3b0, 0, 40, SEP_UNC_COUNTER_PROGRAMMABLE},
        {SEP_REG_DATA, 0x706, 0, 48, SEP_UNC_COUNTER_PROGRAMMABLE},
        {SEP_REG_DATA, 0x395, 0, 56, SEP_UNC_COUNTER_PROGRAMMABLE},
    };
    const size_t n = sizeof(regs) / sizeof(regs[0]);
    size_t len = sizeof(struct sep_ecb_header) + n * sizeof(struct sep_event_reg);
    struct sep_ecb_header h;
    memset(buf, 0, len);
    memset(&h, 0, sizeof(h));
    h.version = SEP_ECB_VERSION;
    h.num_entries = (uint32_t)n;
    h.num_events = 3;
    h.size_of_allocation = (uint32_t)len;
    h.group_offset = 32;
    h.device_type = 11;
    h.descriptor_id = 2;
    for (uint32_t op = 0; op < SEP_MAX_PMU_OPERATIONS; op++)
        h.operations[op].operation_type = op;
    h.operations[SEP_PMU_OP_WRITE] = (struct sep_pmu_operation){SEP_PMU_OP_WRITE, 0, 4, 0, 0, 0};
    h.operations[SEP_PMU_OP_DISABLE] =
        (struct sep_pmu_operation){SEP_PMU_OP_DISABLE, 4, 1, 0, 0, 0};
    h.operations[SEP_PMU_OP_READ] = (struct sep_pmu_operation){SEP_PMU_OP_READ, 5, 3, 0, 0, 0};
    memcpy(buf, &h, sizeof(h));
    for (size_t i = 0; i < n; i++) {
        struct sep_event_reg e;
        memset(&e, 0, sizeof(e));
        e.reg_type = regs[i].type;
        e.event_reg_id.reg_id = regs[i].msr;
        e.reg_value = regs[i].value;
        e.counter_event_offset = regs[i].offset;
        e.counter_type = regs[i].counter_type;
        e.reg_prog_type = SEP_REG_PROG_MSR;
        e.max_bits = regs[i].msr == 0x395 ? 0xffffffffffffull : 0xfffffffffffull;
        memcpy(buf + sizeof(h) + i * sizeof(e), &e, sizeof(e));
    }
    return len;
}

static void test_client_msrs_on_skylake(void)
{
    static uint8_t buf[4096];
    static struct ecb ecb;
    struct msr_policy_limits limits;
    memset(&limits, 0, sizeof(limits));
    sim_reset(&sim_skylake);
    sim_uncore_reset(SIM_UNCORE_SKL_CLIENT, 4);
    CHECK(uncore_probe(1, &limits) == NULL);
    CHECK(limits.uncore_client && limits.uncore_cbos == 4);
    CHECK(limits.imc_mmio_first == 0x5050);
    msr_policy_configure(&limits);
    CHECK(msr_policy_check(0xe01, 1) == MSR_POLICY_OK);
    CHECK(msr_policy_check(0x396, 0) == MSR_POLICY_OK);
    CHECK(msr_policy_check(0x396, 1) == MSR_POLICY_ERR_READ_ONLY);
    CHECK(msr_policy_check(0x737, 1) == MSR_POLICY_OK);           /* CBo 3 PERFCTR1 */
    CHECK(msr_policy_check(0x746, 1) == MSR_POLICY_ERR_INDEX);    /* CBo 4: absent */
    CHECK(msr_policy_check(0x702, 0) == MSR_POLICY_ERR_UNLISTED); /* no register there */
    CHECK(msr_policy_check(0x3b4, 0) == MSR_POLICY_ERR_UNLISTED); /* past the ARB */
    CHECK(strcmp(msr_policy_name(0x716), "MSR_UNC_CBO_PERFCTR") == 0);

    size_t len = client_ecb(buf);
    CHECK(ecb_decode(buf, len, &ecb) == ECB_OK);
    start_session(0, 3);
    CHECK(uncore_configure(&ecb, 0) == SEP_STATUS_SUCCESS);
    /* Counters hold stale values from before; START zeroes them. */
    CHECK(uncore_start(0, 100) == 0);
    CHECK(sim_uncore_msr(0xe01) == 1u << 29 && sim_uncore_msr(0x3b2) == 0x400181);
    struct sim_uncore_traffic t = {
        .uclk = 1000000, .arb_requests = 5000, .cbo_lookups = {4000, 3000}};
    sim_uncore_run(&t);
    uncore_poll(100);
    sim_uncore_run(&t);
    uncore_stop();
    CHECK(sim_uncore_msr(0xe01) == 0); /* DISABLE wrote the global enable off */
    sim_uncore_run(&t);                /* ... so nothing counts after STOP */
    CHECK(sim_uncore_msr(0x395) == 2000000);
    CHECK(sim_uncore_faults() == 0);

    static struct channel ch;
    uint32_t queued;
    ch.room = 4096;
    CHECK(uncore_drain(&ch, &queued) == 1 && ch.len == 2 * 64); /* computed: 56 + 8 */
    for (int r = 0; r < 2; r++) {
        const uint8_t *rec = ch.bytes + 64 * r;
        CHECK(u64_at(rec + 32) == 1);
        CHECK(u64_at(rec + 40) == 5000u * (r + 1));
        CHECK(u64_at(rec + 48) == 4000u * (r + 1));
        CHECK(u64_at(rec + 56) == 1000000u * (r + 1));
    }
    uncore_reset();

    /* A select the allowlist does not hold is refused, naming it. */
    struct sep_event_reg e;
    memcpy(&e, buf + sizeof(struct sep_ecb_header), sizeof(e));
    e.event_reg_id.reg_id = 0x746; /* CBo 4 PERFEVTSEL0: this package has four */
    memcpy(buf + sizeof(struct sep_ecb_header), &e, sizeof(e));
    CHECK(ecb_decode(buf, len, &ecb) == ECB_OK);
    start_session(0, 3);
    CHECK(uncore_configure(&ecb, 0) == SEP_STATUS_INVALID_PROG_INFO);
    CHECK(strstr(last_log, "MSR 0x746 refused") != NULL);
    uncore_reset();
}

static void test_refused_without_uncore(void)
{
    struct msr_policy_limits limits;
    struct sep_dev_unc_config cfg;
    memset(&limits, 0, sizeof(limits));
    memset(&cfg, 0, sizeof(cfg));
    sim_reset(&sim_qemu_tcg);
    sim_uncore_reset(SIM_UNCORE_NONE, 0);
    const char *why = uncore_probe(0, &limits);
    CHECK(why != NULL && strstr(why, "no usable core PMU") != NULL);
    CHECK(uncore_model_name() == NULL);
    CHECK(!limits.uncore_client && limits.imc_mmio_len == 0);
    msr_policy_configure(&limits);
    CHECK(pci_policy_check(0, 0, 0, 0x48, 0) == MSR_POLICY_ERR_UNLISTED);
    cfg.num_events = 2;
    CHECK(uncore_init_device(&cfg) == SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE);
    CHECK(strstr(last_log, "INIT_UNC refused: no usable core PMU") != NULL);
    struct sep_event_config ec = {.num_groups_unc = 1};
    CHECK(uncore_set_groups(&ec) == SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE);
    CHECK(sim_uncore_accesses() == 0);

    /* A Tiger Lake has a PMU but an uncore acart does not know. */
    sim_reset(&sim_tigerlake);
    why = uncore_probe(1, &limits);
    CHECK(why != NULL && strstr(why, "no uncore acart supports") != NULL);
}

int main(int argc, char **argv)
{
    static uint8_t fixture[8192];
    if (argc != 2) {
        fprintf(stderr, "usage: test_uncore FIXTURES_DIR\n");
        return 2;
    }
    size_t len = read_file(argv[1], imc_fixture, fixture, sizeof(fixture));
    test_fixture_runs_on_goldmont(fixture, len);
    test_client_msrs_on_skylake();
    test_refused_without_uncore();
    if (check_failures) {
        fprintf(stderr, "test_uncore: %d failures\n", check_failures);
        return 1;
    }
    printf("test_uncore: all passed\n");
    return 0;
}
