/*
 * acart_wire.h - the SEP sampling protocol (version 6) as it travels on TCP.
 *
 * Every byte the host collector (SEP in VTune, or the conformance suite) sends to the board
 * or receives from it is described here, once. Layouts follow the host's x86-64 ABI: the
 * host built its structures with 64-bit pointers and 8-byte aligned 64-bit integers. The
 * board is i686, where GCC aligns 64-bit struct members to 4 only; every 64-bit member
 * is therefore of type sep_u64_t (8-byte aligned on both toolchains), pointers the host
 * keeps inside payloads are sep_u64_t, and each structure's size and key offsets are
 * checked by _Static_assert on both builds.
 *
 * Bit fields of the host's structures are carried as whole words here (for example
 * sep_drv_config.collection_config) with named bit masks: C bit-field layout is the
 * compiler's choice and we do not want the wire to depend on it.
 *
 * All integers are little-endian (both ends are x86). Units are bytes unless stated.
 * See docs/sep-protocol.md for how the messages are sequenced.
 */
#ifndef ACART_WIRE_H
#define ACART_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit wire integers: 8-byte aligned even on i686, so layouts equal the host's. */
typedef uint64_t sep_u64_t __attribute__((aligned(8)));
typedef int64_t sep_s64_t __attribute__((aligned(8)));

#define SEP_WIRE_ASSERT_SIZE(type, size) _Static_assert(sizeof(type) == (size), #type " size")
#define SEP_WIRE_ASSERT_OFFSET(type, field, off)                                                   \
    _Static_assert(offsetof(type, field) == (off), #type "." #field " offset")

/* ---------------------------------------------------------------------------------------- */
/* Connection constants                                                                     */
/* ---------------------------------------------------------------------------------------- */

#define SEP_PROTOCOL_VERSION 6    /* the only version acart speaks */
#define SEP_DEFAULT_PORT     9321 /* control and data connections share it */

/* Data connections the host opens after the handshake: one per CPU plus these two. */
#define SEP_NONCORE_DATA_CONNECTIONS 2

/* ---------------------------------------------------------------------------------------- */
/* Status codes (the host's error numbering; 0 is success, everything else a failure).     */
/* Sent in sep_ctrl_header.status and sep_target_status.status.                             */
/* ---------------------------------------------------------------------------------------- */

#define SEP_STATUS_SUCCESS                       0
#define SEP_STATUS_FAILURE                       (-1)
#define SEP_STATUS_INVALID_SAMP_INTERVAL         3
#define SEP_STATUS_INVALID_NUM_EVENTS            6
#define SEP_STATUS_INTERNAL_ERROR                8
#define SEP_STATUS_NO_EVENTS                     11
#define SEP_STATUS_SAMPLING_ALREADY_STARTED      15
#define SEP_STATUS_INVALID_EVENT_SIZE            18
#define SEP_STATUS_NO_MEMORY                     26
#define SEP_STATUS_BUFFER_OVERFLOW               29
#define SEP_STATUS_BUFFER_NULL                   35
#define SEP_STATUS_UNEXPECTED_NULL_PTR           36
#define SEP_STATUS_INCOMPATIBLE_PARAMS           43
#define SEP_STATUS_TIMEOUT_RETURN                46
#define SEP_STATUS_DRIVER_RUNNING                48
#define SEP_STATUS_DRIVER_STOPPED                49
#define SEP_STATUS_DRIVER_INIT_FAILED            52
#define SEP_STATUS_INVALID_CPU_MASK              56
#define SEP_STATUS_SAMP_IN_RUNNING_STATE         57
#define SEP_STATUS_SAMP_IN_PAUSE_STATE           58
#define SEP_STATUS_SAMP_IN_STOP_STATE            59
#define SEP_STATUS_SAMP_NO_SESSION               60
#define SEP_STATUS_NOT_CONFIGURED                61
#define SEP_STATUS_BAD_PARAMETER                 63
#define SEP_STATUS_INVALID_STATE_TRANS           65
#define SEP_STATUS_UNEXPECTED_VALUE              72
#define SEP_STATUS_NOT_IMPLEMENTED               73
#define SEP_STATUS_INCOMPATIBLE_VERSION          84
#define SEP_STATUS_DRIVER_IOCTL_FAILED           88
#define SEP_STATUS_UNSUPPORTED_DATA_SIZE         98
#define SEP_STATUS_BUFFER_TOO_SMALL              103
#define SEP_STATUS_NO_SAMPLES_COLLECTED          139
#define SEP_STATUS_UNSUPPORTED_ARCH_TYPE         144
#define SEP_STATUS_EM_TOO_MANY_EVENT_GROUPS      147
#define SEP_STATUS_EM_NOT_SUPPORTED              149
#define SEP_STATUS_PMU_IN_USE                    150
#define SEP_STATUS_TOO_MANY_INTERRUPTS           151
#define SEP_STATUS_MAX_SAMPLES_REACHED           152
#define SEP_STATUS_MODULE_COLLECTION_FAILED      153
#define SEP_STATUS_INCOMPATIBLE_DRIVER           154
#define SEP_STATUS_UNABLE_LOCATE_TRIGGER_EVENT   155
#define SEP_STATUS_COMMAND_NOT_HANDLED           156
#define SEP_STATUS_DRIVER_VERSION_MISMATCH       157
#define SEP_STATUS_DRIVER_COMM_FAILED            159 /* what the reference sends for unknown ops */
#define SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE  167
#define SEP_STATUS_EXCEEDED_MAX_EVENTS           168
#define SEP_STATUS_INVALID_EVENT                 177
#define SEP_STATUS_INVALID_DEVICE                183
#define SEP_STATUS_NO_PMU_RESOURCES              189
#define SEP_STATUS_FREEZE_ON_PMI_NOT_AVAIL       191
#define SEP_STATUS_MSR_ACCESS_ERROR              196
#define SEP_STATUS_PEBS_NOT_SUPPORTED            197
#define SEP_STATUS_COMM_CONNECTION_CLOSED        199
#define SEP_STATUS_COMM_LISTEN_ERROR             200
#define SEP_STATUS_COMM_BIND_ERROR               201
#define SEP_STATUS_COMM_ACCEPT_ERROR             202
#define SEP_STATUS_COMM_SEND_ERROR               203
#define SEP_STATUS_COMM_RECV_ERROR               204
#define SEP_STATUS_COMM_SOCKET_ERROR             205
#define SEP_STATUS_COMM_CONNECT_ERROR            206
#define SEP_STATUS_TARGET_COLLECTION_MISMATCH    207
#define SEP_STATUS_COMM_PROTOCOL_NOT_SUPPORTED   209
#define SEP_STATUS_SAMP_IN_UNEXPECTED_STATE      210
#define SEP_STATUS_CORE_EVT_MUX_NOT_SUPPORTED    214
#define SEP_STATUS_COMM_RECV_TIMEOUT             217
#define SEP_STATUS_COMM_NOT_COMPATIBLE           218 /* header_size / msg_size mismatch */
#define SEP_STATUS_COMM_DATA_CHANNEL_UNAVAILABLE 219
#define SEP_STATUS_COMM_INVALID_TARGET_OS_INFO   220
#define SEP_STATUS_COMM_INVALID_TARGET_HW_INFO   221
#define SEP_STATUS_COMM_INVALID_COLLECT_SWITCH   222
#define SEP_STATUS_COMM_INVALID_NUM_CORE_EVENTS  226
#define SEP_STATUS_INVALID_PROG_INFO             228
#define SEP_STATUS_UNSUPPORTED_CPU_TOPOLOGY      229

/* ---------------------------------------------------------------------------------------- */
/* Command ids (sep_ctrl_header.command_id). Numbers are fixed by the host.                 */
/* ---------------------------------------------------------------------------------------- */

#define SEP_OP_NONE                          0 /* the reference target sends no reply */
#define SEP_OP_START                         1
#define SEP_OP_STOP                          2
#define SEP_OP_INIT_PMU                      3
#define SEP_OP_INIT                          4
#define SEP_OP_EM_GROUPS                     5
#define SEP_OP_SET_CPU_MASK                  17
#define SEP_OP_PCI_READ                      18
#define SEP_OP_PCI_WRITE                     19
#define SEP_OP_READ_PCI_CONFIG               20
#define SEP_OP_FD_PHYS                       21
#define SEP_OP_WRITE_PCI_CONFIG              22
#define SEP_OP_INSERT_MARKER                 23
#define SEP_OP_GET_NORMALIZED_TSC            24
#define SEP_OP_EM_CONFIG_NEXT                25
#define SEP_OP_SYS_CONFIG                    26
#define SEP_OP_TSC_SKEW_INFO                 27
#define SEP_OP_NUM_CORES                     28
#define SEP_OP_COLLECT_SYS_CONFIG            29
#define SEP_OP_GET_SYS_CONFIG                30
#define SEP_OP_PAUSE                         31
#define SEP_OP_RESUME                        32
#define SEP_OP_SET_ASYNC_EVENT               33
#define SEP_OP_ASYNC_STOP                    34
#define SEP_OP_TERMINATE                     35
#define SEP_OP_READ_MSRS                     36
#define SEP_OP_LBR_INFO                      37
#define SEP_OP_RESERVE                       38
#define SEP_OP_MARK                          39
#define SEP_OP_AWAIT_STOP                    40
#define SEP_OP_SEED_NAME                     41
#define SEP_OP_KERNEL_CS                     42
#define SEP_OP_SET_UID                       43
#define SEP_OP_VERSION                       51
#define SEP_OP_CHIPSET_INIT                  52
#define SEP_OP_GET_CHIPSET_DEVICE_ID         53
#define SEP_OP_SWITCH_GROUP                  54
#define SEP_OP_GET_NUM_CORE_CTRS             55
#define SEP_OP_PWR_INFO                      56
#define SEP_OP_NUM_DESCRIPTOR                57
#define SEP_OP_DESC_NEXT                     58
#define SEP_OP_MARK_OFF                      59
#define SEP_OP_CREATE_MARKER                 60
#define SEP_OP_GET_DRIVER_STATE              61
#define SEP_OP_READ_SWITCH_GROUP             62
#define SEP_OP_EM_GROUPS_UNC                 63
#define SEP_OP_EM_CONFIG_NEXT_UNC            64
#define SEP_OP_INIT_UNC                      65
#define SEP_OP_RO_INFO                       66
#define SEP_OP_READ_MSR                      67
#define SEP_OP_WRITE_MSR                     68
#define SEP_OP_THREAD_SET_NAME               69
#define SEP_OP_GET_PLATFORM_INFO             70
#define SEP_OP_GET_NORMALIZED_TSC_STANDALONE 71
#define SEP_OP_READ_AND_RESET                72
#define SEP_OP_SET_CPU_TOPOLOGY              73
#define SEP_OP_INIT_NUM_DEV                  74
#define SEP_OP_SET_GFX_EVENT                 75
#define SEP_OP_GET_NUM_SAMPLES               76
#define SEP_OP_SET_PWR_EVENT                 77
#define SEP_OP_SET_DEVICE_NUM_UNITS          78
#define SEP_OP_TIMER_TRIGGER_READ            79
#define SEP_OP_GET_INTERVAL_COUNTS           80
#define SEP_OP_FLUSH                         81
#define SEP_OP_SET_SCAN_UNCORE_TOPOLOGY_INFO 82
#define SEP_OP_GET_UNCORE_TOPOLOGY           83
#define SEP_OP_GET_MARKER_ID                 84
#define SEP_OP_GET_SAMPLE_DROP_INFO          85
#define SEP_OP_GET_DRV_SETUP_INFO            86
#define SEP_OP_GET_PLATFORM_TOPOLOGY         87
#define SEP_OP_GET_THREAD_COUNT              88
#define SEP_OP_GET_THREAD_INFO               89
#define SEP_OP_GET_DRIVER_LOG                90
#define SEP_OP_CONTROL_DRIVER_LOG            91
#define SEP_OP_SET_OSID                      92
#define SEP_OP_GET_AGENT_MODE                93
#define SEP_OP_INIT_DRIVER                   94
#define SEP_OP_SET_EMON_BUFFER_DRIVER_HELPER 95
#define SEP_OP_GET_NUM_VM                    96
#define SEP_OP_GET_VCPU_MAP                  97
#define SEP_OP_GET_PERF_CAPAB                98

/* ---------------------------------------------------------------------------------------- */
/* Handshake                                                                                */
/* ---------------------------------------------------------------------------------------- */

/* First message, host -> target, on the control connection and again on every data
 * connection. */
struct sep_first_msg {
    uint32_t msg_size;            /* must be sizeof(struct sep_first_msg) (24) */
    uint32_t proto_version;       /* SEP_PROTOCOL_VERSION */
    uint32_t per_cpu_buffer_size; /* host's wish for the per-CPU sample buffer, bytes; advisory */
    uint32_t reserved1;
    sep_u64_t reserved2;
};
SEP_WIRE_ASSERT_SIZE(struct sep_first_msg, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_first_msg, per_cpu_buffer_size, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_first_msg, reserved2, 16);

#define SEP_OSINFO_LEN 64

/* Target operating system description (part of sep_target_status). */
struct sep_os_info {
    uint32_t os_family; /* the reference leaves 0 */
    uint32_t reserved1;
    char sysname[SEP_OSINFO_LEN]; /* NUL-terminated, e.g. uname's sysname */
    char release[SEP_OSINFO_LEN];
    char version[SEP_OSINFO_LEN];
};
SEP_WIRE_ASSERT_SIZE(struct sep_os_info, 200);
SEP_WIRE_ASSERT_OFFSET(struct sep_os_info, sysname, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_os_info, release, 72);
SEP_WIRE_ASSERT_OFFSET(struct sep_os_info, version, 136);

/* Collection switches the target announces: which features the host may ask for. */
struct sep_collect_switch {
    uint32_t bits; /* SEP_SWITCH_* */
    uint32_t reserved2;
};
SEP_WIRE_ASSERT_SIZE(struct sep_collect_switch, 8);

#define SEP_SWITCH_AUTO_MODE            (1u << 0) /* target starts collections by itself */
#define SEP_SWITCH_ADV_HOTSPOT          (1u << 1)
#define SEP_SWITCH_LBR_CALLSTACK_SHIFT  2 /* 2 bits */
#define SEP_SWITCH_LBR_CALLSTACK_MASK   (3u << 2)
#define SEP_SWITCH_FULL_PEBS            (1u << 4)
#define SEP_SWITCH_UNCORE_SUPPORTED     (1u << 5)
#define SEP_SWITCH_AGENT_MODE_SHIFT     6 /* 2 bits, SEP_AGENT_* */
#define SEP_SWITCH_AGENT_MODE_MASK      (3u << 6)
#define SEP_SWITCH_SCHED_SWITCH_ENABLED (1u << 8)
#define SEP_SWITCH_DATA_TRANSFER_MODE   (1u << 9) /* set: delayed transfer (SEP_TRANSFER_*) */

#define SEP_AGENT_NATIVE   0
#define SEP_AGENT_HOST_VM  1
#define SEP_AGENT_GUEST_VM 2

#define SEP_TRANSFER_IMMEDIATE 0 /* samples stream while collecting */
#define SEP_TRANSFER_DELAYED   1 /* samples held until STOP */

/* Target hardware description (part of sep_target_status). */
struct sep_hardware_info {
    uint32_t num_cpus;  /* logical CPUs; the host opens this many CPU data connections */
    uint32_t family;    /* CPUID.1:EAX[11:8] (base family only, as the reference sends) */
    uint32_t model;     /* CPUID.1:EAX[19:16] << 4 | EAX[7:4] */
    uint32_t stepping;  /* CPUID.1:EAX[3:0] */
    sep_u64_t tsc_freq; /* Hz */
    sep_u64_t reserved2;
    sep_u64_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_hardware_info, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_hardware_info, tsc_freq, 16);

/* Handshake answer, target -> host, on the control connection only. The three parts are
 * located by the offset/size pairs, which the target fills from this very layout. */
struct sep_target_status {
    uint32_t msg_size;      /* sizeof(struct sep_target_status) (296) */
    uint32_t proto_version; /* SEP_PROTOCOL_VERSION */
    int32_t status;         /* SEP_STATUS_*; the host gives up unless 0 */
    uint32_t reserved1;
    sep_u64_t reserved2;
    uint32_t os_info_offset;        /* 48 */
    uint32_t os_info_size;          /* 200 */
    uint32_t collect_switch_offset; /* 248 */
    uint32_t collect_switch_size;   /* 8 */
    uint32_t hardware_info_offset;  /* 256 */
    uint32_t hardware_info_size;    /* 40 */
    struct sep_os_info os_info;
    struct sep_collect_switch collect_switch;
    struct sep_hardware_info hardware_info;
};
SEP_WIRE_ASSERT_SIZE(struct sep_target_status, 296);
SEP_WIRE_ASSERT_OFFSET(struct sep_target_status, status, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_target_status, os_info_offset, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_target_status, hardware_info_size, 44);
SEP_WIRE_ASSERT_OFFSET(struct sep_target_status, os_info, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_target_status, collect_switch, 248);
SEP_WIRE_ASSERT_OFFSET(struct sep_target_status, hardware_info, 256);

/* acart only: who holds the board, sent to a refused host right after its 296-byte
 * target status (status SEP_STATUS_PMU_IN_USE), before the board closes the connection.
 * A SEP host reads exactly the target status and closes, so it never sees this; `acart
 * collect` reads it when it is there (docs/sep-protocol.md 3.1). */
#define ACART_BUSY_NOTE_MAGIC "acart-busy-v1"
enum acart_busy_state {
    ACART_BUSY_HANDSHAKE = 0,   /* the holder is still opening its data connections */
    ACART_BUSY_IDLE = 1,        /* connected, no collection running */
    ACART_BUSY_COLLECTING = 2,  /* a collection is running or paused */
    ACART_BUSY_TRANSFERRING = 3 /* stopped; the records are still being sent */
};
struct acart_busy_note {
    char magic[16];          /* ACART_BUSY_NOTE_MAGIC, NUL-padded */
    uint32_t holder_ip;      /* the holder's IPv4 address, network byte order */
    uint16_t holder_port;    /* its control connection's port */
    uint16_t holder_state;   /* enum acart_busy_state */
    sep_u64_t held_ms;       /* how long the holder has had the board */
    sep_u64_t since_boot_ms; /* when it took it, in ms of the board's TSC */
};
SEP_WIRE_ASSERT_SIZE(struct acart_busy_note, 40);
SEP_WIRE_ASSERT_OFFSET(struct acart_busy_note, holder_ip, 16);
SEP_WIRE_ASSERT_OFFSET(struct acart_busy_note, held_ms, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_busy_note, since_boot_ms, 32);

/* Data channel kinds (sep_data_first_msg.data_type). */
#define SEP_DATA_CPU      0 /* sample records of one CPU */
#define SEP_DATA_MODULE   1 /* module (load map) records */
#define SEP_DATA_UNCORE   2 /* uncore sample records */
#define SEP_DATA_SIDEBAND 3 /* VM scheduling side band, per CPU; unused by acart */

/* Data connection answer, target -> host, right after accepting a data connection. */
struct sep_data_first_msg {
    uint32_t proto_version; /* SEP_PROTOCOL_VERSION */
    uint16_t data_type;     /* SEP_DATA_* */
    uint16_t data_id;       /* CPU number for SEP_DATA_CPU, else 0 */
};
SEP_WIRE_ASSERT_SIZE(struct sep_data_first_msg, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_data_first_msg, data_type, 4);
SEP_WIRE_ASSERT_OFFSET(struct sep_data_first_msg, data_id, 6);

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

/* ---------------------------------------------------------------------------------------- */
/* Event control block (EM_CONFIG_NEXT payload): header + register entries                  */
/* ---------------------------------------------------------------------------------------- */

/* Register entry types (sep_event_reg.reg_type); 0 is an empty slot. */
#define SEP_REG_EMPTY         0
#define SEP_REG_CCCR          1  /* control register (global ctrl, fixed ctr ctrl, ...) */
#define SEP_REG_ESCR          2  /* event select / other configuration */
#define SEP_REG_DATA          4  /* counter, preloaded with -(sample after) */
#define SEP_REG_DATA_RO_DELTA 8  /* read-only counter, reported as a delta */
#define SEP_REG_DATA_RO_SS    16 /* read-only counter, reported as a snapshot */
#define SEP_REG_METRICS       32

/* sep_event_reg.flags */
#define SEP_EVREG_PRECISE       0x0001u /* PEBS event */
#define SEP_EVREG_GLOBAL        0x0002u /* global (not per-counter) register */
#define SEP_EVREG_UNCORE        0x0004u
#define SEP_EVREG_UNCORE_Q_RST  0x0008u
#define SEP_EVREG_LATENCY       0x0010u
#define SEP_EVREG_IS_GP_REG     0x0020u /* general-purpose counter */
#define SEP_EVREG_CLEAN_UP      0x0040u /* write 0 here when the collection ends */
#define SEP_EVREG_EM_TRIGGER    0x0080u
#define SEP_EVREG_LBR_VALUE     0x0100u /* sample carries LBRs */
#define SEP_EVREG_FIXED_REG     0x0200u /* fixed-function counter */
#define SEP_EVREG_UNC_INTR_READ 0x0400u
#define SEP_EVREG_MULTI_PKG     0x1000u
#define SEP_EVREG_BRANCH_EVT    0x2000u
#define SEP_EVREG_EBC_SAMPLING  0x4000u

/* How an uncore entry is reached (sep_event_reg.reg_prog_type; core ECBs leave it 0). */
#define SEP_REG_PROG_MSR  1
#define SEP_REG_PROG_PCI  2
#define SEP_REG_PROG_MMIO 3

/* sep_event_reg.reg_rw_type: how the reference writes an uncore entry. */
#define SEP_REG_RW_READ       1
#define SEP_REG_RW_WRITE      2
#define SEP_REG_RW_READ_WRITE 3 /* read-modify-write: OR the value into the register */

/* sep_event_reg.counter_type of uncore DATA entries. A static counter is reported as
 * read; the others as the sum of their deltas since START, wrapping at max_bits. */
#define SEP_UNC_COUNTER_STATIC       1
#define SEP_UNC_COUNTER_FREERUN      2 /* counts from power-on; never written */
#define SEP_UNC_COUNTER_PROG_FREERUN 3
#define SEP_UNC_COUNTER_PROGRAMMABLE 4

/* Where a register lives: an MSR index, or PCI/MMIO coordinates for uncore units. */
struct sep_event_reg_id {
    uint32_t reg_id; /* MSR index (or PCI offset / MMIO offset) */
    uint32_t pci_bus_no;
    uint32_t pci_dev_no;
    uint32_t pci_func_no;
    uint32_t data_size; /* access width in bytes for PCI/MMIO */
    uint32_t bar_index; /* index into the ECB's mmio_bar_list (1-based) */
    uint32_t reserved1;
    uint32_t reserved2;
    sep_u64_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_event_reg_id, 40);

/* One register of an event group. */
struct sep_event_reg {
    uint8_t reg_type; /* SEP_REG_* */
    uint8_t unit_id;
    uint16_t event_id_index;       /* index of the event in the host's event list */
    uint16_t counter_event_offset; /* slot of this counter's count in an EBC/uncore record */
    uint16_t reserved1;
    struct sep_event_reg_id event_reg_id;
    sep_u64_t reg_value; /* value to write (a DATA entry: the preload) */
    uint16_t desc_id;    /* sample descriptor used when this counter overflows */
    uint16_t flags;      /* SEP_EVREG_* */
    uint32_t reserved2;
    sep_u64_t max_bits; /* counter width mask, e.g. 0xFFFFFFFFFFFF for 48 bits */
    uint8_t scheduled;
    int8_t secondary_pci_offset_shift;
    uint16_t secondary_pci_offset_offset;
    uint32_t counter_type; /* uncore: static/freerun/... */
    uint32_t event_scope;  /* uncore: package/module/thread/system */
    uint8_t reg_prog_type; /* uncore: 1 MSR, 2 PCI, 3 MMIO */
    uint8_t reg_rw_type;
    uint8_t reg_order;
    uint8_t bit_position;
    sep_u64_t secondary_pci_offset_mask;
    uint32_t core_event_id;
    uint32_t uncore_buffer_offset_in_package;
    uint32_t uncore_buffer_offset_in_system;
    uint32_t aux_reg_id_to_read;
    sep_u64_t aux_read_mask;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_event_reg, 136);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, event_id_index, 2);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, event_reg_id, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, reg_value, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, desc_id, 56);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, flags, 58);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, max_bits, 64);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, counter_type, 76);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, reg_prog_type, 84);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, secondary_pci_offset_mask, 88);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, core_event_id, 96);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, aux_read_mask, 112);
SEP_WIRE_ASSERT_OFFSET(struct sep_event_reg, reserved4, 128);

/* PCI device of an uncore ECB. */
struct sep_pci_device_entry {
    uint32_t bus_no;
    uint32_t dev_no;
    uint32_t func_no;
    uint32_t bar_offset;
    sep_u64_t bar_mask;
    uint32_t bit_offset;
    uint32_t size;
    sep_u64_t bar_address;
    uint32_t enable_offset;
    uint32_t enabled;
    uint32_t base_offset_for_mmio;
    uint32_t operation;
    uint32_t bar_name;
    uint32_t prog_type;
    uint32_t config_type;
    int8_t bar_shift;
    uint8_t reserved0;
    uint16_t reserved1;
    sep_u64_t value;
    sep_u64_t mask;
    sep_u64_t virtual_address;
    uint32_t port_id;
    uint32_t op_code;
    uint32_t device_id;
    uint16_t bar_num;
    uint16_t feature_id;
    sep_u64_t reserved2;
    sep_u64_t reserved3;
    sep_u64_t reserved4;
};
SEP_WIRE_ASSERT_SIZE(struct sep_pci_device_entry, 136);
SEP_WIRE_ASSERT_OFFSET(struct sep_pci_device_entry, bar_mask, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_pci_device_entry, value, 72);
SEP_WIRE_ASSERT_OFFSET(struct sep_pci_device_entry, reserved2, 112);

/* PMU operation kinds: index of sep_ecb_header.operations[] (the host fills slot i with
 * operation_type i). Each names a range of the ECB's entries. */
#define SEP_PMU_OP_INITIALIZE               0
#define SEP_PMU_OP_WRITE                    1
#define SEP_PMU_OP_ENABLE                   2
#define SEP_PMU_OP_DISABLE                  3
#define SEP_PMU_OP_READ                     4
#define SEP_PMU_OP_CLEANUP                  5
#define SEP_PMU_OP_READ_LBRS                6
#define SEP_PMU_OP_GLOBAL_REGS              7  /* global control registers */
#define SEP_PMU_OP_CTRL_GP                  8  /* general counters' event selects */
#define SEP_PMU_OP_DATA_FIXED               9  /* fixed counters */
#define SEP_PMU_OP_DATA_GP                  10 /* general counters */
#define SEP_PMU_OP_OCR                      11 /* off-core response and other extras */
#define SEP_PMU_OP_HW_ERRATA                12
#define SEP_PMU_OP_CHECK_OVERFLOW_GP_ERRATA 13
#define SEP_PMU_OP_CHECK_OVERFLOW_ERRATA    14
#define SEP_PMU_OP_ALL_REG                  15
#define SEP_PMU_OP_DATA_ALL                 16
#define SEP_PMU_OP_GLOBAL_STATUS            17 /* the global overflow status register */
#define SEP_PMU_OP_METRICS                  18
#define SEP_MAX_PMU_OPERATIONS              32

struct sep_pmu_operation {
    uint32_t operation_type; /* SEP_PMU_OP_* */
    uint32_t register_start; /* first entry index */
    uint32_t register_len;   /* number of entries */
    uint32_t reserved1;
    uint32_t reserved2;
    uint32_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_pmu_operation, 24);

#define SEP_MAX_MMIO_BARS 8

struct sep_mmio_bar_info {
    uint32_t bus_no;
    uint32_t dev_no;
    uint32_t func_no;
    uint32_t addr_size;
    sep_u64_t base_offset_for_mmio;
    uint32_t map_size_for_mmio;
    uint32_t main_bar_offset;
    sep_u64_t main_bar_mask;
    uint8_t main_bar_shift;
    uint8_t reserved1;
    uint16_t reserved2;
    uint32_t reserved3;
    uint32_t reserved4;
    uint32_t secondary_bar_offset;
    sep_u64_t secondary_bar_mask;
    uint8_t secondary_bar_shift;
    uint8_t reserved5;
    uint16_t reserved6;
    uint32_t reserved7;
    uint16_t feature_id;
    uint16_t reserved8;
    uint32_t reserved9;
    sep_u64_t reserved10;
};
SEP_WIRE_ASSERT_SIZE(struct sep_mmio_bar_info, 88);

/* Device types (sep_ecb_header.device_type, sep_dev_config.device_type). */
#define SEP_DEVICE_CORE    1
#define SEP_DEVICE_HETERO  2
#define SEP_DEVICE_UNC_IMC 12 /* uncore memory controller; uncore types start at 10 */

#define SEP_ECB_VERSION 2

/* sep_ecb_header.flags */
#define SEP_ECB_DIRECT2CORE  0x0001u
#define SEP_ECB_BL_BYPASS    0x0002u
#define SEP_ECB_PCU_CCST_DBG 0x0004u

/* Event control block header. The entries (struct sep_event_reg) follow at byte 1728.
 *
 * How many entries follow is NOT num_entries: the host puts num_entries entries in the
 * cccr/escr/data ranges and may append more (the core fixture carries 22 entries for
 * num_entries 21; the last one, IA32_PERF_GLOBAL_STATUS, is referenced only by the
 * GLOBAL_STATUS operation). size_of_allocation (= the payload length) is authoritative:
 * entries = (size_of_allocation - 1728) / 136. */
struct sep_ecb_header {
    uint8_t version; /* SEP_ECB_VERSION */
    uint8_t reserved1;
    uint16_t reserved2;
    uint32_t num_entries; /* entries covered by the cccr/escr/data ranges */
    uint32_t group_id;    /* event group number, 0-based */
    uint32_t num_events;
    uint32_t cccr_start; /* first index of the control registers */
    uint32_t cccr_pop;   /* how many slots */
    uint32_t escr_start; /* event selects / extras */
    uint32_t escr_pop;
    uint32_t data_start; /* counters */
    uint32_t data_pop;
    uint16_t flags; /* SEP_ECB_* */
    uint8_t pmu_timer_interval;
    uint8_t reserved3;
    uint32_t size_of_allocation; /* total bytes of this ECB, header and entries */
    uint32_t group_offset;
    uint32_t reserved4;
    struct sep_pci_device_entry pcidev_entry_node;
    uint32_t num_pci_devices;
    uint32_t pcidev_list_offset;
    sep_u64_t pcidev_entry_list; /* host pointer, meaningless on the target */
    uint32_t device_type;        /* 1 core; uncore types >= 10 (12 = IMC) */
    uint32_t dev_node;
    struct sep_pmu_operation operations[SEP_MAX_PMU_OPERATIONS];
    uint32_t descriptor_id;
    uint32_t reserved5;
    uint32_t metric_start;
    uint32_t metric_pop;
    struct sep_mmio_bar_info mmio_bar_list[SEP_MAX_MMIO_BARS];
    uint32_t num_mmio_secondary_bar;
    uint32_t group_id_offset_in_trigger_evt_desc;
    sep_u64_t reserved7;
    sep_u64_t reserved8;
};
SEP_WIRE_ASSERT_SIZE(struct sep_ecb_header, 1728);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, num_entries, 4);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, cccr_start, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, data_pop, 36);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, flags, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, size_of_allocation, 44);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, pcidev_entry_node, 56);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, num_pci_devices, 192);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, pcidev_entry_list, 200);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, device_type, 208);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, operations, 216);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, descriptor_id, 984);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, metric_start, 992);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, mmio_bar_list, 1000);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, num_mmio_secondary_bar, 1704);
SEP_WIRE_ASSERT_OFFSET(struct sep_ecb_header, reserved8, 1720);

/* EM_CONFIG_NEXT reply (when the host asks for one, from_target_data_size >= 48): why an
 * ECB was refused. drv_status 0 means accepted. */
struct sep_ioctl_status {
    uint32_t drv_status;   /* SEP_STATUS_*; SEP_STATUS_INVALID_PROG_INFO for a refused register */
    uint8_t reg_prog_type; /* 1 MSR, 2 PCI, 3 MMIO */
    uint8_t reserved1;
    uint16_t reserved2;
    sep_u64_t
        reg_key1; /* the refused MSR index (PCI: bus 7:0, dev 12:8, func 15:13, offset 31:16) */
    uint32_t reg_key2;
    uint32_t reserved3;
    sep_u64_t reserved4;
    sep_u64_t reserved5;
    sep_u64_t reserved6;
};
SEP_WIRE_ASSERT_SIZE(struct sep_ioctl_status, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_ioctl_status, reg_key1, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_ioctl_status, reg_key2, 16);

/* ---------------------------------------------------------------------------------------- */
/* System configuration blob (GET_SYS_CONFIG reply, its size announced by COLLECT_SYS_CONFIG) */
/*                                                                                          */
/* A tree of arrays addressed by byte offsets from the start of the blob:                   */
/*   sep_sysinfo            node_array.offset -> the node array header                      */
/*   sep_sysinfo_array_hdr  (type NODE, 1 entry) + sep_sysinfo_node                         */
/*                          node.percpu_array.offset -> the per-CPU array header            */
/*   sep_sysinfo_array_hdr  (type PER_CPU, num_cpus entries) + num_cpus sep_sysinfo_cpu     */
/*                          cpu.cpuid_array.offset -> that CPU's CPUID array header         */
/*   per CPU: sep_sysinfo_array_hdr (type CPUID) + entries * sep_sysinfo_cpuid (20 bytes)   */
/* See docs/sep-protocol.md for the CPUID leaves the reference records.                     */
/* ---------------------------------------------------------------------------------------- */

/* An offset inside the blob (the host format also allows a pointer; we never send one). */
struct sep_sysinfo_ref {
    uint32_t unused;
    uint32_t is_ptr;  /* bit 0; always 0 from a target */
    sep_u64_t offset; /* bytes from the start of the blob; 0 = none */
};
SEP_WIRE_ASSERT_SIZE(struct sep_sysinfo_ref, 16);

#define SEP_SYSINFO_TYPE_UNKNOWN 0
#define SEP_SYSINFO_TYPE_PER_CPU 1
#define SEP_SYSINFO_TYPE_CPUID   3
#define SEP_SYSINFO_TYPE_NODE    4
#define SEP_SYSINFO_SUB_UNKNOWN  0
#define SEP_SYSINFO_SUB_X86      1 /* what an i686 target reports */
#define SEP_SYSINFO_SUB_EM64T    5

struct sep_sysinfo_array_hdr {
    uint32_t hdr_size; /* sizeof(struct sep_sysinfo_array_hdr) (64) */
    uint32_t padding;
    struct sep_sysinfo_ref next; /* offset 0: no further header */
    uint32_t reserved[7];
    uint32_t num_entries;
    uint32_t entry_size;
    uint16_t type;    /* SEP_SYSINFO_TYPE_* */
    uint16_t subtype; /* SEP_SYSINFO_SUB_* */
};
SEP_WIRE_ASSERT_SIZE(struct sep_sysinfo_array_hdr, 64);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_array_hdr, next, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_array_hdr, num_entries, 52);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_array_hdr, type, 60);

struct sep_sysinfo_cpuid {
    uint32_t eax_input; /* leaf */
    uint32_t eax;
    uint32_t ebx;
    uint32_t ecx; /* for sub-leafed leaves (4, 0xB, 0xF, 0x10) ECX output; sub-leaf = order */
    uint32_t edx;
};
SEP_WIRE_ASSERT_SIZE(struct sep_sysinfo_cpuid, 20);

#define SEP_SYSINFO_NA32 0xFFFFFFFFu /* "not available" */

struct sep_sysinfo_cpu {
    uint32_t cpu_number;
    uint32_t cpu_speed_mhz; /* SEP_SYSINFO_NA32 when unknown */
    uint32_t cpu_fsb_mhz;
    uint32_t cpu_cache_l2_kb;
    struct sep_sysinfo_ref cpuid_array;
    sep_s64_t cpu_tsc_offset;            /* TSC(cpu) - TSC(cpu 0) */
    uint32_t cpu_intel_processor_number; /* SEP_SYSINFO_NA32 */
    uint32_t cpu_cache_l3_kb;
    sep_u64_t platform_id; /* MSR 0x17 on Intel; 0 if unread */
    uint16_t cpu_package_num;
    uint16_t cpu_core_num;
    uint16_t cpu_hw_thread_num;
    uint16_t cpu_threads_per_core;
    uint16_t cpu_module_id;
    uint16_t cpu_num_modules;
    uint32_t cpu_core_type;
    uint32_t arch_perfmon_ver;
    uint32_t num_gp_counters;
    uint32_t num_fixed_counters;
    uint32_t reserved1;
    sep_u64_t reserved2;
    sep_u64_t reserved3;
};
SEP_WIRE_ASSERT_SIZE(struct sep_sysinfo_cpu, 104);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_cpu, cpuid_array, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_cpu, cpu_tsc_offset, 32);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_cpu, platform_id, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_cpu, cpu_package_num, 56);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_cpu, cpu_core_type, 68);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_cpu, arch_perfmon_ver, 72);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_cpu, reserved2, 88);

struct sep_sysinfo_node {
    uint32_t node_type_from_shell;  /* SEP_SYSINFO_NA32 */
    uint32_t node_id;               /* SEP_SYSINFO_NA32 */
    uint32_t node_num_available;    /* CPUs */
    uint32_t node_num_used;         /* SEP_SYSINFO_NA32 */
    sep_u64_t node_physical_memory; /* bytes */
    struct sep_sysinfo_ref percpu_array;
    uint32_t reserved[2];
};
SEP_WIRE_ASSERT_SIZE(struct sep_sysinfo_node, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo_node, percpu_array, 24);

struct sep_sysinfo {
    struct sep_sysinfo_ref node_array; /* offset 72 */
    sep_u64_t min_app_address;         /* all ones when unknown */
    sep_u64_t max_app_address;
    uint32_t page_size;
    uint32_t allocation_granularity;
    uint32_t reserved1;
    uint32_t reserved2;
    sep_u64_t reserved3[3];
};
SEP_WIRE_ASSERT_SIZE(struct sep_sysinfo, 72);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo, page_size, 32);
SEP_WIRE_ASSERT_OFFSET(struct sep_sysinfo, reserved3, 48);

/* ---------------------------------------------------------------------------------------- */
/* Collection results                                                                       */
/* ---------------------------------------------------------------------------------------- */

#define SEP_MAX_SAMPLE_DROP_NODES 20

struct sep_sample_drop {
    uint32_t os_id;
    uint32_t cpu_id;
    uint32_t sampled; /* samples delivered */
    uint32_t dropped; /* samples lost (ring full) */
};
SEP_WIRE_ASSERT_SIZE(struct sep_sample_drop, 16);

/* GET_SAMPLE_DROP_INFO reply. */
struct sep_sample_drop_info {
    uint32_t size; /* valid entries in drop_info */
    struct sep_sample_drop drop_info[SEP_MAX_SAMPLE_DROP_NODES];
};
SEP_WIRE_ASSERT_SIZE(struct sep_sample_drop_info, 324);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_drop_info, drop_info, 4);

/* acart extension: samples taken inside an interrupt handler (docs/sep-protocol.md 6.0)
 * carry these ids instead of the interrupted task's: pid_rec_index = ACART_IRQ_PID, tid =
 * ACART_IRQ_TID_BASE | vector. */
#define ACART_IRQ_PID      0x7fffff00u
#define ACART_IRQ_TID_BASE 0x7fff0000u

/* acart extension: why samples were dropped, per CPU. GET_SAMPLE_DROP_INFO has room for a
 * count only; this command, numbered far outside the host's DRV_OPERATION range so VTune
 * never sends it, gives the reasons behind each CPU's `dropped` (docs/sep-protocol.md 4.2).
 * A target without it answers SEP_STATUS_DRIVER_COMM_FAILED, as for any unknown command.
 * Per CPU: dropped = ring_full + no_counter + malformed + collision + stuck. */
#define ACART_OP_GET_DROP_REASONS  0x41430055u /* "AC" and 85, the command it completes */
#define ACART_MAX_DROP_REASON_CPUS 64

struct acart_drop_reasons_cpu {
    uint32_t cpu_id;
    uint32_t ring_full;    /* the CPU's sample buffer was full */
    uint32_t no_counter;   /* a PEBS record or overflow naming no counter of the session */
    uint32_t malformed;    /* a PEBS record that did not decode */
    uint32_t collision;    /* a PEBS record (format <= 2) naming several PEBS counters */
    uint32_t stuck;        /* lost when a PMI that would not clear made the PMU reset */
    uint32_t stuck_resets; /* those resets; sampling on the CPU ended with the first */
    uint32_t delivered;    /* samples delivered, as GET_SAMPLE_DROP_INFO's `sampled`, which
                            * covers 20 CPUs only (valid with ACART_DROP_REASONS_DELIVERED) */
};
SEP_WIRE_ASSERT_SIZE(struct acart_drop_reasons_cpu, 32);
SEP_WIRE_ASSERT_OFFSET(struct acart_drop_reasons_cpu, stuck_resets, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_drop_reasons_cpu, delivered, 28);

/* ACART_OP_GET_DROP_REASONS reply: the header and `size` entries; as every reply, it is
 * as long as the host asked (entries past `size` are zero), at least 8 + 32 * size. */
#define ACART_DROP_REASONS_DELIVERED 1u /* flags: every entry's `delivered` is filled in */

struct acart_drop_reasons {
    uint32_t size;  /* entries that follow */
    uint32_t flags; /* ACART_DROP_REASONS_*; 0 from a target older than `delivered` */
    struct acart_drop_reasons_cpu cpu[ACART_MAX_DROP_REASON_CPUS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_drop_reasons, cpu, 8);
SEP_WIRE_ASSERT_SIZE(struct acart_drop_reasons, 8 + 32 * ACART_MAX_DROP_REASON_CPUS);

/* acart extension: how long each event group counted on each CPU of a multiplexed
 * collection, so the host can scale each group's counts by time enabled / time running.
 * Not negotiated, like GET_DROP_REASONS: VTune never sends it, and a target without it
 * answers 159. Times in TSC ticks, up to now (after STOP: the whole collection). The
 * reply is as long as asked, at least 8 + 80 * num_cpus. */
#define ACART_OP_GET_GROUP_TIMES 0x41430036u /* "AC" and 54, SWITCH_GROUP's number */
#define ACART_MAX_EVENT_GROUPS   8

struct acart_group_times_cpu {
    sep_u64_t enabled;                         /* ticks the CPU counted: sum of running[] */
    sep_u64_t running[ACART_MAX_EVENT_GROUPS]; /* ticks each group had the counters */
    uint32_t cpu_id;
    uint32_t switches; /* turns ended on this CPU */
};
SEP_WIRE_ASSERT_SIZE(struct acart_group_times_cpu, 80);
SEP_WIRE_ASSERT_OFFSET(struct acart_group_times_cpu, running, 8);
SEP_WIRE_ASSERT_OFFSET(struct acart_group_times_cpu, cpu_id, 72);

struct acart_group_times {
    uint32_t num_cpus;
    uint32_t num_groups; /* groups of the collection: running[] past them is 0 */
    struct acart_group_times_cpu cpu[ACART_MAX_DROP_REASON_CPUS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_group_times, cpu, 8);
SEP_WIRE_ASSERT_SIZE(struct acart_group_times, 8 + 80 * ACART_MAX_DROP_REASON_CPUS);

/* acart extension: IPROBE sample files (runtime/include/ipr.h), named blobs in the board's
 * RAM, fetched by `acart fetch` (docs/sep-protocol.md 4.3). Negotiated: the file commands
 * answer SEP_STATUS_DRIVER_COMM_FAILED, like any unknown command, until the session has
 * sent ACART_OP_EXTENSIONS, which VTune never sends (its number is outside the host's
 * DRV_OPERATION range), so a plain SEP host never meets them. */
#define ACART_OP_EXTENSIONS 0x41430100u /* reply: struct acart_extensions */
#define ACART_OP_LIST_FILES 0x41430101u /* reply: struct acart_file_list */
#define ACART_OP_READ_FILE  0x41430102u /* request: struct acart_file_read; reply: the bytes */

#define ACART_EXT_DROP_REASONS 0x1u /* ACART_OP_GET_DROP_REASONS */
#define ACART_EXT_FILES        0x2u /* ACART_OP_LIST_FILES, ACART_OP_READ_FILE */
#define ACART_EXT_PT           0x4u /* ACART_OP_PT_* and the PT data connection */

/* Who holds the counters (acart_extensions.pmu_owner). */
#define ACART_PMU_FREE   0
#define ACART_PMU_HOST   1 /* a host's collection, from INIT_PMU to the session's end */
#define ACART_PMU_IPROBE 2 /* a program on the target (IprAllocate) */

struct acart_extensions {
    uint32_t version;    /* 1 */
    uint32_t extensions; /* ACART_EXT_* */
    uint32_t pmu_owner;  /* ACART_PMU_* */
    uint32_t reserved;
};
SEP_WIRE_ASSERT_SIZE(struct acart_extensions, 16);

#define ACART_MAX_FILES     16
#define ACART_FILE_NAME_MAX 48
#define ACART_FILE_READ_MAX (32 * 1024)
#define ACART_FILE_CLOSED   0
#define ACART_FILE_WRITING  1 /* open: not served until IprCloseSampleFile */

struct acart_file_entry {
    uint32_t id; /* changes whenever a file of that name is written again */
    uint32_t bytes;
    uint32_t state; /* ACART_FILE_* */
    uint32_t reserved;
    char name[ACART_FILE_NAME_MAX]; /* NUL-terminated */
};
SEP_WIRE_ASSERT_SIZE(struct acart_file_entry, 64);

struct acart_file_list {
    uint32_t count;
    uint32_t reserved;
    struct acart_file_entry files[ACART_MAX_FILES];
};
SEP_WIRE_ASSERT_SIZE(struct acart_file_list, 8 + 64 * ACART_MAX_FILES);

struct acart_file_read {
    uint32_t id, offset, length; /* length <= ACART_FILE_READ_MAX; the reply is that long */
    uint32_t reserved;
};
SEP_WIRE_ASSERT_SIZE(struct acart_file_read, 16);

/* acart extension: Intel Processor Trace (docs/sep-protocol.md 4.4, docs/pt.md). Negotiated
 * like the file commands (ACART_OP_EXTENSIONS first). PT_CONFIG, in the IDLE state, makes
 * the target expect one more data connection from this host, the PT channel: its answer
 * to the host's first message has data_type ACART_DATA_PT, and it carries chunks (struct
 * acart_pt_chunk) for every CPU, then closes once each CPU's trace has ended. */
#define ACART_OP_PT_INFO   0x41430110u /* reply: struct acart_pt_info */
#define ACART_OP_PT_CONFIG 0x41430111u /* acart_pt_config in, acart_pt_config_reply out */
#define ACART_OP_PT_FREEZE 0x41430112u /* snapshot mode: freeze the rings now (reason host) */
#define ACART_OP_PT_STATUS 0x41430113u /* reply: struct acart_pt_status, cut after num_cpus */

#define ACART_DATA_PT 0x5450u /* data_type of the PT channel ("PT"); no SEP channel has it */

/* The status of a PT command on a target whose CPU has no Intel PT, or that has no memory
 * for it: outside the host's numbering, like the command numbers. */
#define ACART_STATUS_NO_PT 0x41430001

/* acart_pt_info.caps */
#define ACART_PT_CAP_TOPA         0x001u /* ToPA output */
#define ACART_PT_CAP_TOPA_MULTI   0x002u /* ... with several regions: full mode */
#define ACART_PT_CAP_SINGLE_RANGE 0x004u
#define ACART_PT_CAP_IP_FILTER    0x008u
#define ACART_PT_CAP_MTC          0x010u
#define ACART_PT_CAP_PSB_CYC      0x020u /* CYC packets, PSB period */
#define ACART_PT_CAP_PTWRITE      0x040u
#define ACART_PT_CAP_POWER        0x080u
#define ACART_PT_CAP_CR3_FILTER   0x100u
#define ACART_PT_CAP_PMI          0x200u /* the ToPA interrupt */

struct acart_pt_info {
    uint32_t version; /* 1 */
    uint32_t present; /* 1: the CPUs have Intel PT and acart has memory for it */
    uint32_t caps;    /* ACART_PT_CAP_* */
    uint32_t num_ranges;
    uint16_t mtc_periods, cyc_thresholds, psb_periods, reserved; /* CPUID.(14H,1) bitmaps */
    uint32_t cpuid_15_eax, cpuid_15_ebx, cpuid_15_ecx;
    uint32_t nom_freq;     /* MSR_PLATFORM_INFO[15:8]; 0 if unknown */
    uint32_t memory_bytes; /* trace memory acart has for all CPUs together */
    uint32_t reserved2;
    char why[80]; /* without PT: why, NUL-terminated */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_info, 128);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_info, cpuid_15_eax, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_info, why, 48);

#define ACART_PT_MODE_FULL     0
#define ACART_PT_MODE_SNAPSHOT 1

/* acart_pt_config.flags */
#define ACART_PT_OS         0x01u /* trace CPL 0 */
#define ACART_PT_USER       0x02u /* trace CPL > 0 */
#define ACART_PT_TSC        0x04u /* TSC packets */
#define ACART_PT_MTC        0x08u /* MTC packets, every 2^mtc_freq crystal ticks */
#define ACART_PT_CYC        0x10u /* CYC packets (cycle-accurate) */
#define ACART_PT_PTWRITE    0x20u
#define ACART_PT_POWER      0x40u
#define ACART_PT_MAX_RANGES 4

#define ACART_PT_RANGE_FILTER 1 /* trace only inside */
#define ACART_PT_RANGE_STOP   2 /* stop tracing on entry */

struct acart_pt_filter {
    sep_u64_t start, end; /* end inclusive; ignored when module[0] is set */
    uint32_t cfg;         /* ACART_PT_RANGE_* */
    uint32_t reserved;
    char module[48]; /* a module the target reports, by name or base name: its range */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_filter, 72);

struct acart_pt_config {
    uint32_t version; /* 1 */
    uint32_t mode;    /* ACART_PT_MODE_* */
    uint32_t flags;   /* ACART_PT_OS ... */
    uint8_t mtc_freq, cyc_thresh, psb_freq, num_filters;
    struct acart_pt_filter filters[ACART_PT_MAX_RANGES];
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_config, 16 + 72 * ACART_PT_MAX_RANGES);

#define ACART_PT_OUT_TOPA     0 /* ToPA regions */
#define ACART_PT_OUT_TOPA_ONE 1 /* a one-entry ToPA */
#define ACART_PT_OUT_SINGLE   2 /* single-range output */

struct acart_pt_config_reply {
    sep_u64_t rtit_ctl; /* IA32_RTIT_CTL while tracing (TraceEn set) */
    uint32_t output;    /* ACART_PT_OUT_* */
    uint32_t bytes_per_cpu, region_bytes, regions;
    struct {
        sep_u64_t start, end;
    } filters[ACART_PT_MAX_RANGES]; /* as programmed, module names resolved */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_config_reply, 24 + 16 * ACART_PT_MAX_RANGES);

#define ACART_PT_FREEZE_HOST      0
#define ACART_PT_FREEZE_API       1 /* aca_trace_freeze(code) */
#define ACART_PT_FREEZE_EXCEPTION 2 /* aca_trace_freeze_exception(vector) */

#define ACART_MAX_PT_CPUS 64

struct acart_pt_cpu_status {
    sep_u64_t bytes;       /* trace bytes sent, or to send, on the PT channel for this CPU */
    sep_u64_t lost_bytes;  /* full mode: bytes the trace unit wrote while the ring was full,
                            * a lower bound of what it lost */
    uint32_t lost_events;  /* ... times it was full */
    uint32_t unrecorded;   /* ... of those, without a LOST chunk (too many too fast) */
    uint32_t wrapped;      /* snapshot: older trace was overwritten */
    uint32_t errors;       /* operational errors (IA32_RTIT_STATUS.Error) */
    uint32_t pmis;         /* ToPA interrupts taken */
    uint32_t lost_unknown; /* of lost_events, losses of unknown size (in lost_bytes as 0) */
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_cpu_status, 40);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_cpu_status, lost_events, 16);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_cpu_status, lost_unknown, 36);

struct acart_pt_status {
    uint32_t version; /* 1 */
    uint32_t num_cpus;
    uint32_t mode;          /* ACART_PT_MODE_* */
    uint32_t tracing;       /* 1 while the CPUs trace */
    uint32_t frozen;        /* snapshot: 1 once frozen (the fields below say by what) */
    uint32_t freeze_reason; /* ACART_PT_FREEZE_* */
    uint32_t freeze_code;   /* the firmware's code, or the exception vector */
    uint32_t freeze_cpu;
    sep_u64_t freeze_tsc;
    struct acart_pt_cpu_status cpu[ACART_MAX_PT_CPUS];
};
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_status, cpu, 40);
SEP_WIRE_ASSERT_SIZE(struct acart_pt_status, 40 + 40 * ACART_MAX_PT_CPUS);

/* On the PT channel: a chunk header, then `length` payload bytes. DATA: trace bytes of
 * CPU `cpu` at `offset` of its pt-cpu<N>.bin (chunks of a CPU come in order, without
 * holes). LOST: the target lost at least `value` bytes (0: an unknown number) of that
 * CPU's trace just before `offset`. END: the CPU's trace ends at `offset`; `value` bit 0:
 * snapshot, the ring had wrapped. */
#define ACART_PT_CHUNK_DATA 1
#define ACART_PT_CHUNK_LOST 2
#define ACART_PT_CHUNK_END  3
#define ACART_PT_CHUNK_MAX  (32 * 1024) /* payload bytes */

struct acart_pt_chunk {
    uint16_t type; /* ACART_PT_CHUNK_* */
    uint16_t cpu;
    uint32_t length;
    sep_u64_t offset;
    sep_u64_t value;
};
SEP_WIRE_ASSERT_SIZE(struct acart_pt_chunk, 24);
SEP_WIRE_ASSERT_OFFSET(struct acart_pt_chunk, value, 16);

/* The content of an IPROBE sample file: this header, then records, each an
 * acart_ipr_record and `bytes` of payload, the next record at the next multiple of 8 bytes
 * (docs/iprobe.md, "Sample files"). */
#define ACART_IPR_MAGIC        "acart-ipr-v1"
#define ACART_IPR_MAX_COUNTERS 16

struct acart_ipr_file_header {
    char magic[16]; /* ACART_IPR_MAGIC, NUL-padded */
    sep_u64_t tsc_hz;
    uint32_t num_counters;
    uint32_t reserved;
    /* The event of each counter when the file was opened (IPR_EVENT numbers; 0xffffffff:
     * none), and their names. */
    uint32_t counter_event[ACART_IPR_MAX_COUNTERS];
    char counter_name[ACART_IPR_MAX_COUNTERS][32];
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_file_header, 32 + 64 + 512);

#define ACART_IPR_REC_USER    1 /* IprWriteToSampleFile: the caller's bytes */
#define ACART_IPR_REC_SBUFFER 2 /* a sample buffer: acart_ipr_sbuffer, then its records */
#define ACART_IPR_REC_HIST    3 /* a histogram: acart_ipr_hist, then its u32 cells */

struct acart_ipr_record {
    uint32_t type;  /* ACART_IPR_REC_* */
    uint32_t bytes; /* payload that follows */
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_record, 8);

/* Sample records hold the datcol items (IPR_DATA_* of ipr.h: bit 0 PC, 1 TSC, 2 CPU, 3 pid,
 * 4 tid, 5 counter number, 6 its count) in bit order, 8 bytes for those in qdatcol, 4 for
 * the others (little-endian, the low bits of the value). */
struct acart_ipr_sbuffer {
    uint32_t cpu;
    uint32_t partial; /* 1: written before it was full */
    uint32_t datcol, qdatcol;
    uint32_t record_bytes;
    uint32_t used; /* bytes of records that follow */
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_sbuffer, 24);

/* Cells: bucket-major, num_counters per bucket: cell (b, c) counts samples of counter c
 * whose value lay in [begin + (b << gran), begin + ((b + 1) << gran)). Mode histograms
 * have begin 0, gran 0 and one bucket per IPR_MODE_*. */
struct acart_ipr_hist {
    uint32_t cpu, type, index, gran;
    sep_u64_t begin, end; /* end inclusive */
    uint32_t num_buckets, num_counters;
};
SEP_WIRE_ASSERT_SIZE(struct acart_ipr_hist, 40);

/* GET_THREAD_INFO reply: an array of these, GET_THREAD_COUNT (a uint32_t) of them. */
struct sep_task_info {
    sep_u64_t id;               /* thread id */
    char name[32];              /* NUL-terminated */
    sep_u64_t address_space_id; /* process id */
};
SEP_WIRE_ASSERT_SIZE(struct sep_task_info, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_task_info, name, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_task_info, address_space_id, 40);

/* Code modes (sep_sample_pc.cpu_and_os bits 14:13, sep_module_record.segment_bits 1:0). */
#define SEP_MODE_V86   0
#define SEP_MODE_16BIT 1
#define SEP_MODE_32BIT 2
#define SEP_MODE_64BIT 3

/* Sample record, CPU data channels. Records follow one another with no framing; each is
 * the sample_size of its descriptor long (48 when nothing is appended). */
struct sep_sample_pc {
    uint32_t descriptor_id; /* index of the sep_event_desc this record follows */
    uint32_t osid;          /* 0 */
    sep_u64_t iip;          /* interrupted instruction pointer (the "64-bit PC" form, see ia64pc) */
    sep_u64_t ipsr;         /* EFLAGS | (CPL << 32) */
    uint16_t cs;            /* code segment selector */
    uint16_t cpu_and_os;    /* SEP_SAMPLE_CPU_* */
    uint32_t tid;           /* thread id */
    uint32_t pid_rec_index; /* process id (raw when SEP_SAMPLE_PID_RAW) */
    uint32_t bit_fields2;   /* SEP_SAMPLE_* below */
    sep_u64_t tsc;          /* TSC at the interrupt */
};
SEP_WIRE_ASSERT_SIZE(struct sep_sample_pc, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, iip, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, ipsr, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, cs, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, cpu_and_os, 26);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, tid, 28);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, pid_rec_index, 32);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, bit_fields2, 36);
SEP_WIRE_ASSERT_OFFSET(struct sep_sample_pc, tsc, 40);

/* sep_sample_pc.cpu_and_os */
#define SEP_SAMPLE_CPU_NUM_MASK    0x0FFFu /* bits 11:0 CPU number */
#define SEP_SAMPLE_NOT_VMID0       0x1000u
#define SEP_SAMPLE_CODE_MODE_SHIFT 13 /* bits 14:13, SEP_MODE_* */
#define SEP_SAMPLE_UNCORE_VALID    0x8000u
/* sep_sample_pc.bit_fields2 */
#define SEP_SAMPLE_MR_INDEX_MASK     0x000FFFFFu /* bits 19:0 module record index */
#define SEP_SAMPLE_EVENT_INDEX_SHIFT 20          /* bits 27:20 event index */
#define SEP_SAMPLE_EVENT_INDEX_MASK  (0xFFu << 20)
#define SEP_SAMPLE_TID_IS_RAW        (1u << 28)
#define SEP_SAMPLE_IA64PC            (1u << 29) /* iip/ipsr form (else eip/eflags/csd) */
#define SEP_SAMPLE_PID_RAW           (1u << 30) /* pid_rec_index is an OS pid */
#define SEP_SAMPLE_MR_INDEX_NONE     (1u << 31)

/* The memory information of a PEBS sample (the reference's LATENCY_INFO_NODE): at the
 * descriptor's latency_offset_in_sample, when latency_size_in_sample covers it, for the
 * samples of load-latency events (docs/sep-protocol.md 6.4). */
struct sep_latency_info {
    sep_u64_t linear_address; /* the load's data linear address */
    sep_u64_t data_source;    /* the PEBS record's data source encoding, as the CPU wrote it */
    sep_u64_t latency;        /* core cycles from dispatch to data */
    sep_u64_t stack_pointer;  /* acart: 0 */
    sep_u64_t phys_addr;      /* acart: 0 */
};
SEP_WIRE_ASSERT_SIZE(struct sep_latency_info, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_latency_info, data_source, 8);
SEP_WIRE_ASSERT_OFFSET(struct sep_latency_info, latency, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_latency_info, phys_addr, 32);
/* What a target fills: address, data source, latency. A descriptor's latency area must
 * hold at least these. */
#define SEP_LATENCY_INFO_FILLED 24

/* Uncore sample record header, uncore data channel. The record is the descriptor's
 * sample_size bytes: this header, the group number + 1 as a U64 at the ECB's group_offset,
 * and each counter's count as a U64 at its entry's counter_event_offset. A read of several
 * uncore devices puts their records back to back (docs/sep-protocol.md 6). */
struct sep_uncore_sample_pc {
    uint32_t descriptor_id;
    uint32_t osid;
    uint16_t cpu_num;
    uint16_t pkg_num;
    uint32_t flags; /* SEP_UNCORE_VALID: the counts are valid */
    sep_u64_t reserved2;
    sep_u64_t tsc;
};
SEP_WIRE_ASSERT_SIZE(struct sep_uncore_sample_pc, 32);
SEP_WIRE_ASSERT_OFFSET(struct sep_uncore_sample_pc, flags, 12);
SEP_WIRE_ASSERT_OFFSET(struct sep_uncore_sample_pc, tsc, 24);
#define SEP_UNCORE_VALID 0x1u

/* Module record, module data channel: the record, then path_length bytes of path (its
 * terminating NUL included); rec_length covers both. */
struct sep_module_record {
    uint16_t rec_length;   /* 80 + path bytes (the reference keeps it a multiple of 8) */
    uint16_t segment_bits; /* SEP_MODREC_SEG_* */
    uint16_t selector;     /* code selector */
    uint16_t segment_name_length;
    uint32_t segment_number;
    uint32_t flags;         /* SEP_MODREC_* */
    sep_u64_t length64;     /* bytes of the module's code */
    sep_u64_t load_addr64;  /* address where the module is loaded */
    uint32_t pid_rec_index; /* owning process (raw pid when SEP_MODREC_PID_RAW) */
    uint32_t osid;
    sep_u64_t unload_tsc;
    uint32_t path;            /* 0 in a raw record: the path follows the record */
    uint16_t path_length;     /* path bytes including the NUL */
    uint16_t filename_offset; /* offset of the base name inside the path */
    uint32_t segment_name;
    uint32_t page_offset_high;
    sep_u64_t tsc; /* when the module event occurred */
    uint32_t parent_pid;
    uint32_t page_offset_low;
};
SEP_WIRE_ASSERT_SIZE(struct sep_module_record, 80);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, segment_bits, 2);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, flags, 12);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, length64, 16);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, load_addr64, 24);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, pid_rec_index, 32);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, unload_tsc, 40);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, path, 48);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, path_length, 52);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, filename_offset, 54);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, tsc, 64);
SEP_WIRE_ASSERT_OFFSET(struct sep_module_record, page_offset_low, 76);

/* sep_module_record.segment_bits */
#define SEP_MODREC_SEG_TYPE_MASK 0x0003u /* SEP_MODE_* */
#define SEP_MODREC_SEG_UNLOAD    0x0004u /* 0 load, 1 unload */
#define SEP_MODREC_SEG_PROCESSED 0x0008u
/* sep_module_record.flags */
#define SEP_MODREC_EXE                  (1u << 0)
#define SEP_MODREC_GLOBAL_MODULE        (1u << 1)
#define SEP_MODREC_BOGUS_WIN95          (1u << 2)
#define SEP_MODREC_PID_RAW              (1u << 3)
#define SEP_MODREC_SAMPLE_FOUND         (1u << 4)
#define SEP_MODREC_TSC_USED             (1u << 5)
#define SEP_MODREC_DUPLICATE            (1u << 6)
#define SEP_MODREC_GLOBAL_MODULE_TB5    (1u << 7)
#define SEP_MODREC_SEGMENT_NAME_SET     (1u << 8)
#define SEP_MODREC_FIRST_IN_PROCESS     (1u << 9)
#define SEP_MODREC_SOURCE_HOST          (1u << 10)
#define SEP_MODREC_UNKNOWN_LOAD_ADDRESS (1u << 11)

#endif /* ACART_WIRE_H */
