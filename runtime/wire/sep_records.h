/* For the host tools, the tests and the runtime (not installed): SEP data channel records: samples,
 * PEBS memory information, uncore samples, modules. Part of acart_wire.h (the whole format, see
 * there). */
#ifndef ACART_WIRE_SEP_RECORDS_H
#define ACART_WIRE_SEP_RECORDS_H

#include "sep_base.h"

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

#endif
