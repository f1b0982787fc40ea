/* The PMI budget of one CPU, kept as Linux keeps its own (kernel/events/core.c):
 *  - a maximum sample rate per CPU (perf_event_max_sample_rate, 100 kHz in Linux; acart's
 *    default ACA_PMI_MAX_RATE_HZ), enforced per window of a millisecond of TSC as Linux
 *    enforces max_samples_per_tick per tick (__perf_event_account_interrupt);
 *  - a share of the CPU's time its PMIs may take (perf_cpu_time_max_percent, 25 %): the
 *    time each PMI took, measured with the TSC by the handler, goes into a running average
 *    of the last 128 (perf_sample_event_took); when it is above what the rate leaves room
 *    for, the rate is lowered to fit, with 25 % to spare, as Linux lowers
 *    perf_event_max_sample_rate ("perf: interrupt took too long").
 * Where Linux stops a throttled fixed-period event until the next tick, acart doubles the
 * sampling periods of the CPU (once per window while it is over), so counting never stops
 * and every sample stands for a known number of events: the period in effect at a sample's
 * TSC is the event's sample-after << the shift of the last raise before it (raises[]), which
 * the host reads (ACART_OP_GET_PMI_BUDGET) to weigh the samples. Raises are never undone in
 * a collection.
 *
 * One per CPU, touched only by that CPU's PMI handler (pmi_budget_took) and, while the CPU
 * does not sample, by the net context (init, reading). No locks, no libc. */
#ifndef ACART_PMI_BUDGET_H
#define ACART_PMI_BUDGET_H

#include <stdint.h>

#define PMI_BUDGET_SAMPLES    128 /* Linux's NR_ACCUMULATED_SAMPLES */
#define PMI_BUDGET_MAX_SHIFT  16  /* periods raised at most 65536 times */
#define PMI_BUDGET_MAX_RAISES PMI_BUDGET_MAX_SHIFT

struct pmi_budget_raise {
    uint64_t tsc;   /* the raise took effect at this TSC: later samples have the new period */
    uint32_t shift; /* periods are sample-after << shift from then on */
};

struct pmi_budget {
    /* Limits; max_rate_hz 0: no budget (pmi_budget_took only counts). */
    uint32_t max_rate_hz;    /* as configured */
    uint32_t cpu_percent;    /* as configured */
    uint64_t window_tsc;     /* TSC ticks per window (a millisecond) */
    uint32_t max_per_window; /* PMIs a window may take before the periods double */
    uint32_t shift;          /* periods are the events' sample-after << shift */
    uint64_t allowed_tsc;    /* the mean PMI duration the rate leaves room for */
    /* The running window and average. */
    uint64_t window_start;
    uint32_t in_window;
    uint32_t raised_in_window;
    uint64_t running; /* sum of the last PMI_BUDGET_SAMPLES durations, decayed as Linux's */
    /* What the host is told. */
    uint32_t pmis;         /* PMIs measured */
    uint32_t throttles;    /* windows that went over the rate: each doubled the periods */
    uint32_t rate_lowered; /* times PMIs took too long and the rate was lowered */
    uint32_t num_raises;
    uint64_t max_took; /* the longest PMI, TSC ticks */
    uint64_t total_took;
    struct pmi_budget_raise raises[PMI_BUDGET_MAX_RAISES];
};

/* A budget of max_rate_hz PMIs per second (0: none) of which at most cpu_percent % of the
 * CPU's time may go to the handler, on a TSC of tsc_hz, starting at `now`. */
void pmi_budget_init(struct pmi_budget *b, uint32_t max_rate_hz, uint32_t cpu_percent,
                     uint64_t tsc_hz, uint64_t now);

/* One PMI, from the handler's first TSC read to its last. Returns 1 when the CPU's
 * sampling periods must double now (b->shift is already the new shift). */
int pmi_budget_took(struct pmi_budget *b, uint64_t start, uint64_t end);

/* The rate the budget allows now, PMIs per second. */
uint32_t pmi_budget_rate_hz(const struct pmi_budget *b);

/* sample_after << shift, at most `max` (the counter's largest period). */
uint64_t pmi_budget_period(uint64_t sample_after, uint32_t shift, uint64_t max);

#endif
