/* Task table and the acart port hooks over it. */
#include "tasks.h"
#include "percpu.h"

#include "acart.h"
#include "acart_platform.h"

#include <string.h>

struct task {
    uint32_t tid;
    uint32_t cpu;
    char name[32];
};

static struct task tasks[BOARD_MAX_TASKS];
/* Slots handed out so far. A slot is filled after it is handed out, so an entry counts
 * only once its tid is published (release, after the rest of the entry): readers on other
 * CPUs take the filled prefix and never see a half-written name. */
static uint32_t tasks_reserved;
static volatile uint32_t current_tid[ARCH_MAX_CPUS];

int task_create(const char *name, uint32_t cpu)
{
    uint32_t i = __atomic_fetch_add(&tasks_reserved, 1, __ATOMIC_RELAXED);
    if (i >= BOARD_MAX_TASKS)
        return -1;
    tasks[i].cpu = cpu;
    strncpy(tasks[i].name, name, sizeof(tasks[i].name) - 1);
    __atomic_store_n(&tasks[i].tid, i + 1, __ATOMIC_RELEASE);
    aca_task_created(BOARD_PID, i + 1, tasks[i].name);
    return (int)(i + 1);
}

uint32_t task_switch_to(uint32_t tid)
{
    uint32_t cpu = this_cpu_index();
    uint32_t prev = current_tid[cpu];
    current_tid[cpu] = tid;
    return prev;
}

const char *task_name(uint32_t tid)
{
    return tid >= 1 && tid <= BOARD_MAX_TASKS &&
                   __atomic_load_n(&tasks[tid - 1].tid, __ATOMIC_ACQUIRE) == tid
               ? tasks[tid - 1].name
               : "?";
}

int aca_port_current_task(uint32_t cpu, uint32_t *pid, uint32_t *tid)
{
    uint32_t t = cpu < ARCH_MAX_CPUS ? current_tid[cpu] : 0;
    if (t == 0)
        return -1;
    *pid = BOARD_PID;
    *tid = t;
    return 0;
}
