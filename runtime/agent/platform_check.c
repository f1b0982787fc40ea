/* See platform_check.h. A port that gets the seam wrong must hear it at aca_start() or
 * from aca_selftest(), never discover it as an empty profile. */
#include "platform_check.h"
#include "acart.h"
#include "acart_opts.h"
#include "acart_platform.h"
#include "log.h"
#include "sampler.h"

#include "io.h"

#include <string.h>

/* Indexes seen by the all-CPU call; 256 is far above any board acart serves. */
#define CHECK_MAX_INDEX 256
static uint32_t index_seen[CHECK_MAX_INDEX / 32];
static volatile uint32_t index_calls, index_duplicates, index_too_big;

static void report_index(void *arg)
{
    (void)arg;
    uint32_t i = aca_plat_cpu_index();
    __atomic_fetch_add(&index_calls, 1, __ATOMIC_RELAXED);
    if (i >= CHECK_MAX_INDEX || i >= aca_plat_num_cpus()) {
        __atomic_fetch_add(&index_too_big, 1, __ATOMIC_RELAXED);
        return;
    }
    uint32_t bit = 1u << (i % 32);
    if (__atomic_fetch_or(&index_seen[i / 32], bit, __ATOMIC_RELAXED) & bit)
        __atomic_fetch_add(&index_duplicates, 1, __ATOMIC_RELAXED);
}

static int check_cpu_indexes(void)
{
    uint32_t n = aca_plat_num_cpus();
    if (n == 0 || n > CHECK_MAX_INDEX) {
        agent_log("acart: the platform reports %u CPUs", (unsigned)n);
        return ACA_ERR_PLATFORM;
    }
    memset(index_seen, 0, sizeof(index_seen));
    index_calls = index_duplicates = index_too_big = 0;
    aca_plat_call_on_all_cpus(report_index, 0);
    if (index_calls != n || index_duplicates || index_too_big) {
        agent_log("acart: CPU indexes are wrong: %u CPUs online, the all-CPU call ran %u "
                  "times, %u indexes repeated, %u not below %u (aca_plat_cpu_index must be "
                  "0..n-1, one per CPU)",
                  (unsigned)n, (unsigned)index_calls, (unsigned)index_duplicates,
                  (unsigned)index_too_big, (unsigned)n);
        return ACA_ERR_PLATFORM;
    }
    return ACA_OK;
}

int platform_check_basics(void)
{
    if (aca_plat_tsc_hz() < 1000000) {
        agent_log("acart: the platform reports a TSC rate of %llu Hz",
                  (unsigned long long)aca_plat_tsc_hz());
        return ACA_ERR_PLATFORM;
    }
    return check_cpu_indexes();
}

/* ---- aca_selftest ---- */

#define SELFTEST_TICK_HZ 1000
#define SELFTEST_MS      50

static void arm_selftest_timer(void *arg)
{
    int *unsupported = arg;
    if (aca_plat_timer_arm(aca_plat_tsc_hz() / SELFTEST_TICK_HZ) == ACA_ERR_UNSUPPORTED)
        *unsupported = 1;
}

static void disarm_selftest_timer(void *arg)
{
    (void)arg;
    aca_plat_timer_disarm();
}

static int check_stack_bounds_here(void)
{
    struct aca_frame here;
    uintptr_t lo, hi;
    memset(&here, 0, sizeof(here));
    here.fp = (uintptr_t)__builtin_frame_address(0);
    here.sp = here.fp;
    if (aca_plat_stack_bounds(&here, &lo, &hi) != 0) {
        agent_log("acart selftest: no stack bounds for the calling task: call stacks off");
        return ACA_OK; /* allowed: samples then carry no call stack */
    }
    if (here.sp < lo || here.sp >= hi) {
        agent_log("acart selftest: stack bounds 0x%lx-0x%lx do not contain this task's stack "
                  "pointer 0x%lx",
                  (unsigned long)lo, (unsigned long)hi, (unsigned long)here.sp);
        return ACA_ERR_PLATFORM;
    }
    return ACA_OK;
}

int aca_selftest(void)
{
    int err = ACA_OK;
    if (sampler_is_running()) {
        agent_log("acart selftest: a collection is running; try again without a host");
        return ACA_ERR_BUSY;
    }
    int first = platform_check_basics();
    if (first)
        return first;
    agent_log("acart selftest: %u CPUs, indexes 0..%u, TSC %llu Hz", (unsigned)aca_plat_num_cpus(),
              (unsigned)aca_plat_num_cpus() - 1, (unsigned long long)aca_plat_tsc_hz());

    uint32_t pid = 0, tid = 0;
    if (aca_port_current_task(aca_plat_cpu_index(), &pid, &tid) != 0)
        agent_log("acart selftest: aca_port_current_task says this CPU runs no task");
    else
        agent_log("acart selftest: the calling task is pid %u tid %u", (unsigned)pid,
                  (unsigned)tid);
    int e = check_stack_bounds_here();
    if (e && !err)
        err = e;

    /* The sampling timer (or the port's tick) on every CPU, as interrupts see it. */
    struct sampler_selftest_counts counts[ACA_MAX_CPUS];
    int unsupported = 0;
    sampler_selftest_begin();
    aca_plat_call_on_all_cpus(arm_selftest_timer, &unsupported);
    uint64_t until = rdtsc() + aca_plat_tsc_hz() / 1000 * SELFTEST_MS;
    while (rdtsc() < until)
        cpu_relax();
    aca_plat_call_on_all_cpus(disarm_selftest_timer, 0);
    uint32_t n = sampler_selftest_end(counts, ACA_MAX_CPUS);
    if (unsupported)
        agent_log("acart selftest: the platform gives acart no timer: ticks come from the port");
    for (uint32_t cpu = 0; cpu < n; cpu++) {
        const struct sampler_selftest_counts *c = &counts[cpu];
        if (c->ticks == 0) {
            agent_log("acart selftest: cpu %u: no sampling tick in %u ms (expected about %u): "
                      "time-based sampling would record nothing there",
                      (unsigned)cpu, SELFTEST_MS, SELFTEST_MS * SELFTEST_TICK_HZ / 1000);
            err = err ? err : ACA_ERR_PLATFORM;
            continue;
        }
        agent_log("acart selftest: cpu %u: %u ticks in %u ms, %u in a task, %u with the "
                  "interrupted stack inside its bounds",
                  (unsigned)cpu, (unsigned)c->ticks, SELFTEST_MS, (unsigned)c->in_task,
                  (unsigned)c->stack_ok);
        if (c->stack_bad) {
            agent_log("acart selftest: cpu %u: %u ticks had a stack pointer outside the bounds "
                      "aca_plat_stack_bounds gave",
                      (unsigned)cpu, (unsigned)c->stack_bad);
            err = err ? err : ACA_ERR_PLATFORM;
        }
    }
    agent_log("acart selftest: %s", err ? aca_strerror(err) : "ok");
    return err;
}
