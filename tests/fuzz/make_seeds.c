/* Writes the generated seed inputs of the fuzz corpora (tests/fuzz/make-seeds runs it):
 *   ecb/    ECBs as acart collect builds them, for one to three built-in events;
 *   collect/ a whole control conversation of a well-behaved two-CPU target (handshake
 *           answer and every reply, in the order acart collect asks), the same with a
 *           failing reply, and data channel streams of sample and module records;
 *   control/ what acart collect sends a three-CPU board, request by request, in the
 *           delivery modes fuzz_control knows (at once, in pieces, with data connections),
 *           also with --pt in full and snapshot mode.
 * Usage: make_seeds CORPUS_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "collect_ecb.h"
#include "collect_layout.h"

static const char *top;

static FILE *out_file(const char *sub, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", top, sub, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

static void put(FILE *f, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, f) != n)
        exit(1);
}

static void reply(FILE *f, uint32_t op, const void *payload, size_t n)
{
    struct sep_ctrl_header h = sep_ctrl_response(op, SEP_STATUS_SUCCESS, n);
    put(f, &h, sizeof h);
    put(f, payload, n);
}

static void reply_zero(FILE *f, uint32_t op, size_t n)
{
    static uint8_t zeros[16384];
    reply(f, op, zeros, n);
}

static void ecb_seeds(void)
{
    static uint8_t ecb[COLLECT_ECB_SIZE];
    struct collect_event ev[3];
    for (size_t n = 1; n <= 3; n++) {
        ev[n - 1].def = collect_event_at(n - 1);
        ev[n - 1].sample_after = 1000003 * n;
        int len = collect_ecb_build(ev, n, ecb, sizeof ecb);
        if (len < 0)
            exit(1);
        char name[32];
        snprintf(name, sizeof name, "built-%zu-events", n);
        FILE *f = out_file("ecb", name);
        put(f, ecb, (size_t)len);
        fclose(f);
    }
}

/* fail_at: the op whose reply is a failure status, or 0 for none (SEP_STATUS_PMU_IN_USE;
 * for GET_DROP_REASONS, DRIVER_COMM_FAILED, as a target without it answers, and the
 * conversation goes on). */
static void conversation(const char *name, uint32_t fail_at)
{
    const uint32_t cpus = 2;
    FILE *f = out_file("collect", name);
    put(f, "\0", 1); /* control conversation */
    struct sep_target_status st;
    memset(&st, 0, sizeof st);
    st.msg_size = sizeof st;
    st.proto_version = SEP_PROTOCOL_VERSION;
    st.os_info_offset = offsetof(struct sep_target_status, os_info);
    st.os_info_size = sizeof st.os_info;
    st.collect_switch_offset = offsetof(struct sep_target_status, collect_switch);
    st.collect_switch_size = sizeof st.collect_switch;
    st.hardware_info_offset = offsetof(struct sep_target_status, hardware_info);
    st.hardware_info_size = sizeof st.hardware_info;
    st.hardware_info.num_cpus = cpus;
    st.hardware_info.tsc_freq = 2000000000;
    st.hardware_info.family = 6; /* Skylake: its events resolve (fuzz_collect resolves them) */
    st.hardware_info.model = 0x5e;
    put(f, &st, sizeof st);

    uint32_t zero = 0, n_cpus = cpus, n_tasks = 2;
    uint64_t tsc = 123456789, samples = 42;
    struct sep_task_info tasks[2];
    memset(tasks, 0, sizeof tasks);
    tasks[0].id = 1, tasks[0].address_space_id = 1;
    strcpy(tasks[0].name, "idle");
    tasks[1].id = 7, tasks[1].address_space_id = 3;
    strcpy(tasks[1].name, "net worker");
    struct sep_sample_drop_info drops;
    memset(&drops, 0, sizeof drops);
    drops.size = 1;
    int64_t skew[2] = {0, -5};
    struct acart_drop_reasons reasons;
    memset(&reasons, 0, sizeof reasons);
    reasons.size = cpus;
    /* Every channel finished, nothing queued: what the empty data channels carried. */
    struct acart_channel_totals totals;
    memset(&totals, 0, sizeof totals);
    totals.size = cpus + SEP_NONCORE_DATA_CONNECTIONS;
    for (uint32_t i = 0; i < totals.size; i++) {
        totals.channel[i].data_type = i < cpus    ? SEP_DATA_CPU
                                      : i == cpus ? SEP_DATA_UNCORE
                                                  : SEP_DATA_MODULE;
        totals.channel[i].data_id = (uint16_t)(i < cpus ? i : 0);
        totals.channel[i].flags = ACART_CHANNEL_FINISHED;
    }
    /* CPU 0 switched twice (one page), CPU 1 never. */
    struct acart_task_switches switches[2];
    memset(switches, 0, sizeof switches);
    switches[0].kept = switches[0].count = 2;
    switches[0].entry[0] = (struct acart_task_switch){1000, 1, 1};
    switches[0].entry[1] = (struct acart_task_switch){2000, 3, 7};
    switches[1].cpu = 1;
    struct {
        uint32_t op;
        const void *p;
        size_t n;
    } steps[] = {
        {SEP_OP_SET_OSID, NULL, 0},
        {SEP_OP_VERSION, NULL, sizeof(struct sep_drv_version)},
        {SEP_OP_GET_DRV_SETUP_INFO, NULL, sizeof(struct sep_drv_setup_info)},
        {SEP_OP_COLLECT_SYS_CONFIG, &zero, 4},
        {SEP_OP_GET_PLATFORM_INFO, NULL, sizeof(struct sep_platform_info)},
        {SEP_OP_NUM_CORES, &n_cpus, 4},
        {SEP_OP_GET_NORMALIZED_TSC, &tsc, 8},
        {SEP_OP_RESERVE, &zero, 4},
        {SEP_OP_INIT_DRIVER, NULL, 0},
        {SEP_OP_SET_CPU_TOPOLOGY, NULL, 0},
        {SEP_OP_NUM_DESCRIPTOR, NULL, 0},
        {SEP_OP_DESC_NEXT, NULL, 0},
        {SEP_OP_INIT, NULL, 0},
        {SEP_OP_EM_GROUPS, NULL, 0},
        {SEP_OP_EM_CONFIG_NEXT, NULL, sizeof(struct sep_ioctl_status)},
        {SEP_OP_SET_DEVICE_NUM_UNITS, NULL, 0},
        {SEP_OP_GET_THREAD_COUNT, &n_tasks, 4},
        {SEP_OP_GET_THREAD_INFO, tasks, sizeof tasks},
        {SEP_OP_INIT_PMU, NULL, 0},
        {SEP_OP_START, NULL, 0},
        {SEP_OP_STOP, NULL, 0},
        {SEP_OP_GET_NUM_SAMPLES, &samples, 8},
        {SEP_OP_GET_SAMPLE_DROP_INFO, &drops, sizeof drops},
        {ACART_OP_GET_DROP_REASONS, &reasons,
         offsetof(struct acart_drop_reasons, cpu) + cpus * sizeof reasons.cpu[0]},
        {ACART_OP_GET_PMI_BUDGET, NULL, 0}, /* answered as a target without it does */
        {ACART_OP_GET_CHANNEL_TOTALS, &totals,
         offsetof(struct acart_channel_totals, channel) + totals.size * sizeof totals.channel[0]},
        {ACART_OP_GET_TASK_SWITCHES, &switches[0],
         offsetof(struct acart_task_switches, entry) + 2 * sizeof switches[0].entry[0]},
        {ACART_OP_GET_TASK_SWITCHES, &switches[1], offsetof(struct acart_task_switches, entry)},
        {SEP_OP_GET_INTERVAL_COUNTS, NULL, cpus * sizeof(uint64_t)}, /* one event, no PMIs */
        {SEP_OP_TSC_SKEW_INFO, skew, sizeof skew},
        {SEP_OP_TERMINATE, NULL, 0},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (steps[i].op == ACART_OP_GET_PMI_BUDGET ||
            (steps[i].op == fail_at && fail_at == ACART_OP_GET_DROP_REASONS)) {
            struct sep_ctrl_header h =
                sep_ctrl_response(steps[i].op, SEP_STATUS_DRIVER_COMM_FAILED, 0);
            put(f, &h, sizeof h);
            continue;
        }
        if (steps[i].op == SEP_OP_GET_INTERVAL_COUNTS && fail_at == ACART_OP_GET_DROP_REASONS)
            continue; /* without the reasons there is nothing to check the counts against */
        if (steps[i].op == fail_at) {
            struct sep_ctrl_header h = sep_ctrl_response(fail_at, SEP_STATUS_PMU_IN_USE, 0);
            put(f, &h, sizeof h);
            break;
        }
        if (steps[i].p)
            reply(f, steps[i].op, steps[i].p, steps[i].n);
        else
            reply_zero(f, steps[i].op, steps[i].n);
    }
    fclose(f);
}

static void data_seeds(void)
{
    struct collect_layout l;
    for (uint32_t depth = 0; depth <= 8; depth += 8) {
        if (collect_layout_init(&l, depth))
            exit(1);
        char name[32];
        snprintf(name, sizeof name, "data-cpu1-depth%u", depth);
        FILE *f = out_file("collect", name);
        uint8_t head[3] = {1, depth ? 2 : 0, 1 + 64}; /* data, flags, cpu 1 / 2 events */
        put(f, head, sizeof head);
        uint8_t rec[48 + 8 * 8];
        for (int i = 0; i < 3; i++) {
            memset(rec, 0, sizeof rec);
            struct sep_sample_pc s;
            memset(&s, 0, sizeof s);
            s.cpu_and_os = 1;
            s.iip = 0x400000u + 16u * (unsigned)i;
            s.tid = 7;
            s.tsc = 1000u + (unsigned)i;
            memcpy(rec, &s, sizeof s);
            put(f, rec, l.sample_size);
        }
        fclose(f);
    }
}

static void request(FILE *f, uint32_t op, const void *payload, uint32_t in, uint32_t want)
{
    struct sep_ctrl_header h;
    memset(&h, 0, sizeof h);
    h.header_size = sizeof h;
    h.proto_version = SEP_PROTOCOL_VERSION;
    h.command_id = op;
    h.to_target_data_size = in;
    h.from_target_data_size = want;
    put(f, &h, sizeof h);
    put(f, payload, in);
}

/* Intel PT's negotiated commands, before INIT_PMU as acart collect --pt sends them: a
 * module filter the fuzz harness's port lists, TSC and MTC. */
static void pt_requests(FILE *f, uint32_t mode)
{
    struct acart_pt_config pt;
    memset(&pt, 0, sizeof pt);
    pt.version = 1;
    pt.mode = mode;
    pt.flags = ACART_PT_OS | ACART_PT_USER | ACART_PT_TSC | ACART_PT_MTC;
    pt.mtc_freq = 3;
    pt.num_filters = 1;
    pt.filters[0].cfg = ACART_PT_RANGE_FILTER;
    strcpy(pt.filters[0].module, "fuzz-image.elf");
    request(f, ACART_OP_EXTENSIONS, NULL, 0, sizeof(struct acart_extensions));
    request(f, ACART_OP_PT_INFO, NULL, 0, sizeof(struct acart_pt_info));
    request(f, ACART_OP_PT_CONFIG, &pt, sizeof pt, sizeof(struct acart_pt_config_reply));
    request(f, ACART_OP_PT_STATUS, NULL, 0, sizeof(struct acart_pt_status));
}

/* pt: -1 without Intel PT, else the ACART_PT_MODE_* to ask for. */
static void control_session(const char *name, uint8_t mode, uint8_t piece, int with_stacks, int pt)
{
    const uint32_t cpus = 3;
    FILE *f = out_file("control", name);
    uint8_t head[2] = {mode, piece};
    put(f, head, 2);
    struct collect_layout l;
    if (collect_layout_init(&l, with_stacks ? 8 : 0))
        exit(1);
    uint32_t zero = 0, one = 1, pmu_bytes = cpus * 7 * 8;
    request(f, SEP_OP_SET_OSID, &zero, 4, 0);
    request(f, SEP_OP_VERSION, NULL, 0, sizeof(struct sep_drv_version));
    request(f, SEP_OP_GET_DRV_SETUP_INFO, NULL, 0, sizeof(struct sep_drv_setup_info));
    request(f, SEP_OP_COLLECT_SYS_CONFIG, NULL, 0, 4);
    request(f, SEP_OP_GET_PLATFORM_INFO, NULL, 0, sizeof(struct sep_platform_info));
    request(f, SEP_OP_NUM_CORES, NULL, 0, 4);
    request(f, SEP_OP_GET_NORMALIZED_TSC, NULL, 0, 8);
    request(f, SEP_OP_RESERVE, NULL, 0, 4);
    struct sep_drv_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.version = 1;
    cfg.num_events = 1;
    cfg.p_state_trigger_index = -1;
    request(f, SEP_OP_INIT_DRIVER, &cfg, sizeof cfg, 0);
    if (pt >= 0)
        pt_requests(f, (uint32_t)pt);
    static struct sep_cpu_topology topo[3];
    request(f, SEP_OP_SET_CPU_TOPOLOGY, topo, sizeof topo, 0);
    request(f, SEP_OP_NUM_DESCRIPTOR, &one, 4, 0);
    struct sep_event_desc desc;
    collect_layout_descriptor(&l, &desc);
    request(f, SEP_OP_DESC_NEXT, &desc, sizeof desc, 0);
    static struct sep_dev_config dev;
    collect_layout_device(&l, 1, &dev);
    request(f, SEP_OP_INIT, &dev, sizeof dev, 0);
    struct sep_event_config ev;
    collect_layout_event_config(&l, &ev);
    request(f, SEP_OP_EM_GROUPS, &ev, sizeof ev, 0);
    static uint8_t ecb[COLLECT_ECB_SIZE];
    struct collect_event e = {collect_event_default(), 2000003};
    int len = collect_ecb_build(&e, 1, ecb, sizeof ecb);
    if (len < 0)
        exit(1);
    request(f, SEP_OP_EM_CONFIG_NEXT, ecb, (uint32_t)len, sizeof(struct sep_ioctl_status));
    request(f, SEP_OP_SET_DEVICE_NUM_UNITS, &one, 4, 0);
    request(f, SEP_OP_GET_THREAD_COUNT, NULL, 0, 4);
    request(f, SEP_OP_GET_THREAD_INFO, NULL, 0, 4 * sizeof(struct sep_task_info));
    request(f, SEP_OP_INIT_PMU, &pmu_bytes, 4, 0);
    request(f, SEP_OP_START, NULL, 0, 0);
    if (pt >= 0)
        request(f, ACART_OP_PT_FREEZE, NULL, 0, 0);
    request(f, SEP_OP_STOP, NULL, 0, 0);
    request(f, SEP_OP_GET_NUM_SAMPLES, NULL, 0, 8);
    request(f, SEP_OP_GET_SAMPLE_DROP_INFO, NULL, 0, sizeof(struct sep_sample_drop_info));
    request(f, ACART_OP_GET_DROP_REASONS, NULL, 0, sizeof(struct acart_drop_reasons));
    request(f, ACART_OP_GET_CHANNEL_TOTALS, NULL, 0, sizeof(struct acart_channel_totals));
    struct acart_task_switch_read sw = {0, 0};
    request(f, ACART_OP_GET_TASK_SWITCHES, &sw, sizeof sw, sizeof(struct acart_task_switches));
    request(f, SEP_OP_TSC_SKEW_INFO, NULL, 0, cpus * 8);
    request(f, SEP_OP_TERMINATE, NULL, 0, 0);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
        return 2;
    }
    top = argv[1];
    ecb_seeds();
    conversation("conversation", 0);
    conversation("conversation-busy", SEP_OP_RESERVE);
    conversation("conversation-em-config-refused", SEP_OP_EM_CONFIG_NEXT);
    conversation("conversation-no-drop-reasons", ACART_OP_GET_DROP_REASONS);
    data_seeds();
    control_session("session-at-once", 0, 0, 0, -1);
    control_session("session-with-data-connections", 4, 0, 1, -1);
    control_session("session-in-pieces-small-window", 1 | 2 | 4, 47, 0, -1);
    control_session("session-pt-full", 4, 0, 0, ACART_PT_MODE_FULL);
    control_session("session-pt-snapshot", 1 | 2 | 4, 61, 0, ACART_PT_MODE_SNAPSHOT);
    control_session("session-shared-memory", 2 | 4 | 32, 11, 1, -1);
    return 0;
}
