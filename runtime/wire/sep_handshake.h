/* For the host tools, the tests and the runtime (not installed): The SEP handshake: the first
 * messages on the control and data connections. Part of acart_wire.h (the whole format, see there).
 */
#ifndef ACART_WIRE_SEP_HANDSHAKE_H
#define ACART_WIRE_SEP_HANDSHAKE_H

#include "sep_base.h"

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

#endif
