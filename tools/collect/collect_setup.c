/* acart collect's requests before START (see collect_internal.h), in SEP's order: what the
 * target is, the events for its CPU, LBR, the driver, Intel PT, the events' ECBs, the uncore,
 * the task list and INIT_PMU. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collect_internal.h"

/* What SEP tells INIT_PMU: room for 7 counters of 8 bytes per CPU. */
#define INIT_PMU_COUNTERS_PER_CPU 7
/* Any sane target's system configuration or task list fits in far less. */
#define MAX_SYS_CONFIG (64u << 20)
#define MAX_TASKS      (1u << 20)

int collect_request(struct collection *c, uint32_t op, const void *in, size_t in_len, void *out,
                    size_t want, struct diag *d)
{
    return link_request(&c->link, op, in, in_len, out, want, want, NULL, d);
}

static int request_u32(struct collection *c, uint32_t op, uint32_t value, struct diag *d)
{
    return collect_request(c, op, &value, sizeof value, NULL, 0, d);
}

static int query_u32(struct collection *c, uint32_t op, uint32_t *value, struct diag *d)
{
    return collect_request(c, op, NULL, 0, value, sizeof *value, d);
}

static int system_configuration(struct collection *c, struct diag *d)
{
    uint32_t size;
    int rc = query_u32(c, SEP_OP_COLLECT_SYS_CONFIG, &size, d);
    if (rc)
        return rc;
    if (size == 0)
        return sysinfo_flat(c->num_cpus, &c->sys, d);
    if (size > MAX_SYS_CONFIG)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "COLLECT_SYS_CONFIG: a system configuration of %" PRIu32 " bytes", size);
    void *blob = malloc(size);
    if (!blob)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    rc = collect_request(c, SEP_OP_GET_SYS_CONFIG, NULL, 0, blob, size, d);
    if (!rc)
        rc = sysinfo_parse(blob, size, c->num_cpus, &c->sys, d);
    free(blob);
    return rc;
}

/* SEP asks all of these before it configures anything, and a target may rely on that
 * order; of the answers, only the system configuration and NUM_CORES matter here. */
int collect_target_description(struct collection *c, struct diag *d)
{
    struct sep_drv_version version;
    struct sep_drv_setup_info setup;
    uint32_t cores;
    uint64_t tsc;
    struct sep_platform_info *platform = malloc(sizeof *platform);
    int rc;
    if (!platform)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if ((rc = request_u32(c, SEP_OP_SET_OSID, 0, d)) ||
        (rc = collect_request(c, SEP_OP_VERSION, NULL, 0, &version, sizeof version, d)) ||
        (rc = collect_request(c, SEP_OP_GET_DRV_SETUP_INFO, NULL, 0, &setup, sizeof setup, d)) ||
        (rc = system_configuration(c, d)) ||
        (rc = collect_request(c, SEP_OP_GET_PLATFORM_INFO, NULL, 0, platform, sizeof *platform,
                              d)) ||
        (rc = query_u32(c, SEP_OP_NUM_CORES, &cores, d)) ||
        (rc = collect_request(c, SEP_OP_GET_NORMALIZED_TSC, NULL, 0, &tsc, sizeof tsc, d))) {
        free(platform);
        return rc;
    }
    free(platform);
    if (cores != c->num_cpus)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "NUM_CORES says %" PRIu32 " CPUs, the handshake %" PRIu32, cores,
                         c->num_cpus);
    return 0;
}

/* The events by name, for the CPU the target reports (its status, system configuration
 * and whether its VERSION says it samples on a timer). */
int collect_resolve_events(struct collection *c, struct diag *d)
{
    const struct sep_target_status *st = &c->link.status;
    char version[sizeof st->os_info.version + 1];
    memcpy(version, st->os_info.version, sizeof st->os_info.version);
    version[sizeof st->os_info.version] = 0;
    struct collect_target_cpu cpu = {st->hardware_info.family, st->hardware_info.model,
                                     !strstr(version, "time-based"),
                                     c->sys.num_cpus ? c->sys.cpus[0].gp_counters : 0};
    int rc = c->opt.metrics
                 ? collect_events_metrics(c->opt.metrics, &cpu, c->opt.specs, &c->opt.num_specs, d)
                 : 0;
    /* Counting mode without a PMU: INIT_DRIVER is the target's to refuse, with its reason
     * on its console (configure_driver). */
    if (!rc && c->opt.count && !cpu.pmu)
        return 0;
    if (!rc && c->opt.mux_ms && !cpu.pmu)
        rc = diag_fail(d, COLLECT_DIAG_TARGET,
                       "--mux: the target has no usable PMU and samples on a timer (QEMU "
                       "without a virtual PMU, most VMs): there are no counters to take turns on");
    if (!rc)
        rc =
            c->opt.mux_ms || c->opt.count
                ? collect_events_resolve_groups(c->opt.specs, c->opt.num_specs, &cpu,
                                                &c->opt.resolved, d)
                : collect_events_resolve(c->opt.specs, c->opt.num_specs, &cpu, &c->opt.resolved, d);
    if (rc)
        return rc;
    memcpy(c->opt.events, c->opt.resolved.events, sizeof c->opt.events);
    c->opt.num_events = c->opt.resolved.num_events;
    /* Precise load-latency events: room in every record for the load's memory
     * information (docs/sep-protocol.md 6.4), which `report --latency` reads. */
    int latency = 0;
    for (size_t i = 0; !c->opt.count && i < c->opt.num_events; i++) {
        const struct collect_event_def *def = c->opt.events[i].def;
        if (def->extra_msr != COLLECT_ECB_MSR_PEBS_LD_LAT)
            continue;
        /* Without PEBS the load-latency facility stays off and the event counts nothing
         * (IA32_PEBS_ENABLE's LL_EN bit goes with the counter's PEBS bit). */
        if (!def->precise)
            return diag_fail(d, DIAG_USAGE,
                             "--event %s: a load-latency event samples only through PEBS: "
                             "add :precise",
                             def->name);
        latency = 1;
    }
    if (latency)
        collect_layout_add_latency(&c->layout);
    return 0;
}

/* --lbr: the registers to ask for, from the target's model, IA32_PERF_CAPABILITIES and
 * CPUID (collect_lbr.h), and room for them in every record. */
int collect_plan_lbr(struct collection *c, struct diag *d)
{
    if (!c->opt.lbr)
        return 0;
    const struct sep_target_status *st = &c->link.status;
    uint64_t *caps = calloc(c->num_cpus, sizeof *caps);
    if (!caps)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc =
        collect_request(c, SEP_OP_GET_PERF_CAPAB, NULL, 0, caps, c->num_cpus * sizeof *caps, d);
    struct collect_lbr_cpu cpu = {
        st->hardware_info.family, st->hardware_info.model, caps[0], 0, 0, 0};
    free(caps);
    if (rc)
        return rc;
    if (c->sys.num_cpus) {
        cpu.cpuid7_edx = c->sys.cpus[0].cpuid7_edx;
        cpu.cpuid1c_eax = c->sys.cpus[0].cpuid1c_eax;
        cpu.cpuid1c_ebx = c->sys.cpus[0].cpuid1c_ebx;
    }
    if ((rc = collect_lbr_plan(&cpu, c->opt.lbr == 2, &c->lbr, d)))
        return rc;
    collect_layout_add_lbr(&c->layout, c->lbr.num_regs);
    collect_lbr_session(&c->lbr, c->layout.lbr_offset, &c->session_lbr);
    return 0;
}

/* The target's VERSION string says it samples on a timer: it has no usable PMU. */
int collect_target_samples_on_timer(const struct collection *c)
{
    const struct sep_target_status *st = &c->link.status;
    char version[sizeof st->os_info.version + 1];
    memcpy(version, st->os_info.version, sizeof st->os_info.version);
    version[sizeof st->os_info.version] = 0;
    return strstr(version, "time-based") != NULL;
}

int collect_configure_driver(struct collection *c, struct diag *d)
{
    uint32_t busy;
    struct sep_drv_config cfg;
    int rc = query_u32(c, SEP_OP_RESERVE, &busy, d);
    if (rc)
        return rc;
    struct acart_extensions ext = {0};
    struct diag ignored = {0}; /* a target without the extension answers 159: just "busy" */
    if (busy &&
        link_request(&c->link, ACART_OP_EXTENSIONS, NULL, 0, &ext, sizeof ext, sizeof ext, NULL,
                     &ignored) == 0 &&
        ext.pmu_owner == ACART_PMU_IPROBE)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "RESERVE: the target is busy: a program on the target owns the "
                         "counters through IPROBE (IprAllocate) until it calls IprDeallocate");
    if (busy)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "RESERVE: the target is busy: a collection is already running");
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.version = 1;
    cfg.num_events = (uint32_t)c->opt.num_events;
    cfg.p_state_trigger_index = -1;
    cfg.unc_timer_interval = (uint16_t)c->opt.uncore.interval_ms;
    if (c->opt.count)
        cfg.collection_config = SEP_DRV_CFG_COUNTING_MODE | SEP_DRV_CFG_PER_CPU_TSC;
    rc = collect_request(c, SEP_OP_INIT_DRIVER, &cfg, sizeof cfg, NULL, 0, d);
    if (rc && c->opt.count) {
        char why[sizeof d->msg];
        snprintf(why, sizeof why, "%s", d->msg);
        return diag_fail(d, COLLECT_DIAG_TARGET, "counting mode: the target refused it (%s)%s", why,
                         collect_target_samples_on_timer(c)
                             ? ": it has no usable PMU and samples on a timer (QEMU without a "
                               "virtual PMU, most VMs), and counting reads the PMU's counters"
                             : "");
    }
    if (rc)
        return rc;
    if (c->opt.count && !c->opt.num_events)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "counting mode: the target has no usable PMU and samples on a timer, "
                         "yet accepted counting mode: nothing to count");

    struct sep_cpu_topology *topo = calloc(c->num_cpus, sizeof *topo);
    if (!topo)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    sysinfo_topology(&c->sys, topo);
    rc = collect_request(c, SEP_OP_SET_CPU_TOPOLOGY, topo, c->num_cpus * sizeof *topo, NULL, 0, d);
    free(topo);
    return rc;
}

/* --pt: the negotiation, PT_CONFIG, the PT channel (in the data array's last place) and
 * the pt-cpu<N>.bin files; before INIT_PMU, as the target needs. */
int collect_configure_pt(struct collection *c, struct diag *d)
{
    if (!c->opt.pt.enabled)
        return 0;
    c->pt.opt = c->opt.pt;
    int rc = collect_pt_configure(&c->pt, &c->link, c->num_cpus, d);
    if (!rc)
        rc = collect_pt_open_channel(&c->link, &c->data[c->num_cpus + SEP_NONCORE_DATA_CONNECTIONS],
                                     d);
    if (!rc)
        rc = collect_pt_open_files(&c->pt, c->opt.output, d);
    return rc;
}

/* One EM_CONFIG_NEXT: group g's ECB. */
static int send_group(struct collection *c, uint32_t g, struct diag *d)
{
    const struct collect_events *r = &c->opt.resolved;
    size_t first = r->group_start[g], n = r->group_start[g + 1] - first;
    static uint8_t ecb[COLLECT_ECB_SIZE];
    int len = c->opt.count ? collect_ecb_build_counts(c->opt.events + first, n, g, (uint32_t)first,
                                                      ecb, sizeof ecb)
                           : collect_ecb_build_group(c->opt.events + first, n, g, (uint32_t)first,
                                                     ecb, sizeof ecb);
    if (len < 0)
        return diag_fail(d, DIAG_USAGE, "%s", collect_ecb_strerror(len));
    if (c->opt.lbr)
        collect_ecb_ask_lbr(ecb, collect_lbr_select(&c->lbr));
    /* The reply, when the target sends one, says which register it refused. */
    struct sep_ioctl_status verdict;
    size_t got = 0;
    memset(&verdict, 0, sizeof verdict);
    int rc = link_request(&c->link, SEP_OP_EM_CONFIG_NEXT, ecb, (size_t)len, &verdict,
                          sizeof verdict, 0, &got, d);
    if (rc)
        return rc;
    if (got == sizeof verdict && verdict.drv_status != 0)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "EM_CONFIG_NEXT: the target refused register 0x%" PRIx64
                         ": status %" PRIu32 " (%s)",
                         (uint64_t)verdict.reg_key1, verdict.drv_status,
                         link_status_name((int32_t)verdict.drv_status));
    return 0;
}

/* --callstack=dwarf: the target must offer stack copies (an acart extension, negotiated);
 * their area ends every record, after whatever else the record carries. */
static int plan_stack_copy(struct collection *c, struct diag *d)
{
    struct acart_extensions ext = {0};
    struct diag why = {0};
    if (link_request(&c->link, ACART_OP_EXTENSIONS, NULL, 0, &ext, sizeof ext, sizeof ext, NULL,
                     &why) != 0 ||
        !(ext.extensions & ACART_EXT_STACK_COPY))
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--callstack=dwarf: the target does not copy stacks into samples (an "
                         "acart extension its version or build lacks): use --callstack");
    collect_layout_add_stack_copy(&c->layout, c->opt.stack_copy_bytes);
    return 0;
}

int collect_configure_events(struct collection *c, struct diag *d)
{
    /* One descriptor per group: a sample's descriptor_id is its group (collect_ecb.h). */
    uint32_t groups = (uint32_t)c->opt.resolved.num_groups;
    struct sep_event_desc desc;
    int rc;
    if (c->opt.stack_copy_bytes && (rc = plan_stack_copy(c, d)))
        return rc;
    collect_layout_descriptor(&c->layout, &desc);
    rc = request_u32(c, SEP_OP_NUM_DESCRIPTOR, groups, d);
    for (uint32_t g = 0; !rc && g < groups; g++)
        rc = collect_request(c, SEP_OP_DESC_NEXT, &desc, sizeof desc, NULL, 0, d);
    if (rc)
        return rc;

    struct sep_dev_config *dev = malloc(sizeof *dev);
    if (!dev)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    collect_layout_device(&c->layout, (uint32_t)c->opt.num_events, dev);
    rc = collect_request(c, SEP_OP_INIT, dev, sizeof *dev, NULL, 0, d);
    free(dev);
    if (rc)
        return rc;
    if (c->opt.lbr) {
        uint8_t info[sizeof(struct sep_lbr_info) + sizeof c->lbr.regs];
        size_t len = collect_lbr_payload(&c->lbr, info, sizeof info);
        if ((rc = collect_request(c, SEP_OP_LBR_INFO, info, len, NULL, 0, d)))
            return rc;
    }

    struct sep_event_config ev;
    collect_layout_event_config(&c->layout, &ev);
    if (groups > 1 && !c->opt.count) {
        ev.num_groups = groups;
        ev.em_mode = SEP_EM_TIMER_BASED;
        ev.em_factor = (int32_t)c->opt.mux_ms;
    }
    if (c->opt.count)
        ev.num_groups = groups; /* turns on READ_SWITCH_GROUP: em_mode stays disabled */
    if ((rc = collect_request(c, SEP_OP_EM_GROUPS, &ev, sizeof ev, NULL, 0, d)))
        return rc;
    for (uint32_t g = 0; !rc && g < groups; g++)
        rc = send_group(c, g, d);
    return rc ? rc : request_u32(c, SEP_OP_SET_DEVICE_NUM_UNITS, 1, d);
}

/* --uncore: the names for the target's CPU, then the uncore device. A target whose status
 * says it has no uncore is asked all the same, so that its refusal (and its reason, on
 * its console) is what the user sees. */
int collect_configure_uncore(struct collection *c, struct diag *d)
{
    if (!c->opt.uncore.num_events)
        return 0;
    const struct sep_target_status *st = &c->link.status;
    if (st->collect_switch.bits & SEP_SWITCH_UNCORE_SUPPORTED) {
        int rc = collect_uncore_resolve(&c->opt.uncore, st->hardware_info.family,
                                        st->hardware_info.model, d);
        if (rc)
            return rc;
    }
    return collect_uncore_configure(&c->opt.uncore, &c->link, d);
}

int collect_read_tasks(struct collection *c, struct diag *d)
{
    uint32_t n;
    int rc = query_u32(c, SEP_OP_GET_THREAD_COUNT, &n, d);
    if (rc || n == 0)
        return rc;
    if (n > MAX_TASKS)
        return diag_fail(d, COLLECT_DIAG_TARGET, "GET_THREAD_COUNT: %" PRIu32 " tasks", n);
    struct sep_task_info *info = calloc(n, sizeof *info);
    c->tasks = calloc(n, sizeof *c->tasks);
    size_t got = 0;
    if (!info || !c->tasks)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    else
        rc = link_request(&c->link, SEP_OP_GET_THREAD_INFO, NULL, 0, info, n * sizeof *info, 0,
                          &got, d);
    for (size_t i = 0; !rc && i < got / sizeof *info; i++) {
        static const struct sep_task_info none;
        /* The target pads its reply with empty entries when tasks ended in between. */
        if (memcmp(&info[i], &none, sizeof none) == 0)
            continue;
        struct session_task *t = &c->tasks[c->num_tasks];
        t->pid = (uint32_t)info[i].address_space_id;
        t->tid = (uint32_t)info[i].id;
        t->name = strndup(info[i].name, sizeof info[i].name);
        if (!t->name)
            rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        else
            c->num_tasks++;
    }
    free(info);
    return rc;
}

int collect_init_pmu(struct collection *c, struct diag *d)
{
    uint32_t per_cpu = c->opt.count ? (uint32_t)c->opt.num_events : INIT_PMU_COUNTERS_PER_CPU;
    uint32_t bytes = c->num_cpus * per_cpu * (uint32_t)sizeof(uint64_t);
    return request_u32(c, SEP_OP_INIT_PMU, bytes, d);
}
