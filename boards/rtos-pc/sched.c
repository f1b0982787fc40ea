#include "sched.h"
#include "heap.h"
#include "io.h"

#include <stddef.h>
#include <string.h>

enum task_state { TASK_READY, TASK_SLEEPING };

/* A task's context is its general registers alone, on its stack (switch.S): like
 * FreeRTOS's IA32_flat port, this kernel saves no x87/SSE state, so nothing in the image
 * may use it (main.c turns the FPU off; docs/porting.md, section 9). */
struct task {
    uintptr_t sp; /* saved by context_switch */
    uintptr_t stack_lo, stack_hi;
    uint32_t tid;
    char name[SCHED_NAME_LEN];
    enum sched_priority prio;
    enum task_state state;
    uint64_t wake_tick;
    uint32_t slice_ticks, slice_left;
    uint64_t run_tsc, switched_in_tsc, switches;
    task_entry_fn entry;
    void *arg;
};

void context_switch(uintptr_t *save_sp, uintptr_t new_sp);

static struct task *tasks[SCHED_MAX_TASKS];
static uint32_t num_tasks;
static struct task *volatile current;
/* The task of each priority whose turn it is (round robin within a priority). */
static struct task *turn[PRIO_NET + 1];
static volatile uint64_t ticks;
static struct task idle_task;

static void copy_name(char *dst, const char *src)
{
    strncpy(dst, src, SCHED_NAME_LEN - 1);
    dst[SCHED_NAME_LEN - 1] = 0;
}

void sched_init(const char *idle_name, void *stack_lo, void *stack_hi)
{
    idle_task.stack_lo = (uintptr_t)stack_lo;
    idle_task.stack_hi = (uintptr_t)stack_hi;
    idle_task.tid = 1;
    copy_name(idle_task.name, idle_name);
    idle_task.prio = PRIO_IDLE;
    idle_task.state = TASK_READY;
    idle_task.slice_ticks = idle_task.slice_left = 1;
    idle_task.switched_in_tsc = rdtsc();
    idle_task.switches = 1;
    tasks[0] = &idle_task;
    num_tasks = 1;
    turn[PRIO_IDLE] = &idle_task;
    current = &idle_task;
}

/* Where a new task's first context_switch returns to: interrupts on, then its entry. A
 * zero return address and frame pointer below it end call-stack walks here. */
static void __attribute__((noreturn, noinline)) task_start(void)
{
    struct task *self = current;
    irq_enable();
    self->entry(self->arg);
    for (;;)
        sched_sleep(UINT32_MAX);
}

int sched_create(const char *name, task_entry_fn entry, void *arg, enum sched_priority prio,
                 uint32_t slice_ticks, uint32_t stack_bytes)
{
    struct task *t = heap_alloc(sizeof(*t), 16);
    uint8_t *stack = heap_alloc(stack_bytes, 16);
    if (!t || !stack || num_tasks >= SCHED_MAX_TASKS)
        return -1;
    memset(t, 0, sizeof(*t));
    t->stack_lo = (uintptr_t)stack;
    /* The top 16-byte aligned whatever stack_bytes is: the ABI's alignment at calls. */
    t->stack_hi = ((uintptr_t)stack + stack_bytes) & ~(uintptr_t)15;
    copy_name(t->name, name);
    t->prio = prio;
    t->state = TASK_READY;
    t->slice_ticks = t->slice_left = slice_ticks ? slice_ticks : 1;
    t->entry = entry;
    t->arg = arg;

    /* The frame context_switch pops (switch.S), from the top of the 16-byte aligned stack
     * down: 0 as task_start's own return address, task_start as context_switch's, EBP/RBP
     * = 0, the other callee-saved registers (0), then EFLAGS/RFLAGS with IF off until
     * task_start. task_start is entered with the stack pointer one slot below a 16-byte
     * boundary, as after a call from an aligned stack (ESP 12 mod 16, RSP 8 mod 16). The
     * zero frame pointer and return address end call-stack walks at task_start. */
    uintptr_t *sp = (uintptr_t *)t->stack_hi;
    *--sp = 0;
    *--sp = (uintptr_t)task_start;
    *--sp = 0; /* ebp / rbp */
    *--sp = 0; /* ebx / rbx */
#ifdef __x86_64__
    *--sp = 0; /* r12 */
    *--sp = 0; /* r13 */
    *--sp = 0; /* r14 */
    *--sp = 0; /* r15 */
#else
    *--sp = 0; /* esi */
    *--sp = 0; /* edi */
#endif
    *--sp = 0x002; /* the flags: only the always-one bit 1 */
    t->sp = (uintptr_t)sp;

    uintptr_t flags = irq_save();
    t->tid = num_tasks + 1;
    tasks[num_tasks++] = t;
    if (!turn[prio])
        turn[prio] = t;
    irq_restore(flags);
    return (int)t->tid;
}

static int task_index(const struct task *t)
{
    for (uint32_t i = 0; i < num_tasks; i++)
        if (tasks[i] == t)
            return (int)i;
    return 0;
}

/* The task to run: the highest priority with a ready task; within it, the task whose
 * turn it is while its slice lasts, else the next ready one in creation order. */
static struct task *pick(void)
{
    for (int prio = PRIO_NET; prio >= PRIO_IDLE; prio--) {
        struct task *owner = turn[prio];
        if (!owner)
            continue;
        if (owner->state == TASK_READY && owner->slice_left > 0)
            return owner;
        int at = task_index(owner);
        for (uint32_t k = 1; k <= num_tasks; k++) {
            struct task *t = tasks[(at + k) % num_tasks];
            if (t->prio == (enum sched_priority)prio && t->state == TASK_READY) {
                t->slice_left = t->slice_ticks;
                turn[prio] = t;
                return t;
            }
        }
    }
    return &idle_task;
}

/* Interrupts off. */
static void reschedule(void)
{
    struct task *prev = current, *next = pick();
    if (next == prev)
        return;
    uint64_t now = rdtsc();
    prev->run_tsc += now - prev->switched_in_tsc;
    next->switched_in_tsc = now;
    next->switches++;
    current = next;
    sched_trace_switched_in(next->tid);
    context_switch(&prev->sp, next->sp);
    /* Back in prev, switched in again by someone's reschedule(). */
}

void sched_tick(void)
{
    uint64_t now = ++ticks;
    for (uint32_t i = 0; i < num_tasks; i++) {
        struct task *t = tasks[i];
        if (t->state == TASK_SLEEPING && t->wake_tick <= now)
            t->state = TASK_READY;
    }
    if (current->slice_left > 0)
        current->slice_left--;
    reschedule();
}

void sched_sleep(uint32_t n)
{
    uintptr_t flags = irq_save();
    struct task *self = current;
    if (self != &idle_task) {
        self->state = TASK_SLEEPING;
        self->wake_tick = n == UINT32_MAX ? UINT64_MAX : ticks + n;
        reschedule();
    }
    irq_restore(flags);
}

void sched_wake(int tid)
{
    uintptr_t flags = irq_save();
    if (tid >= 1 && (uint32_t)tid <= num_tasks)
        tasks[tid - 1]->state = TASK_READY;
    irq_restore(flags);
}

void sched_preempt(void)
{
    uintptr_t flags = irq_save();
    reschedule();
    irq_restore(flags);
}

uint32_t sched_current_tid(void)
{
    return current->tid;
}

void sched_current_stack(uintptr_t *lo, uintptr_t *hi)
{
    const struct task *t = current;
    *lo = t->stack_lo;
    *hi = t->stack_hi;
}

int sched_stats(struct sched_task_stats *out, int max)
{
    uintptr_t flags = irq_save();
    uint64_t now = rdtsc();
    for (uint32_t i = 0; i < num_tasks && (int)i < max; i++) {
        const struct task *t = tasks[i];
        out[i].tid = t->tid;
        memcpy(out[i].name, t->name, SCHED_NAME_LEN);
        out[i].run_tsc = t->run_tsc + (t == current ? now - t->switched_in_tsc : 0);
        out[i].switches = t->switches;
    }
    int n = (int)num_tasks;
    irq_restore(flags);
    return n;
}
