/* Top-down level 1 (see metrics.h). */
#include "metrics.h"

/* Skylake issues and retires up to four micro-operations a cycle. */
#define SLOTS_PER_CYCLE 4.0

const char *const metrics_tma1_names[TMA1_EVENTS] = {
    [TMA1_CLOCKS] = "CPU_CLK_UNHALTED.THREAD",
    [TMA1_NOT_DELIVERED] = "IDQ_UOPS_NOT_DELIVERED.CORE",
    [TMA1_ISSUED] = "UOPS_ISSUED.ANY",
    [TMA1_RETIRED] = "UOPS_RETIRED.RETIRE_SLOTS",
    [TMA1_RECOVERY] = "INT_MISC.RECOVERY_CYCLES",
};

int metrics_tma1(const double counts[TMA1_EVENTS], struct metrics_tma1 *out)
{
    double slots = SLOTS_PER_CYCLE * counts[TMA1_CLOCKS];
    if (slots <= 0)
        return -1;
    out->frontend = counts[TMA1_NOT_DELIVERED] / slots;
    out->bad_speculation =
        (counts[TMA1_ISSUED] - counts[TMA1_RETIRED] + SLOTS_PER_CYCLE * counts[TMA1_RECOVERY]) /
        slots;
    out->retiring = counts[TMA1_RETIRED] / slots;
    out->backend = 1.0 - out->frontend - out->bad_speculation - out->retiring;
    return 0;
}
