/* Who holds the performance counters: nobody, the host's SEP collection, or an IPROBE
 * program on the target (ipr.h). One at a time, claimed with one compare-and-swap, so
 * neither can program a PMU the other is using. Also the cross-CPU calls of IPROBE tasks,
 * which run through the net context (see pmu_owner_call_all). */
#ifndef ACART_PMU_OWNER_H
#define ACART_PMU_OWNER_H

#include <stdint.h>

#include "acart.h"
#include "acart_platform.h"

enum pmu_owner {
    PMU_OWNER_NONE = 0,
    PMU_OWNER_HOST = 1,   /* a SEP session, from INIT_PMU to the session's end */
    PMU_OWNER_IPROBE = 2, /* IprAllocate .. IprDeallocate */
};

/* 0, or ACA_ERR_BUSY when someone else holds the counters. Claiming again what one holds
 * succeeds. Any context but interrupts. */
int pmu_owner_claim(enum pmu_owner who);
/* Lets go of the counters if `who` holds them. */
void pmu_owner_release(enum pmu_owner who);
enum pmu_owner pmu_owner_current(void);

/* The time-based sampling interrupt (aca_sample_tick) goes to the IPROBE owner's handler
 * while it holds the counters. Interrupt context. */
typedef void (*pmu_owner_tick_fn)(const struct aca_frame *frame);
void pmu_owner_set_tick(pmu_owner_tick_fn fn);
/* Read on every sampling tick: inline, so that the tick calls nothing before it knows
 * where the sample goes (bench/sample_cost.py counts the instructions). */
extern pmu_owner_tick_fn volatile pmu_owner_tick_now;
static inline pmu_owner_tick_fn pmu_owner_tick(void)
{
    return __atomic_load_n(&pmu_owner_tick_now, __ATOMIC_ACQUIRE);
}

/* Runs fn(arg) on every CPU for a task. The seam lets only one context issue cross-CPU
 * calls (on the kit, two CPUs calling at once deadlock: each spins with interrupts off
 * for the other's acknowledgement), and that is the net context. So while the agent
 * polls, a task's call is posted and run by the next aca_poll while the task waits; from
 * inside aca_poll (an AST routine) it runs at once; with no agent running it runs at once
 * too, but one task at a time (a task waits while another's call runs). */
void pmu_owner_call_all(aca_plat_cpu_fn fn, void *arg);

/* The agent's side: aca_poll brackets its work with these and serves posted calls. */
void pmu_owner_net_enter(void);
void pmu_owner_net_leave(void);
void pmu_owner_net_started(void);

#endif
