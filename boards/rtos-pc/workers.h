/* Three CPU-bound worker tasks with a known work split: the same work, in slices of 1, 2
 * and 3 scheduler ticks, so they get about 1/6, 2/6 and 3/6 of the time the network and
 * idle leave. Each counts its own loops; the scheduler counts the TSC cycles each ran. */
#ifndef RTOS_PC_WORKERS_H
#define RTOS_PC_WORKERS_H

#include <stdint.h>

#define NUM_WORKERS 3

/* Creates the workers; returns 0, or -1 when a task could not be created. */
int workers_start(void);

/* Loops counted so far by the worker with task id `tid`; 0 for other tasks. */
uint64_t workers_loops(uint32_t tid);

#endif
