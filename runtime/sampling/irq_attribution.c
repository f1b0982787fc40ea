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

struct irq_nest irq_nest[ACA_MAX_CPUS];

void aca_irq_enter(uint8_t vector)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= ACA_MAX_CPUS)
        return;
    struct irq_nest *n = &irq_nest[cpu];
    uint32_t d = n->depth;
    if (d < ACA_IRQ_NEST_MAX)
        n->vector[d] = vector;
    __asm__ volatile("" ::: "memory"); /* the vector before the depth that exposes it */
    n->depth = d + 1;
}

void aca_irq_exit(void)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu < ACA_MAX_CPUS && irq_nest[cpu].depth)
        irq_nest[cpu].depth--;
}
