/* Commands that describe the target: version, setup, CPUs, TSC, platform, system
 * configuration, threads. */
#include "collection.h"
#include "target.h"
#include "commands.h"
#include "sysinfo.h"
#include "task_events.h"

#include "cpuid.h"
#include "acart_platform.h"
#include "io.h"
#include "msr.h"
#include "msr_safe.h"

#include <string.h>

/* The driver version acart reports: the reference driver's (5.17, API 5), the one whose
 * protocol it speaks; SEP checks it for compatibility. */
#define ACART_DRV_VERSION_MAJOR 5
#define ACART_DRV_VERSION_MINOR 17
#define ACART_DRV_VERSION_API   5

int32_t cmd_version(struct cmd_request *req)
{
    struct sep_drv_version v = {ACART_DRV_VERSION_MAJOR, ACART_DRV_VERSION_MINOR,
                                ACART_DRV_VERSION_API, 0};
    return cmd_reply(req, &v, sizeof(v));
}

int32_t cmd_get_drv_setup_info(struct cmd_request *req)
{
    struct sep_drv_setup_info info;
    memset(&info, 0, sizeof(info));
    if (target.pmu_usable) {
        if (target.cfg.interrupt_mode == ACA_INTERRUPT_NMI)
            info.modes |= SEP_SETUP_NMI_MODE;
    } else {
        /* No architectural PMU to program: counters and event multiplexing are out, and
         * samples come from the LAPIC timer. */
        info.modes |= SEP_SETUP_PROFILING_VERSION_UNSUPP | SEP_SETUP_CORE_EVENT_MUX_UNAVAIL;
    }
    info.modes |= SEP_SETUP_REGISTER_ALLOWLIST;
    return cmd_reply(req, &info, sizeof(info));
}

int32_t cmd_num_cores(struct cmd_request *req)
{
    uint32_t n = target.num_cpus;
    return cmd_reply(req, &n, sizeof(n));
}

int32_t cmd_get_normalized_tsc(struct cmd_request *req)
{
    uint64_t t = rdtsc();
    return cmd_reply(req, &t, sizeof(t));
}

int32_t cmd_get_platform_info(struct cmd_request *req)
{
    /* 15440 bytes, all zeros past misc_info here: only the head is written, and the
     * control channel sends the zeros up to what the host asked for (commands.h). */
    const uint32_t head = offsetof(struct sep_platform_info, misc_info) + 8;
    if (req->asked < sizeof(struct sep_platform_info) || req->out_cap < head)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    uint64_t v;
    if (msr_read_safe(MSR_PLATFORM_INFO, &v) == 0)
        memcpy(req->out + offsetof(struct sep_platform_info, info), &v, 8);
    if (msr_read_safe(0x1a0 /* IA32_MISC_ENABLE */, &v) == 0) {
        req->out[offsetof(struct sep_platform_info, misc_valid)] = 1;
        memcpy(req->out + offsetof(struct sep_platform_info, misc_info), &v, 8);
    }
    req->out_len = head;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_collect_sys_config(struct cmd_request *req)
{
    uint32_t size = sysinfo_build();
    return cmd_reply(req, &size, sizeof(size));
}

int32_t cmd_get_sys_config(struct cmd_request *req)
{
    uint32_t size;
    const void *blob = sysinfo_blob(&size);
    if (size == 0)
        return SEP_STATUS_SAMP_IN_UNEXPECTED_STATE; /* COLLECT_SYS_CONFIG comes first */
    return cmd_reply(req, blob, size);
}

static struct task_record task_snapshot[ACA_MAX_TASKS];

int32_t cmd_get_thread_count(struct cmd_request *req)
{
    uint32_t n = (uint32_t)task_events_tasks(task_snapshot, ACA_MAX_TASKS);
    uint32_t alive = 0;
    for (uint32_t i = 0; i < n; i++)
        alive += task_snapshot[i].exited_tsc == 0;
    return cmd_reply(req, &alive, sizeof(alive));
}

int32_t cmd_get_thread_info(struct cmd_request *req)
{
    int n = task_events_tasks(task_snapshot, ACA_MAX_TASKS);
    uint32_t written = 0;
    for (int i = 0; i < n; i++) {
        if (task_snapshot[i].exited_tsc)
            continue;
        if ((written + 1) * sizeof(struct sep_task_info) > req->out_cap)
            break; /* the host sized its buffer from GET_THREAD_COUNT; tasks came since */
        struct sep_task_info t;
        memset(&t, 0, sizeof(t));
        t.id = task_snapshot[i].tid;
        memcpy(t.name, task_snapshot[i].name, sizeof(t.name));
        t.address_space_id = task_snapshot[i].pid;
        memcpy(req->out + written * sizeof(t), &t, sizeof(t));
        written++;
    }
    req->out_len = written * (uint32_t)sizeof(struct sep_task_info);
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_tsc_skew_info(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    /* The reference answers only once a collection has stopped. */
    if (coll->state != COLLECTION_STOPPED)
        return SEP_STATUS_SAMP_IN_UNEXPECTED_STATE;
    if (req->out_cap < target.num_cpus * sizeof(int64_t))
        return SEP_STATUS_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < target.num_cpus; i++) {
        int64_t skew = sysinfo_tsc_skew(i);
        memcpy(req->out + i * sizeof(skew), &skew, sizeof(skew));
    }
    req->out_len = target.num_cpus * (uint32_t)sizeof(int64_t);
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_kernel_cs(struct cmd_request *req)
{
    int32_t cs;
    __asm__("movl %%cs, %0" : "=r"(cs));
    return cmd_reply(req, &cs, sizeof(cs));
}

static struct cpuid_regs perfmon_leaf(void)
{
    if (cpuid_max_leaf() < 0xa)
        return (struct cpuid_regs){0, 0, 0, 0};
    return cpuid(0xa, 0);
}

int32_t cmd_get_num_core_ctrs(struct cmd_request *req)
{
    uint32_t n = (perfmon_leaf().eax >> 8) & 0xff;
    return cmd_reply(req, &n, sizeof(n));
}

static uint64_t perf_capab[ACA_MAX_CPUS];

static void read_perf_capab_on_this_cpu(void *arg)
{
    (void)arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= target.num_cpus)
        return;
    /* IA32_PERF_CAPABILITIES exists only with CPUID.1:ECX.PDCM; else report 0. */
    if (!(cpuid(1, 0).ecx & (1u << 15)) || msr_read_safe(0x345, &perf_capab[cpu]) != 0)
        perf_capab[cpu] = 0;
}

int32_t cmd_get_perf_capab(struct cmd_request *req)
{
    aca_plat_call_on_all_cpus(read_perf_capab_on_this_cpu, 0);
    return cmd_reply(req, perf_capab, target.num_cpus * (uint32_t)sizeof(uint64_t));
}
