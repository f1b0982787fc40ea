/* The task switches the port reports (aca_task_switched, acart_platform.h) during a
 * collection, kept per CPU for the host to read after STOP (ACART_OP_GET_TASK_SWITCHES).
 * Each CPU writes only its own log, so the port's scheduler pays a few stores and no lock;
 * the net context reads a log only once its CPU stopped recording. */
#ifndef ACART_TASK_SWITCHES_H
#define ACART_TASK_SWITCHES_H

#include "acart_wire.h"

#include <stdint.h>

/* Net context, before sampling starts: every log emptied and cut from the pool for
 * num_cpus CPUs, and recording on. */
void task_switches_start(uint32_t num_cpus);
/* Recording off on every CPU (STOP, TERMINATE, the session's end). */
void task_switches_stop(void);

/* CPU `cpu`'s log: the switches it kept, and those it could not (its log was full). */
void task_switches_counts(uint32_t cpu, uint32_t *kept, uint32_t *lost);
/* Copies up to max of CPU `cpu`'s kept switches from index `first`; returns how many. */
uint32_t task_switches_copy(uint32_t cpu, uint32_t first, struct acart_task_switch *out,
                            uint32_t max);

#endif
