/* The kernel's own accounting, to compare with what acart samples: per task, the TSC
 * cycles the scheduler charged it and the loops a worker counted; the scheduler ticks
 * against the TSC. Snapshots are taken when acart arms and disarms its sampling timer
 * (platform.c), so a collection's window is known exactly. */
#ifndef RTOS_PC_ACCOUNTING_H
#define RTOS_PC_ACCOUNTING_H

#include "lapic_tick.h"
#include "sched.h"

#include <stdint.h>

struct accounting_task {
    struct sched_task_stats sched;
    uint64_t loops;
};

struct accounting_snapshot {
    uint64_t tsc;
    struct lapic_tick_counts tick;
    uint64_t pit_interrupts; /* acart's sampling timer */
    int num_tasks;
    struct accounting_task tasks[SCHED_MAX_TASKS];
};

/* Fills s with the counts as of now. */
void accounting_take(struct accounting_snapshot *s);

/* At the start and end of a sampling window (interrupts off, any task). */
void accounting_window_start(void);
void accounting_window_end(void);

/* The last window: 0 when none has ended yet, else 1 with its two snapshots. */
int accounting_last_window(const struct accounting_snapshot **start,
                           const struct accounting_snapshot **end);

#endif
