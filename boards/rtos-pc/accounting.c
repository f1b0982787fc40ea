#include "accounting.h"
#include "io.h"
#include "pit_timer.h"
#include "workers.h"

static struct accounting_snapshot window[2];
static int window_open, window_done;

void accounting_take(struct accounting_snapshot *s)
{
    uintptr_t flags = irq_save();
    s->tsc = rdtsc();
    lapic_tick_counts(&s->tick);
    s->pit_interrupts = pit_timer_interrupts();
    struct sched_task_stats st[SCHED_MAX_TASKS];
    int n = sched_stats(st, SCHED_MAX_TASKS);
    s->num_tasks = n < SCHED_MAX_TASKS ? n : SCHED_MAX_TASKS;
    for (int i = 0; i < s->num_tasks; i++) {
        s->tasks[i].sched = st[i];
        s->tasks[i].loops = workers_loops(st[i].tid);
    }
    irq_restore(flags);
}

void accounting_window_start(void)
{
    lapic_tick_reset_max_gap();
    accounting_take(&window[0]);
    window_open = 1;
}

void accounting_window_end(void)
{
    if (!window_open)
        return;
    accounting_take(&window[1]);
    window_open = 0;
    window_done = 1;
}

int accounting_last_window(const struct accounting_snapshot **start,
                           const struct accounting_snapshot **end)
{
    if (!window_done || window_open)
        return 0;
    *start = &window[0];
    *end = &window[1];
    return 1;
}
