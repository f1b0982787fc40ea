/* The performance-monitoring interrupt: the core of the handler, without the LAPIC.
 *
 * Order of operations on each PMI (NMI or vector), on the interrupted CPU:
 *   1. if neither caps->pmi_ack_late nor caps->pmi_ack_mid: lapic_ack_pmi()
 *                                                     (unmask the LVT performance entry)
 *   2. n = pmu_handle_overflow(&this_cpu_state, on_overflow, ctx)
 *        a. IA32_PERF_GLOBAL_CTRL = 0                 (nothing counts while we work)
 *        b. status = IA32_PERF_GLOBAL_STATUS          (0: not ours, go to e)
 *        c. snapshot the LBR stack (frozen at the overflow by DEBUGCTL freeze-on-PMI)
 *        d. clear status through GLOBAL_OVF_CTRL / STATUS_RESET (also unfreezes on v4);
 *           if bit 62 (PEBS threshold): report each PEBS record, empty the buffer; report
 *           and reload every other sampling counter that overflowed; read status again
 *           and repeat d while new bits are set, at most PMI_MAX_PASSES times; bits still
 *           set then: count what they lose, reset this CPU's PMU (as Linux does)
 *        e. if caps->pmi_ack_mid: the caller's mid_ack, lapic_ack_pmi() (Gracemont and
 *           later small cores: status clear, counting still off); restore IA32_DEBUGCTL
 *           where a pre-v4 freeze cleared LBR; restore IA32_PERF_GLOBAL_CTRL if running
 *   3. if caps->pmi_ack_late: lapic_ack_pmi()         (Haswell and later: after re-enabling,
 *                                                      else a stale PMI may follow)
 *   4. vector delivery: EOI. NMI delivery: if n == 0 the NMI was not ours; pass it on.
 * The LAPIC calls belong to the caller (arch/x86 apic code), never to this file. */
#ifndef ACART_ARCH_X86_PMI_H
#define ACART_ARCH_X86_PMI_H

#include <stdint.h>

#include "pmu.h"

/* One counter overflow. Valid only during the callback. */
struct pmu_overflow {
    uint8_t counter; /* counter id: 0..7 IA32_PMCx, 32..35 IA32_FIXED_CTRx */
    uint8_t reserved[3];
    uint32_t tag;    /* from the plan (or the raw write of the counter) */
    uint64_t status; /* IA32_PERF_GLOBAL_STATUS as read in this pass */
    /* The PEBS record for a PEBS counter, else NULL. With PEBS_HAVE_LBR its LBR group is
     * the stack when the event happened: for this overflow it, not lbr/lbr_raw (the stack
     * at the PMI), is the one to use, as Linux's adaptive PEBS does. */
    const struct pebs_sample *pebs;
    const struct lbr_entry *lbr;        /* LBR stack, newest first, when the plan enabled LBR */
    const struct lbr_snapshot *lbr_raw; /* ... and its raw MSR values, NULL likewise */
    uint32_t lbr_count;
};

/* Called once per overflow, in interrupt context (possibly NMI) on the overflowing CPU:
 * it must not block, lock, print or call back into the PMU. ctx is the handler's. */
typedef void (*pmu_overflow_fn)(void *ctx, const struct pmu_overflow *ov);

/* The caller's LVT unmask for a mid-handler acknowledgement (step 2e), with the handler's
 * ctx. Interrupt context, like pmu_overflow_fn. */
typedef void (*pmu_ack_fn)(void *ctx);

/* The handler core (steps 2a-2e above). Touches only `cpu` and the read-only caps.
 * Returns how many overflows it reported; 0 means the interrupt was not the PMU's.
 * pmu_handle_overflow_ack also calls mid_ack (if not NULL) at step 2e on models that
 * acknowledge mid-handler; pmu_handle_overflow is it without one (a caller that has
 * counting paused, or that acknowledged already). */
unsigned pmu_handle_overflow(struct pmu_cpu_state *cpu, pmu_overflow_fn on_overflow, void *ctx);
unsigned pmu_handle_overflow_ack(struct pmu_cpu_state *cpu, pmu_overflow_fn on_overflow,
                                 pmu_ack_fn mid_ack, void *ctx);

#endif
