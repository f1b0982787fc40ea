/* The PMI budget: see pmi_budget.h. Runs in the PMI handler: integer arithmetic on this
 * CPU's own struct, no division by a value that can be 0, and 64-bit divisions only by
 * powers of two or through div64(), never libgcc's helpers. */
#include "pmi_budget.h"

#define WINDOWS_PER_SECOND 1000u

/* 64-bit quotient of a / b for b != 0 without libgcc's __udivdi3 on i686 (the NMI path
 * must not call libgcc helpers the lint does not know): shift-subtract, 64 steps. Out of
 * line: its callers (set-up, and a PMI whose time exceeds the allowance) are rare, and
 * four inlined copies of the loop would cost more code than the call. */
static __attribute__((noinline)) uint64_t div64(uint64_t a, uint64_t b)
{
    uint64_t q = 0, r = 0;

    for (int i = 63; i >= 0; i--) {
        r = (r << 1) | ((a >> i) & 1);
        if (r >= b) {
            r -= b;
            q |= 1ull << i;
        }
    }
    return q;
}

/* At each CPU's start, not per PMI: cold, built for size (see sampler.c). */
__attribute__((cold)) void pmi_budget_init(struct pmi_budget *b, uint32_t max_rate_hz,
                                           uint32_t cpu_percent, uint64_t tsc_hz, uint64_t now)
{
    volatile uint8_t *p = (volatile uint8_t *)b; /* no memset: it runs in the start IPI */

    for (uint32_t i = 0; i < sizeof(*b); i++)
        p[i] = 0;
    b->max_rate_hz = max_rate_hz;
    b->cpu_percent = cpu_percent > 100 ? 100 : cpu_percent;
    b->window_tsc = div64(tsc_hz, WINDOWS_PER_SECOND);
    if (!b->window_tsc)
        b->window_tsc = 1;
    /* At least one PMI per window, whatever the rate: Linux's DIV_ROUND_UP(rate, HZ). */
    b->max_per_window = (max_rate_hz + WINDOWS_PER_SECOND - 1) / WINDOWS_PER_SECOND;
    /* Linux's perf_sample_allowed_ns: the period of the maximum rate times the share. */
    if (max_rate_hz)
        b->allowed_tsc = div64(tsc_hz * b->cpu_percent, (uint64_t)max_rate_hz * 100);
    b->window_start = now;
}

uint32_t pmi_budget_rate_hz(const struct pmi_budget *b)
{
    return b->max_per_window * WINDOWS_PER_SECOND;
}

uint64_t pmi_budget_period(uint64_t sample_after, uint32_t shift, uint64_t max)
{
    if (shift >= 64 || sample_after > (max >> shift))
        return max;
    return sample_after << shift;
}

/* perf_sample_event_took(): the decayed sum of the last PMI_BUDGET_SAMPLES durations; when
 * their mean is above what is allowed, the rate is lowered so that PMIs 25 % longer than
 * the mean fit in the share, and that longer mean is the new allowance. */
static void account_time(struct pmi_budget *b, uint64_t took)
{
    uint64_t avg, per_window;

    b->running -= b->running / PMI_BUDGET_SAMPLES;
    b->running += took;
    avg = b->running / PMI_BUDGET_SAMPLES;
    if (avg <= b->allowed_tsc)
        return;
    avg += avg / 4;
    per_window = div64(div64(b->window_tsc * b->cpu_percent, 100), avg);
    if (per_window < 1)
        per_window = 1;
    b->allowed_tsc = avg;
    if (per_window < b->max_per_window) {
        b->max_per_window = (uint32_t)per_window;
        b->rate_lowered++;
    }
}

int pmi_budget_took(struct pmi_budget *b, uint64_t start, uint64_t end)
{
    uint64_t took = end > start ? end - start : 0;

    b->pmis++;
    b->total_took += took;
    if (took > b->max_took)
        b->max_took = took;
    if (!b->max_rate_hz)
        return 0;
    account_time(b, took);
    /* The window of this PMI (Linux: the tick it falls in). */
    if (start - b->window_start >= b->window_tsc) {
        b->window_start = start;
        b->in_window = 0;
        b->raised_in_window = 0;
    }
    b->in_window++;
    if (b->in_window <= b->max_per_window || b->raised_in_window ||
        b->shift >= PMI_BUDGET_MAX_SHIFT)
        return 0;
    /* Over the rate: the periods double, once per window, so a storm halves its rate each
     * millisecond until it fits. */
    b->raised_in_window = 1;
    b->throttles++;
    b->shift++;
    if (b->num_raises < PMI_BUDGET_MAX_RAISES) {
        b->raises[b->num_raises].tsc = end;
        b->raises[b->num_raises].shift = b->shift;
        b->num_raises++;
    }
    return 1;
}
