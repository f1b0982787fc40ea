/* The simulated CPUs of fuzz_control: tests/pmu/sampler_shim_cpus.c's interface over the
 * same per-CPU simulator instances, but aca_plat_call_on_all_cpus() runs the function on
 * every CPU at once, one thread per CPU, as a board does: the runtime has code that waits
 * for the other CPUs (the TSC skew gate of the system configuration), which CPUs taken in
 * turn would never pass. The current CPU is per thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_platform.h"
#include "cpuid.h"
#include "msr.h"
#include "pmu.h"
#include "sampler_shim.h"

extern const struct sim_instance sim0_instance, sim1_instance, sim2_instance, sim3_instance;
static const struct sim_instance *const sims[SHIM_CPUS] = {&sim0_instance, &sim1_instance,
                                                           &sim2_instance, &sim3_instance};

static _Thread_local uint32_t current;
static unsigned smp_calls;

const struct sim_instance *shim_sim(uint32_t cpu)
{
    if (cpu >= SHIM_CPUS)
        abort();
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
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++)
        sims[cpu]->reset(model);
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
    if (msr == SHIM_X2APIC_LVT_PC)
        shim_lvt_pc_write((uint32_t)value);
    else
        sims[current]->wrmsr(msr, value);
}

uint32_t aca_plat_num_cpus(void)
{
    return SHIM_CPUS;
}

struct cpu_call {
    uint32_t cpu;
    aca_plat_cpu_fn fn;
    void *arg;
};

static void *run_on_cpu(void *p)
{
    struct cpu_call *c = p;
    current = c->cpu;
    c->fn(c->arg);
    return NULL;
}

void aca_plat_call_on_all_cpus(aca_plat_cpu_fn fn, void *arg)
{
    struct cpu_call calls[SHIM_CPUS];
    pthread_t threads[SHIM_CPUS];
    smp_calls++;
    for (uint32_t cpu = 1; cpu < SHIM_CPUS; cpu++) {
        calls[cpu] = (struct cpu_call){cpu, fn, arg};
        if (pthread_create(&threads[cpu], NULL, run_on_cpu, &calls[cpu]) != 0)
            abort();
    }
    fn(arg); /* the caller's own CPU */
    for (uint32_t cpu = 1; cpu < SHIM_CPUS; cpu++)
        pthread_join(threads[cpu], NULL);
}
