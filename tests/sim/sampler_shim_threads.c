/* The simulated CPUs of fuzz_control and acart_simboard: sampler_shim_cpus.c's interface
 * over the same per-CPU simulator instances, but aca_plat_call_on_all_cpus() runs the
 * function on every CPU at once, one thread per CPU, as a board does: the runtime has code
 * that waits for the other CPUs (the TSC skew gate of the system configuration), which CPUs
 * taken in turn would never pass. The current CPU is per thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The TSC model of a board whose TSC is real time (acart_simboard): an MSR access that
 * costs the CPU time costs it real time (SDM vol. 3B 18.17: the invariant TSC counts on
 * whatever the core does). sim_set_tsc_costs() is the same model for a simulated TSC. */
static uint32_t msr_cost_ns;

void shim_set_msr_cost_ns(uint32_t ns)
{
    msr_cost_ns = ns;
}

static void spend_msr_cost(void)
{
    struct timespec t;
    uint64_t until;

    if (!msr_cost_ns)
        return;
    clock_gettime(CLOCK_MONOTONIC, &t);
    until = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec + msr_cost_ns;
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec < until);
}

uint64_t msr_read(uint32_t msr)
{
    spend_msr_cost();
    return sims[current]->rdmsr(msr);
}

void msr_write(uint32_t msr, uint64_t value)
{
    spend_msr_cost();
    if (msr == SHIM_X2APIC_LVT_PC)
        shim_lvt_pc_write((uint32_t)value);
    else
        sims[current]->wrmsr(msr, value);
}

uint32_t aca_plat_num_cpus(void)
{
    return SHIM_CPUS;
}

/* One thread per simulated CPU besides the caller's, started once and kept: creating
 * threads per call cost more than the session itself under ASan. A call is a generation:
 * the caller publishes the function, every worker runs it once and reports done. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER, pool_done = PTHREAD_COND_INITIALIZER;
static aca_plat_cpu_fn pool_fn;
static void *pool_arg;
static unsigned pool_generation, pool_finished;

static void *cpu_worker(void *p)
{
    current = (uint32_t)(uintptr_t)p;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool_lock);
        while (pool_generation == seen)
            pthread_cond_wait(&pool_work, &pool_lock);
        seen = pool_generation;
        aca_plat_cpu_fn fn = pool_fn;
        void *arg = pool_arg;
        pthread_mutex_unlock(&pool_lock);
        fn(arg);
        pthread_mutex_lock(&pool_lock);
        pool_finished++;
        pthread_cond_signal(&pool_done);
        pthread_mutex_unlock(&pool_lock);
    }
    return NULL;
}

void aca_plat_call_on_all_cpus(aca_plat_cpu_fn fn, void *arg)
{
    static int started;
    if (!started) {
        for (uint32_t cpu = 1; cpu < SHIM_CPUS; cpu++) {
            pthread_t t;
            if (pthread_create(&t, NULL, cpu_worker, (void *)(uintptr_t)cpu) != 0)
                abort();
            pthread_detach(t);
        }
        started = 1;
    }
    smp_calls++;
    pthread_mutex_lock(&pool_lock);
    pool_fn = fn, pool_arg = arg, pool_finished = 0;
    pool_generation++;
    pthread_cond_broadcast(&pool_work);
    pthread_mutex_unlock(&pool_lock);
    fn(arg); /* the caller's own CPU */
    pthread_mutex_lock(&pool_lock);
    while (pool_finished < SHIM_CPUS - 1)
        pthread_cond_wait(&pool_done, &pool_lock);
    pthread_mutex_unlock(&pool_lock);
}
