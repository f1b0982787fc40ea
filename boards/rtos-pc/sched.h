/* A small preemptive scheduler for one CPU. Fixed priorities (higher runs first); tasks
 * of one priority take turns in creation order, each for its own slice of ticks. The
 * LAPIC tick (lapic_tick.c) drives it: it wakes sleepers, counts down the running task's
 * slice and switches tasks from the tick interrupt. Every task has its own stack from the
 * heap; the boot stack becomes the idle task. Tasks never exit.
 *
 * Accounting: the scheduler charges every TSC cycle to the task that ran it (interrupt
 * handlers included, as a sampler sees them), at each switch. That is wall time: on a
 * virtual CPU it includes the time the host ran something else, which a worker's own
 * loop count does not. */
#ifndef RTOS_PC_SCHED_H
#define RTOS_PC_SCHED_H

#include <stdint.h>

#define SCHED_MAX_TASKS 16
#define SCHED_NAME_LEN  16

enum sched_priority { PRIO_IDLE = 0, PRIO_WORKER = 1, PRIO_NET = 2 };

typedef void (*task_entry_fn)(void *arg);

/* Makes the calling (boot) context the idle task, running on [stack_lo, stack_hi). */
void sched_init(const char *idle_name, void *stack_lo, void *stack_hi);

/* Creates a ready task; returns its id (1..) or -1 when the task table or the heap is
 * full. Task context or boot. */
int sched_create(const char *name, task_entry_fn entry, void *arg, enum sched_priority prio,
                 uint32_t slice_ticks, uint32_t stack_bytes);

/* From the tick interrupt: one tick passed. May switch tasks before returning. */
void sched_tick(void);

/* Puts the running task to sleep for `ticks` ticks or until sched_wake(). */
void sched_sleep(uint32_t ticks);

/* Makes task `tid` ready; from a task or an interrupt handler. */
void sched_wake(int tid);

/* From an interrupt handler that woke a task: switches now if that task should run. */
void sched_preempt(void);

/* The running task, and its stack. Any context, NMI included. */
uint32_t sched_current_tid(void);

/* The kernel's trace hook, as FreeRTOS's traceTASK_SWITCHED_IN: called with interrupts off
 * once task `tid` is current, before the switch to its stack (port.c hands it to acart). */
void sched_trace_switched_in(uint32_t tid);
void sched_current_stack(uintptr_t *lo, uintptr_t *hi);

/* What the scheduler counted for one task. */
struct sched_task_stats {
    uint32_t tid;
    char name[SCHED_NAME_LEN];
    uint64_t run_tsc;  /* TSC cycles charged to the task so far */
    uint64_t switches; /* times it was switched in */
};

/* Fills up to max entries (cycles up to now) and returns the number of tasks. Any
 * context with interrupts off, or task context. */
int sched_stats(struct sched_task_stats *out, int max);

#endif
