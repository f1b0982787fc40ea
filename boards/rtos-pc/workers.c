#include "workers.h"
#include "console.h"
#include "sched.h"

#define WORKER_STACK_BYTES (16 * 1024)

struct worker {
    const char *name;
    uint32_t slice_ticks;
    int tid;
    volatile uint64_t loops;
    volatile uint32_t result; /* keeps work_unit's result, so the compiler keeps the work */
};

static struct worker workers[NUM_WORKERS] = {
    {"worker1", 1, 0, 0, 0},
    {"worker2", 2, 0, 0, 0},
    {"worker3", 3, 0, 0, 0},
};

/* One unit of work, a called function so every sample in it has worker_main as caller.
 * noipa: GCC drops the frame pointer of a static leaf it may re-optimise across calls,
 * and the frame-pointer walk would then skip worker_main. On x86_64 GCC 12 also drops it,
 * -fno-omit-frame-pointer or not, from any leaf that touches no stack (its argument
 * arrives in a register); asking for the frame address makes it keep the frame. */
static uint32_t __attribute__((noipa)) work_unit(uint32_t seed)
{
    __asm__ volatile("" ::"r"(__builtin_frame_address(0)));
    uint32_t x = seed;
    for (int i = 0; i < 2000; i++)
        x = x * 1664525u + 1013904223u + (x >> 13);
    return x;
}

static void worker_main(void *arg)
{
    struct worker *w = arg;
    uint32_t x = (uint32_t)w->slice_ticks;
    for (;;) {
        x = work_unit(x);
        w->result = x;
        w->loops++;
    }
}

int workers_start(void)
{
    for (int i = 0; i < NUM_WORKERS; i++) {
        struct worker *w = &workers[i];
        w->tid =
            sched_create(w->name, worker_main, w, PRIO_WORKER, w->slice_ticks, WORKER_STACK_BYTES);
        if (w->tid < 0) {
            console_printf("workers: cannot create %s\n", w->name);
            return -1;
        }
        console_printf("task %d: %s, slice %lu ticks\n", w->tid, w->name,
                       (unsigned long)w->slice_ticks);
    }
    return 0;
}

uint64_t workers_loops(uint32_t tid)
{
    for (int i = 0; i < NUM_WORKERS; i++)
        if (workers[i].tid == (int)tid)
            return workers[i].loops;
    return 0;
}
