/* Whether a function's share of the samples changed between two collections by more than
 * sampling noise. Each collection is taken as n independent samples, x of them in the
 * function: a binomial proportion. The difference of two such proportions gets Newcombe's
 * hybrid score interval ("Interval estimation for the difference between independent
 * proportions", Statistics in Medicine 17, 1998, method 10): Wilson score intervals of
 * each proportion combined. Unlike the textbook Wald interval it stays inside [-1, 1] and
 * is not degenerate when a function has no samples in one run, which is the common case
 * for functions that appear or vanish. A change is significant when its interval at the
 * chosen level excludes 0. */
#ifndef ACART_TOOLS_DIFF_STATS_H
#define ACART_TOOLS_DIFF_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* The two-sided standard normal quantile for a confidence level in (0, 1): 2.5758 for
 * 0.99, 1.96 for 0.95. */
double diff_z_for_level(double level);

/* The Wilson score interval of x successes in n trials (n > 0) at quantile z. */
void diff_wilson(uint64_t x, uint64_t n, double z, double *low, double *high);

struct diff_change {
    double base, new_; /* shares, 0 to 1 */
    double change;     /* new_ - base */
    double low, high;  /* the interval of change */
    bool significant;  /* the interval excludes 0 */
};

/* The change from x1 of n1 to x2 of n2 (n1, n2 > 0) at quantile z. */
void diff_change(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double z,
                 struct diff_change *out);

#endif
