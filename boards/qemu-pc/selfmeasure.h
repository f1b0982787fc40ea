/* The `selfmeasure` workload: the board measures its own control loop with IPROBE. */
#ifndef QEMU_PC_SELFMEASURE_H
#define QEMU_PC_SELFMEASURE_H

#include <stdint.h>

/* Boot option selfmeasure=DELAY_MS,SECONDS. */
void selfmeasure_configure(const char *arg);
/* On the measuring CPU; never returns. */
void selfmeasure_run(uint32_t cpu);

#endif
