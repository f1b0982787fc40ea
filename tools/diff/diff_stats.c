#include "diff_stats.h"

#include <math.h>

double diff_z_for_level(double level)
{
    /* Bisection on the normal tail: P(|Z| > z) = erfc(z / sqrt 2) falls from 1 at 0. */
    double lo = 0.0, hi = 40.0, tail = 1.0 - level;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / sqrt(2.0)) > tail)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

void diff_wilson(uint64_t x, uint64_t n, double z, double *low, double *high)
{
    double nn = (double)n, p = (double)x / nn, z2 = z * z;
    double denom = 1.0 + z2 / nn;
    double center = (p + z2 / (2 * nn)) / denom;
    double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / denom;
    *low = center - half < 0 ? 0 : center - half;
    *high = center + half > 1 ? 1 : center + half;
}

void diff_change(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double z,
                 struct diff_change *out)
{
    double l1, u1, l2, u2;
    diff_wilson(x1, n1, z, &l1, &u1);
    diff_wilson(x2, n2, z, &l2, &u2);
    double p1 = (double)x1 / (double)n1, p2 = (double)x2 / (double)n2;
    out->base = p1;
    out->new_ = p2;
    out->change = p2 - p1;
    out->low = out->change - sqrt((p2 - l2) * (p2 - l2) + (u1 - p1) * (u1 - p1));
    out->high = out->change + sqrt((u2 - p2) * (u2 - p2) + (p1 - l1) * (p1 - l1));
    out->significant = out->low > 0 || out->high < 0;
}
