/* Ownership of the counters between the agent and IPROBE, and IPROBE's cross-CPU calls.
 * See pmu_owner.h. */
#include "pmu_owner.h"
#include "acart_opts.h"

#include "io.h"

static volatile uint32_t owner;
pmu_owner_tick_fn volatile pmu_owner_tick_now;

int pmu_owner_claim(enum pmu_owner who)
{
    uint32_t expected = PMU_OWNER_NONE;
    if (__atomic_compare_exchange_n(&owner, &expected, (uint32_t)who, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return ACA_OK;
    return expected == (uint32_t)who ? ACA_OK : ACA_ERR_BUSY;
}

void pmu_owner_release(enum pmu_owner who)
{
    uint32_t expected = who;
    __atomic_compare_exchange_n(&owner, &expected, PMU_OWNER_NONE, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

enum pmu_owner pmu_owner_current(void)
{
    return (enum pmu_owner)__atomic_load_n(&owner, __ATOMIC_ACQUIRE);
}

void pmu_owner_set_tick(pmu_owner_tick_fn fn)
{
    __atomic_store_n(&pmu_owner_tick_now, fn, __ATOMIC_RELEASE);
}

#if ACA_WITH_IPROBE
/* IPROBE's cross-CPU calls through the net context; built without IPROBE nothing posts. */
/* A posted cross-CPU call: 0 none, 1 posted, 2 done. `caller_lock` keeps tasks on several
 * CPUs from posting at once, or, with no agent, from calling the seam at once. */
static struct {
    aca_plat_cpu_fn fn;
    void *arg;
    volatile uint32_t state;
    volatile uint32_t caller_lock;
} posted;
static volatile uint32_t net_started;
static volatile uint32_t net_cpu_plus_one; /* the CPU inside aca_poll, + 1; 0: none */

void pmu_owner_call_all(aca_plat_cpu_fn fn, void *arg)
{
    /* Inside aca_poll the net context issues the call itself; it must not wait for the
     * lock, which a task may hold while it waits for this very aca_poll to serve it. */
    if (__atomic_load_n(&net_cpu_plus_one, __ATOMIC_ACQUIRE) == aca_plat_cpu_index() + 1) {
        aca_plat_call_on_all_cpus(fn, arg);
        return;
    }
    while (__atomic_exchange_n(&posted.caller_lock, 1, __ATOMIC_ACQUIRE))
        cpu_relax();
    if (!__atomic_load_n(&net_started, __ATOMIC_ACQUIRE)) {
        /* No agent: the tasks issue the calls themselves, one at a time (the seam's calls
         * never overlap; tasks other than the owner may pause, resume and read at once). */
        aca_plat_call_on_all_cpus(fn, arg);
    } else {
        posted.fn = fn;
        posted.arg = arg;
        __atomic_store_n(&posted.state, 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&posted.state, __ATOMIC_ACQUIRE) != 2)
            cpu_relax();
        __atomic_store_n(&posted.state, 0, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&posted.caller_lock, 0, __ATOMIC_RELEASE);
}

void pmu_owner_net_started(void)
{
    __atomic_store_n(&net_started, 1, __ATOMIC_RELEASE);
}

void pmu_owner_net_enter(void)
{
    __atomic_store_n(&net_cpu_plus_one, aca_plat_cpu_index() + 1, __ATOMIC_RELEASE);
    if (__atomic_load_n(&posted.state, __ATOMIC_ACQUIRE) == 1) {
        aca_plat_call_on_all_cpus(posted.fn, posted.arg);
        __atomic_store_n(&posted.state, 2, __ATOMIC_RELEASE);
    }
}

void pmu_owner_net_leave(void)
{
    __atomic_store_n(&net_cpu_plus_one, 0, __ATOMIC_RELEASE);
}
#endif
