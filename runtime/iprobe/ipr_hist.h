/* IPROBE: the functions of ipr_hist.c that the other IPROBE files call. */
#ifndef ACART_IPR_HIST_H
#define ACART_IPR_HIST_H

#include "ipr_state.h"

void ipr_hist_add(uint32_t cpu, unsigned ctr, uint64_t pc, unsigned mode);
void ipr_hist_delete(IPR_CPUMASK mask);

#endif
