/* For the host tools, the tests and the runtime (not installed): The SEP system configuration blob
 * (GET_SYS_CONFIG reply). Part of acart_wire.h (the whole format, see there). */
#ifndef ACART_WIRE_SEP_SYS_CONFIG_H
#define ACART_WIRE_SEP_SYS_CONFIG_H

#include "sep_base.h"

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

#endif
