/* The sampling interrupt's side of interrupt attribution (acart.h: aca_irq_enter). */
#ifndef ACART_IRQ_ATTRIBUTION_H
#define ACART_IRQ_ATTRIBUTION_H

#include <stdint.h>

/* The innermost handler CPU `cpu` is running, or -1. Interrupt context, on `cpu`. */
int irq_attribution_vector(uint32_t cpu);

#endif
