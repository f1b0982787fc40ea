/* IPROBE: the functions of ipr_sample.c that the other IPROBE files call. */
#ifndef ACART_IPR_SAMPLE_H
#define ACART_IPR_SAMPLE_H

#include "ipr_state.h"

/* One interrupt of counter `ctr` on this CPU, after skip. */
void ipr_take_sample(struct ipr_cpu *c, uint32_t cpu, unsigned ctr, const struct aca_frame *f);
void ipr_sample_reset(void);

#endif
