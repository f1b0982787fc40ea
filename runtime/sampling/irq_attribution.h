/* The sampling interrupt's side of interrupt attribution (acart.h: aca_irq_enter). */
#ifndef ACART_IRQ_ATTRIBUTION_H
#define ACART_IRQ_ATTRIBUTION_H

#include "acart.h"
#include "acart_platform.h"
#include "acart_opts.h"

#include <stdint.h>

/* Written and read only on its own CPU (the sampling interrupt reads what the CPU it
 * interrupted wrote), so compiler barriers order it; one cache line per CPU. */
struct irq_nest {
    volatile uint32_t depth;
    volatile uint8_t vector[ACA_IRQ_NEST_MAX];
} __attribute__((aligned(64)));

extern struct irq_nest irq_nest[ACA_MAX_CPUS];

/* The innermost handler CPU `cpu` is running, or -1. Interrupt context, on `cpu`. Inline:
 * every sample reads it (bench/sample_cost.py counts the instructions). */
static inline int irq_attribution_vector(uint32_t cpu)
{
    if (cpu >= ACA_MAX_CPUS)
        return -1;
    uint32_t d = irq_nest[cpu].depth;
    if (d > ACA_IRQ_NEST_MAX)
        d = ACA_IRQ_NEST_MAX; /* deeper levels count as the deepest recorded */
    return d ? irq_nest[cpu].vector[d - 1] : -1;
}

#endif
