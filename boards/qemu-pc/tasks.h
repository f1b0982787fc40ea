/* The board's minimal kernel: named tasks with ids, each bound to one CPU, so that
 * samples can be attributed to a task. One process (pid 1, the image) holds every task. */
#ifndef QEMU_PC_TASKS_H
#define QEMU_PC_TASKS_H

#include <stdint.h>

#define BOARD_PID       1
#define BOARD_MAX_TASKS 80

/* Registers a task bound to `cpu` and returns its tid (>= 1), or a negative value. */
int task_create(const char *name, uint32_t cpu);

/* Makes `tid` the current task of the calling CPU and returns the previous one. */
uint32_t task_switch_to(uint32_t tid);

const char *task_name(uint32_t tid);

#endif
