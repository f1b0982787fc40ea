/* The PMI budget (runtime/sampling/pmi_budget.c) in a PMI storm on the simulated CPUs: a
 * sampling period far too short for the CPU to serve, with the simulator's TSC model (each
 * MSR access and each PMI delivered costs TSC ticks, tests/sim/sim_cpu.h) as the clock the
 * sampler reads (host_tsc() below, through tests/sim/host/io.h).
 *
 * 1. Without a budget the storm is one: the CPU spends most of its time in PMIs, at a rate
 *    far above the budget's (the control that shows what the budget must prevent).
 * 2. With the default budget (ACA_PMI_MAX_RATE_HZ, ACA_PMI_CPU_PERCENT) the periods double
 *    until the rate is held: over the storm's last 20 ms at most the budget's rate, and the
 *    CPU keeps 3/4 of its time for the rest (on a board, the net context answering the
 *    host). The budget reports it (sampler_pmi_budget: throttles, raises with their TSC),
 *    and the samples, each weighed by the period in effect at its TSC as the host is told to
 *    weigh them, add up to the instructions the CPU retired.
 * 3. PMIs that take too long (expensive MSR accesses) lower the rate itself, as Linux's
 *    perf_sample_event_took lowers perf_event_max_sample_rate: the handler's share of the
 *    CPU stays at the budget's percentage.
 * Prints the figures it measured. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "acart.h"
#include "acart_check.h"
#include "acart_opts.h"
#include "acart_wire.h"
#include "io.h"
#include "pmi_budget.h"
#include "pmu.h"
#include "ring.h"
#include "sampler.h"
#include "sampler_shim.h"

#define TSC_HZ     2000000000ull /* the shim's aca_plat_tsc_hz() */
#define PERIOD     1000u         /* instructions: SAMPLER_MIN_SAMPLE_AFTER */
#define BATCH_REF  500u          /* ref cycles in which the CPU retires PERIOD instructions */
#define MS         (TSC_HZ / 1000)
#define STORM_MS   60
#define TAIL_MS    20
#define RING_BYTES (512 * 1024)
#define FIXED0     (1ull << 32)

static uint8_t ring_memory[ACA_MAX_CPUS * RING_BYTES] __attribute__((aligned(64)));
static struct sampler_config cfg;

/* The sampler's TSC is the simulated CPU's it runs on. */
uint64_t host_tsc(void)
{
    return shim_sim(shim_current_cpu())->tsc();
}

static void config_storm(uint32_t max_rate_hz)
{
    memset(&cfg, 0, sizeof(cfg));
    cfg.source = SAMPLER_SOURCE_PMU;
    cfg.use_nmi = 1;
    cfg.num_events = 1;
    cfg.events[0].fixed = 1;
    cfg.events[0].counter = 0; /* instructions retired */
    cfg.events[0].control = FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI;
    cfg.events[0].sample_after = PERIOD;
    cfg.record_size = sizeof(struct sep_sample_pc);
    cfg.pmi_max_rate_hz = max_rate_hz;
    cfg.pmi_cpu_percent = ACA_PMI_CPU_PERCENT;
}

struct storm {
    uint64_t instructions; /* retired while sampling */
    uint64_t pmis, tail_pmis;
    uint64_t tail_start, tail_end; /* TSC */
    uint64_t tail_in_pmi;          /* ticks of the tail spent delivering and handling PMIs */
    uint64_t in_pmi;
};

/* CPU 0 runs code retiring PERIOD instructions per BATCH_REF ref cycles for `ms` ms of its
 * TSC, each PMI taken as soon as it is raised (the NMI arrives within instructions). */
static struct storm run_storm(uint32_t ms)
{
    const struct sim_instance *sim = shim_sim(0);
    struct sim_events ev = {.instructions = PERIOD, .cycles = BATCH_REF, .ref_cycles = BATCH_REF};
    struct trap_frame f;
    struct storm st;
    uint64_t began = sim->tsc();

    memset(&st, 0, sizeof(st));
    memset(&f, 0, sizeof(f));
    f.ip = 0x401000;
    f.cs = 0x08;
    f.flags = 0x246;
    st.tail_start = began + (uint64_t)(ms - TAIL_MS) * MS;
    while (sim->tsc() - began < (uint64_t)ms * MS) {
        sim->retire(&ev);
        st.instructions += PERIOD;
        uint64_t before = sim->tsc();
        int r = shim_raise_pmi(0, &f);
        if (r == SHIM_NO_PMI)
            continue;
        CHECK_EQ(r, SHIM_DELIVERED);
        st.pmis++;
        st.in_pmi += sim->tsc() - before;
        if (before >= st.tail_start) {
            st.tail_pmis++;
            st.tail_in_pmi += sim->tsc() - before;
        }
    }
    st.tail_end = sim->tsc();
    return st;
}

static void start(const struct sim_model *model, uint32_t msr_cost, uint32_t pmi_cost,
                  uint32_t max_rate_hz)
{
    shim_power_on(model);
    CHECK_EQ(sampler_probe_pmu(), PMU_OK);
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++)
        shim_sim(cpu)->set_tsc_costs(msr_cost, pmi_cost);
    config_storm(max_rate_hz);
    CHECK_EQ(sampler_setup(ACA_MAX_CPUS, ring_memory, RING_BYTES, &cfg), ACA_OK);
    CHECK_EQ(sampler_start(), ACA_OK);
}

static double per_second(uint64_t n, uint64_t ticks)
{
    return ticks ? (double)n * (double)TSC_HZ / (double)ticks : 0;
}

/* 1. The storm without a budget. */
static void test_storm_unbudgeted(void)
{
    start(&sim_skylake, 300, 3000, 0);
    struct storm st = run_storm(STORM_MS);
    double rate = per_second(st.tail_pmis, st.tail_end - st.tail_start);
    double share = (double)st.tail_in_pmi / (double)(st.tail_end - st.tail_start);
    printf("  no budget: %" PRIu64 " PMIs, %.0f a second at the end, %.0f %% of the CPU in "
           "them\n",
           st.pmis, rate, 100 * share);
    CHECK(rate > 10.0 * ACA_PMI_MAX_RATE_HZ);
    CHECK(share > 0.5);
    struct pmi_budget b;
    sampler_pmi_budget(0, &b);
    CHECK_EQ(b.throttles, 0);
    CHECK_EQ(b.shift, 0);
    CHECK_EQ(b.pmis, st.pmis);
    sampler_stop();
    sampler_reset();
}

/* Each sample weighed by the period in effect at its TSC: sample-after << (raises at or
 * before it), as docs/pmu.md tells the host. */
static uint64_t weighed_events(const struct pmi_budget *b)
{
    const struct ring *r = sampler_ring(0);
    const void *data;
    uint32_t n = ring_peek(r, &data);
    uint64_t total = 0;

    CHECK_EQ(n, ring_used(r));
    for (uint32_t i = 0; i < n; i++) {
        struct sep_sample_pc s;
        uint32_t shift = 0;

        memcpy(&s, (const uint8_t *)data + (size_t)i * r->record_size, sizeof(s));
        for (uint32_t k = 0; k < b->num_raises; k++)
            if (b->raises[k].tsc <= s.tsc)
                shift = b->raises[k].shift;
        total += (uint64_t)PERIOD << shift;
    }
    return total;
}

/* 2. The same storm with the default budget. */
static void test_storm_held(void)
{
    start(&sim_skylake, 300, 3000, ACA_PMI_MAX_RATE_HZ);
    struct storm st = run_storm(STORM_MS);
    uint64_t tail = st.tail_end - st.tail_start;
    double rate = per_second(st.tail_pmis, tail);
    double share = (double)st.tail_in_pmi / (double)tail;
    struct pmi_budget b;
    sampler_pmi_budget(0, &b);
    printf("  budget %u Hz, %u %%: %" PRIu64 " PMIs, %.0f a second at the end, %.1f %% of the "
           "CPU in them; periods doubled %u times (x%u), the first at %.2f ms; the longest "
           "PMI %" PRIu64 " ticks\n",
           (unsigned)ACA_PMI_MAX_RATE_HZ, (unsigned)ACA_PMI_CPU_PERCENT, st.pmis, rate, 100 * share,
           (unsigned)b.throttles, 1u << b.shift,
           b.num_raises ? (double)(b.raises[0].tsc - (st.tail_start - (STORM_MS - TAIL_MS) * MS)) /
                              (double)MS
                        : 0.0,
           b.max_took);
    /* The rate is held (one PMI of slack for the window the tail starts in)... */
    CHECK(rate <= ACA_PMI_MAX_RATE_HZ + per_second(1, tail));
    /* ... the CPU keeps most of its time, and it took a few milliseconds to get there. */
    CHECK(share < ACA_PMI_CPU_PERCENT / 100.0);
    CHECK(b.throttles >= 1 && b.shift == b.throttles && b.num_raises == b.throttles);
    CHECK(b.raises[0].tsc < st.tail_start);
    for (uint32_t k = 1; k < b.num_raises; k++) {
        CHECK(b.raises[k].tsc > b.raises[k - 1].tsc);
        CHECK_EQ(b.raises[k].shift, k + 1);
    }
    CHECK_EQ(b.pmis, st.pmis);
    CHECK_EQ(b.rate_lowered, 0); /* cheap PMIs: the rate alone throttles */
    /* Reloaded with the raised period; the counter on its way to it. */
    CHECK_EQ(shim_sim(0)->peek_msr(MSR_IA32_FIXED_CTR0) >> 47, 1);
    /* Weighed right, the samples are the instructions (the last period may be in flight). */
    uint64_t weighed = weighed_events(&b);
    printf("  samples weighed by their period: %" PRIu64 " instructions of %" PRIu64 "\n", weighed,
           st.instructions);
    CHECK(weighed <= st.instructions && st.instructions - weighed < ((uint64_t)PERIOD << b.shift));
    struct sampler_cpu_counts c;
    sampler_counts(0, &c);
    CHECK_EQ(c.dropped, 0);
    /* The other CPUs took no PMI and were not throttled. */
    sampler_pmi_budget(1, &b);
    CHECK_EQ(b.pmis, 0);
    CHECK_EQ(b.throttles, 0);
    sampler_stop();
    sampler_reset();
}

/* 3. PMIs too long for the rate: the rate comes down until the handler's share fits. */
static void test_slow_pmis(void)
{
    /* 3 us per MSR access: the handler's six accesses take 18 us, more than the 12.5 us a
     * 20 kHz rate leaves at 25 %. */
    start(&sim_skylake, 6000, 3000, ACA_PMI_MAX_RATE_HZ);
    struct storm st = run_storm(STORM_MS);
    struct pmi_budget b;
    sampler_pmi_budget(0, &b);
    uint64_t tail = st.tail_end - st.tail_start;
    double handler_share = (double)b.total_took / (double)(STORM_MS * MS);
    printf("  slow PMIs: the longest %" PRIu64 " ticks; rate lowered %u times to %u a second; "
           "%.0f a second at the end; periods x%u; %.1f %% of the CPU in the handler over "
           "the storm, %.1f %% in PMIs at the end\n",
           b.max_took, (unsigned)b.rate_lowered, (unsigned)pmi_budget_rate_hz(&b),
           per_second(st.tail_pmis, tail), 1u << b.shift, 100 * handler_share,
           100.0 * (double)st.tail_in_pmi / (double)tail);
    CHECK(b.rate_lowered >= 1);
    CHECK(pmi_budget_rate_hz(&b) < ACA_PMI_MAX_RATE_HZ);
    CHECK(per_second(st.tail_pmis, tail) <= pmi_budget_rate_hz(&b) + per_second(1, tail));
    /* The handler's own time (what Linux's share bounds) at the end within the share. */
    CHECK((double)st.tail_pmis * (double)b.max_took <= ACA_PMI_CPU_PERCENT / 100.0 * (double)tail);
    sampler_stop();
    sampler_reset();
}

static void run(const char *name, void (*test)(void))
{
    int before = check_failures;

    test();
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        const struct sim_instance *sim = shim_sim(cpu);

        if (sim->faults()) {
            fprintf(stderr, "%s: simulated #GP on CPU %u: %s\n", name, (unsigned)cpu,
                    sim->fault_text());
            check_failures++;
            sim->clear_faults();
        }
    }
    printf("%s %s\n", check_failures == before ? "PASS" : "FAIL", name);
}

#define RUN(test) run(#test, test)

int main(void)
{
    RUN(test_storm_unbudgeted);
    RUN(test_storm_held);
    RUN(test_slow_pmis);
    printf("%s\n", check_failures ? "FAILED" : "all PMI budget tests passed");
    return check_failures ? 1 : 0;
}
