/* For the host tools, the tests and the runtime (not installed): SEP control messages: the header
 * of every request and response, and the payloads of the collection set-up commands. Part of
 * acart_wire.h (the whole format, see there). */
#ifndef ACART_WIRE_SEP_CONTROL_H
#define ACART_WIRE_SEP_CONTROL_H

#include "sep_base.h"

/* ---------------------------------------------------------------------------------------- */
/* Control messages                                                                         */
/* ---------------------------------------------------------------------------------------- */

/* Header of every request (host -> target) and every response (target -> host). A request
 * is followed by exactly to_target_data_size payload bytes; a successful response by
 * from_target_data_size bytes, a failed one by nothing. */
struct sep_ctrl_header {
    uint32_t header_size;            /* sizeof(struct sep_ctrl_header) (48) */
    uint32_t proto_version;          /* SEP_PROTOCOL_VERSION */
    uint32_t command_id;             /* SEP_OP_*; a response repeats the request's */
    int32_t status;                  /* response: SEP_STATUS_*; request: 0 */
    sep_u64_t to_target_data_size;   /* request payload bytes that follow the request */
    sep_u64_t from_target_data_size; /* request: bytes the host wants back;
                                        response: bytes that follow (0 on failure) */
    sep_u64_t reserved1;
    sep_u64_t reserved2;
};
SEP_WIRE_ASSERT_SIZE(struct sep_ctrl_header, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_ctrl_header, command_id, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_ctrl_header, status, 12);
SEP_WIRE_ASSERT_OFFSET(struct sep_ctrl_header, to_target_data_size, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_ctrl_header, from_target_data_size, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_ctrl_header, reserved2, 40);

/* Builds the response header for a request: same command, our version, and a payload size
 * only when the status is success (the host reads no payload after a failure). */
static inline struct sep_ctrl_header sep_ctrl_response(uint32_t command_id, int32_t status,
                                                       uint64_t payload_size)
{
    struct sep_ctrl_header h = {0};
    h.header_size = (uint32_t)sizeof(struct sep_ctrl_header);
    h.proto_version = SEP_PROTOCOL_VERSION;
    h.command_id = command_id;
    h.status = status;
    h.from_target_data_size = status == SEP_STATUS_SUCCESS ? payload_size : 0;
    return h;
}

/* ---------------------------------------------------------------------------------------- */
/* Payloads of the collection set-up commands                                               */
/* ---------------------------------------------------------------------------------------- */

/* VERSION reply: the driver version, one byte each. */
struct sep_drv_version {
    uint8_t major;
    uint8_t minor;
    uint8_t api;
    uint8_t update;
};
SEP_WIRE_ASSERT_SIZE(struct sep_drv_version, 4);

/* GET_DRV_SETUP_INFO reply: how the target samples. */
struct sep_drv_setup_info {
    sep_u64_t modes; /* SEP_SETUP_* */
    sep_u64_t reserved2;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_drv_setup_info, 32);

#define SEP_SETUP_NMI_MODE                   (1ull << 0) /* PMIs are delivered as NMIs */
#define SEP_SETUP_VMM_MODE                   (1ull << 1)
#define SEP_SETUP_VMM_VENDOR_SHIFT           2 /* 8 bits */
#define SEP_SETUP_VMM_GUEST_VM               (1ull << 10)
#define SEP_SETUP_PEBS_ACCESSIBLE            (1ull << 11)
#define SEP_SETUP_CPU_HOTPLUG_MODE           (1ull << 12)
#define SEP_SETUP_MATRIX_INACCESSIBLE        (1ull << 13)
#define SEP_SETUP_PAGE_TABLE_ISOLATION_SHIFT 14 /* 2 bits */
#define SEP_SETUP_PEBS_IGNORED_BY_PTI        (1ull << 16)
#define SEP_SETUP_CORE_EVENT_MUX_UNAVAIL     (1ull << 17)
#define SEP_SETUP_PROFILING_VERSION_UNSUPP   (1ull << 18)
#define SEP_SETUP_TRACEPOINTS_AVAILABLE      (1ull << 19)
#define SEP_SETUP_REGISTER_ALLOWLIST         (1ull << 20)
#define SEP_SETUP_DRV_TYPE_SHIFT             21 /* 3 bits */

/* One DIMM of sep_platform_info; acart sends these zeroed. */
struct sep_dimm_info {
    uint32_t platform_id;
    uint32_t channel_num;
    uint32_t rank_num;
    uint32_t value;
    uint8_t mc_num;
    uint8_t dimm_valid;
    uint8_t valid_value;
    uint8_t rank_value;
    uint8_t density_value;
    uint8_t width_value;
    uint16_t socket_num;
    sep_u64_t reserved1;
    sep_u64_t reserved2;
};
SEP_WIRE_ASSERT_SIZE(struct sep_dimm_info, 40);

#define SEP_MAX_PACKAGES 16
#define SEP_MAX_CHANNELS 8
#define SEP_MAX_RANKS    3
#define SEP_NUM_DIMMS    (SEP_MAX_PACKAGES * SEP_MAX_CHANNELS * SEP_MAX_RANKS)

/* GET_PLATFORM_INFO reply. */
struct sep_platform_info {
    sep_u64_t info;           /* MSR_PLATFORM_INFO (0xCE) contents; the host derives the
                                 bus ratio from bits 15:8 */
    sep_u64_t ddr_freq_index; /* frequency table index; 0 when unknown */
    uint8_t misc_valid;       /* misc_info is meaningful */
    uint8_t reserved1;
    uint16_t reserved2;
    uint32_t vmm_timer_freq; /* Hz, SoFIA only; 0 */
    sep_u64_t misc_info;     /* IA32_MISC_ENABLE when misc_valid */
    sep_u64_t ufs_freq;      /* uncore frequency (HSX only); 0 */
    struct sep_dimm_info dimm_info[SEP_NUM_DIMMS];
    sep_u64_t energy_multiplier; /* RAPL energy unit; 0 when unknown */
    sep_u64_t reserved3;
    sep_u64_t reserved4;
    sep_u64_t reserved5;
    sep_u64_t reserved6;
};
SEP_WIRE_ASSERT_SIZE(struct sep_platform_info, 15440);
SEP_WIRE_ASSERT_OFFSET(struct sep_platform_info, misc_valid, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_platform_info, vmm_timer_freq, 20);
SEP_WIRE_ASSERT_OFFSET(struct sep_platform_info, misc_info, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_platform_info, dimm_info, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_platform_info, energy_multiplier, 15400);

#define SEP_LOG_CONTROL_DATA_SIZE 256

/* CONTROL_DRIVER_LOG request: adjust driver log verbosity (acart accepts and ignores it). */
struct sep_driver_log_control {
    uint32_t command; /* SEP_LOG_CONTROL_* */
    uint32_t reserved1;
    uint8_t data[SEP_LOG_CONTROL_DATA_SIZE]; /* per-category verbosity */
    sep_u64_t reserved2;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
    sep_u64_t reserved5;
};
SEP_WIRE_ASSERT_SIZE(struct sep_driver_log_control, 296);
SEP_WIRE_ASSERT_OFFSET(struct sep_driver_log_control, data, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_driver_log_control, reserved2, 264);

#define SEP_LOG_CONTROL_NONE             0
#define SEP_LOG_CONTROL_ADJUST_VERBOSITY 1
#define SEP_LOG_CONTROL_MARK             2
#define SEP_LOG_CONTROL_QUERY_SIZE       3
#define SEP_LOG_CONTROL_BENCHMARK        4

/* INIT_DRIVER request: the collection as a whole. */
struct sep_drv_config {
    uint32_t size; /* the host's idea of the size; NOT reliable (the suite sends 120) */
    uint16_t version;
    uint16_t reserved1;
    uint32_t num_events;
    uint32_t num_chipset_events;
    uint32_t chipset_offset;
    int32_t seed_name_len;
    sep_u64_t seed_name;         /* host pointer, meaningless on the target */
    sep_u64_t cpu_mask;          /* host pointer, meaningless on the target */
    sep_u64_t collection_config; /* SEP_DRV_CFG_* */
    sep_u64_t target_pid;
    uint32_t os_of_interest;
    uint16_t unc_timer_interval; /* ms */
    uint16_t unc_em_factor;
    int32_t p_state_trigger_index;
    uint32_t multi_pebs_enabled;
    int32_t emon_timer_interval;
    uint32_t unc_collect_in_intr_enabled;
    sep_u64_t reserved4;
    sep_u64_t reserved5;
    sep_u64_t reserved6;
};
SEP_WIRE_ASSERT_SIZE(struct sep_drv_config, 104);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, seed_name_len, 20);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, seed_name, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, cpu_mask, 32);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, collection_config, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, target_pid, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, os_of_interest, 56);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, p_state_trigger_index, 64);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, unc_collect_in_intr_enabled, 76);
SEP_WIRE_ASSERT_OFFSET(struct sep_drv_config, reserved4, 80);

#define SEP_DRV_CFG_START_PAUSED          (1ull << 0)
#define SEP_DRV_CFG_COUNTING_MODE         (1ull << 1) /* counting, no sampling */
#define SEP_DRV_CFG_ENABLE_CHIPSET        (1ull << 2)
#define SEP_DRV_CFG_ENABLE_GFX            (1ull << 3)
#define SEP_DRV_CFG_ENABLE_PWR            (1ull << 4)
#define SEP_DRV_CFG_EMON_MODE             (1ull << 5) /* counting (EMON); no sample threads */
#define SEP_DRV_CFG_DEBUG_INJECT          (1ull << 6)
#define SEP_DRV_CFG_VIRT_PHYS_TRANSLATION (1ull << 7)
#define SEP_DRV_CFG_ENABLE_P_STATE        (1ull << 8)
#define SEP_DRV_CFG_ENABLE_CP_MODE        (1ull << 9) /* continuous profiling */
#define SEP_DRV_CFG_READ_PSTATE_MSRS      (1ull << 10)
#define SEP_DRV_CFG_USE_PCL               (1ull << 11)
#define SEP_DRV_CFG_ENABLE_EBC            (1ull << 12)
#define SEP_DRV_CFG_ENABLE_TBC            (1ull << 13)
#define SEP_DRV_CFG_DS_AREA_AVAILABLE     (1ull << 14)
#define SEP_DRV_CFG_PER_CPU_TSC           (1ull << 15)
#define SEP_DRV_CFG_MIXED_EBC_AVAILABLE   (1ull << 16)
#define SEP_DRV_CFG_HETERO_SUPPORTED      (1ull << 17)

#define SEP_MAX_EMON_GROUPS 1000

/* INIT request: the core PMU device. */
struct sep_dev_config {
    uint16_t size; /* not reliable (the suite sends 0) */
    uint16_t version;
    uint32_t dispatch_id;     /* the host's PMU family id (the suite sends 2) */
    uint32_t pebs_mode;       /* 0: no PEBS */
    uint32_t pebs_record_num; /* PEBS records per buffer */
    uint32_t results_offset;  /* where this device's counts go in a sample */
    uint32_t max_gp_counters; /* general counters the host assumes */
    uint32_t device_type;
    uint32_t core_type;
    sep_u64_t enable_bit_fields; /* SEP_DEV_CFG_* */
    uint32_t emon_unc_offset[SEP_MAX_EMON_GROUPS];
    uint32_t ebc_group_id_offset;
    uint8_t num_perf_metrics;
    uint8_t apebs_num_lbr_entries;
    uint16_t emon_perf_metrics_offset;
    uint32_t device_scope;
    uint32_t num_events;
    uint16_t device_index;
    uint16_t reserved1;
    uint32_t reserved2;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_dev_config, 4080);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, results_offset, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, max_gp_counters, 20);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, enable_bit_fields, 32);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, emon_unc_offset, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, ebc_group_id_offset, 4040);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, device_scope, 4048);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, device_index, 4056);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_config, reserved3, 4064);

#define SEP_DEV_CFG_PEBS_CAPTURE               (1ull << 0)
#define SEP_DEV_CFG_COLLECT_LBRS               (1ull << 1)
#define SEP_DEV_CFG_COLLECT_CALLSTACKS         (1ull << 2)
#define SEP_DEV_CFG_COLLECT_KERNEL_CALLSTACKS  (1ull << 3)
#define SEP_DEV_CFG_LATENCY_CAPTURE            (1ull << 4)
#define SEP_DEV_CFG_POWER_CAPTURE              (1ull << 5)
#define SEP_DEV_CFG_HTOFF_MODE                 (1ull << 6)
#define SEP_DEV_CFG_EVENTING_IP_CAPTURE        (1ull << 7)
#define SEP_DEV_CFG_HLE_CAPTURE                (1ull << 8)
#define SEP_DEV_CFG_PRECISE_IP_LBRS            (1ull << 9)
#define SEP_DEV_CFG_STORE_LBRS                 (1ull << 10)
#define SEP_DEV_CFG_TSC_CAPTURE                (1ull << 11)
#define SEP_DEV_CFG_ENABLE_PERF_METRICS        (1ull << 12)
#define SEP_DEV_CFG_ENABLE_ADAPTIVE_PEBS       (1ull << 13)
#define SEP_DEV_CFG_APEBS_COLLECT_MEM_INFO     (1ull << 14)
#define SEP_DEV_CFG_APEBS_COLLECT_GPR          (1ull << 15)
#define SEP_DEV_CFG_APEBS_COLLECT_XMM          (1ull << 16)
#define SEP_DEV_CFG_APEBS_COLLECT_LBRS         (1ull << 17)
#define SEP_DEV_CFG_COLLECT_FIXED_COUNTER_PEBS (1ull << 18)
#define SEP_DEV_CFG_COLLECT_OS_CALLSTACKS      (1ull << 19)

/* INIT_UNC request: one uncore PMU device. */
struct sep_dev_unc_config {
    uint16_t size;
    uint16_t version;
    uint32_t dispatch_id;
    uint32_t results_offset;
    uint32_t device_type;
    uint32_t device_scope;
    uint32_t num_events;
    uint32_t emon_unc_offset[SEP_MAX_EMON_GROUPS];
    uint16_t device_index;
    uint16_t num_units;
    uint32_t device_with_intr_events;
    sep_u64_t reserved2;
    sep_u64_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_dev_unc_config, 4048);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_unc_config, emon_unc_offset, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_unc_config, device_index, 4024);
SEP_WIRE_ASSERT_OFFSET(struct sep_dev_unc_config, reserved2, 4032);

/* SET_CPU_TOPOLOGY request: an array of these, one per CPU (num_cpus * 72 bytes). */
struct sep_cpu_topology {
    uint32_t cpu_number;        /* OS CPU number */
    uint16_t cpu_package_num;   /* socket */
    uint16_t cpu_core_num;      /* core within the socket */
    uint16_t cpu_hw_thread_num; /* SMT thread within the core */
    uint16_t reserved1;
    int32_t socket_master; /* this CPU represents its socket */
    int32_t core_master;
    int32_t thr_master;
    uint32_t cpu_module_num;
    uint32_t cpu_module_master;
    uint32_t cpu_num_modules;
    uint32_t cpu_core_type;      /* hybrid core type; 0 */
    uint32_t arch_perfmon_ver;   /* CPUID.0AH:EAX[7:0] */
    uint32_t num_gp_counters;    /* CPUID.0AH:EAX[15:8] */
    uint32_t num_fixed_counters; /* CPUID.0AH:EDX[4:0] */
    uint32_t reserved2;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_cpu_topology, 72);
SEP_WIRE_ASSERT_OFFSET(struct sep_cpu_topology, socket_master, 12);
SEP_WIRE_ASSERT_OFFSET(struct sep_cpu_topology, cpu_module_num, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_cpu_topology, arch_perfmon_ver, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_cpu_topology, num_fixed_counters, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_cpu_topology, reserved3, 56);

/* Multiplexing modes (sep_event_config.em_mode). */
#define SEP_EM_DISABLED      (-1)
#define SEP_EM_TIMER_BASED   0
#define SEP_EM_EVENT_BASED   1
#define SEP_EM_TRIGGER_BASED 2

/* EM_GROUPS (and EM_GROUPS_UNC) request: how many event groups follow and how a sample is
 * laid out. Offsets are from the start of a sample record; 0 means "not collected". */
struct sep_event_config {
    uint32_t num_groups;  /* core event groups; one EM_CONFIG_NEXT follows per group */
    int32_t em_mode;      /* SEP_EM_* */
    int32_t em_factor;    /* multiplexing period factor; -1 when disabled */
    int32_t em_event_num; /* -1 when disabled */
    uint32_t sample_size; /* bytes of one core sample record */
    uint32_t max_gp_events;
    uint32_t max_fixed_counters;
    uint32_t max_ro_counters;
    uint32_t pebs_offset;
    uint32_t pebs_size;
    uint32_t lbr_offset;
    uint32_t lbr_num_regs;
    uint32_t latency_offset_in_sample;
    uint32_t latency_size_in_sample;
    uint32_t latency_size_from_pebs_record;
    uint32_t latency_offset_in_pebs_record;
    uint32_t power_offset_in_sample;
    uint32_t ebc_offset;
    uint32_t num_groups_unc;
    uint32_t ebc_offset_unc;
    uint32_t sample_size_unc;
    uint32_t eventing_ip_offset;
    uint32_t hle_offset;
    uint32_t pwr_offset;
    uint32_t callstack_offset;
    uint32_t callstack_size;
    uint32_t p_state_offset;
    uint32_t pebs_tsc_offset;
    sep_u64_t reserved1;
    sep_u64_t reserved2;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_event_config, 144);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_config, sample_size, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_config, max_fixed_counters, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_config, lbr_offset, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_config, num_groups_unc, 72);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_config, pebs_tsc_offset, 108);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_config, reserved1, 112);

/* DESC_NEXT request: one sample descriptor (NUM_DESCRIPTOR announces how many). A sample
 * record's descriptor_id indexes these; sample_size is the record size on the wire. */
struct sep_event_desc {
    uint32_t sample_size; /* bytes of a sample record using this descriptor */
    uint32_t pebs_offset;
    uint32_t pebs_size;
    uint32_t lbr_offset;
    uint32_t lbr_num_regs;
    uint32_t latency_offset_in_sample;
    uint32_t latency_size_in_sample;
    uint32_t latency_size_from_pebs_record;
    uint32_t latency_offset_in_pebs_record;
    uint32_t power_offset_in_sample;
    uint32_t ebc_offset;
    uint32_t uncore_ebc_offset;
    uint32_t eventing_ip_offset;
    uint32_t hle_offset;
    uint32_t pwr_offset;
    uint32_t callstack_offset;
    uint32_t callstack_size;
    uint32_t p_state_offset;
    uint32_t pebs_tsc_offset;
    uint32_t perfmetrics_offset;
    uint32_t perfmetrics_size;
    uint16_t applicable_counters_offset; /* adaptive PEBS fields */
    uint16_t gpr_info_offset;
    uint16_t gpr_info_size;
    uint16_t xmm_info_offset;
    uint16_t xmm_info_size;
    uint16_t lbr_info_size;
    uint32_t reserved2;
    sep_u64_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_event_desc, 112);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, lbr_offset, 12);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, uncore_ebc_offset, 44);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, perfmetrics_size, 80);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, applicable_counters_offset, 84);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, reserved2, 96);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_desc, reserved3, 104);

/* LBR_INFO request: which LBR MSRs each sample carries, in this order, one raw u64 each, at
 * the descriptor's lbr_offset (lbr_num_regs of them). The header's size is the whole
 * payload's; num_entries entries follow it. */
#define SEP_LBR_ENTRY_TOS  0 /* MSR_LBR_TOS (model-specific LBRs) */
#define SEP_LBR_ENTRY_FROM 1 /* FROM MSR of stack entry type_index */
#define SEP_LBR_ENTRY_TO   2
#define SEP_LBR_ENTRY_INFO 3

struct sep_lbr_info {
    uint32_t size;
    uint32_t num_entries;
};
SEP_WIRE_ASSERT_SIZE(struct sep_lbr_info, 8);

struct sep_lbr_entry {
    uint16_t etype;      /* SEP_LBR_ENTRY_* */
    uint16_t type_index; /* stack entry (MSR index, not age) */
    uint32_t reg_id;     /* the MSR; 0: a slot that stays zero */
};
SEP_WIRE_ASSERT_SIZE(struct sep_lbr_entry, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_lbr_entry, reg_id, 4);

#endif
