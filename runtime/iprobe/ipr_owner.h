/* IPROBE: the functions of ipr_owner.c that the other IPROBE files call. */
#ifndef ACART_IPR_OWNER_H
#define ACART_IPR_OWNER_H

#include "ipr_state.h"

void ipr_layout_ensure(void); /* probes the counters once */
int ipr_allocated(void);
int ipr_is_owner(void);
IPR_STATUS ipr_check_owner(void); /* IPR__SUCCESS or why the caller may not */
/* The online CPUs of `cpus` (IPR_CURRENT_CPU: the caller's), or 0 for a mask naming none. */
IPR_CPUMASK ipr_cpus_of(IPR_CPUMASK cpus);
/* The CPU context iteration: the next CPU of mask after *ctx, or -1 when none is left
 * (then *ctx = IPR_MAX_CPUS). */
int ipr_next_cpu(IPR_CPUMASK mask, int *ctx);
/* fn(cpu, arg) on every CPU of mask, on that CPU, interrupts off there: at once for only
 * the caller's CPU, else through pmu_owner_call_all. */
typedef void (*ipr_cpu_fn)(uint32_t cpu, void *arg);
void ipr_on_cpus(IPR_CPUMASK mask, ipr_cpu_fn fn, void *arg);
void *ipr_pool_alloc(uint32_t bytes); /* 8-aligned from the pool, or NULL */
uint32_t ipr_pool_free(void);
void ipr_pool_reset_if_unused(void);

#endif
