/*
 * `acart collect --event` by name (tools/collect/setup/collect_events.c) for a Skylake target
 * (CPUID 6-5E): the ECB built from perfmon's names, decoded by the agent's own decoder
 * (runtime/commands/ecb.c), programs each general counter with the event select perfmon's JSON
 * gives (EventCode, UMask, CounterMask, Invert, EdgeDetect, AnyThread; the values below
 * are copied from perfmon/json/SKL/events/skylake_core.json), the offcore response
 * MSR with its MSRValue, PEBS where asked; every register passes the agent's MSR
 * allowlist; and each failure has its own message.
 */
#include <string.h>

#include "acart_check.h"
#include "collect_events.h"
#include "collect_link.h"
#include "ecb.h"
#include "msr_policy.h"

#define USR_OS_INT_EN ((1u << 16) | (1u << 17) | (1u << 20) | (1u << 22))
#define EDGE          (1u << 18)
#define ANY           (1u << 21)
#define INV           (1u << 23)
#define CMASK(n)      ((uint32_t)(n) << 24)

static const struct collect_target_cpu skylake = {6, 0x5E, 1, 4};
static struct ecb ecb;
static struct ecb_plan plan;

static int resolve(const char *arg, const struct collect_target_cpu *cpu,
                   struct collect_events *out, struct diag *d)
{
    struct collect_event_spec specs[COLLECT_ECB_MAX_EVENTS];
    size_t n = 0;
    char err[256];
    memset(d, 0, sizeof *d);
    if (collect_events_parse(arg, specs, &n, COLLECT_ECB_MAX_EVENTS, err, sizeof err)) {
        snprintf(d->msg, sizeof d->msg, "%s", err);
        return d->code = DIAG_USAGE;
    }
    return collect_events_resolve(specs, n, cpu, out, d);
}

/* Resolves arg on cpu, builds and decodes the ECB into `plan`; 0 or the failure. */
static int build(const char *arg, const struct collect_target_cpu *cpu, struct diag *d)
{
    static struct collect_events ev;
    static uint8_t bytes[COLLECT_ECB_SIZE];
    int rc = resolve(arg, cpu, &ev, d);
    if (rc) {
        printf("%s: %s\n", arg, d->msg); /* the message a user would see */
        return rc;
    }
    CHECK_EQ(collect_ecb_build(ev.events, ev.num_events, bytes, sizeof bytes), COLLECT_ECB_SIZE);
    CHECK_EQ(ecb_decode(bytes, sizeof bytes, &ecb), ECB_OK);
    CHECK_EQ(ecb_plan_sampling(&ecb, &plan), ECB_OK);
    for (uint32_t i = 0; i < ecb.entry_count; i++) {
        const struct ecb_entry *e = &ecb.entries[i];
        if (e->reg_type != SEP_REG_EMPTY && e->reg_type != SEP_REG_DATA)
            CHECK(msr_policy_check(e->reg_id, 1) == MSR_POLICY_OK);
    }
    return 0;
}

static const struct ecb_counter *counter_of_event(uint16_t index)
{
    for (uint32_t i = 0; i < plan.num_counters; i++)
        if (plan.counters[i].event_index == index)
            return &plan.counters[i];
    return NULL;
}

static uint64_t msr_value(uint32_t msr, int *found)
{
    *found = 0;
    for (uint32_t i = 0; i < ecb.entry_count; i++)
        if (ecb.entries[i].reg_type != SEP_REG_EMPTY && ecb.entries[i].reg_id == msr) {
            *found = 1;
            return ecb.entries[i].value;
        }
    return 0;
}

static void test_skylake_encodings(void)
{
    struct diag d;
    int found;
    /* BR_MISP_RETIRED.ALL_BRANCHES: 0xC5/0x00; UOPS_ISSUED.STALL_CYCLES: 0x0E/0x01 cmask 1
     * inv; MACHINE_CLEARS.COUNT: 0xC3/0x01 cmask 1 edge; OFFCORE_RESPONSE.DEMAND_DATA_RD.
     * ANY_RESPONSE: 0xB7/0x01 with MSR_OFFCORE_RSP_0 = 0x10001; INST_RETIRED.ANY on fixed 0. */
    CHECK_EQ(build("BR_MISP_RETIRED.ALL_BRANCHES,uops_issued.stall_cycles:sa=5000,"
                   "MACHINE_CLEARS.COUNT,OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE,"
                   "INST_RETIRED.ANY",
                   &skylake, &d),
             0);
    CHECK_EQ(plan.num_counters, 5);
    const uint32_t want[4] = {0xC5 | USR_OS_INT_EN, 0x010E | CMASK(1) | INV | USR_OS_INT_EN,
                              0x01C3 | CMASK(1) | EDGE | USR_OS_INT_EN, 0x01B7 | USR_OS_INT_EN};
    const uint64_t sa[4] = {400009, 5000, 100003, 100003}; /* perfmon's, or :sa= */
    for (uint16_t i = 0; i < 4; i++) {
        const struct ecb_counter *c = counter_of_event(i);
        CHECK(c != NULL);
        if (!c)
            continue;
        CHECK_EQ(c->kind, ECB_COUNTER_GENERAL);
        CHECK(c->has_control);
        CHECK_EQ(c->control, want[i]);
        CHECK_EQ(c->sample_after, sa[i]);
        CHECK_EQ(c->flags & SEP_EVREG_PRECISE, 0);
    }
    const struct ecb_counter *fixed = counter_of_event(4);
    CHECK(fixed && fixed->kind == ECB_COUNTER_FIXED && fixed->index == 0);
    CHECK_EQ(msr_value(0x1A6, &found), 0x10001);
    CHECK(found);
    msr_value(0x1A7, &found);
    CHECK(!found);
    CHECK_EQ(plan.global_ctrl, 0xFull | 1ull << 32);

    /* AnyThread (INT_MISC.RECOVERY_CYCLES_ANY: 0x0D/0x01 any). */
    CHECK_EQ(build("INT_MISC.RECOVERY_CYCLES_ANY", &skylake, &d), 0);
    CHECK_EQ(plan.counters[0].control, 0x010D | ANY | USR_OS_INT_EN);
}

static void test_constraints(void)
{
    struct diag d;
    int found;
    /* INST_RETIRED.PREC_DIST counts only on PMC1: it gets PMC1 even named last, with PEBS. */
    CHECK_EQ(build("UOPS_ISSUED.ANY,UOPS_RETIRED.RETIRE_SLOTS,BR_INST_RETIRED.ALL_BRANCHES,"
                   "INST_RETIRED.PREC_DIST:precise",
                   &skylake, &d),
             0);
    const struct ecb_counter *pd = counter_of_event(3);
    CHECK(pd && pd->index == 1 && (pd->flags & SEP_EVREG_PRECISE));
    CHECK_EQ(msr_value(0x3F1, &found), 1u << 1); /* IA32_PEBS_ENABLE */

    /* Two offcore events: the second on MSR_OFFCORE_RSP_1 with event code 0xBB. */
    CHECK_EQ(build("OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE,"
                   "OFFCORE_RESPONSE.DEMAND_RFO.ANY_RESPONSE",
                   &skylake, &d),
             0);
    CHECK_EQ(counter_of_event(0)->control, 0x01B7 | USR_OS_INT_EN);
    CHECK_EQ(counter_of_event(1)->control, 0x01BB | USR_OS_INT_EN);
    CHECK_EQ(msr_value(0x1A6, &found), 0x10001);
    CHECK_EQ(msr_value(0x1A7, &found), 0x10002);

    /* Load latency: MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4 is 0xCD/0x01, threshold 4. */
    CHECK_EQ(build("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4:precise", &skylake, &d), 0);
    CHECK_EQ(plan.counters[0].control, 0x01CD | USR_OS_INT_EN);
    CHECK_EQ(msr_value(0x3F6, &found), 4);
    CHECK(found);

    /* A target that reports two general counters. */
    struct collect_target_cpu two = skylake;
    two.gp_counters = 2;
    CHECK_EQ(build("UOPS_ISSUED.ANY,UOPS_RETIRED.RETIRE_SLOTS", &two, &d), 0);
    CHECK_EQ(
        build("UOPS_ISSUED.ANY,UOPS_RETIRED.RETIRE_SLOTS,BR_INST_RETIRED.ALL_BRANCHES", &two, &d),
        DIAG_USAGE);
    CHECK(strstr(d.msg, "too many events for the counters") != NULL);
}

static void test_errors(void)
{
    struct diag d;
    struct collect_events ev;
    CHECK_EQ(resolve("BR_MISP_RETIRED.ALL_BRANCHE", &skylake, &ev, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "no such event") &&
          strstr(d.msg, "did you mean BR_MISP_RETIRED.ALL_BRANCHES"));
    CHECK_EQ(resolve("UOPS_ISSUED.ANY:precise", &skylake, &ev, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "cannot be sampled with PEBS") != NULL);
    CHECK_EQ(resolve("INST_RETIRED.ANY:precise", &skylake, &ev, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "fixed counter 0") != NULL);
    CHECK_EQ(resolve("UOPS_ISSUED.ANY,UOPS_RETIRED.RETIRE_SLOTS,BR_INST_RETIRED.ALL_BRANCHES,"
                     "BR_MISP_RETIRED.ALL_BRANCHES,MACHINE_CLEARS.COUNT",
                     &skylake, &ev, &d),
             DIAG_USAGE);
    CHECK(strstr(d.msg, "too many events for the counters") != NULL);
    CHECK_EQ(resolve("OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE,"
                     "OFFCORE_RESPONSE.DEMAND_RFO.ANY_RESPONSE,"
                     "OFFCORE_RESPONSE.DEMAND_CODE_RD.ANY_RESPONSE",
                     &skylake, &ev, &d),
             DIAG_USAGE);
    CHECK(strstr(d.msg, "extra MSRs") != NULL);
    CHECK_EQ(resolve("CPU_CLK_UNHALTED.THREAD,CPU_CLK_UNHALTED.THREAD_ANY", &skylake, &ev, &d),
             DIAG_USAGE);
    CHECK(strstr(d.msg, "CPU_CLK_UNHALTED.THREAD and CPU_CLK_UNHALTED.THREAD_ANY both count only "
                        "on fixed counter 1") != NULL);
    CHECK_EQ(resolve("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4,MEM_TRANS_RETIRED.LOAD_LATENCY_GT_8",
                     &skylake, &ev, &d),
             DIAG_USAGE);
    CHECK(strstr(d.msg, "extra MSRs") != NULL);

    struct collect_target_cpu qemu = {6, 0x06, 0, 0}; /* TCG: no PMU, a model with no table */
    CHECK_EQ(resolve("cpu_clk_unhalted.ref_tsc:sa=1000000", &qemu, &ev, &d), 0);
    CHECK_EQ(ev.events[0].sample_after, 1000000);
    CHECK(strcmp(ev.events[0].def->name, "CPU_CLK_UNHALTED.REF_TSC") == 0);
    CHECK_EQ(resolve("BR_MISP_RETIRED.ALL_BRANCHES", &qemu, &ev, &d), COLLECT_DIAG_TARGET);
    CHECK(strstr(d.msg, "no usable PMU") != NULL);
    qemu.pmu = 1;
    CHECK_EQ(resolve("BR_MISP_RETIRED.ALL_BRANCHES", &qemu, &ev, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "no perfmon event table") && strstr(d.msg, "SKL"));

    CHECK_EQ(resolve("A:sa=0", &skylake, &ev, &d), DIAG_USAGE);
    CHECK_EQ(resolve("A:bogus", &skylake, &ev, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "unknown modifier") != NULL);
    CHECK_EQ(resolve("UOPS_ISSUED.ANY,uops_issued.any", &skylake, &ev, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "twice") != NULL);
}

/* The other models resolve their own names, with their own encodings. */
static void test_other_models(void)
{
    struct diag d;
    const struct collect_target_cpu goldmont = {6, 0x5C, 1, 4}, tigerlake = {6, 0x8C, 1, 8};
    /* Goldmont OFFCORE_RESPONSE.ANY_READ.L2_MISS.ANY: 0xB7/0x01, RSP value 0x36000032b7. */
    CHECK_EQ(build("OFFCORE_RESPONSE.ANY_READ.L2_MISS.ANY", &goldmont, &d), 0);
    CHECK_EQ(plan.counters[0].control, 0x01B7 | USR_OS_INT_EN);
    int found;
    CHECK_EQ(msr_value(0x1A6, &found), 0x36000032b7ull);
    /* Tiger Lake TOPDOWN.SLOTS counts only on fixed counter 3, which acart does not program. */
    CHECK_EQ(build("TOPDOWN.SLOTS", &tigerlake, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "fixed counter 3") != NULL);
}

/* --metrics tma1: its five events fit Skylake's counters (the clocks on fixed counter 1,
 * four on the general ones); other models and a target without a PMU are refused. */
static void test_metrics(void)
{
    struct diag d = {0};
    struct collect_event_spec specs[COLLECT_ECB_MAX_EVENTS];
    static struct collect_events ev;
    size_t n = 0;
    CHECK_EQ(collect_events_metrics("tma1", &skylake, specs, &n, &d), 0);
    CHECK_EQ(n, 5);
    CHECK_EQ(collect_events_resolve(specs, n, &skylake, &ev, &d), 0);
    CHECK_EQ(ev.events[0].def->fixed_counter, 1);
    for (size_t i = 1; i < n; i++)
        CHECK_EQ(ev.events[i].def->fixed_counter, COLLECT_ECB_NO_FIXED);
    const struct collect_target_cpu tigerlake = {6, 0x8C, 1, 8}, none = {6, 0x5E, 0, 0};
    CHECK_EQ(collect_events_metrics("tma1", &tigerlake, specs, &n, &d), DIAG_USAGE);
    CHECK(strstr(d.msg, "perfmon TGL") != NULL);
    CHECK_EQ(collect_events_metrics("tma1", &none, specs, &n, &d), COLLECT_DIAG_TARGET);
    CHECK_EQ(collect_events_metrics("tma2", &skylake, specs, &n, &d), DIAG_USAGE);
}

int main(void)
{
    struct msr_policy_limits limits = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&limits);
    test_skylake_encodings();
    test_constraints();
    test_errors();
    test_other_models();
    test_metrics();
    return check_report("collect_events");
}
