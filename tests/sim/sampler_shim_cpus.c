/* Several simulated CPUs and the current one: the seam's aca_plat_cpu_index(),
 * aca_plat_num_cpus() and aca_plat_call_on_all_cpus(), and msr_read/msr_write (msr.h) and
 * cpuid (cpuid.h) under ACART_SIM. See sampler_shim.h. */
#include "sampler_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_platform.h"
#include "cpuid.h"
#include "msr.h"
#include "pmu.h"

/* One instance per CPU, built by sampler_shim_sim_cpu.c. */
extern const struct sim_instance sim0_instance, sim1_instance, sim2_instance, sim3_instance;
static const struct sim_instance *const sims[SHIM_CPUS] = {&sim0_instance, &sim1_instance,
                                                           &sim2_instance, &sim3_instance};

static uint32_t current;
static unsigned smp_calls;

struct enable_hook {
    int armed, result;
    struct sim_events events;
    struct trap_frame frame;
};
static struct enable_hook hooks[SHIM_CPUS];

const struct sim_instance *shim_sim(uint32_t cpu)
{
    if (cpu >= SHIM_CPUS) {
        fprintf(stderr, "shim: no simulated CPU %u\n", (unsigned)cpu);
        abort();
    }
    return sims[cpu];
}

void shim_set_current_cpu(uint32_t cpu)
{
    shim_sim(cpu);
    current = cpu;
}

uint32_t shim_current_cpu(void)
{
    return current;
}

unsigned shim_smp_calls(void)
{
    return smp_calls;
}

void shim_power_on(const struct sim_model *model)
{
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        sims[cpu]->reset(model);
    }
    memset(hooks, 0, sizeof(hooks));
    current = 0;
    smp_calls = 0;
    shim_board_reset();
}

uint32_t aca_plat_cpu_index(void)
{
    return current;
}

struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
    return sims[current]->cpuid_leaf(leaf, subleaf);
}

uint64_t msr_read(uint32_t msr)
{
    return sims[current]->rdmsr(msr);
}

void msr_write(uint32_t msr, uint64_t value)
{
    struct enable_hook *h = &hooks[current];

    if (msr == SHIM_X2APIC_LVT_PC) {
        shim_lvt_pc_write((uint32_t)value);
        return;
    }
    sims[current]->wrmsr(msr, value);
    if (h->armed && msr == MSR_IA32_PERF_GLOBAL_CTRL && value != 0) {
        h->armed = 0;
        sims[current]->retire(&h->events);
        h->result = shim_raise_pmi(current, &h->frame);
    }
}

void shim_after_enable(uint32_t cpu, const struct sim_events *ev, const struct trap_frame *frame)
{
    struct enable_hook *h = &hooks[cpu];

    shim_sim(cpu);
    h->armed = 1;
    h->result = 1; /* not run yet */
    h->events = *ev;
    h->frame = *frame;
}

int shim_after_enable_result(uint32_t cpu)
{
    return hooks[cpu].result;
}

uint32_t aca_plat_num_cpus(void)
{
    return SHIM_CPUS;
}

/* In turn rather than at once: what the function does on each CPU is the same, and the
 * test can look at each CPU's state afterwards. */
void aca_plat_call_on_all_cpus(aca_plat_cpu_fn fn, void *arg)
{
    uint32_t caller = current;

    smp_calls++;
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        current = cpu;
        fn(arg);
    }
    current = caller;
}
