#include "task_events.h"
#include "acart_platform.h"
#include "acart_opts.h"

#include "io.h"

#include <string.h>

static struct task_record tasks[ACA_MAX_TASKS];
static struct module_event modules[ACA_MAX_MODULE_EVENTS];
static uint32_t num_tasks, num_modules;
static volatile uint32_t writer_lock, seq;
static uint32_t writer_irq_flags;

static uint64_t now(void)
{
    return rdtsc();
}

/* Writers serialise on a spin lock and bump seq around the change (odd = in progress).
 * They keep interrupts off meanwhile: a reader in the net interrupt on the writer's own
 * CPU would otherwise spin on an odd seq forever. */
static void write_begin(void)
{
    uintptr_t flags = irq_save();
    while (__atomic_exchange_n(&writer_lock, 1, __ATOMIC_ACQUIRE))
        cpu_relax();
    writer_irq_flags = flags;
    __atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
}

static void write_end(void)
{
    uint32_t flags = writer_irq_flags;
    __atomic_fetch_add(&seq, 1, __ATOMIC_ACQ_REL);
    __atomic_store_n(&writer_lock, 0, __ATOMIC_RELEASE);
    irq_restore(flags);
}

static void copy_name(char *dst, size_t size, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= size)
        n = size - 1;
    memcpy(dst, src ? src : "", n);
    dst[n] = 0;
}

static struct task_record *find_task(uint32_t pid, uint32_t tid)
{
    for (uint32_t i = 0; i < num_tasks; i++)
        if (tasks[i].pid == pid && tasks[i].tid == tid && tasks[i].exited_tsc == 0)
            return &tasks[i];
    return 0;
}

void aca_task_created(uint32_t pid, uint32_t tid, const char *name)
{
    write_begin();
    struct task_record *t = find_task(pid, tid);
    if (!t && num_tasks < ACA_MAX_TASKS)
        t = &tasks[num_tasks++];
    if (t) {
        t->pid = pid;
        t->tid = tid;
        t->created_tsc = now();
        t->exited_tsc = 0;
        copy_name(t->name, sizeof(t->name), name);
    }
    write_end();
}

void aca_task_renamed(uint32_t pid, uint32_t tid, const char *name)
{
    write_begin();
    struct task_record *t = find_task(pid, tid);
    if (t)
        copy_name(t->name, sizeof(t->name), name);
    write_end();
}

void aca_task_exited(uint32_t pid, uint32_t tid)
{
    write_begin();
    struct task_record *t = find_task(pid, tid);
    if (t)
        t->exited_tsc = now();
    write_end();
}

/* A free slot, or when the table is full the slot of the module unloaded longest ago:
 * code loaded and unloaded over and over must not run the table out. */
static struct module_event *module_slot(void)
{
    if (num_modules < ACA_MAX_MODULE_EVENTS)
        return &modules[num_modules++];
    struct module_event *oldest = 0;
    for (uint32_t i = 0; i < num_modules; i++)
        if (modules[i].unload_tsc && (!oldest || modules[i].unload_tsc < oldest->unload_tsc))
            oldest = &modules[i];
    return oldest;
}

void aca_module_loaded(uint32_t pid, const char *name, uint64_t start, uint64_t length)
{
    write_begin();
    struct module_event *m = module_slot();
    if (m) {
        m->pid = pid;
        m->start = start;
        m->length = length;
        m->load_tsc = now();
        m->unload_tsc = 0;
        copy_name(m->name, sizeof(m->name), name);
    }
    write_end();
}

void aca_module_unloaded(uint32_t pid, uint64_t start)
{
    write_begin();
    for (uint32_t i = 0; i < num_modules; i++) {
        if (modules[i].pid == pid && modules[i].start == start && modules[i].unload_tsc == 0) {
            modules[i].unload_tsc = now();
            break;
        }
    }
    write_end();
}

static int snapshot(void *out, const void *table, const uint32_t *count, size_t rec, int max)
{
    for (;;) {
        uint32_t s0 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
        if (s0 & 1) {
            __asm__ volatile("pause");
            continue;
        }
        uint32_t n = *count;
        if ((int)n > max)
            n = (uint32_t)max;
        memcpy(out, table, n * rec);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&seq, __ATOMIC_ACQUIRE) == s0)
            return (int)n;
    }
}

int task_events_tasks(struct task_record *out, int max)
{
    return snapshot(out, tasks, &num_tasks, sizeof(*out), max);
}

int task_events_modules(struct module_event *out, int max)
{
    return snapshot(out, modules, &num_modules, sizeof(*out), max);
}

/* The pseudo-task of a handler (acart.h, interrupt attribution): "[irq 0x2b e1000]". */
void aca_irq_named(uint8_t vector, const char *name)
{
    static const char hex[] = "0123456789abcdef";
    char task[32] = "[irq 0x";
    uint32_t at = 7;
    task[at++] = hex[vector >> 4];
    task[at++] = hex[vector & 0xf];
    task[at++] = ' ';
    for (; name && *name && at < sizeof(task) - 2; name++)
        task[at++] = *name;
    task[at++] = ']';
    task[at] = 0;
    aca_task_created(ACA_IRQ_PID, ACA_IRQ_TID(vector), task);
}
