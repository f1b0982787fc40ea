/* What the port told acart about tasks and modules, kept for thread info and module
 * records. Written from task context, read from net context; a sequence lock per table
 * keeps readers from seeing half an update without blocking writers. */
#ifndef ACART_TASK_EVENTS_H
#define ACART_TASK_EVENTS_H

#include "acart.h"

#include <stdint.h>

struct task_record {
    uint32_t pid, tid;
    uint64_t created_tsc, exited_tsc; /* exited_tsc 0: alive */
    char name[32];
};

struct module_event {
    uint32_t pid;
    uint64_t start, length;
    uint64_t load_tsc, unload_tsc; /* unload_tsc 0: still loaded */
    char name[64];
};

/* Copy out a consistent snapshot; return the number of records copied. Net context. The
 * module table keeps ACA_MAX_MODULE_EVENTS entries: when it is full, a new load reuses
 * the slot of the module unloaded longest ago (or is not recorded if none is). */
int task_events_tasks(struct task_record *out, int max);
int task_events_modules(struct module_event *out, int max);

#endif
