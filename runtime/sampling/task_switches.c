/* aca_task_switched (acart_platform.h): each CPU's switches between START and STOP, in
 * one pool in .bss (.bss.acart_task_switches, NOBITS) cut evenly among the collection's
 * CPUs. A full log keeps its first switches and counts the rest as lost: the host then
 * knows exactly up to when the switches it has are the whole story. */
#include "task_switches.h"
#include "acart_opts.h"
#include "acart_platform.h"

#include "io.h"

#if ACA_TASK_SWITCHES_PER_CPU

#define POOL_RECORDS ((uint32_t)ACA_TASK_SWITCHES_PER_CPU * ACA_MAX_CPUS)

static struct acart_task_switch pool[POOL_RECORDS]
    __attribute__((section(".bss.acart_task_switches"), aligned(64)));

struct switch_log {
    struct acart_task_switch *rec;
    uint32_t cap;
    volatile uint32_t kept; /* written after the record it counts */
    volatile uint32_t lost;
} __attribute__((aligned(64))); /* one CPU's stores never share a line with another's */

static struct switch_log logs[ACA_MAX_CPUS];
static uint32_t logs_in_use;
static volatile int recording;

void aca_task_switched(uint32_t pid, uint32_t tid)
{
    if (!recording)
        return;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= logs_in_use)
        return;
    struct switch_log *log = &logs[cpu];
    uint32_t k = log->kept;
    if (k >= log->cap) {
        log->lost = log->lost + 1;
        return;
    }
    struct acart_task_switch *r = &log->rec[k];
    r->tsc = rdtsc();
    r->pid = pid;
    r->tid = tid;
    __asm__ volatile("" ::: "memory"); /* the record before the count that exposes it */
    log->kept = k + 1;
}

void task_switches_start(uint32_t num_cpus)
{
    recording = 0;
    if (num_cpus > ACA_MAX_CPUS)
        num_cpus = ACA_MAX_CPUS;
    uint32_t cap = num_cpus ? POOL_RECORDS / num_cpus : 0;
    for (uint32_t i = 0; i < num_cpus; i++) {
        logs[i].rec = &pool[i * cap];
        logs[i].cap = cap;
        logs[i].kept = 0;
        logs[i].lost = 0;
    }
    logs_in_use = num_cpus;
    __asm__ volatile("" ::: "memory");
    recording = 1;
}

void task_switches_stop(void)
{
    recording = 0;
}

void task_switches_counts(uint32_t cpu, uint32_t *kept, uint32_t *lost)
{
    *kept = cpu < logs_in_use ? logs[cpu].kept : 0;
    *lost = cpu < logs_in_use ? logs[cpu].lost : 0;
}

uint32_t task_switches_copy(uint32_t cpu, uint32_t first, struct acart_task_switch *out,
                            uint32_t max)
{
    if (cpu >= logs_in_use || first >= logs[cpu].kept)
        return 0;
    uint32_t n = logs[cpu].kept - first;
    if (n > max)
        n = max;
    for (uint32_t i = 0; i < n; i++)
        out[i] = logs[cpu].rec[first + i];
    return n;
}

#else

/* Built without a switch log (ACA_TASK_SWITCHES_PER_CPU 0): the port's calls cost a return. */
void aca_task_switched(uint32_t pid, uint32_t tid)
{
    (void)pid;
    (void)tid;
}

void task_switches_start(uint32_t num_cpus)
{
    (void)num_cpus;
}

void task_switches_stop(void) {}

#endif
