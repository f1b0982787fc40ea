/* runtime/sampling/task_switches.c, built for 2 CPUs of 4 switches each: the pool cut
 * among the collection's CPUs, each CPU's log kept apart, a full log keeping its first
 * switches and counting the rest, nothing kept outside a collection, and the pages the
 * host reads (from an index, at most as many as asked). */
#include "acart_check.h"
#include "acart_platform.h"
#include "task_switches.h"

static uint32_t this_cpu;
static uint64_t tsc;

uint32_t aca_plat_cpu_index(void)
{
    return this_cpu;
}

uint64_t host_tsc(void)
{
    return tsc;
}

static void switch_on(uint32_t cpu, uint32_t tid)
{
    this_cpu = cpu;
    tsc += 10;
    aca_task_switched(1, tid);
}

static void check_log(uint32_t cpu, uint32_t want_kept, uint32_t want_lost)
{
    uint32_t kept, lost;
    task_switches_counts(cpu, &kept, &lost);
    CHECK_EQ(kept, want_kept);
    CHECK_EQ(lost, want_lost);
}

int main(void)
{
    switch_on(0, 99); /* before any collection: not kept */
    check_log(0, 0, 0);

    task_switches_start(2); /* 8 records: 4 per CPU */
    for (uint32_t k = 0; k < 6; k++)
        switch_on(1, 10 + k);
    switch_on(0, 7);
    switch_on(2, 5); /* a CPU the collection does not have */
    task_switches_stop();
    switch_on(0, 8); /* after STOP: not kept */
    check_log(0, 1, 0);
    check_log(1, 4, 2);
    check_log(2, 0, 0);

    struct acart_task_switch page[4];
    CHECK_EQ(task_switches_copy(1, 1, page, 2), 2);
    CHECK_EQ(page[0].tid, 11);
    CHECK_EQ(page[1].tid, 12);
    CHECK_EQ(page[0].pid, 1);
    CHECK(page[1].tsc > page[0].tsc);
    CHECK_EQ(task_switches_copy(1, 2, page, 4), 2); /* the last two kept: 12, 13 */
    CHECK_EQ(page[1].tid, 13);
    CHECK_EQ(task_switches_copy(1, 4, page, 4), 0);
    CHECK_EQ(task_switches_copy(0, 0, page, 4), 1);
    CHECK_EQ(page[0].tid, 7);
    CHECK_EQ(task_switches_copy(2, 0, page, 4), 0);

    task_switches_start(1); /* one CPU: the whole pool, and the old counts gone */
    check_log(1, 0, 0);
    for (uint32_t k = 0; k < 9; k++)
        switch_on(0, k);
    task_switches_stop();
    check_log(0, 8, 1);
    CHECK_EQ(task_switches_copy(0, 7, page, 4), 1);
    CHECK_EQ(page[0].tid, 7);
    return check_report("unit_task_switches");
}
