/*
 * ECB decoding and sampling plans (runtime/commands/ecb.c), against the two ECBs the conformance
 * suite sends (from tests/fixtures/aca, given as argv[1]) and
 * against truncated, oversized and corrupted variants of them.
 */
#include <stdlib.h>
#include <string.h>

#include "acart_check.h"
#include "ecb.h"
#include "msr_policy.h"
#include "wire_image.h"

#define CORE_FIXTURE   "bin_ecb.config_6_0_CPU_CLK_UNHALTED.REF_TSC"
#define UNCORE_FIXTURE "bin_ecb.config_6_0_UNC_IMC_DRAM_RW_SLICE0_UNC_IMC_DRAM_RW_SLICE1"
#define HDR_SIZE       1728
#define ENTRY_SIZE     136
#define MAX_FILE       (HDR_SIZE + 80 * ENTRY_SIZE)

static uint8_t core[MAX_FILE], uncore[MAX_FILE];
static size_t core_len, uncore_len;
static struct ecb ecb; /* large; keep it off the stack */

static size_t load(const char *dir, const char *name, uint8_t *buf)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    size_t n = fread(buf, 1, MAX_FILE, f);
    fclose(f);
    return n;
}

static void wr32(uint8_t *b, size_t off, uint32_t v)
{
    memcpy(b + off, &v, sizeof v);
}

static void wr64(uint8_t *b, size_t off, uint64_t v)
{
    memcpy(b + off, &v, sizeof v);
}

#define HOFF(f)    offsetof(struct sep_ecb_header, f)
#define EOFF(i, f) (HDR_SIZE + (size_t)(i)*ENTRY_SIZE + offsetof(struct sep_event_reg, f))
#define EREG(i)    (EOFF(i, event_reg_id) + offsetof(struct sep_event_reg_id, reg_id))
#define OPOFF(t, f)                                                                                \
    (HOFF(operations) + (t) * sizeof(struct sep_pmu_operation) +                                   \
     offsetof(struct sep_pmu_operation, f))

/* A fresh copy of the core fixture to corrupt. */
static uint8_t *core_copy(void)
{
    static uint8_t b[MAX_FILE];
    memcpy(b, core, core_len);
    return b;
}

struct expected_entry {
    uint32_t index;
    uint8_t reg_type;
    uint32_t msr;
    uint64_t value;
    uint16_t flags;
};

/* Every entry of the core fixture that is not all zero; the rest must be all zero. */
static const struct expected_entry core_entries[] = {
    {0, SEP_REG_CCCR, 0x38F, 0x400000000ull, SEP_EVREG_GLOBAL}, /* global ctrl: fixed 2 */
    {1, SEP_REG_CCCR, 0x390, 0x400000000ull, SEP_EVREG_GLOBAL}, /* clear fixed 2 overflow */
    {2, SEP_REG_CCCR, 0x3F1, 0, SEP_EVREG_GLOBAL},              /* PEBS off */
    {3, SEP_REG_CCCR, 0x1D9, 0x1800, SEP_EVREG_GLOBAL},         /* freeze on PMI */
    {4, SEP_REG_CCCR, 0x38D, 0xB00, SEP_EVREG_GLOBAL | SEP_EVREG_CLEAN_UP},
    {11, SEP_REG_DATA, 0x30B, 0xFFFFFFDE6E40ull, SEP_EVREG_FIXED_REG | SEP_EVREG_LBR_VALUE},
    {20, SEP_REG_ESCR, 0x1C8, 0, SEP_EVREG_GLOBAL}, /* LBR select */
    {21, SEP_REG_EMPTY, 0x38E, 0, 0},               /* global status, read */
};

static void test_core_fixture(void)
{
    CHECK_EQ(core_len, 4720);
    CHECK_EQ(ecb_decode(core, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb.version, 2);
    CHECK_EQ(ecb.num_entries, 21);
    CHECK_EQ(ecb.entry_count, 22);
    CHECK_EQ(ecb.group_id, 0);
    CHECK_EQ(ecb.num_events, 1);
    CHECK_EQ(ecb.device_type, SEP_DEVICE_CORE);
    CHECK_EQ(ecb.size_of_allocation, 4720);
    CHECK_EQ(ecb.cccr.start, 0);
    CHECK_EQ(ecb.cccr.count, 9);
    CHECK_EQ(ecb.escr.start, 16);
    CHECK_EQ(ecb.escr.count, 5);
    CHECK_EQ(ecb.data.start, 9);
    CHECK_EQ(ecb.data.count, 7);

    const uint32_t ops[][3] = {
        {SEP_PMU_OP_GLOBAL_REGS, 0, 5}, {SEP_PMU_OP_CTRL_GP, 5, 4},
        {SEP_PMU_OP_DATA_FIXED, 9, 3},  {SEP_PMU_OP_DATA_GP, 12, 4},
        {SEP_PMU_OP_OCR, 16, 5},        {SEP_PMU_OP_ALL_REG, 0, 21},
        {SEP_PMU_OP_DATA_ALL, 9, 7},    {SEP_PMU_OP_GLOBAL_STATUS, 21, 1},
    };
    uint32_t ops_present = 0;
    for (uint32_t t = 0; t < SEP_MAX_PMU_OPERATIONS; t++)
        ops_present += ecb.operations[t].count != 0;
    CHECK_EQ(ops_present, sizeof ops / sizeof ops[0]);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        CHECK_EQ(ecb.operations[ops[i][0]].start, ops[i][1]);
        CHECK_EQ(ecb.operations[ops[i][0]].count, ops[i][2]);
    }

    size_t next = 0;
    for (uint32_t i = 0; i < ecb.entry_count; i++) {
        const struct ecb_entry *e = &ecb.entries[i];
        if (next < sizeof core_entries / sizeof core_entries[0] && core_entries[next].index == i) {
            const struct expected_entry *x = &core_entries[next++];
            CHECK_EQ(e->reg_type, x->reg_type);
            CHECK_EQ(e->reg_id, x->msr);
            CHECK_EQ(e->value, x->value);
            CHECK_EQ(e->flags, x->flags);
        } else {
            CHECK_EQ(e->reg_type | e->reg_id | e->value | e->flags, 0);
        }
        CHECK_EQ(e->prog_type, 0);
    }
    CHECK_EQ(next, sizeof core_entries / sizeof core_entries[0]);
    CHECK_EQ(ecb.entries[11].max_bits, 0xFFFFFFFFFFFFull);

    /* Every register the ECB writes is one the allowlist lets the host write on a CPU
     * with 4 general and 3 fixed counters, and the status register one it may read. */
    struct msr_policy_limits lim = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&lim);
    for (uint32_t i = 0; i < ecb.entry_count; i++) {
        if (ecb.entries[i].reg_type != SEP_REG_EMPTY)
            CHECK_EQ(msr_policy_check(ecb.entries[i].reg_id, 1), MSR_POLICY_OK);
    }
    CHECK_EQ(msr_policy_check(ecb.entries[21].reg_id, 0), MSR_POLICY_OK);

    struct ecb_plan plan;
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    CHECK_EQ(plan.num_counters, 1);
    const struct ecb_counter *c = &plan.counters[0];
    CHECK_EQ(c->kind, ECB_COUNTER_FIXED);
    CHECK_EQ(c->index, 2);
    CHECK_EQ(c->msr, 0x30B);
    CHECK_EQ(c->entry, 11);
    CHECK_EQ(c->preload, 0xFFFFFFDE6E40ull);
    CHECK_EQ(c->width_mask, 0xFFFFFFFFFFFFull);
    CHECK_EQ(c->sample_after, 2200000);
    CHECK_EQ(c->has_control, 1);
    CHECK_EQ(c->control_msr, 0x38D);
    CHECK_EQ(c->control, 0xB); /* OS + USR + PMI */
    CHECK_EQ(c->pmi, 1);
    CHECK_EQ(c->flags, SEP_EVREG_FIXED_REG | SEP_EVREG_LBR_VALUE);
    CHECK_EQ(plan.enable_mask, 1ull << 34);
    CHECK_EQ(plan.has_global_ctrl, 1);
    CHECK_EQ(plan.global_ctrl, 0x400000000ull);
}

static void test_uncore_fixture(void)
{
    CHECK_EQ(uncore_len, 2680);
    CHECK_EQ(ecb_decode(uncore, uncore_len, &ecb), ECB_OK);
    CHECK_EQ(ecb.num_entries, 7);
    CHECK_EQ(ecb.entry_count, 7);
    CHECK_EQ(ecb.device_type, SEP_DEVICE_UNC_IMC);
    CHECK_EQ(ecb.num_events, 2);
    CHECK_EQ(ecb.descriptor_id, 1);
    CHECK_EQ(ecb.flags, SEP_ECB_DIRECT2CORE | SEP_ECB_BL_BYPASS);
    CHECK_EQ(ecb.data.count, 0);
    CHECK_EQ(ecb.operations[SEP_PMU_OP_READ].start, 1);
    CHECK_EQ(ecb.operations[SEP_PMU_OP_READ].count, 6);
    for (uint32_t i = 1; i <= 2; i++) {
        CHECK_EQ(ecb.entries[i].reg_type, SEP_REG_DATA);
        CHECK_EQ(ecb.entries[i].prog_type, 3); /* MMIO */
        CHECK_EQ(ecb.entries[i].event_index, i);
        CHECK_EQ(ecb.entries[i].max_bits, 0xFFFFFFFFull);
    }
    CHECK_EQ(ecb.entries[1].reg_id, 0x6868);
    CHECK_EQ(ecb.entries[2].reg_id, 0x686C);
    printf("uncore fixture: device type %u (IMC), %u events, DATA entries at MMIO offsets "
           "0x%x and 0x%x, read operation over entries %u..%u\n",
           ecb.device_type, ecb.num_events, ecb.entries[1].reg_id, ecb.entries[2].reg_id,
           ecb.operations[SEP_PMU_OP_READ].start,
           ecb.operations[SEP_PMU_OP_READ].start + ecb.operations[SEP_PMU_OP_READ].count - 1);

    struct ecb_plan plan;
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_NOT_CORE);
}

static void test_lengths(void)
{
    uint8_t *b = core_copy();
    CHECK_EQ(ecb_decode(NULL, core_len, &ecb), ECB_ERR_NULL);
    CHECK_EQ(ecb_decode(b, core_len, NULL), ECB_ERR_NULL);
    CHECK_EQ(ecb_decode(b, 0, &ecb), ECB_ERR_TRUNCATED);
    CHECK_EQ(ecb_decode(b, 1, &ecb), ECB_ERR_TRUNCATED);
    CHECK_EQ(ecb_decode(b, HDR_SIZE - 1, &ecb), ECB_ERR_TRUNCATED);
    CHECK_EQ(ecb_decode(b, HDR_SIZE + 135, &ecb), ECB_ERR_SIZE);
    CHECK_EQ(ecb_decode(b, core_len - 1, &ecb), ECB_ERR_SIZE);
    /* One entry short or one entry too many: size_of_allocation no longer agrees. */
    CHECK_EQ(ecb_decode(b, core_len - ENTRY_SIZE, &ecb), ECB_ERR_SIZE);
    memset(b + core_len, 0, ENTRY_SIZE);
    CHECK_EQ(ecb_decode(b, core_len + ENTRY_SIZE, &ecb), ECB_ERR_SIZE);
    /* ... unless the header says so, and then the extra empty entry is fine. */
    wr32(b, HOFF(size_of_allocation), (uint32_t)(core_len + ENTRY_SIZE));
    CHECK_EQ(ecb_decode(b, core_len + ENTRY_SIZE, &ecb), ECB_OK);
    CHECK_EQ(ecb.entry_count, 23);
    /* Without entries for its ranges the header is refused. */
    wr32(b, HOFF(size_of_allocation), HDR_SIZE);
    CHECK_EQ(ecb_decode(b, HDR_SIZE, &ecb), ECB_ERR_NUM_ENTRIES);
    /* size_of_allocation 0 means "not filled in"; the length rules. */
    b = core_copy();
    wr32(b, HOFF(size_of_allocation), 0);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);

    static uint8_t big[HDR_SIZE + (ECB_MAX_ENTRIES + 1) * ENTRY_SIZE];
    memcpy(big, core, HDR_SIZE);
    size_t big_len = HDR_SIZE + (size_t)ECB_MAX_ENTRIES * ENTRY_SIZE;
    wr32(big, HOFF(size_of_allocation), (uint32_t)big_len);
    CHECK_EQ(ecb_decode(big, big_len, &ecb), ECB_OK);
    big_len += ENTRY_SIZE;
    wr32(big, HOFF(size_of_allocation), (uint32_t)big_len);
    CHECK_EQ(ecb_decode(big, big_len, &ecb), ECB_ERR_TOO_MANY_ENTRIES);
}

static void test_corrupt_headers(void)
{
    uint8_t *b;

    b = core_copy();
    b[HOFF(version)] = 3;
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_VERSION);

    b = core_copy();
    wr32(b, HOFF(num_entries), 23);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_NUM_ENTRIES);

    b = core_copy();
    wr32(b, HOFF(data_pop), 13); /* 9 + 13 > 21 */
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_RANGE);

    b = core_copy();
    wr32(b, HOFF(cccr_start), 0xFFFFFFFFu); /* would wrap in 32 bits */
    wr32(b, HOFF(cccr_pop), 2);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_RANGE);

    b = core_copy();
    wr32(b, HOFF(metric_start), 21);
    wr32(b, HOFF(metric_pop), 1);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_RANGE);

    b = core_copy();
    wr32(b, OPOFF(SEP_PMU_OP_GLOBAL_STATUS, register_start), 22);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_OPERATION);

    b = core_copy();
    wr32(b, OPOFF(SEP_PMU_OP_GLOBAL_STATUS, register_len), 0xFFFFFFFFu);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_OPERATION);

    b = core_copy();
    wr32(b, OPOFF(5, operation_type), 9); /* slot 5 holds operation 5 only */
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_OPERATION);

    b = core_copy();
    b[EOFF(7, reg_type)] = 3;
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_ERR_REG_TYPE);
}

/* Pseudo-random bytes: the decoder must answer, in bounds, whatever it is fed (the build
 * adds the address and undefined-behaviour sanitizers to this test). */
static void test_garbage(void)
{
    static uint8_t g[MAX_FILE];
    uint32_t x = 12345;
    for (int round = 0; round < 2000; round++) {
        size_t len = (size_t)(x % MAX_FILE);
        for (size_t i = 0; i < len; i++) {
            x = x * 1103515245u + 12345u;
            g[i] = (uint8_t)(x >> 16);
        }
        /* Half the rounds keep a plausible header so the checks further in are reached. */
        if (round & 1 && len >= HDR_SIZE) {
            memcpy(g, core, HDR_SIZE);
            len = HDR_SIZE + ((len - HDR_SIZE) / ENTRY_SIZE) * ENTRY_SIZE;
            wr32(g, HOFF(size_of_allocation), (uint32_t)len);
        }
        int err = ecb_decode(g, len, &ecb);
        CHECK(err <= 0 && err >= ECB_ERR_COUNTER_WIDTH);
        if (err == ECB_OK) {
            struct ecb_plan plan;
            int perr = ecb_plan_sampling(&ecb, &plan);
            CHECK(perr <= 0 && perr >= ECB_ERR_COUNTER_WIDTH);
        }
        x = x * 1103515245u + 12345u;
    }
}

static void test_plans(void)
{
    struct ecb_plan plan;
    uint8_t *b;

    /* Add general counter 0 counting event 0x3C with an interrupt every 100000 events. */
    b = core_copy();
    b[EOFF(5, reg_type)] = SEP_REG_ESCR;
    wr32(b, EREG(5), 0x186);
    wr64(b, EOFF(5, reg_value), 0x53003Cull); /* USR OS INT EN, event 0x3C umask 0 */
    b[EOFF(12, reg_type)] = SEP_REG_DATA;
    wr32(b, EREG(12), 0xC1);
    wr64(b, EOFF(12, reg_value), 0x1000000000000ull - 100000);
    wr64(b, EOFF(12, max_bits), 0xFFFFFFFFFFFFull);
    b[EOFF(12, event_id_index)] = 1;
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    CHECK_EQ(plan.num_counters, 2);
    CHECK_EQ(plan.counters[0].kind, ECB_COUNTER_FIXED);
    const struct ecb_counter *g = &plan.counters[1];
    CHECK_EQ(g->kind, ECB_COUNTER_GENERAL);
    CHECK_EQ(g->index, 0);
    CHECK_EQ(g->msr, 0xC1);
    CHECK_EQ(g->sample_after, 100000);
    CHECK_EQ(g->has_control, 1);
    CHECK_EQ(g->control_msr, 0x186);
    CHECK_EQ(g->control, 0x53003C);
    CHECK_EQ(g->event_code, 0x3C);
    CHECK_EQ(g->umask, 0);
    CHECK_EQ(g->pmi, 1);
    CHECK_EQ(g->event_index, 1);
    CHECK_EQ(plan.enable_mask, (1ull << 34) | 1u);

    /* Sampling a checkpointed count (IN_TXCP, bit 33) loops on overflow, abort and rollback:
     * refused, as Linux refuses it. Counting it without an interrupt is fine. */
    wr64(b, EOFF(5, reg_value), 0x53003Cull | 1ull << 33);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_TXCP_SAMPLING);
    wr64(b, EOFF(5, reg_value), 0x43003Cull | 1ull << 33); /* no INT */
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    wr64(b, EOFF(5, reg_value), 0x53003Cull);

    /* The same counter through its full-width alias is still one counter, twice. */
    wr32(b, EREG(13), 0x4C1);
    b[EOFF(13, reg_type)] = SEP_REG_DATA;
    wr64(b, EOFF(13, max_bits), 0xFFFFFFFFFFFFull);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER);

    /* A general counter whose event select counts without interrupting (no INT bit). */
    b = core_copy();
    b[EOFF(5, reg_type)] = SEP_REG_ESCR;
    wr32(b, EREG(5), 0x187);
    wr64(b, EOFF(5, reg_value), 0x43003Cull); /* USR OS EN, event 0x3C */
    b[EOFF(12, reg_type)] = SEP_REG_DATA;
    wr32(b, EREG(12), 0xC2);
    wr64(b, EOFF(12, reg_value), 0);
    wr64(b, EOFF(12, max_bits), 0xFFFFFFFFFFFFull);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    CHECK_EQ(plan.counters[1].index, 1);
    CHECK_EQ(plan.counters[1].has_control, 1);
    CHECK_EQ(plan.counters[1].control, 0x43003C);
    CHECK_EQ(plan.counters[1].pmi, 0);
    CHECK_EQ(plan.counters[0].pmi, 1); /* the fixture's fixed counter 2 does interrupt */

    /* A general counter without an event select: planned, flagged as uncontrolled. */
    b = core_copy();
    b[EOFF(12, reg_type)] = SEP_REG_DATA;
    wr32(b, EREG(12), 0xC2);
    wr64(b, EOFF(12, max_bits), 0xFFFFFFFFull);
    wr64(b, EOFF(12, reg_value), 0);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    CHECK_EQ(plan.counters[1].index, 1);
    CHECK_EQ(plan.counters[1].has_control, 0);
    CHECK_EQ(plan.counters[1].sample_after, 0x100000000ull); /* preload 0: a whole period */

    /* DATA entries that are not counters, bad widths, preloads wider than the counter. */
    b = core_copy();
    wr32(b, EREG(11), 0x1D9);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER);

    b = core_copy();
    wr32(b, EREG(11), 0x30D); /* fixed counter 4: beyond the architectural four */
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER);

    b = core_copy();
    b[EOFF(11, reg_prog_type)] = 2; /* a PCI register cannot be a core counter */
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER);

    b = core_copy();
    wr64(b, EOFF(11, max_bits), 0xFFFF0000ull);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER_WIDTH);

    b = core_copy();
    wr64(b, EOFF(11, max_bits), 0);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER_WIDTH);

    /* Not 2^k - 1, though the preload 0xFFFFFFDE6E40 fits inside it: the counter would
     * wrap at no bit the host meant. */
    b = core_copy();
    wr64(b, EOFF(11, max_bits), 0xFFFFFFFFFFFEull);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER_WIDTH);

    b = core_copy();
    wr64(b, EOFF(11, max_bits), 0xFFFFFFFFull); /* preload 0xFFFFFFDE6E40 needs 48 bits */
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_COUNTER_WIDTH);

    /* Counter data in an ECB for another device is not planned. */
    b = core_copy();
    wr32(b, HOFF(device_type), SEP_DEVICE_UNC_IMC);
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_ERR_NOT_CORE);
    CHECK_EQ(ecb_plan_sampling(NULL, &plan), ECB_ERR_NULL);
}

/* An ECB that writes an MSR of IA-32e mode only (IA32_FS_BASE, in a global-register entry):
 * it decodes, and the allowlist refuses it as EM_CONFIG_NEXT checks every entry
 * (runtime/commands/cmd_collect.c). In a 32-bit build (wire_ecb_i686) the refusal is the
 * mode's and its message names both modes; in a 64-bit one it is an MSR acart does not
 * allow. */
static void test_long_mode_msr(void)
{
    struct msr_policy_limits lim = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&lim);
    uint8_t *b = core_copy();
    wr32(b, EREG(3), 0xC0000100); /* IA32_FS_BASE instead of IA32_DEBUGCTL */
    CHECK_EQ(ecb_decode(b, core_len, &ecb), ECB_OK);
    int refused = MSR_POLICY_OK;
    uint32_t at = 0;
    for (uint32_t i = 0; i < ecb.entry_count && refused == MSR_POLICY_OK; i++) {
        if (ecb.entries[i].reg_type == SEP_REG_EMPTY)
            continue;
        refused = msr_policy_check(ecb.entries[i].reg_id, 1);
        at = i;
    }
    CHECK_EQ(at, 3);
    if (sizeof(void *) == 4) {
        CHECK_EQ(refused, MSR_POLICY_ERR_MODE);
        const char *why = msr_policy_strerror(refused);
        CHECK(strstr(why, "IA-32e (64-bit) mode only") != NULL);
        CHECK(strstr(why, "this target runs 32-bit code") != NULL);
        printf("ECB writing MSR 0xC0000100 on a 32-bit target: refused: %s\n", why);
    } else {
        CHECK_EQ(refused, MSR_POLICY_ERR_UNLISTED);
    }
}

static void test_strerror(void)
{
    for (int e = ECB_OK; e >= ECB_ERR_TXCP_SAMPLING; e--)
        CHECK(strcmp(ecb_strerror(e), "unknown ECB error") != 0);
    CHECK(strcmp(ecb_strerror(1), "unknown ECB error") == 0);
    CHECK(strcmp(ecb_strerror(ECB_ERR_TXCP_SAMPLING - 1), "unknown ECB error") == 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <fixtures/aca directory>\n", argv[0]);
        return 2;
    }
    core_len = load(argv[1], CORE_FIXTURE, core);
    uncore_len = load(argv[1], UNCORE_FIXTURE, uncore);
    test_core_fixture();
    test_uncore_fixture();
    test_lengths();
    test_corrupt_headers();
    test_garbage();
    test_plans();
    test_long_mode_msr();
    test_strerror();
    return check_report("test_ecb");
}
