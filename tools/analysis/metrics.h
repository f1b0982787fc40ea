/* Top-down level 1 (Intel's Top-down Microarchitecture Analysis) from the counts of a
 * sampling collection: `acart collect --metrics tma1` picks the events, `acart report
 * --metrics` turns their counts into the four level-1 fractions, per row and in all.
 *
 * The formulas are TMA's level 1 for Skylake-class cores, one thread per core (Yasin's
 * method, as perfmon's skylake_metrics.json gives it; the metrics files are not among
 * the inputs in perfmon/json, so the four lines are written here):
 *   SLOTS           = 4 * CPU_CLK_UNHALTED.THREAD         (four issue slots a cycle)
 *   Frontend bound  = IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS
 *   Bad speculation = (UOPS_ISSUED.ANY - UOPS_RETIRED.RETIRE_SLOTS
 *                      + 4 * INT_MISC.RECOVERY_CYCLES) / SLOTS
 *   Retiring        = UOPS_RETIRED.RETIRE_SLOTS / SLOTS
 *   Backend bound   = 1 - Frontend bound - Bad speculation - Retiring
 * Later cores (Ice Lake on: Tiger Lake, Sapphire Rapids) count level 1 in the
 * PERF_METRICS MSR beside fixed counter 3, and the Atom cores with events of their own;
 * acart's event group programs neither, so tma1 is for the SKL table only. */
#ifndef ACART_TOOLS_METRICS_H
#define ACART_TOOLS_METRICS_H

#include <stddef.h>
#include <stdint.h>

enum metrics_tma1_event {
    TMA1_CLOCKS,        /* CPU_CLK_UNHALTED.THREAD */
    TMA1_NOT_DELIVERED, /* IDQ_UOPS_NOT_DELIVERED.CORE */
    TMA1_ISSUED,        /* UOPS_ISSUED.ANY */
    TMA1_RETIRED,       /* UOPS_RETIRED.RETIRE_SLOTS */
    TMA1_RECOVERY,      /* INT_MISC.RECOVERY_CYCLES */
    TMA1_EVENTS
};

/* The events by enum metrics_tma1_event. */
extern const char *const metrics_tma1_names[TMA1_EVENTS];

/* The perfmon table (perfmon_model.code) tma1 is defined for. */
#define METRICS_TMA1_MODEL "SKL"

struct metrics_tma1 {
    double frontend, bad_speculation, retiring, backend; /* fractions of the slots */
};

/* Level 1 from event counts (by enum metrics_tma1_event). Returns 0, or -1 when there are
 * no clocks to divide by. */
int metrics_tma1(const double counts[TMA1_EVENTS], struct metrics_tma1 *out);

#endif
