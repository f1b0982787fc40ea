/* IPROBE: the functions of ipr_count.c that the other IPROBE files call. */
#ifndef ACART_IPR_COUNT_H
#define ACART_IPR_COUNT_H

#include "ipr_state.h"

uint64_t ipr_count_of(struct ipr_cpu *c, unsigned ctr); /* on c's own CPU */
void ipr_count_reset(void);                             /* at IprAllocate / Deallocate */
int ipr_pmi(const struct aca_frame *frame);
void ipr_tick(const struct aca_frame *frame);

#endif
