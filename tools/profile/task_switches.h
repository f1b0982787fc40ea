/* task-switches.csv of a collection folder: the task switches the target's port reported
 * (aca_task_switched; ACART_OP_GET_TASK_SWITCHES), one line per switch,
 * "cpu,tsc,pid,tid", each CPU's in the order it switched. session.json says how many each
 * CPU kept and lost (samples.task_switches); the file must hold exactly the kept ones. */
#ifndef ACART_TOOLS_TASK_SWITCHES_H
#define ACART_TOOLS_TASK_SWITCHES_H

#include "diag.h"
#include "session.h"

#include <stddef.h>
#include <stdint.h>

#define TASK_SWITCHES_FILE "task-switches.csv"

struct task_switch {
    uint32_t cpu;
    uint32_t pid, tid; /* the task that became current */
    uint64_t tsc;
};

struct task_switches {
    struct task_switch *sw; /* by CPU, then as the CPU switched */
    size_t n;
};

int task_switches_write(const char *path, const struct task_switch *sw, size_t n, struct diag *d);
/* The folder's switches, checked against session.json; none (n = 0, no error) when the
 * session has no samples.task_switches. */
int task_switches_read(const char *dir, const struct session *s, struct task_switches *out,
                       struct diag *d);
void task_switches_free(struct task_switches *t);

#endif
