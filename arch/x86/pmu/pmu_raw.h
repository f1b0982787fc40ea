/* The raw path of the PMU (pmu_raw.c, not in libacart.a: no runtime code uses it yet, the
 * agent programs plans through pmu_program_cpu; tests/pmu builds it with pmu.c): a host's
 * MSR writes applied as they come. */
#ifndef ACART_ARCH_X86_PMU_RAW_H
#define ACART_ARCH_X86_PMU_RAW_H

#include <stdint.h>

#include "pmu.h"

/* One MSR write of the raw path. */
struct pmu_msr_write {
    uint32_t msr;
    uint32_t tag;   /* for a counter MSR: the tag its overflows report */
    uint64_t value; /* for a counter MSR: also the value it is reloaded with on overflow */
};

/* Applies (msr, value) writes
 * in order, with counting disabled. The caller has checked them against its allowlist; this refuses
 * writes to read-only MSRs (before writing anything), keeps an IA32_PERF_GLOBAL_CTRL value for
 * pmu_start_cpu() (without one, every counter enabled by its control is), and learns from each
 * counter write its reload value and tag, from controls with INT/PMI which counters sample. */
int pmu_program_raw(struct pmu_cpu_state *cpu, const struct pmu_msr_write *writes,
                    uint32_t num_writes);

#endif
