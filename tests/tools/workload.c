/* The image the tools tests symbolize: a few functions with known names, source lines the
 * tests find by their LINE: markers, and a function always inlined into another. It is
 * compiled with -g and never needs to run. */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned sink;

__attribute__((noinline)) unsigned alpha(unsigned n)
{
    unsigned x = 0;
    for (unsigned i = 0; i < n; i++)
        x += i * 7u; /* LINE:alpha_loop */
    return x;
}

static inline __attribute__((always_inline)) unsigned mix(unsigned v)
{
    return (v ^ (v >> 3)) * 2654435761u; /* LINE:mix_body */
}

__attribute__((noinline)) unsigned beta(unsigned n)
{
    unsigned x = 1;
    for (unsigned i = 0; i < n; i++)
        x = mix(x + i); /* LINE:beta_call */
    return x;
}

__attribute__((noinline)) unsigned gamma_fn(unsigned n)
{
    unsigned x = 3;
    while (n--)
        x = x * 5u + 1u; /* LINE:gamma_loop */
    return x;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1000u;
    sink = alpha(n) + beta(n) + gamma_fn(n);
    printf("%u\n", sink);
    return 0;
}
