/* The image the tools tests symbolize: a few functions with known names, source lines the
 * tests find by their LINE: markers, a function always inlined into another, and callers
 * whose call sites give the call-stack tests real return addresses. It is compiled with
 * -g and never needs to run. */
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

/* Callers for the call-stack tests: main -> outer -> middle -> alpha and beta, outer ->
 * gamma_fn, and main -> walk -> walk ... -> alpha (recursion). No call here is a tail
 * call, so each leaves a return address inside its caller. */
__attribute__((noinline)) unsigned middle(unsigned n)
{
    unsigned x = alpha(n);
    return x + beta(n) * 3u;
}

__attribute__((noinline)) unsigned outer(unsigned n)
{
    unsigned x = middle(n);
    return x + gamma_fn(n) * 5u;
}

__attribute__((noinline)) unsigned walk(unsigned depth, unsigned n)
{
    if (depth == 0)
        return alpha(n) + 1u;
    unsigned x = walk(depth - 1, n);
    sink = x;
    return x ^ depth;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1000u;
    sink = alpha(n) + beta(n) + gamma_fn(n);
    sink += outer(n) + walk(3, n);
    printf("%u\n", sink);
    return 0;
}
