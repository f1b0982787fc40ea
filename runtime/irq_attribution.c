/* Interrupt attribution (acart.h: aca_irq_enter/aca_irq_exit): which handler, if any,
 * each CPU is running, for the sampling interrupt to read on that CPU. Handlers' names
 * are task events (task_events.c: aca_irq_named). */
#include "irq_attribution.h"
#include "acart.h"
#include "acart_opts.h"
#include "acart_platform.h"
#include "acart_wire.h"

_Static_assert(ACA_IRQ_PID == ACART_IRQ_PID && ACA_IRQ_TID(0) == ACART_IRQ_TID_BASE,
               "the ids of interrupt samples are defined once, on the wire");

/* Written and read only on its own CPU (the sampling interrupt reads what the CPU it
 * interrupted wrote), so compiler barriers order it; one cache line per CPU. */
struct irq_nest {
    volatile uint32_t depth;
    volatile uint8_t vector[ACA_IRQ_NEST_MAX];
} __attribute__((aligned(64)));

static struct irq_nest nest[ACA_MAX_CPUS];

void aca_irq_enter(uint8_t vector)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= ACA_MAX_CPUS)
        return;
    struct irq_nest *n = &nest[cpu];
    uint32_t d = n->depth;
    if (d < ACA_IRQ_NEST_MAX)
        n->vector[d] = vector;
    __asm__ volatile("" ::: "memory"); /* the vector before the depth that exposes it */
    n->depth = d + 1;
}

void aca_irq_exit(void)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu < ACA_MAX_CPUS && nest[cpu].depth)
        nest[cpu].depth--;
}

int irq_attribution_vector(uint32_t cpu)
{
    if (cpu >= ACA_MAX_CPUS)
        return -1;
    uint32_t d = nest[cpu].depth;
    if (d > ACA_IRQ_NEST_MAX)
        d = ACA_IRQ_NEST_MAX; /* deeper levels count as the deepest recorded */
    return d ? nest[cpu].vector[d - 1] : -1;
}
