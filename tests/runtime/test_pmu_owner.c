/* runtime/sampling/pmu_owner.c's cross-CPU calls for IPROBE tasks with no agent running: the
 * platform seam says calls of aca_plat_call_on_all_cpus never overlap (acart_platform.h),
 * and tasks on several CPUs may call IprPause, IprResume and IprRead at once. Two threads
 * stand for two tasks on CPUs 1 and 2; the seam here records whether a call began while
 * another was inside. Task A's call stays inside until task B has started its own and
 * either entered the seam (the overlap the lock must prevent) or had TIMEOUT_MS to. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "acart_check.h"
#include "acart_platform.h"
#include "pmu_owner.h"

#define TIMEOUT_MS 300

static _Thread_local uint32_t this_cpu;
static int inside, overlapped, calls;
static int a_inside, b_calling;

uint32_t aca_plat_cpu_index(void)
{
    return this_cpu;
}

void aca_plat_call_on_all_cpus(aca_plat_cpu_fn fn, void *arg)
{
    if (__atomic_fetch_add(&inside, 1, __ATOMIC_ACQ_REL) != 0)
        __atomic_store_n(&overlapped, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&calls, 1, __ATOMIC_ACQ_REL);
    fn(arg);
    __atomic_fetch_sub(&inside, 1, __ATOMIC_ACQ_REL);
}

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void sleep_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

/* Task A's work on every CPU: holds the seam until B is calling and then until B overlaps
 * or the time is up. */
static void slow_fn(void *arg)
{
    (void)arg;
    __atomic_store_n(&a_inside, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&b_calling, __ATOMIC_ACQUIRE))
        sleep_ms(1);
    for (uint64_t end = now_ms() + TIMEOUT_MS;
         !__atomic_load_n(&overlapped, __ATOMIC_ACQUIRE) && now_ms() < end;)
        sleep_ms(1);
}

static void quick_fn(void *arg)
{
    (void)arg;
}

static void *task_a(void *arg)
{
    (void)arg;
    this_cpu = 1;
    pmu_owner_call_all(slow_fn, NULL);
    return NULL;
}

static void *task_b(void *arg)
{
    (void)arg;
    this_cpu = 2;
    while (!__atomic_load_n(&a_inside, __ATOMIC_ACQUIRE))
        sleep_ms(1);
    __atomic_store_n(&b_calling, 1, __ATOMIC_RELEASE);
    pmu_owner_call_all(quick_fn, NULL);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, task_a, NULL) == 0);
    CHECK(pthread_create(&b, NULL, task_b, NULL) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(calls == 2);
    CHECK(!overlapped);
    if (check_failures) {
        fprintf(stderr, "test_pmu_owner: %d check(s) failed\n", check_failures);
        return 1;
    }
    printf("test_pmu_owner: all checks passed\n");
    return 0;
}
