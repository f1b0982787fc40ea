/* The IPROBE API (runtime/ipr_*.c) on simulated CPUs (sim_cpu.c, one per CPU) inside the
 * recording board of the sampler tests (sampler_shim_*.c): ownership against a host
 * session, counts equal to the events the simulator retired (across 48-bit overflows),
 * start/stop/pause/resume, skip, PC ranges, histogram buckets, full actions, sample-file
 * round trips, time-based sampling, a CPU without a PMU, and every status code of ipr.h
 * reached by a call. Built with ACA_MAX_CPUS=3: simulated CPU 3 is online but outside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart.h"
#include "acart_platform.h"
#include "acart_check.h"
#include "acart_wire.h"
#include "target.h"
#include "commands.h"
#include "ipr.h"
#include "io.h"
#include "ipr_state.h"
#include "ipr_file.h"
#include "lapic.h"
#include "msr.h"
#include "msr_policy.h"
#include "pmu.h"
#include "pmu_owner.h"
#include "sampler_shim.h"
#include "ipr_seed_client.h"

#define CPUS   3 /* ACA_MAX_CPUS */
#define BIT48  (1ull << 48)
#define EV_INS 0x00c0u /* INST_RETIRED.ANY: fixed counter 0 */
#define EV_CLK 0x003cu /* CPU_CLK_UNHALTED.THREAD: fixed counter 1 */
#define EV_BR  0x00c4u /* BR_INST_RETIRED.ALL_BRANCHES: a GP counter */

/* ---- Every status code a call returned, to prove each is reachable. ---- */
static int seen[64];

static IPR_STATUS note(IPR_STATUS st)
{
    if (st >= 0 && st < 64)
        seen[st] = 1;
    return st;
}

#define EXPECT(call, status) CHECK_EQ(note(call), status)

/* The port's log: IprPrintMessage's default printer. */
static char last_log[256];
void aca_port_log(const char *line)
{
    snprintf(last_log, sizeof(last_log), "%s", line);
}

static void retire(uint32_t cpu, uint64_t ins, uint64_t cycles, uint64_t branches)
{
    struct sim_events ev = {
        .instructions = ins, .cycles = cycles, .ref_cycles = cycles, .branches = branches};
    shim_sim(cpu)->retire(&ev);
}

/* The PMI the simulator raised on cpu, delivered with the interrupted PC `ip`. */
static int pmi(uint32_t cpu, uint32_t ip)
{
    struct trap_frame f;
    memset(&f, 0, sizeof(f));
    f.ip = ip;
    f.cs = 0x08;
    return shim_raise_pmi(cpu, &f);
}

static void no_faults(void)
{
    for (uint32_t c = 0; c < SHIM_CPUS; c++) {
        if (shim_sim(c)->faults()) {
            fprintf(stderr, "cpu %u: simulator fault: %s\n", c, shim_sim(c)->fault_text());
            check_failures++;
            shim_sim(c)->clear_faults();
        }
    }
}

/* ---- Ownership, with a host session in between ---- */

static void test_ownership(void)
{
    shim_power_on(&sim_skylake);
    shim_set_current_cpu(0);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__NOTOWNER);
    EXPECT(IprDeallocate(), IPR__NOTOWNER);
    CHECK_EQ(pmu_owner_claim(PMU_OWNER_HOST), ACA_OK); /* a host's INIT_PMU */
    EXPECT(IprAllocate(), IPR__HOSTSESSION);
    pmu_owner_release(PMU_OWNER_HOST);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    EXPECT(IprAllocate(), IPR__ALREADYOWNER);
    CHECK_EQ(pmu_owner_claim(PMU_OWNER_HOST), ACA_ERR_BUSY); /* and the other way round */
    CHECK(shim_acart_nmi() != 0);                            /* IPROBE's PMI is installed */
    shim_set_current_cpu(1);                                 /* another task */
    EXPECT(IprAllocate(), IPR__INUSE);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__NOTOWNER);
    EXPECT(IprDeallocate(), IPR__NOTOWNER);
    shim_set_current_cpu(0);
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    CHECK(shim_acart_nmi() == 0);
    CHECK_EQ(pmu_owner_claim(PMU_OWNER_HOST), ACA_OK);
    pmu_owner_release(PMU_OWNER_HOST);
    no_faults();
}

/* ---- A host's WRITE_MSR (runtime/commands/cmd_msr.c) against an IPROBE owner ---- */

/* What cmd_msr.c needs of the agent besides the handler: the session's CPU count, the
 * reply writer of commands.c (whose table would bring in every handler), and the MSR
 * access that survives a #GP, here the simulator's with its faults as the #GP. */
struct target target;

int32_t cmd_reply(struct cmd_request *req, const void *value, uint32_t len)
{
    if (len > req->out_cap)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    memcpy(req->out, value, len);
    req->out_len = len;
    return SEP_STATUS_SUCCESS;
}

static int32_t host_write_msr(uint32_t msr, uint64_t value)
{
    struct sep_event_reg reg;
    memset(&reg, 0, sizeof(reg));
    reg.event_reg_id.reg_id = msr;
    reg.reg_value = value;
    struct cmd_request req = {.in = (const uint8_t *)&reg, .in_len = sizeof(reg)};
    return cmd_write_msr(&req);
}

/* A host session that never sent INIT_PMU (so never claimed the counters) may not write
 * what IPROBE programs or relies on while it owns them; every CPU keeps IPROBE's values
 * and the counts stay exact. Once IPROBE lets go, the same write goes through, and the
 * counters are nobody's again after it. */
static void test_host_msr_writes(void)
{
    static const uint32_t pmu_msrs[] = {MSR_IA32_PERFEVTSEL0,
                                        MSR_IA32_PERFEVTSEL0 + 3,
                                        0xC1 /* IA32_PMC0 */,
                                        0x4C1 /* IA32_A_PMC0 */,
                                        0x309 /* IA32_FIXED_CTR0 */,
                                        MSR_IA32_FIXED_CTR_CTRL,
                                        MSR_IA32_PERF_GLOBAL_CTRL,
                                        0x390 /* IA32_PERF_GLOBAL_OVF_CTRL */,
                                        MSR_OFFCORE_RSP_0,
                                        MSR_OFFCORE_RSP_1,
                                        MSR_PEBS_LD_LAT,
                                        0x3F7 /* MSR_PEBS_FRONTEND */,
                                        0x3F1 /* IA32_PEBS_ENABLE */,
                                        0x600 /* IA32_DS_AREA */,
                                        0x1C8 /* MSR_LBR_SELECT */,
                                        0x1D9 /* IA32_DEBUGCTL */};
    const struct msr_policy_limits lim = {
        .num_gp_counters = 4, .num_fixed_counters = 3, .full_width_writes = 1};
    IPR_EVENT evs[2] = {EV_INS, EV_BR};
    IPR_FREQ fr[2] = {0, 0};
    IPR_COUNT v[IPR_MAX_COUNTERS];
    uint64_t before[CPUS][sizeof(pmu_msrs) / sizeof(pmu_msrs[0])];

    shim_power_on(&sim_skylake);
    msr_policy_configure(&lim);
    target.num_cpus = CPUS;
    EXPECT(IprAllocate(), IPR__SUCCESS);
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, evs, fr, 2, 0), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++)
        for (size_t i = 0; i < sizeof(pmu_msrs) / sizeof(pmu_msrs[0]); i++)
            before[c][i] = shim_sim(c)->peek_msr(pmu_msrs[i]);
    for (size_t i = 0; i < sizeof(pmu_msrs) / sizeof(pmu_msrs[0]); i++) {
        last_log[0] = 0;
        CHECK_EQ(host_write_msr(pmu_msrs[i], 0x5300c4 + i), SEP_STATUS_PMU_IN_USE);
        CHECK(strstr(last_log, "WRITE_MSR") && strstr(last_log, "refused") &&
              strstr(last_log, "IPROBE"));
        for (uint32_t c = 0; c < CPUS; c++)
            CHECK_EQ(shim_sim(c)->peek_msr(pmu_msrs[i]), before[c][i]);
    }
    CHECK(strstr(last_log, "WRITE_MSR 0x1d9 (IA32_DEBUGCTL) refused") != NULL);
    CHECK_EQ(pmu_owner_current(), PMU_OWNER_IPROBE);
    retire(0, 1234, 0, 56);
    EXPECT(aca_ipr_read(1, 0, 0x12, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(v[1], 1234);
    CHECK_EQ(v[4], 56);
    EXPECT(IprDeallocate(), IPR__SUCCESS);

    CHECK_EQ(host_write_msr(MSR_IA32_PERFEVTSEL0, 0x4300c4), SEP_STATUS_SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++)
        CHECK_EQ(shim_sim(c)->peek_msr(MSR_IA32_PERFEVTSEL0), 0x4300c4);
    CHECK_EQ(pmu_owner_current(), PMU_OWNER_NONE);
    /* A session that holds the counters (INIT_PMU) keeps them after its write. */
    CHECK_EQ(pmu_owner_claim(PMU_OWNER_HOST), ACA_OK);
    CHECK_EQ(host_write_msr(MSR_IA32_PERFEVTSEL0, 0), SEP_STATUS_SUCCESS);
    CHECK_EQ(pmu_owner_current(), PMU_OWNER_HOST);
    EXPECT(IprAllocate(), IPR__HOSTSESSION);
    pmu_owner_release(PMU_OWNER_HOST);
    no_faults();
}

/* ---- Events, names, event sets ---- */

static void test_events(void)
{
    IPR_EVENT e = 0;
    const char *matches = 0;
    IPR_EVENTSET set, more, other;

    shim_power_on(&sim_skylake);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    CHECK_EQ(IprNumCounters(), 1 + 3 + 4); /* TSC, 3 fixed, 4 GP on Skylake */
    EXPECT(IprEventNameToNumber("inst_retired.any", &e, &matches), IPR__SUCCESS);
    CHECK_EQ(e, EV_INS);
    CHECK(strcmp(matches, "INST_RETIRED.ANY") == 0);
    EXPECT(IprEventNameToNumber("CPU_CLK_UNHALTED", &e, &matches), IPR__AMBIGUOUS);
    CHECK(strstr(matches, "CPU_CLK_UNHALTED.THREAD") && strstr(matches, "REF_TSC"));
    EXPECT(IprEventNameToNumber("BR_MISP", &e, &matches), IPR__SUCCESS);
    CHECK_EQ(e, 0x00c5);
    EXPECT(IprEventNameToNumber("NO_SUCH_EVENT", &e, &matches), IPR__INVEVENTNAME);
    EXPECT(IprEventNameToNumber(0, &e, &matches), IPR__BADARG);
    CHECK(strcmp(IprEventNumberToName(EV_CLK), "CPU_CLK_UNHALTED.THREAD") == 0);
    CHECK(strcmp(IprEventNumberToName(0x1234), "") == 0);
    CHECK_EQ(IprNumberOfEvents(), 9);

    IprClearEventSet(&set);
    EXPECT(IprInsertEvent(&set, EV_BR), IPR__SUCCESS);
    IprInsertEvent(&set, EV_INS);
    IprInsertEvent(&set, EV_INS);
    CHECK_EQ(IprNumberEventsInSet(&set), 2);
    CHECK_EQ(IprEventToNumber(&set), EV_INS); /* the lowest */
    CHECK(IprVerifyEventInSet(&set, EV_BR) && !ZprVerifyEventInSet(&set, EV_CLK));
    EXPECT(IprAvailableEvents(&set, &more), IPR__FURTHER_EVENTS);
    CHECK(IprVerifyEventInSet(&more, EV_CLK) && IprVerifyEventInSet(&more, IPR_EVENT_TSC));
    CHECK(!IprVerifyEventInSet(&more, 0x01a4)); /* Skylake has no fixed counter 3 */
    other = more;
    EXPECT(IprMergeEventSet(&other, &set), IPR__SUCCESS);
    CHECK_EQ(IprNumberEventsInSet(&other), IprNumberEventsInSet(&more) + 2);
    EXPECT(IprAvailableEvents(&other, &more), IPR__NO_FURTHER_EVENTS);
    EXPECT(IprMaskEventSet(&other, &set), IPR__SUCCESS);
    CHECK_EQ(IprNumberEventsInSet(&other), 2);
    EXPECT(IprRemoveEventSet(&other, &set), IPR__SUCCESS);
    CHECK_EQ(IprNumberEventsInSet(&other), 0);
    IPR_EVENT arr[2];
    EXPECT(IprExpandEventSet(&set, arr, 2), IPR__SUCCESS);
    CHECK(arr[0] == EV_INS && arr[1] == EV_BR);
    EXPECT(IprExpandEventSet(&set, arr, 1), IPR__BUFTOOSMALL);
    EXPECT(IprDeleteEvent(&set, EV_INS), IPR__SUCCESS);
    CHECK_EQ(IprNumberEventsInSet(&set), 1);
    EXPECT(IprDeleteEvent(&set, EV_CLK), IPR__SUCCESS); /* absent: nothing happens */
    CHECK(IprNumberEventsInSet(&set) == 1 && set.events[0] == EV_BR);
    CHECK_EQ(IprEventSetSize(), sizeof(IPR_EVENTSET));
    /* The rows of docs/iprobe.md: empty and NULL sets, a full set, a merge that fills up. */
    EXPECT(IprClearEventSet(&other), IPR__SUCCESS);
    CHECK(IprEventToNumber(&other) == 0 && IprEventToNumber(0) == 0);
    CHECK(IprNumberEventsInSet(0) == 0 && !IprVerifyEventInSet(0, EV_BR));
    EXPECT(IprClearEventSet(0), IPR__BADARG);
    for (IPR_EVENT k = 0; k < IPR_MAX_EVENTS_IN_SET; k++) /* descending: each goes first */
        EXPECT(IprInsertEvent(&other, 0x100 + 2 * (IPR_MAX_EVENTS_IN_SET - 1 - k)), IPR__SUCCESS);
    CHECK(IprEventToNumber(&other) == 0x100 && other.events[31] == 0x13e);
    EXPECT(IprInsertEvent(&other, 0x1000), IPR__BUFTOOSMALL);
    EXPECT(IprInsertEvent(&other, 0x100), IPR__SUCCESS); /* already in it */
    arr[0] = arr[1] = 7;
    EXPECT(IprExpandEventSet(&other, arr, 2), IPR__BUFTOOSMALL);
    CHECK(arr[0] == 7 && arr[1] == 7); /* nothing copied */
    EXPECT(IprDeleteEvent(&other, 0x100), IPR__SUCCESS);
    IPR_EVENTSET two;
    IprClearEventSet(&two);
    IprInsertEvent(&two, 0x10);
    IprInsertEvent(&two, 0x20);
    EXPECT(IprMergeEventSet(&other, &two), IPR__BUFTOOSMALL);
    CHECK(IprNumberEventsInSet(&other) == 32 && IprEventToNumber(&other) == 0x10 &&
          !IprVerifyEventInSet(&other, 0x20));

    IPR_CTRMASK ctrs;
    EXPECT(IprAvailableCounters(EV_INS, &ctrs), IPR__SUCCESS);
    CHECK_EQ(ctrs, 0x2u | 0xf0u); /* fixed counter 0 (counter 1) and GP 0-3 (4-7) */
    EXPECT(IprAvailableCounters(0x20000, &ctrs), IPR__INVEVENT);
    EXPECT(IprCounterEvents(2, &set), IPR__SUCCESS); /* fixed counter 1 */
    CHECK(IprNumberEventsInSet(&set) == 1 && set.events[0] == EV_CLK);
    EXPECT(IprCounterEvents(40, &set), IPR__BADCTRMASK);
    IPR_FREQ freqs;
    EXPECT(IprAvailableFreqs(EV_BR, &freqs), IPR__SUCCESS);
    CHECK((freqs & 0x3ff) == 0 && (freqs & 0x400)); /* from 2^10 */
    CHECK(freqs & (1ull << 46) && !(freqs & (1ull << 47)));
    IPR_MMASK modes;
    EXPECT(IprAvailableModes(&modes), IPR__SUCCESS);
    CHECK_EQ(modes, (1u << IPR_MODE_KERNEL) | (1u << IPR_MODE_USER));
    IPR_FMASK funcs;
    EXPECT(IprAvailableFuncs(&funcs), IPR__SUCCESS);
    CHECK(funcs & IPR_FUNC_PMU);

    /* Bit functions. */
    CHECK_EQ(BIprCnt(0xf0f0), 8);
    CHECK_EQ(BIprWhich(0x50), 4);
    CHECK_EQ(BIprRelPos(0x52, 6), 2);
    CHECK_EQ(BIprB2M(5), 32);
    CHECK_EQ(BIprLowest(0x50u), 0x10u);
    CHECK(BIprIs1(0x40u) && !BIprIs1(0x41u));
    CHECK_EQ(BIprClrHi(0xffu, 3), 0xfu);
    CHECK_EQ(BIprAll1((uint32_t)5), 0xffffffffu);

    EXPECT(IprPrintMessage("while testing", IPR__NOTOWNER, 0), IPR__SUCCESS);
    CHECK(strstr(last_log, "IPR__NOTOWNER") && strstr(last_log, "while testing"));
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    no_faults();
}

/* ---- Counting: exact, 64-bit, per CPU and summed ---- */

static void test_counting(void)
{
    IPR_EVENT evs[4] = {EV_INS, EV_CLK, EV_BR, EV_INS};
    IPR_FREQ fr[4] = {0, 0, 0, 0};
    uint64 mux;
    IPR_COUNT v[IPR_MAX_COUNTERS];
    IPR_EVENT map[IPR_MAX_COUNTERS];

    shim_power_on(&sim_skylake);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, 0), IPR__NOSELECTION);
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, evs, fr, 4, &mux), IPR__SUCCESS);
    uint64 bad = 1234;
    EXPECT(IprSetEvents(IPR_ALL_CPUS, &bad), IPR__BADMUX);
    EXPECT(IprSetEvents(1ull << 20, &mux), IPR__BADCPUMASK);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, &mux), IPR__SUCCESS);
    EXPECT(IprEventCounterMap(IPR_ALL_CPUS, map, IPR_MAX_COUNTERS), IPR__BADCPUMASK);
    EXPECT(IprEventCounterMap(IPR_CURRENT_CPU, map, 2), IPR__BUFTOOSMALL);
    EXPECT(IprEventCounterMap(IPR_CURRENT_CPU, map, IPR_MAX_COUNTERS), IPR__SUCCESS);
    /* TSC, INST on fixed 0, CLK on fixed 1, fixed 2 unused, BR on GP 0, INST again on GP 1. */
    CHECK(map[0] == IPR_EVENT_TSC && map[1] == EV_INS && map[2] == EV_CLK &&
          map[3] == IPR_EVENT_NONE && map[4] == EV_BR && map[5] == EV_INS);
    IPR_CTRNUMBER cn;
    EXPECT(IprCounterNumber(1ull << 1, EV_BR, &cn), IPR__SUCCESS);
    CHECK_EQ(cn, 4);
    EXPECT(IprCounterNumber(IPR_CURRENT_CPU, 0x00c5, &cn), IPR__NOCOUNTER);
    EXPECT(IprStart(IPR_ALL_CPUS, 1u << 20), IPR__BADCTRMASK);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, &mux), IPR__RUNNING);
    for (uint32_t c = 0; c < CPUS; c++)
        retire(c, 1000 * (c + 1), 3000 * (c + 1), 70 * (c + 1));
    int ctx = -1;
    uint32_t visited = 0;
    while (note(aca_ipr_read_all(IPR_ALL_CPUS, &ctx, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY)) ==
           IPR__SUCCESS) {
        uint64_t k = (uint64_t)ctx + 1;
        CHECK(v[0] > 0); /* the TSC */
        CHECK_EQ(v[1], 1000 * k);
        CHECK_EQ(v[2], 3000 * k);
        CHECK_EQ(v[4], 70 * k);
        CHECK_EQ(v[5], 1000 * k);
        CHECK_EQ(v[1], shim_sim((uint32_t)ctx)->peek_msr(MSR_IA32_FIXED_CTR0) -
                           ipr_cpus[ctx].ctr[1].load);
        visited++;
    }
    CHECK_EQ(visited, CPUS);
    CHECK(ctx >= IPR_MAX_CPUS);
    EXPECT(aca_ipr_read(IPR_ALL_CPUS, 0, 0x16, v, IPR_MAX_COUNTERS, IPR_ACTION_SUM), IPR__SUCCESS);
    CHECK_EQ(v[1], 6000);
    CHECK_EQ(v[2], 18000);
    CHECK_EQ(v[4], 420);
    EXPECT(aca_ipr_read(IPR_ALL_CPUS, 0, 0x2, v, IPR_MAX_COUNTERS, IPR_ACTION_ADD), IPR__SUCCESS);
    CHECK_EQ(v[1], 12000);
    EXPECT(aca_ipr_read_all(IPR_ALL_CPUS, 0, v, 2, IPR_ACTION_COPY), IPR__BUFTOOSMALL);
    EXPECT(aca_ipr_read(IPR_ALL_CPUS, 0, 0x2, v, IPR_MAX_COUNTERS, 7), IPR__BADARG);

    /* Across the 48-bit width: far more events than the hardware counter holds, in
     * batches, each overflow taken by the PMI. */
    IPR_COUNT start[IPR_MAX_COUNTERS] = {0, BIT48 - 5};
    EXPECT(aca_ipr_write(1, 0, 0x2, start, IPR_MAX_COUNTERS), IPR__SUCCESS);
    uint64_t total = BIT48 - 5;
    for (int round = 0; round < 5; round++) {
        uint64_t n = (1ull << 47) + 12345 + (uint64_t)round;
        retire(0, n, 0, 0);
        total += n;
        while (pmi(0, 0x1000) == SHIM_DELIVERED)
            ;
    }
    EXPECT(aca_ipr_read(1, 0, 0x2, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(v[1], total);
    CHECK(v[1] > 3 * BIT48); /* the virtual count is 64 bits wide */
    EXPECT(aca_ipr_write(1, 0, 0x2, start, 1), IPR__BUFTOOSMALL);

    /* Stop holds, Start restarts from zero, Pause/Resume (any task) continue. */
    EXPECT(IprStop(IPR_ALL_CPUS, 0x2), IPR__SUCCESS);
    retire(1, 500, 0, 0);
    EXPECT(aca_ipr_read(2, 0, 0x22, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(v[1], 2000);
    CHECK_EQ(v[5], 2500); /* GP 1 still counts */
    EXPECT(IprStart(2, 0x2), IPR__SUCCESS);
    retire(1, 7, 0, 0);
    EXPECT(aca_ipr_read(2, 0, 0x2, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(v[1], 7);
    shim_set_current_cpu(2); /* a task that does not own the counters */
    EXPECT(IprPause(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    retire(1, 100, 0, 0);
    EXPECT(IprResume(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    shim_set_current_cpu(0);
    retire(1, 3, 0, 0);
    EXPECT(aca_ipr_read(2, 0, 0x2, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(v[1], 10);
    EXPECT(IprClear(2, 0), IPR__SUCCESS);
    EXPECT(aca_ipr_read(2, 0, 0x2, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(v[1], 0);
    EXPECT(IprStop(IPR_ALL_CPUS, 0), IPR__SUCCESS);

    /* Modes: the hardware filters ring 0 / rings 1-3 only. */
    EXPECT(IprSetModes(IPR_ALL_CPUS, 1u << IPR_MODE_INTERRUPT), IPR__MODENOTSUPP);
    EXPECT(IprSetModes(IPR_ALL_CPUS, 0), IPR__BADARG);
    EXPECT(IprSetModes(IPR_ALL_CPUS, 1u << IPR_MODE_USER), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, &mux), IPR__SUCCESS);
    uint64_t sel = shim_sim(0)->peek_msr(MSR_IA32_PERFEVTSEL0);
    CHECK((sel & EVTSEL_USR) && !(sel & EVTSEL_OS) && (sel & 0xffff) == EV_BR);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    retire(0, 50, 50, 50); /* ring 0: nothing counts in user mode only */
    EXPECT(aca_ipr_read(1, 0, 0x16, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK(v[1] == 0 && v[2] == 0 && v[4] == 0);
    EXPECT(IprStop(IPR_ALL_CPUS, 0), IPR__SUCCESS);

    /* Assignment limits. */
    IPR_EVENT many[6] = {EV_BR, EV_BR, EV_BR, EV_BR, EV_BR, EV_BR};
    IPR_FREQ zeros[6] = {0};
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, many, zeros, 6, 0), IPR__NOCOUNTER);
    IPR_EVENT one[1] = {0x20000};
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, one, zeros, 1, 0), IPR__INVEVENT);
    IPR_FREQ odd[1] = {1000};
    one[0] = EV_BR;
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, one, odd, 1, 0), IPR__BADFREQ);
    IPR_FREQ lowest[1] = {IPR_FREQUENCY_LOWEST}, got[IPR_MAX_COUNTERS];
    IPR_CTRMASK assigned;
    EXPECT(IprSpecifyOperations(IPR_ALL_CPUS, one, lowest, 1,
                                (1u << IPR_MODE_KERNEL) | (1u << IPR_MODE_USER), &mux, &assigned),
           IPR__SUCCESS);
    CHECK_EQ(assigned, 0x11u); /* the TSC and GP 0 */
    EXPECT(IprFreqCounterMap(IPR_CURRENT_CPU, got, IPR_MAX_COUNTERS), IPR__SUCCESS);
    CHECK_EQ(got[4], 1ull << 46);
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    no_faults();
}

/* ---- Sampling: skip, ranges, histograms, buffers, full actions, sample files ---- */

static int ast_calls;
static int ast_routine(void)
{
    ast_calls++;
    return 0;
}

#define PERIOD 4096u
#define HBEGIN 0x1000u
#define HEND   0x1fffu

static void test_sampling(void)
{
    IPR_EVENT evs[2] = {EV_INS, EV_BR};
    IPR_FREQ fr[2] = {PERIOD, 0};
    const uint64 ranges[2] = {0x1000, 0x17ff};
    IPR_COUNT skip[2] = {0, 0};
    const uint32_t numctrs = 8;
    static IPR_HISTELEM expect_cells[((HEND - HBEGIN) >> 4) + 1][8];
    uint32_t expect_fine[256] = {0};
    static uint32_t recorded_pc[64];
    uint32_t num_recorded = 0, interrupts = 0;

    shim_power_on(&sim_skylake);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, evs, fr, 2, 0), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    EXPECT(IprAddAddressHistogramBuffers(1, 0x1800, 0x18ff, 0, 1), IPR__NOBUFFERS);
    EXPECT(IprCreateHistogramBuffers(1, IPR_HIST_ADDRESS | IPR_HIST_MODE, HBEGIN, HEND, 4, 0),
           IPR__SUCCESS);
    EXPECT(IprCreateHistogramBuffers(1, IPR_HIST_MODE, 0, 0, 0, 3), IPR__BUFFERSEXIST);
    EXPECT(IprAddAddressHistogramBuffers(1, 0x1800, 0x18ff, 0, 1), IPR__SUCCESS);
    EXPECT(IprCreateHistogramBuffers(1, IPR_HIST_ADDRESS, 0, 0xffffffff, 0, 2), IPR__NOMEMORY);
    /* Records: PC (4), CPU (4), counter (4), count (8) = 20 bytes; 4 per buffer. */
    IPR_DMASK d = IPR_DATA_PC | IPR_DATA_CPU | IPR_DATA_CTR | IPR_DATA_COUNT;
    EXPECT(IprCreateSampleBuffers(1, 2, 80, d, IPR_DATA_COUNT, 1, IPR_FULL_AST, ast_routine, 1,
                                  ranges),
           IPR__NOTIMPL); /* sampleaction */
    EXPECT(IprCreateSampleBuffers(1, 2, 80, d, IPR_DATA_COUNT, 0, IPR_FULL_WAKE, 0, 1, ranges),
           IPR__NOTIMPL);
    EXPECT(
        IprCreateSampleBuffers(1, 2, 8, d, IPR_DATA_COUNT, 0, IPR_FULL_AST, ast_routine, 1, ranges),
        IPR__BUFTOOSMALL);
    EXPECT(
        IprCreateSampleBuffers(1, 2, 80, d, IPR_DATA_TSC, 0, IPR_FULL_AST, ast_routine, 1, ranges),
        IPR__BADARG); /* qdatcol not within datcol */
    EXPECT(IprCreateSampleBuffers(1, 2, ACA_IPR_POOL_BYTES, d, 0, 0, IPR_FULL_NONE, 0, 0, 0),
           IPR__NOMEMORY);
    EXPECT(IprCreateSampleBuffers(1, 2, 80, d, IPR_DATA_COUNT, 0, IPR_FULL_AST, ast_routine, 1,
                                  ranges),
           IPR__SUCCESS);
    EXPECT(IprCreateSampleBuffers(3, 2, 80, d, 0, 0, IPR_FULL_NONE, 0, 0, 0), IPR__BUFFERSEXIST);
    EXPECT(IprSetSampleSkip(IPR_ALL_CPUS, skip, 2), IPR__SUCCESS);
    EXPECT(IprSetSampleSkip(IPR_ALL_CPUS, skip, 20), IPR__BADCTRMASK);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);

    /* 40 overflows of INST_RETIRED.ANY on CPU 0, each at its own PC; skip 0 for counter 1,
     * so every one samples. PCs walk 0xf80.. in steps of 0x30: some before the histogram,
     * some outside the buffers' range. */
    for (uint32_t k = 0; k < 40; k++) {
        uint32_t pc = 0xf80 + k * 0x30;
        retire(0, PERIOD, 0, 0);
        CHECK_EQ(pmi(0, pc), SHIM_DELIVERED);
        interrupts++;
        if (pc >= HBEGIN && pc <= HEND)
            expect_cells[(pc - HBEGIN) >> 4][1]++;
        if (pc >= 0x1800 && pc <= 0x18ff)
            expect_fine[pc - 0x1800]++;
        if (pc >= 0x1000 && pc <= 0x17ff && num_recorded < 64)
            recorded_pc[num_recorded++] = pc;
    }
    CHECK_EQ(ast_calls, 0); /* never from the interrupt */
    aca_ipr_poll();
    CHECK_EQ(ast_calls, 2); /* both buffers filled */
    CHECK_EQ(ipr_cpus[0].dropped, num_recorded - 8);

    /* Histogram buckets: exactly the PCs that fell in them. */
    static IPR_HISTELEM h[sizeof(expect_cells) / sizeof(IPR_HISTELEM)];
    EXPECT(IprReadHistogram(1, 0, h, sizeof(h) / sizeof(h[0]), HBEGIN, IPR_HIST_ADDRESS, 0,
                            IPR_HACTION_COPY),
           IPR__SUCCESS);
    CHECK(memcmp(h, expect_cells, sizeof(h)) == 0);
    int idx;
    EXPECT(IprHbIndex(0x1234, 1, numctrs, HBEGIN, 4, &idx), IPR__SUCCESS);
    CHECK_EQ(h[idx], expect_cells[(0x1234 - HBEGIN) >> 4][1]);
    IPR_HISTVALUE hv;
    EXPECT(IprHbValue(idx, numctrs, HBEGIN, 4, &hv), IPR__SUCCESS);
    CHECK_EQ(hv, 0x1230);
    IPR_COUNT elems;
    EXPECT(IprHbElements(numctrs, HEND - HBEGIN + 1, 4, &elems), IPR__SUCCESS);
    CHECK_EQ(elems, sizeof(h) / sizeof(h[0]));
    EXPECT(IprHbIndex(0x10, 1, numctrs, HBEGIN, 4, &idx), IPR__BADARG);
    /* A read starting inside the histogram, and the fine index-1 histogram. */
    static IPR_HISTELEM part[16 * 8], fine[256 * 8], modes[IPR_MODE_COUNT * 8];
    IPR_HISTELEM *multi[2] = {part, fine};
    const IPR_SIZE sizes[2] = {16 * 8, 256 * 8};
    const IPR_HISTVALUE mins[2] = {0x1100, 0x1800};
    const IPR_HMASK types[2] = {IPR_HIST_ADDRESS, IPR_HIST_ADDRESS};
    const unsigned idxs[2] = {0, 1};
    int ctx = -1;
    EXPECT(IprReadMultipleHistograms(IPR_ALL_CPUS, &ctx, multi, sizes, mins, types, idxs,
                                     IPR_HACTION_COPY, 2),
           IPR__SUCCESS);
    CHECK_EQ(ctx, 0);
    for (uint32_t b = 0; b < 16; b++)
        CHECK_EQ(part[b * 8 + 1], expect_cells[((0x1100 - HBEGIN) >> 4) + b][1]);
    for (uint32_t b = 0; b < 256; b++)
        CHECK_EQ(fine[b * 8 + 1], expect_fine[b]);
    EXPECT(IprReadMultipleHistograms(IPR_ALL_CPUS, &ctx, multi, sizes, mins, types, idxs,
                                     IPR_HACTION_COPY, 2),
           IPR__BADHIST); /* CPU 1 has none */
    /* The seed's third condition of a match: some bucket lies in the array. 16 buckets of
     * 16 bytes ending just below HBEGIN, or starting just past HEND, reach none. */
    EXPECT(
        IprReadHistogram(1, 0, part, 16 * 8, HBEGIN - 0x100, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
        IPR__BADHIST);
    EXPECT(IprReadHistogram(1, 0, part, 16 * 8, HEND + 1, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
           IPR__BADHIST);
    EXPECT(IprReadHistogram(1, 0, modes, IPR_MODE_COUNT * 8, IPR_MODE_COUNT, IPR_HIST_MODE, 0,
                            IPR_HACTION_COPY),
           IPR__BADHIST);
    const IPR_HISTVALUE past_fine[2] = {0x1100, 0x1900};
    ctx = -1;
    EXPECT(IprReadMultipleHistograms(IPR_ALL_CPUS, &ctx, multi, sizes, past_fine, types, idxs,
                                     IPR_HACTION_COPY, 2),
           IPR__BADHIST);
    /* Half before HBEGIN, half inside: the histogram's first 8 buckets land in cells 8-15. */
    EXPECT(
        IprReadHistogram(1, 0, part, 16 * 8, HBEGIN - 0x80, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
        IPR__SUCCESS);
    for (uint32_t b = 0; b < 16; b++)
        CHECK_EQ(part[b * 8 + 1], b < 8 ? 0 : expect_cells[b - 8][1]);
    EXPECT(IprReadHistogram(1, 0, modes, IPR_MODE_COUNT * 8, 0, IPR_HIST_MODE, 0, IPR_HACTION_COPY),
           IPR__SUCCESS);
    CHECK_EQ(modes[IPR_MODE_KERNEL * 8 + 1], interrupts); /* CPU 0 runs a task in ring 0 */
    EXPECT(IprReadHistogram(1, 0, h, 4, HBEGIN, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
           IPR__BUFTOOSMALL);
    EXPECT(IprReadHistogram(1, 0, h, 64, HBEGIN, IPR_HIST_ADDRESS, 9, IPR_HACTION_COPY),
           IPR__BADHIST);

    /* Full buffers: the first 8 in-range PCs, in order. */
    IPR_SBUFFER *b = 0;
    IPR_SIZE bytes;
    uint32_t got = 0;
    while (note(IprNextFullSampleBuffer(IPR_ALL_CPUS, &b, &bytes, 0)) == IPR__SUCCESS) {
        CHECK_EQ(bytes, 80);
        for (uint32_t r = 0; r < 4; r++, got++) {
            const uint32_t *rec = (const uint32_t *)(b->data + r * 20);
            CHECK_EQ(rec[0], recorded_pc[got]);
            CHECK_EQ(rec[1], 0);
            CHECK_EQ(rec[2], 1);
            /* the count at the sample: PERIOD per interrupt so far, the k-th at PC
             * 0xf80 + 0x30 k */
            CHECK_EQ(rec[3] | ((uint64_t)rec[4] << 32),
                     ((recorded_pc[got] - 0xf80u) / 0x30u + 1) * (uint64_t)PERIOD);
        }
    }
    CHECK_EQ(got, 8);
    CHECK(b == 0);

    /* Skip: counter 4 (BR on GP 0) interrupts only as a sampler; give it a period and
     * check every other interrupt samples. */
    EXPECT(IprMarkEmptySampleBuffer(ipr_cpus[0].buf[0]), IPR__SUCCESS);
    EXPECT(IprMarkEmptySampleBuffer((IPR_SBUFFER *)h), IPR__BADARG);
    b = 0;
    EXPECT(IprNextFullSampleBuffer(IPR_ALL_CPUS, &b, &bytes, 0), IPR__SUCCESS);
    CHECK(b == ipr_cpus[0].buf[1]);
    EXPECT(IprMarkEmptySampleBuffer(b), IPR__SUCCESS);
    EXPECT(IprStop(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    EXPECT(IprDeleteBuffers(IPR_ALL_CPUS), IPR__SUCCESS);

    IPR_FREQ fr2[2] = {0, PERIOD};
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, evs, fr2, 2, 0), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    IPR_COUNT skip2[5] = {0, 0, 0, 0, 2};
    EXPECT(IprSetSampleSkip(1, skip2, 5), IPR__SUCCESS);
    EXPECT(IprCreateHistogramBuffers(1, IPR_HIST_ADDRESS, HBEGIN, HEND, 4, 0), IPR__SUCCESS);
    EXPECT(IprCreateSampleBuffers(1, 1, 4 * 20, d, IPR_DATA_COUNT, 0, IPR_FULL_NONE, 0, 0, 0),
           IPR__SUCCESS);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    for (uint32_t k = 0; k < 9; k++) {
        retire(0, 0, 0, PERIOD);
        CHECK_EQ(pmi(0, 0x1100 + k), SHIM_DELIVERED);
    }
    EXPECT(IprReadHistogram(1, 0, h, 32 * 8, HBEGIN, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
           IPR__SUCCESS);
    CHECK_EQ(h[((0x1100 - HBEGIN) >> 4) * 8 + 4], 3); /* interrupts 3, 6, 9 (skip 2) */
    b = 0;
    EXPECT(IprNextFullSampleBuffer(1, &b, &bytes, 0), IPR__NOMOREBUFF);
    EXPECT(IprNextFullSampleBuffer(1, &b, &bytes, 1), IPR__PARTBUFF);
    CHECK_EQ(bytes, 3 * 20);
    IPR_COUNT brcount[IPR_MAX_COUNTERS];
    EXPECT(aca_ipr_read(1, 0, 0x10, brcount, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(brcount[4], 9 * PERIOD); /* sampling keeps the count exact */
    EXPECT(IprClearHistograms(1, IPR_HIST_ADDRESS, 0), IPR__SUCCESS);
    EXPECT(IprReadHistogram(1, 0, h, 32 * 8, HBEGIN, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
           IPR__SUCCESS);
    CHECK_EQ(h[((0x1100 - HBEGIN) >> 4) * 8 + 4], 0);

    /* Sample file round trip. */
    int w = -1, pw = -1;
    EXPECT(IprWriteToSampleFile("x", 1), IPR__FILENOTOPEN);
    EXPECT(IprCloseSampleFile(&w, &pw), IPR__FILENOTOPEN);
    EXPECT(IprOpenSampleFile("run", "default.ipr"), IPR__SUCCESS);
    EXPECT(IprOpenSampleFile("other", 0), IPR__FILEOPEN);
    EXPECT(IprWriteToSampleFile("hello", 5), IPR__SUCCESS);
    uint8_t partial_copy[60];
    memcpy(partial_copy, b->data, sizeof(partial_copy));
    EXPECT(IprWriteSampleBuffers(IPR_ALL_CPUS, IPR_WRITE_PARTIAL, &w, &pw), IPR__SUCCESS);
    CHECK(w == 1 && pw == 1);
    for (int k = 0; k < 3; k++) { /* the third samples */
        retire(0, 0, 0, PERIOD);
        pmi(0, 0x1234);
    }
    EXPECT(aca_ipr_write_histograms(1, IPR_HIST_ADDRESS, 0), IPR__SUCCESS);
    EXPECT(aca_ipr_write_histograms(1, IPR_HIST_ADDRESS, 7), IPR__BADHIST);
    EXPECT(IprCloseSampleFile(&w, &pw), IPR__SUCCESS);
    CHECK(w == 0 && pw == 0);

    struct acart_file_entry list[ACART_MAX_FILES];
    CHECK_EQ(ipr_file_list(list, ACART_MAX_FILES), 1);
    CHECK(strcmp(list[0].name, "run.ipr") == 0 && list[0].state == ACART_FILE_CLOSED);
    static uint8_t file[64 * 1024];
    CHECK(list[0].bytes <= sizeof(file));
    CHECK_EQ(ipr_file_read(list[0].id, 0, file, list[0].bytes), 0);
    CHECK(ipr_file_read(list[0].id, 1, file, list[0].bytes) != 0);
    const struct acart_ipr_file_header *fh = (const void *)file;
    CHECK(strcmp(fh->magic, ACART_IPR_MAGIC) == 0);
    CHECK_EQ(fh->num_counters, numctrs);
    CHECK_EQ(fh->code_bits, sizeof(void *) * 8); /* the mode of the code that wrote it */
    CHECK(fh->counter_event[4] == EV_BR &&
          strcmp(fh->counter_name[4], "BR_INST_RETIRED.ALL_BRANCHES") == 0);
    uint32_t at = sizeof(*fh), types_seen = 0;
    while (at + 8 <= list[0].bytes) {
        struct acart_ipr_record rec;
        memcpy(&rec, file + at, sizeof(rec));
        const uint8_t *p = file + at + sizeof(rec);
        if (rec.type == ACART_IPR_REC_USER) {
            CHECK(rec.bytes == 5 && memcmp(p, "hello", 5) == 0);
        } else if (rec.type == ACART_IPR_REC_SBUFFER) {
            const struct acart_ipr_sbuffer *sb = (const void *)p;
            CHECK(sb->partial == 1 && sb->used == 60 && sb->record_bytes == 20);
            CHECK(memcmp(p + sizeof(*sb), partial_copy, 60) == 0);
        } else if (rec.type == ACART_IPR_REC_HIST) {
            const struct acart_ipr_hist *hh = (const void *)p;
            CHECK(hh->begin == HBEGIN && hh->end == HEND && hh->gran == 4 &&
                  hh->num_counters == numctrs);
            const uint32_t *cells = (const uint32_t *)(p + sizeof(*hh));
            CHECK_EQ(cells[((0x1234 - HBEGIN) >> 4) * 8 + 4], 1);
        }
        types_seen |= 1u << rec.type;
        at += ((uint32_t)sizeof(rec) + rec.bytes + 7) & ~7u;
    }
    CHECK_EQ(at, list[0].bytes);
    CHECK_EQ(types_seen, (1u << ACART_IPR_REC_USER) | (1u << ACART_IPR_REC_SBUFFER) |
                             (1u << ACART_IPR_REC_HIST));

    /* IPR_FULL_WRITE: full buffers go to the file from aca_ipr_poll. */
    EXPECT(IprTerminateSampling(&w, &pw), IPR__SUCCESS);
    EXPECT(IprCreateSampleBuffers(1, 2, 2 * 20, d, IPR_DATA_COUNT, 0, IPR_FULL_WRITE, 0, 0, 0),
           IPR__SUCCESS);
    EXPECT(IprOpenSampleFile("run.ipr", 0), IPR__SUCCESS); /* replaces the first */
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    for (uint32_t k = 0; k < 12; k++) { /* 4 samples (skip 2): both buffers full */
        retire(0, 0, 0, PERIOD);
        pmi(0, 0x1300);
    }
    aca_ipr_poll();
    EXPECT(IprCloseSampleFile(&w, &pw), IPR__SUCCESS);
    CHECK_EQ(w, 2);
    CHECK_EQ(ipr_file_list(list, ACART_MAX_FILES), 1);
    CHECK(ipr_file_read(list[0].id - 1, 0, file, 8) != 0); /* the replaced file is gone */
    EXPECT(IprTerminateSampling(0, 0), IPR__SUCCESS);
    EXPECT(IprOpenSampleFile("", 0), IPR__BADARG);
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    no_faults();
}

/* ---- Each data item of a record; active counters; IprSelectEvents; IPR_HACTION_ADD;
 * IprWriteOneSampleBuffer; IprClearContext ---- */

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

#define ITEMS_RECORD 36u /* PC 4, TSC 8, CPU 4, pid 4, tid 4, counter 4, count 8 */

static void test_record_items(void)
{
    IPR_EVENTSET set;
    IPR_EVENT map[IPR_MAX_COUNTERS];
    IPR_FREQ fmap[IPR_MAX_COUNTERS];
    IPR_CTRMASK ret = 0;
    IPR_COUNT v[IPR_MAX_COUNTERS];
    uint64 mux;
    uint64_t tsc_before[CPUS], tsc_after[CPUS];
    static IPR_HISTELEM h[((HEND - HBEGIN) >> 4) + 1][8];
    const IPR_SIZE hsize = sizeof(h) / sizeof(IPR_HISTELEM);

    shim_power_on(&sim_skylake);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    /* IprSelectEvents: every event of the set at one period; the set is sorted, so
     * INST_RETIRED.ANY takes fixed counter 0 (counter 1), BR_INST_RETIRED GP 0 (counter 4). */
    IprClearEventSet(&set);
    IprInsertEvent(&set, EV_BR);
    IprInsertEvent(&set, EV_INS);
    EXPECT(IprSelectEvents(IPR_ALL_CPUS, &set, 1000, 0), IPR__BADFREQ);
    EXPECT(IprSelectEvents(IPR_ALL_CPUS, 0, PERIOD, 0), IPR__BADARG);
    EXPECT(IprSelectEvents(IPR_ALL_CPUS, &set, PERIOD, &mux), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, &mux), IPR__SUCCESS);
    EXPECT(IprEventCounterMap(IPR_CURRENT_CPU, map, IPR_MAX_COUNTERS), IPR__SUCCESS);
    CHECK(map[0] == IPR_EVENT_TSC && map[1] == EV_INS && map[2] == IPR_EVENT_NONE &&
          map[4] == EV_BR && map[5] == IPR_EVENT_NONE);
    EXPECT(IprFreqCounterMap(IPR_CURRENT_CPU, fmap, IPR_MAX_COUNTERS), IPR__SUCCESS);
    CHECK(fmap[1] == PERIOD && fmap[4] == PERIOD);
    for (uint32_t c = 0; c < CPUS; c++) {
        CHECK_EQ(shim_sim(c)->peek_msr(MSR_IA32_PERFEVTSEL0) & 0xffff, EV_BR);
        CHECK_EQ(shim_sim(c)->peek_msr(MSR_IA32_PMC0), (BIT48 - PERIOD));
        CHECK_EQ(shim_sim(c)->peek_msr(MSR_IA32_FIXED_CTR0), (BIT48 - PERIOD));
    }

    /* Only counter 1's interrupts take samples (and histogram entries); counter 4 still
     * interrupts, and counts. */
    EXPECT(IprSetActiveCounters(IPR_ALL_CPUS, 1u << 20, &ret), IPR__BADCTRMASK);
    EXPECT(IprSetActiveCounters(IPR_ALL_CPUS, 1u << 1, &ret), IPR__SUCCESS);
    CHECK_EQ(ret, 1u << 1);
    EXPECT(IprCreateHistogramBuffers(IPR_ALL_CPUS, IPR_HIST_ADDRESS, HBEGIN, HEND, 4, 0),
           IPR__SUCCESS);
    EXPECT(IprCreateSampleBuffers(IPR_ALL_CPUS, 1, 4 * ITEMS_RECORD, IPR_DATA_ALL,
                                  IPR_DATA_TSC | IPR_DATA_COUNT, 0, IPR_FULL_NONE, 0, 0, 0),
           IPR__SUCCESS);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++) {
        retire(c, PERIOD, 0, 0);
        tsc_before[c] = rdtsc();
        CHECK_EQ(pmi(c, 0x1100 + 0x10 * c), SHIM_DELIVERED);
        tsc_after[c] = rdtsc();
        retire(c, 0, 0, PERIOD);
        CHECK_EQ(pmi(c, 0x1800), SHIM_DELIVERED); /* counter 4: no sample */
    }
    for (uint32_t c = 0; c < CPUS; c++) {
        IPR_SBUFFER *b = 0;
        IPR_SIZE bytes = 0;
        EXPECT(IprNextFullSampleBuffer(1ull << c, &b, &bytes, 1), IPR__PARTBUFF);
        CHECK_EQ(bytes, ITEMS_RECORD); /* one record: the counter-4 interrupt took none */
        CHECK_EQ(b->record_bytes, ITEMS_RECORD);
        const uint8_t *r = b->data;
        CHECK_EQ(u32_at(r), 0x1100 + 0x10 * c);                                 /* PC */
        CHECK(u64_at(r + 4) >= tsc_before[c] && u64_at(r + 4) <= tsc_after[c]); /* TSC */
        CHECK_EQ(u32_at(r + 12), c);                                            /* CPU */
        /* pid and tid of the task the port names; CPU 2 runs none */
        CHECK_EQ(u32_at(r + 16), c == SHIM_IDLE_CPU ? 0 : SHIM_PID_BASE + c);
        CHECK_EQ(u32_at(r + 20), c == SHIM_IDLE_CPU ? 0 : SHIM_TID_BASE + c);
        CHECK_EQ(u32_at(r + 24), 1);      /* the interrupting counter */
        CHECK_EQ(u64_at(r + 28), PERIOD); /* its count at the interrupt */
    }
    EXPECT(aca_ipr_read(IPR_ALL_CPUS, 0, 0x12, v, IPR_MAX_COUNTERS, IPR_ACTION_SUM), IPR__SUCCESS);
    CHECK_EQ(v[1], CPUS * PERIOD);
    CHECK_EQ(v[4], CPUS * PERIOD);

    /* IPR_HACTION_ADD adds to what the array holds; COPY replaces it. */
    const uint32_t b0 = (0x1100 - HBEGIN) >> 4, b1 = (0x1110 - HBEGIN) >> 4,
                   bbr = (0x1800 - HBEGIN) >> 4;
    EXPECT(IprReadHistogram(1, 0, &h[0][0], hsize, HBEGIN, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
           IPR__SUCCESS);
    CHECK(h[b0][1] == 1 && h[b1][1] == 0 && h[bbr][4] == 0);
    EXPECT(IprReadHistogram(2, 0, &h[0][0], hsize, HBEGIN, IPR_HIST_ADDRESS, 0, IPR_HACTION_ADD),
           IPR__SUCCESS);
    CHECK(h[b0][1] == 1 && h[b1][1] == 1);
    EXPECT(IprReadHistogram(1, 0, &h[0][0], hsize, HBEGIN, IPR_HIST_ADDRESS, 0, IPR_HACTION_ADD),
           IPR__SUCCESS);
    CHECK(h[b0][1] == 2 && h[b1][1] == 1);
    int ctx = -1;
    EXPECT(IprReadHistogram(IPR_ALL_CPUS, &ctx, &h[0][0], hsize, HBEGIN, IPR_HIST_ADDRESS, 0,
                            IPR_HACTION_ADD),
           IPR__SUCCESS); /* with a context: CPU 0's added once more */
    CHECK(ctx == 0 && h[b0][1] == 3 && h[b1][1] == 1);
    EXPECT(IprReadHistogram(2, 0, &h[0][0], hsize, HBEGIN, IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY),
           IPR__SUCCESS);
    CHECK(h[b0][1] == 0 && h[b1][1] == 1);
    uint32_t total = 0;
    for (uint32_t b = 0; b < hsize / 8; b++)
        for (uint32_t k = 0; k < 8; k++)
            total += h[b][k];
    CHECK_EQ(total, 1);

    /* IprWriteOneSampleBuffer: CPU 1's buffer, whole records only. */
    IPR_SBUFFER *b1buf = ipr_cpus[1].buf[0];
    EXPECT(IprWriteOneSampleBuffer(b1buf, ITEMS_RECORD), IPR__FILENOTOPEN);
    EXPECT(IprOpenSampleFile("one", 0), IPR__SUCCESS);
    EXPECT(IprWriteOneSampleBuffer(b1buf, ITEMS_RECORD - 1), IPR__BADARG);
    EXPECT(IprWriteOneSampleBuffer(b1buf, 5 * ITEMS_RECORD), IPR__BADARG);
    EXPECT(IprWriteOneSampleBuffer(0, ITEMS_RECORD), IPR__BADARG);
    EXPECT(IprWriteOneSampleBuffer(b1buf, ITEMS_RECORD), IPR__SUCCESS);
    int w = -1, pw = -1;
    EXPECT(IprCloseSampleFile(&w, &pw), IPR__SUCCESS);
    struct acart_file_entry list[ACART_MAX_FILES];
    uint32_t nfiles = ipr_file_list(list, ACART_MAX_FILES), at = 0;
    for (uint32_t i = 0; i < nfiles; i++)
        if (strcmp(list[i].name, "one") == 0)
            at = i + 1;
    CHECK(at != 0);
    static uint8_t file[4096];
    const struct acart_ipr_file_header *fh = (const void *)file;
    const uint32_t want = (sizeof(*fh) + 8 + sizeof(struct acart_ipr_sbuffer) + ITEMS_RECORD + 7) &
                          ~7u; /* records start at multiples of 8 */
    CHECK(at && list[at - 1].bytes == want);
    if (at && list[at - 1].bytes == want) {
        CHECK_EQ(ipr_file_read(list[at - 1].id, 0, file, want), 0);
        struct acart_ipr_record rec;
        struct acart_ipr_sbuffer sb;
        memcpy(&rec, file + sizeof(*fh), sizeof(rec));
        memcpy(&sb, file + sizeof(*fh) + 8, sizeof(sb));
        CHECK(rec.type == ACART_IPR_REC_SBUFFER && rec.bytes == sizeof(sb) + ITEMS_RECORD);
        CHECK(sb.cpu == 1 && sb.partial == 1 && sb.datcol == IPR_DATA_ALL &&
              sb.qdatcol == (IPR_DATA_TSC | IPR_DATA_COUNT) && sb.record_bytes == ITEMS_RECORD &&
              sb.used == ITEMS_RECORD);
        CHECK(memcmp(file + sizeof(*fh) + 8 + sizeof(sb), b1buf->data, ITEMS_RECORD) == 0);
    }
    CHECK_EQ(b1buf->used, ITEMS_RECORD); /* writing one buffer does not empty it */

    /* IprClearContext: CPU 1 stops and forgets its selection, counts and skips; the TSC
     * counter stays; CPU 0 keeps counting. */
    IPR_COUNT skip[5] = {0, 3, 0, 0, 3};
    EXPECT(IprSetSampleSkip(2, skip, 5), IPR__SUCCESS);
    EXPECT(IprClearContext(2), IPR__SUCCESS);
    EXPECT(IprEventCounterMap(2, map, IPR_MAX_COUNTERS), IPR__SUCCESS);
    CHECK(map[0] == IPR_EVENT_TSC && map[1] == IPR_EVENT_NONE && map[4] == IPR_EVENT_NONE);
    CHECK(ipr_cpus[1].ctr[1].skip == 0 && ipr_cpus[1].ctr[4].skip == 0);
    CHECK_EQ(shim_sim(1)->peek_msr(MSR_IA32_PERF_GLOBAL_CTRL), 0);
    CHECK_EQ(shim_sim(1)->peek_msr(MSR_IA32_PERFEVTSEL0), 0);
    CHECK_EQ(shim_sim(1)->peek_msr(MSR_IA32_FIXED_CTR_CTRL), 0);
    retire(1, 500, 500, 500);
    retire(0, 500, 500, 500);
    EXPECT(aca_ipr_read(2, 0, 0x12, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK(v[1] == 0 && v[4] == 0);
    EXPECT(aca_ipr_read(1, 0, 0x12, v, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK(v[1] == PERIOD + 500 && v[4] == PERIOD + 500);
    EXPECT(IprCounterNumber(2, EV_INS, &(IPR_CTRNUMBER){0}), IPR__NOCOUNTER);
    EXPECT(IprTerminateSampling(0, 0), IPR__SUCCESS);
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    no_faults();
}

/* ---- Time-based sampling on the TSC counter ---- */

static void test_timer(void)
{
    IPR_EVENT tsc[1] = {IPR_EVENT_TSC};
    IPR_FREQ fr[1] = {1u << 20};
    IPR_HISTELEM h[IPR_MODE_COUNT * 8];

    shim_power_on(&sim_skylake);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, tsc, fr, 1, 0), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    EXPECT(IprCreateHistogramBuffers(IPR_ALL_CPUS, IPR_HIST_MODE, 0, 0, 0, 0), IPR__SUCCESS);
    EXPECT(IprCreateSampleBuffers(IPR_ALL_CPUS, 1, 4 * 16, IPR_DATA_PC | IPR_DATA_CPU,
                                  IPR_DATA_PC | IPR_DATA_CPU, 0, IPR_FULL_NONE, 0, 0, 0),
           IPR__SUCCESS);
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++)
        CHECK_EQ(shim_lapic(c)->timer_starts, 1);
    struct aca_frame f = {0x2000, 0x08, 0, 0, 0};
    for (uint32_t c = 0; c < CPUS; c++) {
        shim_set_current_cpu(c);
        for (uint32_t k = 0; k <= c; k++)
            aca_sample_tick(&f);
    }
    shim_set_current_cpu(0);
    int ctx = -1;
    while (note(IprReadHistogram(IPR_ALL_CPUS, &ctx, h, IPR_MODE_COUNT * 8, 0, IPR_HIST_MODE, 0,
                                 IPR_HACTION_COPY)) == IPR__SUCCESS) {
        /* CPU 2 runs no task: its ticks are idle time. */
        unsigned mode = ctx == SHIM_IDLE_CPU ? IPR_MODE_IDLE : IPR_MODE_KERNEL;
        CHECK_EQ(h[mode * 8 + 0], (uint32_t)ctx + 1);
    }
    EXPECT(IprReadHistogram(IPR_ALL_CPUS, 0, h, IPR_MODE_COUNT * 8, 0, IPR_HIST_MODE, 0,
                            IPR_HACTION_SUM),
           IPR__SUCCESS);
    CHECK_EQ(h[IPR_MODE_KERNEL * 8] + h[IPR_MODE_IDLE * 8], 6);

    /* Emptying another CPU's histogram or buffer runs on that CPU, whose interrupt is the
     * only writer; the caller's own CPU needs no cross-CPU call. */
    unsigned calls = shim_smp_calls();
    EXPECT(IprClearHistograms(1, IPR_HIST_MODE, 0), IPR__SUCCESS);
    CHECK_EQ(shim_smp_calls(), calls);
    EXPECT(IprClearHistograms(2, IPR_HIST_MODE, 0), IPR__SUCCESS);
    CHECK_EQ(shim_smp_calls(), calls + 1);
    EXPECT(IprReadHistogram(2, 0, h, IPR_MODE_COUNT * 8, 0, IPR_HIST_MODE, 0, IPR_HACTION_COPY),
           IPR__SUCCESS);
    CHECK_EQ(h[IPR_MODE_KERNEL * 8], 0);
    IPR_SBUFFER *b = 0;
    IPR_SIZE bytes = 0;
    EXPECT(IprNextFullSampleBuffer(2, &b, &bytes, 1), IPR__PARTBUFF);
    CHECK_EQ(bytes, 2 * 16); /* two ticks of a 16-byte PC+CPU record */
    calls = shim_smp_calls();
    EXPECT(IprMarkEmptySampleBuffer(b), IPR__SUCCESS);
    CHECK_EQ(shim_smp_calls(), calls + 1);
    CHECK_EQ(b->used, 0);
    b = 0;
    EXPECT(IprNextFullSampleBuffer(2, &b, &bytes, 1), IPR__NOMOREBUFF);
    EXPECT(IprStop(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++)
        CHECK_EQ(shim_lapic(c)->timer_stops, 1);
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    no_faults();
}

/* ---- A CPU without a PMU (QEMU TCG): the TSC counts, hardware events fail cleanly ---- */

static void test_no_pmu(void)
{
    IPR_COUNT v[IPR_MAX_COUNTERS];
    IPR_EVENT ev[1] = {EV_INS};
    IPR_FREQ fr[1] = {0};

    shim_power_on(&sim_qemu_tcg);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    CHECK(shim_acart_nmi() == 0);
    CHECK_EQ(IprNumCounters(), 1);
    /* A hardware event is one this CPU lacks, as for a CPU with a PMU whose leaf 0xA marks
     * it unavailable, and the text says why. */
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, ev, fr, 1, 0), IPR__INVEVENT);
    CHECK(strstr(aca_ipr_strerror(IPR__INVEVENT), "without a usable PMU") != NULL);
    IPR_CTRMASK ctrs = 0xffff;
    EXPECT(IprAvailableCounters(EV_INS, &ctrs), IPR__INVEVENT);
    IPR_FREQ freqs;
    EXPECT(IprAvailableFreqs(EV_BR, &freqs), IPR__INVEVENT);
    EXPECT(IprAvailableCounters(IPR_EVENT_TSC, &ctrs), IPR__SUCCESS);
    CHECK_EQ(ctrs, 1u);
    EXPECT(IprPrintMessage("selecting", IPR__INVEVENT, 0), IPR__SUCCESS);
    CHECK(strstr(last_log, "IPR__INVEVENT") && strstr(last_log, "without a usable PMU"));
    EXPECT(IprStart(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    EXPECT(aca_ipr_read(IPR_CURRENT_CPU, 0, 1, v, 1, IPR_ACTION_COPY), IPR__SUCCESS);
    uint64_t first = v[0];
    EXPECT(aca_ipr_read(IPR_CURRENT_CPU, 0, 1, v, 1, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK(v[0] > first);
    EXPECT(IprStop(IPR_ALL_CPUS, 0), IPR__SUCCESS);
    EXPECT(aca_ipr_read(IPR_CURRENT_CPU, 0, 1, v, 1, IPR_ACTION_COPY), IPR__SUCCESS);
    first = v[0];
    EXPECT(aca_ipr_read(IPR_CURRENT_CPU, 0, 1, v, 1, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(v[0], first);
    EXPECT(IprStart(IPR_ALL_CPUS, 2), IPR__BADCTRMASK);
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    no_faults();
}

/* ---- Names from perfmon's tables (aca_ipr_use_perfmon, perfmon/ipr_perfmon.c) ---- */

/* On the simulated Skylake (6-5E) the names resolve through the same generated table as
 * `acart collect --event` to perfmon's encoding (EventCode, UMask, CounterMask, Invert,
 * EdgeDetect from perfmon/json/SKL/events/skylake_core.json), which the counter is
 * then programmed with; unknown names get the seed's status. Runs last: the name source
 * stays for the process. */
static void test_perfmon_names(void)
{
    const IPR_EVENT stall = 0x010e | 1u << 24 | 1u << 23;  /* UOPS_ISSUED.STALL_CYCLES */
    const IPR_EVENT clears = 0x01c3 | 1u << 24 | 1u << 18; /* MACHINE_CLEARS.COUNT */
    IPR_EVENT e = 0;
    const char *matches = 0;
    IPR_CTRMASK ctrs;
    uint64 mux;

    shim_power_on(&sim_skylake);
    EXPECT(IprAllocate(), IPR__SUCCESS);
    EXPECT(IprEventNameToNumber("UOPS_ISSUED.STALL_CYCLES", &e, &matches), IPR__INVEVENTNAME);
    EXPECT(aca_ipr_use_perfmon(), IPR__SUCCESS);
    EXPECT(IprEventNameToNumber("uops_issued.stall_cycles", &e, &matches), IPR__SUCCESS);
    CHECK_EQ(e, stall);
    CHECK(strcmp(matches, "UOPS_ISSUED.STALL_CYCLES") == 0);
    CHECK(strcmp(IprEventNumberToName(stall), "UOPS_ISSUED.STALL_CYCLES") == 0);
    EXPECT(IprEventNameToNumber("MACHINE_CLEARS.COUNT", &e, &matches), IPR__SUCCESS);
    CHECK_EQ(e, clears);
    /* The architectural table's exact names win; a prefix of several is ambiguous. */
    EXPECT(IprEventNameToNumber("BR_MISP_RETIRED.ALL_BRANCHES", &e, &matches), IPR__SUCCESS);
    CHECK_EQ(e, 0x00c5);
    EXPECT(IprEventNameToNumber("BR_MISP_RETIRED.", &e, &matches), IPR__AMBIGUOUS);
    CHECK(strstr(matches, "BR_MISP_RETIRED.CONDITIONAL") != NULL);
    EXPECT(IprEventNameToNumber("NO_SUCH.EVENT", &e, &matches), IPR__INVEVENTNAME);
    CHECK(IprNumberOfEvents() > 500);
    /* INST_RETIRED.PREC_DIST (0xC0/0x01) counts only on IA32_PMC1: IPROBE counter 5. */
    EXPECT(IprEventNameToNumber("INST_RETIRED.PREC_DIST", &e, &matches), IPR__SUCCESS);
    CHECK_EQ(e, 0x01c0);
    EXPECT(IprAvailableCounters(e, &ctrs), IPR__SUCCESS);
    CHECK_EQ(ctrs, 1u << 5);

    /* Counted with exactly that event select. */
    IPR_EVENT evs[2] = {stall, clears};
    IPR_FREQ fr[2] = {0, 0};
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, evs, fr, 2, &mux), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, &mux), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++) {
        CHECK_EQ(shim_sim(c)->peek_msr(MSR_IA32_PERFEVTSEL0) & IPR_EVENT_EVTSEL_BITS, stall);
        CHECK_EQ(shim_sim(c)->peek_msr(MSR_IA32_PERFEVTSEL0 + 1) & IPR_EVENT_EVTSEL_BITS, clears);
    }

    /* Events with an extra MSR are numbered by their place in the table: two offcore events
     * take MSR_OFFCORE_RSP_0 and _1 (the second with code 0xBB), with perfmon's MSRValue;
     * a third has no response MSR left, nor has a second load-latency threshold. */
    IPR_EVENT rd, rfo, code, lat4, lat8;
    EXPECT(IprEventNameToNumber("OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", &rd, &matches),
           IPR__SUCCESS);
    CHECK_EQ(rd & ~0xffffu, IPR_EVENT_TABLE);
    CHECK(strcmp(IprEventNumberToName(rd), "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE") == 0);
    EXPECT(IprEventNameToNumber("OFFCORE_RESPONSE.DEMAND_RFO.ANY_RESPONSE", &rfo, &matches),
           IPR__SUCCESS);
    EXPECT(IprEventNameToNumber("OFFCORE_RESPONSE.DEMAND_CODE_RD.ANY_RESPONSE", &code, &matches),
           IPR__SUCCESS);
    EXPECT(IprEventNameToNumber("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4", &lat4, &matches),
           IPR__SUCCESS);
    EXPECT(IprEventNameToNumber("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_8", &lat8, &matches),
           IPR__SUCCESS);
    IPR_EVENT two[3] = {rd, rfo, lat4}, three[3] = {rd, rfo, code}, lats[2] = {lat4, lat8};
    IPR_FREQ zeros[3] = {0, 0, 0};
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, three, zeros, 3, &mux), IPR__NOCOUNTER);
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, lats, zeros, 2, &mux), IPR__NOCOUNTER);
    EXPECT(IprSelectEventsFromArray(IPR_ALL_CPUS, two, zeros, 3, &mux), IPR__SUCCESS);
    EXPECT(IprSetEvents(IPR_ALL_CPUS, &mux), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++) {
        const struct sim_instance *sim = shim_sim(c);
        CHECK_EQ(sim->peek_msr(MSR_IA32_PERFEVTSEL0) & IPR_EVENT_EVTSEL_BITS, 0x01b7);
        CHECK_EQ(sim->peek_msr(MSR_IA32_PERFEVTSEL0 + 1) & IPR_EVENT_EVTSEL_BITS, 0x01bb);
        CHECK_EQ(sim->peek_msr(MSR_IA32_PERFEVTSEL0 + 2) & IPR_EVENT_EVTSEL_BITS, 0x01cd);
        CHECK_EQ(sim->peek_msr(MSR_OFFCORE_RSP_0), 0x10001);
        CHECK_EQ(sim->peek_msr(MSR_OFFCORE_RSP_1), 0x10002);
        CHECK_EQ(sim->peek_msr(MSR_PEBS_LD_LAT), 4);
    }
    EXPECT(IprDeallocate(), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++)
        CHECK_EQ(shim_sim(c)->peek_msr(MSR_OFFCORE_RSP_0), 0);

    /* A model acart has no table for keeps the architectural names only. */
    shim_power_on(&sim_haswell);
    EXPECT(aca_ipr_use_perfmon(), IPR__INVEVENTNAME);
    EXPECT(IprEventNameToNumber("UOPS_ISSUED.STALL_CYCLES", &e, &matches), IPR__INVEVENTNAME);
    EXPECT(IprEventNameToNumber("INST_RETIRED.ANY", &e, &matches), IPR__SUCCESS);
    CHECK_EQ(IprNumberOfEvents(), 9);
    no_faults();
}

/* ---- Code written from the seed: int arrays (ipr_seed_client.c) ---- */

static void seed_client_work(void)
{
    for (uint32_t c = 0; c < CPUS; c++)
        retire(c, 0, 0, 1000 * (c + 1));
}

static void test_seed_client(void)
{
    int percpu[IPR_MAX_CPUS] = {0}, total = 0, written = 0;
    shim_power_on(&sim_skylake);
    shim_set_current_cpu(0);
    CHECK_EQ(seed_client(EV_BR, seed_client_work, percpu, &total, &written), IPR__SUCCESS);
    for (uint32_t c = 0; c < CPUS; c++)
        CHECK_EQ(percpu[c], 1000 * (int)(c + 1));
    CHECK_EQ(total, 6000);
    CHECK_EQ(written, 123456);
    /* An int holds a count's low 32 bits; the 64-bit functions hold all of it. */
    IPR_COUNT big[IPR_MAX_COUNTERS] = {0}, wide[IPR_MAX_COUNTERS];
    int low[IPR_MAX_COUNTERS];
    big[1] = (5ull << 32) + 7;
    IPR_EVENT ins = EV_INS;
    IPR_FREQ count_only = 0;
    CHECK_EQ(IprAllocate(), IPR__SUCCESS);
    CHECK_EQ(IprSelectEventsFromArray(IPR_ALL_CPUS, &ins, &count_only, 1, 0), IPR__SUCCESS);
    CHECK_EQ(IprSetEvents(IPR_ALL_CPUS, 0), IPR__SUCCESS); /* INST_RETIRED on counter 1 */
    CHECK_EQ(aca_ipr_write(1, 0, 0x2, big, IPR_MAX_COUNTERS), IPR__SUCCESS);
    CHECK_EQ((IprRead)(1, 0, 0x2, low, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(low[1], 7);
    /* In C11 the seed's name with an IPR_COUNT array is the 64-bit read. */
    // cppcheck-suppress legacyUninitvar ; cppcheck sees the int declaration, not _Generic
    CHECK_EQ(IprRead(1, 0, 0x2, wide, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(wide[1], (5ull << 32) + 7);
    low[1] = -1; /* ACTION_ADD wraps at 32 bits, as a 32-bit counter would */
    CHECK_EQ(IprRead(1, 0, 0x2, low, IPR_MAX_COUNTERS, IPR_ACTION_ADD), IPR__SUCCESS);
    CHECK_EQ(low[1], 6);
    low[1] = -2; /* written modulo 2^32: reads back as written */
    CHECK_EQ(IprWrite(1, 0, 0x2, low, IPR_MAX_COUNTERS), IPR__SUCCESS);
    CHECK_EQ(aca_ipr_read(1, 0, 0x2, wide, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__SUCCESS);
    CHECK_EQ(wide[1], 0xfffffffeull);
    CHECK_EQ(IprRead(1, 0, 0x2, (int *)0, IPR_MAX_COUNTERS, IPR_ACTION_COPY), IPR__BADARG);
    CHECK_EQ(IprDeallocate(), IPR__SUCCESS);
    no_faults();
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--seed") == 0) {
        test_seed_client();
        return check_report("test_ipr --seed");
    }
    test_ownership();
    test_host_msr_writes();
    test_events();
    test_counting();
    test_sampling();
    test_record_items();
    test_timer();
    test_no_pmu();
    test_perfmon_names();
    /* Every status code of ipr.h came back from some call above. */
    for (int st = 0; st < 64; st++) {
        if (aca_ipr_strerror(st) && !seen[st]) {
            fprintf(stderr, "status %d (%s) was never returned\n", st, aca_ipr_strerror(st));
            check_failures++;
        }
    }
    return check_report("test_ipr");
}
