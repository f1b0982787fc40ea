/* The command table: every DRV_OPERATION acart implements, with the request payload
 * sizes it accepts. Anything else is answered with SEP_STATUS_DRIVER_COMM_FAILED (159),
 * the reference's answer for what it does not handle (docs/sep-protocol.md 4.2). */
#include "commands.h"
#include "acart_opts.h"
#include "acart_wire.h"
#include "ecb.h"
#include "sampler.h"

#include <string.h>

#define TOPOLOGY_MAX (64u * sizeof(struct sep_cpu_topology))

static const struct cmd_entry table[] = {
    {SEP_OP_VERSION, "VERSION", cmd_version, 0, 0},
    {SEP_OP_GET_DRV_SETUP_INFO, "GET_DRV_SETUP_INFO", cmd_get_drv_setup_info, 0, 0},
    {SEP_OP_NUM_CORES, "NUM_CORES", cmd_num_cores, 0, 0},
    {SEP_OP_GET_NORMALIZED_TSC, "GET_NORMALIZED_TSC", cmd_get_normalized_tsc, 0, 8},
    {SEP_OP_GET_NORMALIZED_TSC_STANDALONE, "GET_NORMALIZED_TSC_STANDALONE", cmd_get_normalized_tsc,
     0, 8},
    {SEP_OP_GET_PLATFORM_INFO, "GET_PLATFORM_INFO", cmd_get_platform_info, 0, 0},
    {SEP_OP_COLLECT_SYS_CONFIG, "COLLECT_SYS_CONFIG", cmd_collect_sys_config, 0, 0},
    {SEP_OP_GET_SYS_CONFIG, "GET_SYS_CONFIG", cmd_get_sys_config, 0, 0},
    {SEP_OP_GET_THREAD_COUNT, "GET_THREAD_COUNT", cmd_get_thread_count, 0, 0},
    {SEP_OP_GET_THREAD_INFO, "GET_THREAD_INFO", cmd_get_thread_info, 0, 0},
    {SEP_OP_TSC_SKEW_INFO, "TSC_SKEW_INFO", cmd_tsc_skew_info, 0, 0},
    {SEP_OP_SET_OSID, "SET_OSID", cmd_accept_and_ignore, 0, 4},
    {SEP_OP_CONTROL_DRIVER_LOG, "CONTROL_DRIVER_LOG", cmd_accept_and_ignore,
     sizeof(struct sep_driver_log_control), sizeof(struct sep_driver_log_control)},
    {SEP_OP_INIT_NUM_DEV, "INIT_NUM_DEV", cmd_init_num_dev, 4, 4},
    {SEP_OP_SET_DEVICE_NUM_UNITS, "SET_DEVICE_NUM_UNITS", cmd_accept_and_ignore, 4, 4},
    {SEP_OP_READ_MSR, "READ_MSR", cmd_read_msr, 4, 4},
    {SEP_OP_WRITE_MSR, "WRITE_MSR", cmd_write_msr, sizeof(struct sep_event_reg),
     sizeof(struct sep_event_reg)},
    {SEP_OP_RESERVE, "RESERVE", cmd_reserve, 0, 0},
    {SEP_OP_INIT_DRIVER, "INIT_DRIVER", cmd_init_driver, sizeof(struct sep_drv_config),
     sizeof(struct sep_drv_config) + 64},
    {SEP_OP_SET_CPU_TOPOLOGY, "SET_CPU_TOPOLOGY", cmd_set_cpu_topology,
     sizeof(struct sep_cpu_topology), TOPOLOGY_MAX},
    {SEP_OP_NUM_DESCRIPTOR, "NUM_DESCRIPTOR", cmd_num_descriptor, 4, 4},
    {SEP_OP_DESC_NEXT, "DESC_NEXT", cmd_desc_next, sizeof(struct sep_event_desc),
     sizeof(struct sep_event_desc)},
    {SEP_OP_INIT, "INIT", cmd_init, sizeof(struct sep_dev_config), sizeof(struct sep_dev_config)},
    {SEP_OP_EM_GROUPS, "EM_GROUPS", cmd_em_groups, sizeof(struct sep_event_config),
     sizeof(struct sep_event_config)},
    {SEP_OP_EM_CONFIG_NEXT, "EM_CONFIG_NEXT", cmd_em_config_next, sizeof(struct sep_ecb_header),
     sizeof(struct sep_ecb_header) + ECB_MAX_ENTRIES * sizeof(struct sep_event_reg)},
    {SEP_OP_INIT_UNC, "INIT_UNC", cmd_init_unc, sizeof(struct sep_dev_unc_config),
     sizeof(struct sep_dev_unc_config)},
    {SEP_OP_EM_GROUPS_UNC, "EM_GROUPS_UNC", cmd_em_groups_unc, sizeof(struct sep_event_config),
     sizeof(struct sep_event_config)},
    {SEP_OP_EM_CONFIG_NEXT_UNC, "EM_CONFIG_NEXT_UNC", cmd_em_config_next_unc,
     sizeof(struct sep_ecb_header),
     sizeof(struct sep_ecb_header) + ECB_MAX_ENTRIES * sizeof(struct sep_event_reg)},
    {SEP_OP_INIT_PMU, "INIT_PMU", cmd_init_pmu, 0, 4},
    {SEP_OP_LBR_INFO, "LBR_INFO", cmd_lbr_info, sizeof(struct sep_lbr_info),
     sizeof(struct sep_lbr_info) + SAMPLER_MAX_LBR_REGS * sizeof(struct sep_lbr_entry)},
    {SEP_OP_START, "START", cmd_start, 0, 0},
    {SEP_OP_STOP, "STOP", cmd_stop, 0, 0},
    {SEP_OP_PAUSE, "PAUSE", cmd_pause, 0, 0},
    {SEP_OP_RESUME, "RESUME", cmd_resume, 0, 0},
    {SEP_OP_GET_NUM_SAMPLES, "GET_NUM_SAMPLES", cmd_get_num_samples, 0, 0},
    {SEP_OP_GET_SAMPLE_DROP_INFO, "GET_SAMPLE_DROP_INFO", cmd_get_sample_drop_info, 0, 0},
    {ACART_OP_GET_DROP_REASONS, "GET_DROP_REASONS", cmd_get_drop_reasons, 0, 0},
    {SEP_OP_TERMINATE, "TERMINATE", cmd_terminate, 0, 0},
    {SEP_OP_SWITCH_GROUP, "SWITCH_GROUP", cmd_switch_group, 0, 0},
    {ACART_OP_GET_GROUP_TIMES, "GET_GROUP_TIMES", cmd_get_group_times, 0, 0},
    {ACART_OP_GET_PMI_BUDGET, "GET_PMI_BUDGET", cmd_get_pmi_budget, 0, 0},
    {ACART_OP_GET_CHANNEL_TOTALS, "GET_CHANNEL_TOTALS", cmd_get_channel_totals, 0, 0},
#if ACA_TASK_SWITCHES_PER_CPU
    {ACART_OP_GET_TASK_SWITCHES, "GET_TASK_SWITCHES", cmd_get_task_switches,
     sizeof(struct acart_task_switch_read), sizeof(struct acart_task_switch_read)},
#endif
    {SEP_OP_READ_AND_RESET, "READ_AND_RESET", cmd_read_and_reset, 0, 0},
    {SEP_OP_READ_SWITCH_GROUP, "READ_SWITCH_GROUP", cmd_read_switch_group, 0, 0},
    {SEP_OP_GET_INTERVAL_COUNTS, "GET_INTERVAL_COUNTS", cmd_get_interval_counts, 0, 0},
    {ACART_OP_EXTENSIONS, "EXTENSIONS", cmd_extensions, 0, 0},
/* A part built out (acart_opts.h) has no commands: they are answered as unknown, as the
 * EXTENSIONS reply that does not offer them says they will be. */
#if ACA_WITH_IPROBE
    {ACART_OP_LIST_FILES, "LIST_FILES", cmd_list_files, 0, 0},
    {ACART_OP_READ_FILE, "READ_FILE", cmd_read_file, sizeof(struct acart_file_read),
     sizeof(struct acart_file_read)},
#endif
#if ACA_WITH_PT
    {ACART_OP_PT_INFO, "PT_INFO", cmd_pt_info, 0, 0},
    {ACART_OP_PT_CONFIG, "PT_CONFIG", cmd_pt_config, sizeof(struct acart_pt_config),
     sizeof(struct acart_pt_config)},
    {ACART_OP_PT_FREEZE, "PT_FREEZE", cmd_pt_freeze, 0, 0},
    {ACART_OP_PT_STATUS, "PT_STATUS", cmd_pt_status, 0, 0},
#endif
    {SEP_OP_GET_DRIVER_STATE, "GET_DRIVER_STATE", cmd_get_driver_state, 0, 0},
    {SEP_OP_KERNEL_CS, "KERNEL_CS", cmd_kernel_cs, 0, 0},
    {SEP_OP_GET_NUM_CORE_CTRS, "GET_NUM_CORE_CTRS", cmd_get_num_core_ctrs, 0, 0},
    {SEP_OP_GET_PERF_CAPAB, "GET_PERF_CAPAB", cmd_get_perf_capab, 0, 0},
    {SEP_OP_SET_CPU_MASK, "SET_CPU_MASK", cmd_set_cpu_mask, 1, 4096},
    {SEP_OP_SET_UID, "SET_UID", cmd_accept_and_ignore, 4, 4},
};

/* The control channel keeps CMD_MAX_REQUEST bytes of a request (control.c): every in_max
 * above must fit. The ECBs are the largest; the others that take more than a few bytes: */
_Static_assert(TOPOLOGY_MAX <= CMD_MAX_REQUEST, "SET_CPU_TOPOLOGY fits the request buffer");
_Static_assert(sizeof(struct sep_dev_config) <= CMD_MAX_REQUEST, "INIT fits");
_Static_assert(sizeof(struct sep_dev_unc_config) <= CMD_MAX_REQUEST, "INIT_UNC fits");
_Static_assert(sizeof(struct sep_drv_config) + 64 <= CMD_MAX_REQUEST, "INIT_DRIVER fits");
_Static_assert(4096 <= CMD_MAX_REQUEST, "SET_CPU_MASK fits");
_Static_assert(sizeof(struct sep_lbr_info) + SAMPLER_MAX_LBR_REGS * sizeof(struct sep_lbr_entry) <=
                   CMD_MAX_REQUEST,
               "LBR_INFO fits");

const struct cmd_entry *cmd_lookup(uint32_t command_id)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].command_id == command_id)
            return &table[i];
    return 0;
}

int32_t cmd_reply(struct cmd_request *req, const void *value, uint32_t len)
{
    if (len > req->out_cap)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    memcpy(req->out, value, len);
    req->out_len = len;
    return SEP_STATUS_SUCCESS;
}

void *cmd_reply_space(struct cmd_request *req, uint32_t len)
{
    if (len > req->out_cap)
        return 0;
    req->out_len = len;
    return req->out; /* zeroed by the dispatcher, 8-byte aligned (control.c) */
}

int32_t cmd_accept_and_ignore(struct cmd_request *req)
{
    (void)req;
    return SEP_STATUS_SUCCESS;
}
