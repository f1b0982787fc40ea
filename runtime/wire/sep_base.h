/* For the host tools, the tests and the runtime (not installed): The SEP wire format's base: 64-bit
 * wire integers, the layout checks, connection constants, status codes and command ids. Part of
 * acart_wire.h (the whole format, see there). */
#ifndef ACART_WIRE_SEP_BASE_H
#define ACART_WIRE_SEP_BASE_H

#include <stddef.h>
#include <stdint.h>

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

#endif
