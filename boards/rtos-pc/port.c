#include "port.h"
#include "console.h"
#include "sched.h"

#include "acart.h"
#include "acart_platform.h"

#include "lwip/memp.h"
#include "lwip/stats.h"

#include <stdint.h>
#include <string.h>

extern const char __text_start[], __text_end[];

void port_announce_tasks(void)
{
    struct sched_task_stats st[SCHED_MAX_TASKS];
    int n = sched_stats(st, SCHED_MAX_TASKS);
    for (int i = 0; i < n && i < SCHED_MAX_TASKS; i++)
        aca_task_created(PORT_PID, st[i].tid, st[i].name);
}

int aca_port_current_task(uint32_t cpu, uint32_t *pid, uint32_t *tid)
{
    if (cpu != 0)
        return -1;
    *pid = PORT_PID;
    *tid = sched_current_tid();
    return 0;
}

void sched_trace_switched_in(uint32_t tid)
{
    aca_task_switched(PORT_PID, tid);
}

int aca_port_module_list(struct aca_module_info *out, int max)
{
    if (max >= 1) {
        memset(&out[0], 0, sizeof(out[0]));
        out[0].pid = 0;
        out[0].start = (uintptr_t)__text_start;
        out[0].length = (uintptr_t)__text_end - (uintptr_t)__text_start;
        strncpy(out[0].name, IMAGE_NAME, sizeof(out[0].name) - 1);
    }
    return 1;
}

void aca_port_log(const char *line)
{
    console_printf("%s\n", line);
}

/* This kernel's lwIP keeps MEM_STATS and MEMP_STATS (lwipopts.h) for exactly this. */
int aca_port_net_memory(struct aca_net_memory *out)
{
    out->heap_used = (uint32_t)lwip_stats.mem.used;
    out->pbuf_pool_used = lwip_stats.memp[MEMP_PBUF_POOL]->used;
    out->tcp_segs_used = lwip_stats.memp[MEMP_TCP_SEG]->used;
    out->tcp_pcbs_used = lwip_stats.memp[MEMP_TCP_PCB]->used;
    return 0;
}
