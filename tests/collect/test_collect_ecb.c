/*
 * The ECBs `acart collect` builds (tools/collect/setup/collect_ecb.c): byte-identical to VTune's
 * for CPU_CLK_UNHALTED.REF_TSC (the fixture, read in place from the directory in argv[1]), and, for
 * every built-in event and sample-after value, decoded by the agent's own decoder
 * (runtime/commands/ecb.c) into a plan for exactly the counter asked for, with every register the
 * agent's MSR allowlist (runtime/commands/msr_policy.c) lets the host write.
 */
#include <stdlib.h>
#include <string.h>

#include "acart_check.h"
#include "collect_ecb.h"
#include "ecb.h"
#include "msr_policy.h"

#define FIXTURE "bin_ecb.config_6_0_CPU_CLK_UNHALTED.REF_TSC"

static struct ecb ecb; /* large; keep it off the stack */
static struct ecb_plan plan;

static size_t load_fixture(const char *dir, uint8_t *buf, size_t cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, FIXTURE);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void test_fixture_identical(const char *dir)
{
    static uint8_t fixture[2 * COLLECT_ECB_SIZE], built[COLLECT_ECB_SIZE];
    size_t len = load_fixture(dir, fixture, sizeof fixture);
    const struct collect_event_def *def = collect_event_find("CPU_CLK_UNHALTED.REF_TSC");
    CHECK(def != NULL);
    CHECK(def == collect_event_default());
    CHECK_EQ(def->default_sample_after, 2200000);
    struct collect_event ev = {def, def->default_sample_after};
    CHECK_EQ(collect_ecb_build(&ev, 1, built, sizeof built), COLLECT_ECB_SIZE);
    CHECK_EQ(len, COLLECT_ECB_SIZE);
    for (size_t i = 0; i < COLLECT_ECB_SIZE && i < len; i++) {
        if (built[i] != fixture[i]) {
            fprintf(stderr, "first difference from the fixture at byte %zu: 0x%02x != 0x%02x\n", i,
                    built[i], fixture[i]);
            check_failures++;
            break;
        }
    }
}

/* Decodes an ECB as the agent does and returns its plan; every written register must
 * pass the agent's allowlist for a CPU with 4 general and 3 fixed counters. */
static int decode_and_plan(const uint8_t *bytes, size_t len)
{
    int err = ecb_decode(bytes, len, &ecb);
    CHECK_EQ(err, ECB_OK);
    if (err)
        return err;
    CHECK_EQ(ecb.device_type, SEP_DEVICE_CORE);
    for (uint32_t i = 0; i < ecb.entry_count; i++) {
        if (ecb.entries[i].reg_type == SEP_REG_EMPTY)
            continue;
        if (msr_policy_check(ecb.entries[i].reg_id, 1) != MSR_POLICY_OK) {
            fprintf(stderr, "entry %u: MSR 0x%x refused by the agent's allowlist\n", i,
                    ecb.entries[i].reg_id);
            check_failures++;
        }
    }
    err = ecb_plan_sampling(&ecb, &plan);
    CHECK_EQ(err, ECB_OK);
    return err;
}

static void check_counter(const struct ecb_counter *c, const struct collect_event_def *def,
                          uint64_t sample_after, uint16_t event_index)
{
    CHECK_EQ(c->kind, ECB_COUNTER_FIXED);
    CHECK_EQ(c->index, def->fixed_counter);
    CHECK_EQ(c->msr, 0x309u + def->fixed_counter);
    CHECK_EQ(c->sample_after, sample_after);
    CHECK_EQ(c->width_mask, 0xFFFFFFFFFFFFull);
    CHECK_EQ(c->event_index, event_index);
    CHECK_EQ(c->desc_id, 0);
    CHECK(c->has_control);
    CHECK(c->pmi);
    CHECK_EQ(c->control, 0xB); /* OS + USR + PMI */
    CHECK_EQ(c->control_msr, 0x38Du);
}

static void test_each_event(void)
{
    static const uint64_t values[] = {0, 1, 1000, 2000003, 0x7FFFFFFFFFFFull, 0xFFFFFFFFFFFFull};
    static uint8_t buf[COLLECT_ECB_SIZE];
    size_t count = 0;
    for (const struct collect_event_def *def; (def = collect_event_at(count)) != NULL; count++) {
        CHECK(collect_event_find(def->name) == def);
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            uint64_t sa = values[v] ? values[v] : def->default_sample_after;
            struct collect_event ev = {def, sa};
            memset(buf, 0xA5, sizeof buf);
            CHECK_EQ(collect_ecb_build(&ev, 1, buf, sizeof buf), COLLECT_ECB_SIZE);
            if (decode_and_plan(buf, sizeof buf))
                continue;
            CHECK_EQ(ecb.num_events, 1);
            CHECK_EQ(plan.num_counters, 1);
            check_counter(&plan.counters[0], def, sa, 0);
            CHECK_EQ(plan.enable_mask, 1ull << (32 + def->fixed_counter));
            CHECK(plan.has_global_ctrl);
            CHECK_EQ(plan.global_ctrl, plan.enable_mask);
        }
    }
    CHECK_EQ(count, 3);
    CHECK(collect_event_find("INST_RETIRED.ANY") != NULL);
    CHECK(collect_event_find("CPU_CLK_UNHALTED.THREAD") != NULL);
    CHECK(collect_event_find("cpu_clk_unhalted.ref_tsc") == NULL);
    CHECK(collect_event_find("BR_INST_RETIRED.ALL_BRANCHES") == NULL);
}

static void test_group_of_three(void)
{
    static uint8_t buf[COLLECT_ECB_SIZE];
    const struct collect_event_def *a = collect_event_find("INST_RETIRED.ANY");
    const struct collect_event_def *b = collect_event_find("CPU_CLK_UNHALTED.REF_TSC");
    const struct collect_event_def *c = collect_event_find("CPU_CLK_UNHALTED.THREAD");
    struct collect_event evs[3] = {{a, 111}, {b, 222}, {c, 333}};
    CHECK_EQ(collect_ecb_build(evs, 3, buf, sizeof buf), COLLECT_ECB_SIZE);
    if (decode_and_plan(buf, sizeof buf))
        return;
    CHECK_EQ(ecb.num_events, 3);
    CHECK_EQ(plan.num_counters, 3);
    /* The plan lists counters in entry order: fixed counter 0, 1, 2. */
    check_counter(&plan.counters[0], a, 111, 0);
    check_counter(&plan.counters[1], c, 333, 2);
    check_counter(&plan.counters[2], b, 222, 1);
    CHECK_EQ(plan.enable_mask, 7ull << 32);
    CHECK_EQ(plan.global_ctrl, 7ull << 32);
}

static void test_errors(void)
{
    static uint8_t buf[COLLECT_ECB_SIZE];
    const struct collect_event_def *d = collect_event_default();
    const struct collect_event_def *t = collect_event_find("CPU_CLK_UNHALTED.THREAD");
    struct collect_event eight[8] = {{d, 1}, {t, 1}, {d, 1}, {t, 1},
                                     {d, 1}, {t, 1}, {d, 1}, {t, 1}};
    struct collect_event same[2] = {{t, 1}, {t, 5}};
    struct collect_event zero = {d, 0}, wide = {d, 1ull << 48};
    CHECK_EQ(collect_ecb_build(eight, 0, buf, sizeof buf), COLLECT_ECB_ERR_COUNT);
    CHECK_EQ(collect_ecb_build(eight, 8, buf, sizeof buf), COLLECT_ECB_ERR_COUNT);
    CHECK_EQ(collect_ecb_build(eight, 4, buf, sizeof buf), COLLECT_ECB_ERR_SAME_COUNTER);
    CHECK_EQ(collect_ecb_build(same, 2, buf, sizeof buf), COLLECT_ECB_ERR_SAME_COUNTER);
    CHECK_EQ(collect_ecb_build(&zero, 1, buf, sizeof buf), COLLECT_ECB_ERR_SAMPLE_AFTER);
    CHECK_EQ(collect_ecb_build(&wide, 1, buf, sizeof buf), COLLECT_ECB_ERR_SAMPLE_AFTER);
    CHECK_EQ(collect_ecb_build(same, 1, buf, sizeof buf - 1), COLLECT_ECB_ERR_BUFFER);
    for (int e = COLLECT_ECB_ERR_PRECISE; e <= COLLECT_ECB_OK; e++)
        CHECK(strcmp(collect_ecb_strerror(e), "unknown ECB error") != 0);
}

/* collect --lbr: every counter's DATA entry asks for LBRs in its samples, the general
 * ones too (decoded and planned as the target does: the sampler's `lbr` per event). */
static void test_ask_lbr(void)
{
    static uint8_t bytes[COLLECT_ECB_SIZE];
    const struct collect_event_def gp = {.name = "BR_INST_RETIRED.ALL_BRANCHES",
                                         .fixed_counter = COLLECT_ECB_NO_FIXED,
                                         .gp_mask = 0xf,
                                         .evtsel = 0xc4};
    const struct collect_event ev[2] = {{collect_event_find("INST_RETIRED.ANY"), 100000},
                                        {&gp, 10000}};
    CHECK_EQ(collect_ecb_build(ev, 2, bytes, sizeof bytes), COLLECT_ECB_SIZE);
    collect_ecb_ask_lbr(bytes, 0);
    CHECK_EQ(ecb_decode(bytes, sizeof bytes, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    CHECK_EQ(plan.num_counters, 2);
    for (uint32_t i = 0; i < plan.num_counters; i++)
        CHECK(plan.counters[i].flags & SEP_EVREG_LBR_VALUE);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <fixtures/aca directory>\n", argv[0]);
        return 2;
    }
    struct msr_policy_limits limits = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&limits);
    test_fixture_identical(argv[1]);
    test_each_event();
    test_group_of_three();
    test_errors();
    test_ask_lbr();
    return check_report("test_collect_ecb");
}
