/*
 * For the host tools:
 * tbrw_types.h - data types of the TBRW reader/writer API (acart's tb5 library).
 *
 * The names, members and values follow the public "VTune Performance Analyzer
 * Reader/Writer API (TBRW) User Guide", chapter 8, so that code written against
 * the guide compiles against this library. Where the guide's text is damaged or
 * self-contradictory the header keeps every spelling the guide uses (see the
 * aliases marked "guide spelling"). Padding is always explicit: every structure
 * has the same layout on any LP64 little-endian host, checked by the static
 * assertions below. The on-disk encoding is NOT these structures: see
 * docs/tb5-format.md.
 */
#ifndef TBRW_TYPES_H
#define TBRW_TYPES_H

#include <stddef.h>
#include <wchar.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parameter annotations used by the guide's prototypes; they expand to nothing. */
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef INOUT
#define INOUT
#endif
#ifndef OPTIONAL
#define OPTIONAL
#endif

/* 8.1 Basic types */
typedef wchar_t TBRW_CHAR;
typedef unsigned char TBRW_U8;
typedef unsigned short TBRW_U16;
typedef unsigned int TBRW_U32;
typedef signed int TBRW_S32;
typedef signed long long TBRW_S64;
typedef unsigned long long TBRW_U64;

/* The opaque handle returned by TBRW_open. */
typedef void *TBRW_PTR;

/* Access-mode flags for TBRW_open; combine with |. */
#define TBRW_FILE_READ          0x00000001u
#define TBRW_FILE_WRITE         0x00000002u
#define TBRW_FILE_CREATE_ALWAYS 0x00000004u

/*
 * A string on write, a unique id on read. Writers set soi_ptr (NULL means "no
 * string"); readers get soi_uniqueid and turn it back into text with
 * TBRW_convert_uniqueid_to_string. This library sets bit 63 on every id it hands
 * out, so an id can never be mistaken for a pointer; id 0 is the NULL string.
 */
typedef struct __string_or_id {
    union {
        TBRW_U64 soi_uniqueid;
        TBRW_CHAR *soi_ptr;
    };
} TBRW_STRING_OR_ID;

#define TBRW_UNIQUEID_TAG (1ULL << 63)

/* 8.2 Section identifiers */
typedef enum {
    TBRW_HARDWARE_SECTION,
    TBRW_SOFTWARE_SECTION,
    TBRW_PROCESS_THREAD_SECTION,
    TBRW_MODULE_SECTION,
    TBRW_USER_DEFINED_GLOBAL_SECTION,
    TBRW_VERSION_INFO_SECTION
} TBRW_SECTION_IDENTIFIER;

typedef enum {
    TBRW_EVENT_DESCRIPTION_SECTION,
    TBRW_DATA_DESCRIPTION_SECTION,
    TBRW_DATA_SECTION,
    TBRW_USER_DEFINED_STREAM_SECTION,
    TBRW_STREAM_INFO_SECTION
} TBRW_STREAM_SECTION_IDENTIFIER;

/* Native architecture of a processor (TBRW_CPU.cpu_native_arch_type). */
#define CPU_ARCHITECTURE_NOT_SET 0
#define CPU_ARCHITECTURE_IA32    1
#define CPU_ARCHITECTURE_IA64    2

/* Architecture of a TBRW_CPU_ARCH entry (arch_type). */
typedef enum {
    TBRW_GST_UNK = 0,
    TBRW_GST_X86,
    TBRW_GST_ITANIUM,
    TBRW_GST_RESERVED1,
    TBRW_GST_RESERVED2,
    TBRW_GST_EM64T,
    TBRW_GST_RESERVED3
} TBRW_GEN_ENTRY_SUBTYPES;

/* 8.3 Hardware structures */
typedef struct __TBRW_cpuid_ia32 {
    TBRW_U32 cpuid_eax_input; /* the eax value CPUID was executed with */
    TBRW_U32 cpuid_eax;
    TBRW_U32 cpuid_ebx;
    TBRW_U32 cpuid_ecx;
    TBRW_U32 cpuid_edx;
    TBRW_U32 reserved;
} TBRW_CPUID_IA32;

typedef struct __TBRW_cpuid_ia64 {
    TBRW_U64 cpuid_select;
    TBRW_U64 cpuid_val;
    TBRW_U64 reserved;
} TBRW_CPUID_IA64;

/* cpuid_ia64_array is used when arch_type == TBRW_GST_ITANIUM, cpuid_ia32_array otherwise. */
typedef struct __TBRW_cpu_arch {
    TBRW_U32 arch_size;      /* sizeof(TBRW_CPU_ARCH) */
    TBRW_U16 arch_type;      /* TBRW_GEN_ENTRY_SUBTYPES */
    TBRW_U16 arch_num_cpuid; /* entries in the cpuid array */
    union {
        TBRW_CPUID_IA32 *cpuid_ia32_array;
        TBRW_CPUID_IA64 *cpuid_ia64_array;
    };
} TBRW_CPU_ARCH;

typedef struct __TBRW_cpu {
    TBRW_U32 cpu_size;                   /* sizeof(TBRW_CPU) */
    TBRW_U32 cpu_number;                 /* logical cpu number */
    TBRW_U32 cpu_native_arch_type;       /* CPU_ARCHITECTURE_* */
    TBRW_U32 cpu_intel_processor_number; /* processor number, if known */
    TBRW_U32 cpu_speed_mhz;
    TBRW_U32 cpu_fsb_mhz;
    TBRW_U32 cpu_cache_L2;   /* KiB */
    TBRW_U32 cpu_cache_L3;   /* KiB */
    TBRW_S64 cpu_tsc_offset; /* TSC of this cpu minus TSC of cpu 0 */
    union {
        TBRW_U16 cpu_package_num;
        TBRW_U16 cpu_pacakge_num; /* guide spelling (8.3) */
    };
    TBRW_U16 cpu_core_num;
    TBRW_U16 cpu_hardware_thread_num;
    TBRW_U16 cpu_threads_per_core;
    TBRW_U32 num_cpu_arch_array; /* entries in cpu_arch_array; the native one must be there */
    TBRW_U32 cpu_reserved;
    TBRW_CPU_ARCH *cpu_arch_array;
} TBRW_CPU;

typedef struct __TBRW_node {
    TBRW_U32 node_size;            /* sizeof(TBRW_NODE) */
    TBRW_U32 node_type_from_shell; /* set to 0 */
    TBRW_U32 node_id;
    TBRW_U32 node_num_available; /* cpus on this node, = entries in cpu_array */
    TBRW_U32 node_num_used;      /* cpus used by the collection (cpu mask) */
    TBRW_U32 node_reserved;
    TBRW_U64 node_physical_memory; /* MiB */
    TBRW_CPU *cpu_array;
} TBRW_NODE;

typedef struct __TBRW_system {
    TBRW_U32 system_size; /* sizeof(TBRW_SYSTEM) */
    TBRW_U32 system_num_nodes;
    TBRW_NODE *node_array;
} TBRW_SYSTEM;

/* 8.4 Software structures */
#define TBRW_OSFAMILY_WIN32   0x00000001u
#define TBRW_OSFAMILY_WIN64   0x00000002u
#define TBRW_OSFAMILY_WINCE   0x00000003u
#define TBRW_OSFAMILY_XOS     0x00000004u
#define TBRW_OSFAMILY_LINUX32 0x00000005u
#define TBRW_OSFAMILY_LINUX64 0x00000006u
/* 7.1: platforms of your own take a value in this range. */
#define TBRW_OSFAMILY_USER_FIRST 0x00000100u
#define TBRW_OSFAMILY_USER_LAST  0x000001FFu

typedef struct __TBRW_host {
    TBRW_U32 host_size; /* sizeof(TBRW_HOST) */
    TBRW_U32 reserved;
    TBRW_STRING_OR_ID host_ip_address;
    TBRW_STRING_OR_ID host_name;
} TBRW_HOST;

typedef struct __TBRW_os {
    TBRW_U32 os_size;     /* sizeof(TBRW_OS) */
    TBRW_U32 os_platform; /* TBRW_OSFAMILY_* */
    TBRW_U32 os_major;
    TBRW_U32 os_minor;
    TBRW_U32 os_build;
    TBRW_U32 os_extra; /* service pack, errata, ... */
    TBRW_STRING_OR_ID os_name;
    TBRW_STRING_OR_ID os_name_extra; /* e.g. `uname -r` */
} TBRW_OS;

typedef struct __TBRW_application {
    TBRW_U32 app_size;     /* sizeof(TBRW_APPLICATION) */
    TBRW_U32 app_reserved; /* set to zero */
    TBRW_U32 app_page_size;
    TBRW_U32 app_alloc_granularity;
    TBRW_U64 app_min_app_addr;
    TBRW_U64 app_max_app_addr;
} TBRW_APPLICATION;

/* 8.5 Process/thread structures */
#define TBRW_PIDTID_CREATED         0x00000000u
#define TBRW_PIDTID_DESTROYED       0x00000001u
#define TBRW_PIDTID_WHEN_SAMP_COUNT 0x00000000u
#define TBRW_PIDTID_WHEN_TSC        0x00000010u
#define TBRW_PIDTID_CREATION_MASK   0x00000001u

typedef struct __TBRW_pid {
    TBRW_U32 pid_size;  /* sizeof(TBRW_PID) */
    TBRW_U32 pid_id;    /* OS process id, as in the sample records */
    TBRW_U32 pid_flags; /* TBRW_PIDTID_* */
    TBRW_U32 reserved;
    TBRW_U64 pid_event_when; /* when the process was created (TSC or sample number) */
    TBRW_U32 reserved1;
    TBRW_U32 reserved2;
    TBRW_STRING_OR_ID pid_path; /* executable path */
    TBRW_STRING_OR_ID pid_name; /* process name */
} TBRW_PID;

typedef struct __TBRW_tid {
    TBRW_U32 tid_size;           /* sizeof(TBRW_TID) */
    TBRW_U32 tid_associated_pid; /* OS pid of the owning process */
    TBRW_U32 tid_id;             /* OS thread id, as in the sample records */
    TBRW_U32 tid_flags;          /* TBRW_PIDTID_* */
    TBRW_U64 tid_event_when;
    TBRW_U32 reserved1;
    TBRW_U32 reserved2;
    TBRW_STRING_OR_ID tid_name;
} TBRW_TID;

/* 8.6 Module structure */
#define TBRW_MODULE_TSC_USED                  0x10000u /* event_when/unload_tsc are TSC values */
#define TBRW_MODULE_LOADED                    0x08000u /* a load notification */
#define TBRW_MODULE_UNLOADED                  0x04000u /* an unload notification */
#define TBRW_MODULE_LOADED_MASK               0x02000u
#define TBRW_MODULE_IS_EXE                    0x01000u /* the process's executable */
#define TBRW_MODULE_GLOBAL_LOAD               0x00800u /* kernel module, seen by every process */
#define TBRW_MODULE_1ST_MODULE_REC_IN_PROCESS 0x00400u

/* Execution modes, the same numbers as the SEP driver's; 0 = unknown (fits the 2-bit fields). */
#define TBRW_MODE_UNKNOWN 0u
#define TBRW_MODE_16BIT   1u
#define TBRW_MODE_32BIT   2u
#define TBRW_MODE_64BIT   3u
#define TBRW_MODE_64_BIT  TBRW_MODE_64BIT /* guide spelling (6.6) */

typedef struct __TBRW_module {
    TBRW_U32 module_size; /* sizeof(TBRW_MODULE) */
    TBRW_U32 module_reserved;
    TBRW_U32 module_associated_pid; /* OS pid that loaded the module */
    TBRW_U32 module_flags;          /* TBRW_MODULE_* */
    /* Load time: a TSC value with TBRW_MODULE_TSC_USED, else a sample number; 0 = loaded
     * before the collection started. */
    TBRW_U64 module_event_when;
    TBRW_U32 module_segment_number;
    TBRW_U32 module_segment_type : 2; /* TBRW_MODE_* */
    TBRW_U32 : 30;
    TBRW_U32 module_code_selector; /* must match TBRW_SampleRecordPC.cs */
    TBRW_U32 reserved;
    TBRW_U64 module_length;
    TBRW_U64 module_load_address;
    TBRW_U32 reserved_for_legacy; /* unload sample number for sample-count data; 0 = never */
    TBRW_U32 reserved_for_legacy2;
    TBRW_U32 reserved_for_legacy_flags;
    TBRW_U32 reserved1;
    TBRW_U64 module_unload_tsc; /* unload TSC; (TBRW_U64)-1 (or 0) = still loaded at the end */
    TBRW_STRING_OR_ID module_path;
    TBRW_STRING_OR_ID module_name;
    TBRW_STRING_OR_ID module_segment_name;
} TBRW_MODULE;

/* 8.7 Version information */
typedef struct __TBRW_version_info {
    TBRW_U32 version_info_size;       /* sizeof(TBRW_VERSION_INFO) */
    TBRW_U32 sampling_driver_version; /* 0xFFFFFFFF = unknown (7.4) */
    TBRW_U32 bind_version;
    TBRW_U32 sample_file_version;
} TBRW_VERSION_INFO;

/* 8.8 Stream information */
typedef struct _TBRW_FILETIME {
    TBRW_U32 dwLowDateTime;
    TBRW_U32 dwHighDateTime;
} TBRW_FILETIME;
typedef TBRW_FILETIME VTUNE_ANALYZER_FILETIME; /* guide spelling (8.8) */

/* 8.9 Stream types */
typedef enum {
    TBRW_SAMPLING_STREAM = 1,
    TBRW_AGGREGATED_STREAM,
    TBRW_BOOKMARK_STREAM,
    TBRW_BIND_DATA_INFORMATION_STREAM,
    TBRW_BIND_MODULE_INFORMATION_STREAM,
    TBRW_BIND_PID_INFORMATION_STREAM,
    TBRW_BIND_TID_INFORMATION_STREAM,
    TBRW_CUSTOM_STREAM
} TBRW_STREAM_TYPE;

typedef struct __TBRW_stream_info {
    TBRW_U32 stream_info_size;  /* sizeof(TBRW_STREAM_INFO) */
    TBRW_U32 sampling_duration; /* milliseconds */
    TBRW_U32 stream_type;       /* TBRW_STREAM_TYPE */
    TBRW_U32 sampling_interval; /* microseconds */
    TBRW_FILETIME sampling_start_time;
    TBRW_FILETIME sampling_end_time;
    TBRW_STRING_OR_ID command_line;
    TBRW_STRING_OR_ID cpu_mask;
    TBRW_STRING_OR_ID comment;
} TBRW_STREAM_INFO;

/* 8.10 Event descriptor */
#define TBRW_EVENT_TBS       0x00000000u
#define TBRW_EVENT_EBS       0x00000001u
#define TBRW_EVENT_MODE_MASK 0x00000001u

typedef enum {
    TBRW_MSR = 0,
    TBRW_PMC,
    TBRW_PMD,
    TBRW_TBS_VTD,
    TBRW_TBS_RTC,
    TBRW_TBS_STATCARD,
    TBRW_OS_EVENT
} TBRW_ACCESS_METHOD;

typedef struct __TBRW_event_detail {
    TBRW_U32 detail_size;        /* sizeof(TBRW_EVENT_DETAIL) */
    TBRW_U16 detail_access_size; /* bits: 8, 16, 32, 64 */
    TBRW_U8 detail_method;       /* TBRW_ACCESS_METHOD */
    TBRW_U8 detail_access;       /* 0 = read, 1 = write */
    TBRW_U64 detail_address;
    TBRW_U64 detail_value;
    TBRW_U8 legacy_command; /* set to 0 */
    TBRW_U8 reserved1;
    TBRW_U16 reserved2;
    TBRW_U32 reserved3;
} TBRW_EVENT_DETAIL;

/*
 * event_id is the event's position in the stream's event section (0, 1, 2, ...) and
 * is what TBRW_SampleRecordPC.eventIndex refers to. When events are read back,
 * every event_detail_array points into the same buffer as the events.
 */
typedef struct __TBRW_event {
    TBRW_U32 event_size; /* sizeof(TBRW_EVENT) */
    TBRW_U32 event_id;
    TBRW_U32 event_num_details; /* entries in event_detail_array (may be 0) */
    TBRW_U32 event_flags;       /* TBRW_EVENT_EBS or TBRW_EVENT_TBS */
    TBRW_U64 event_sav;         /* sample-after value */
    TBRW_STRING_OR_ID event_name;
    TBRW_STRING_OR_ID event_arch_name;
    TBRW_EVENT_DETAIL *event_detail_array;
} TBRW_EVENT;

/* 8.11 Data descriptor entry; the ST_ and SST_ values are in samprec_shared.h. */
typedef struct __tbrw_samprec_desc_entry {
    union {
        TBRW_U64 force_8_byte_aligned;
        struct {
            TBRW_U32 desc_size; /* sizeof(TBRW_SAMPREC_DESC_ENTRY) */
            TBRW_U32
            desc_offset;        /* byte offset in the record (see TBRW_add_data_descriptor_entry) */
            TBRW_U16 desc_type; /* ST_* */
            union {
                TBRW_U16 desc_subtype;  /* SST_* */
                TBRW_U16 desc_sub_type; /* guide spelling (6.9) */
            };
            TBRW_U32 desc_data_size; /* bytes */
            TBRW_U64 desc_access_offset;
            TBRW_U8 desc_access_type;   /* 0 = read, 1 = write */
            TBRW_U8 desc_access_method; /* 0 = register, 1 = memory */
            TBRW_U8 desc_sample_flag;
            TBRW_U8 reserved0;
            TBRW_U32 reserved1;
            TBRW_STRING_OR_ID desc_name;
        };
    };
} TBRW_SAMPREC_DESC_ENTRY;

/* 6.10 The legacy sample record: the only record kind of data stream 0. */
typedef struct TBRW_CodeDescriptor_s {
    union {
        TBRW_U32 lowWord;
        struct {
            TBRW_U16 limitLow; /* limit 15:0 */
            TBRW_U16 baseLow;  /* base 15:0 */
        };
    };
    union {
        TBRW_U32 highWord;
        struct {
            TBRW_U32 baseMid : 8; /* base 23:16 */
            TBRW_U32 accessed : 1;
            TBRW_U32 readable : 1;
            TBRW_U32 conforming : 1;
            TBRW_U32 oneOne : 2;
            TBRW_U32 dpl : 2;
            TBRW_U32 pres : 1;
            TBRW_U32 limitHi : 4; /* limit 19:16 */
            TBRW_U32 sys : 1;
            TBRW_U32 reserved_0 : 1;
            TBRW_U32 default_size : 1;
            TBRW_U32 granularity : 1;
            TBRW_U32 baseHi : 8; /* base 31:24 */
        };
    };
} TBRW_CodeDescriptor;

typedef struct TBRW_SampleRecordPC_s {
    union {
        struct {
            TBRW_U64 iip;  /* IA-64 instruction pointer (IA64PC = 1) */
            TBRW_U64 ipsr; /* IA-64 processor status */
        };
        struct {
            TBRW_U32 eip;    /* IA-32 instruction pointer (IA64PC = 0) */
            TBRW_U32 eflags; /* IA-32 eflags */
            TBRW_CodeDescriptor csd;
        };
    };
    TBRW_U16 cs; /* code selector, as in TBRW_MODULE.module_code_selector */
    union {
        TBRW_U16 cpuAndOS;
        struct {
            TBRW_U16 cpuNum : 12;
            TBRW_U16 notVmid0 : 1; /* set to 0 */
            TBRW_U16 codeMode : 2; /* TBRW_MODE_* */
            TBRW_U16 : 1;
        };
    };
    TBRW_U32 tid;         /* OS thread id */
    TBRW_U32 pidRecIndex; /* OS process id when pidRecIndexRaw = 1 */
    union {
        TBRW_U32 bitFields2;
        struct {
            TBRW_U32 mrIndex : 20;   /* set to 0: binding does not rewrite records */
            TBRW_U32 eventIndex : 8; /* event_id of the event that triggered the sample */
            TBRW_U32 tidIsRaw : 1;
            TBRW_U32 IA64PC : 1;
            TBRW_U32 pidRecIndexRaw : 1;
            TBRW_U32 mrIndexNone : 1;
        };
    };
} TBRW_SampleRecordPC, *TBRW_PSampleRecordPC;

typedef struct TBRW_SampleRecordTSC_s {
    TBRW_U64 tsc;
} TBRW_SampleRecordTSC;

/* 8.12 Bind structures. Index fields are TBRW_BIND_NO_INDEX when nothing matched. */
#define TBRW_BIND_NO_INDEX (~0ULL)

typedef struct __data_bind_struct {
    TBRW_U64 module_index; /* into the module section */
    TBRW_U64 pid_index;    /* into the process list */
    TBRW_U64 tid_index;    /* into the thread list */
} DATA_BIND_STRUCT;

typedef struct __module_bind_struct {
    TBRW_U64 pid_index;
} MODULE_BIND_STRUCT;

typedef struct __tid_bind_struct {
    TBRW_U64 pid_index;
} TID_BIND_STRUCT;

/*
 * 9.5 Callbacks. The enumerate functions take "NAME_CALLBACK *callback_func" as the
 * guide prints them; the names below are therefore function types, so a plain
 * function name can be passed. Every callback gets a read-only batch of
 * num_entries entries (data_size bytes in all) that is valid only during the call,
 * and returns 1 (TRUE) for more, 0 (FALSE) to stop; any other value stops the
 * enumeration, which then returns that value.
 */
typedef TBRW_U32 TBRW_DATA_CALLBACK(void *data, TBRW_U32 data_size, TBRW_U32 num_entries,
                                    void *user_ptr);
typedef TBRW_U32 TBRW_PID_CALLBACK(TBRW_PID *pid, TBRW_U32 pid_data_size, TBRW_U32 num_entries,
                                   void *user_ptr);
typedef TBRW_U32 TBRW_TID_CALLBACK(TBRW_TID *tid, TBRW_U32 tid_data_size, TBRW_U32 num_entries,
                                   void *user_ptr);
typedef TBRW_U32 TBRW_MODULE_CALLBACK(TBRW_MODULE *module, TBRW_U32 module_data_size,
                                      TBRW_U32 num_entries, void *user_ptr);
typedef TBRW_U32 TBRW_EVENT_CALLBACK(TBRW_EVENT *event, TBRW_U32 event_data_size,
                                     TBRW_U32 num_entries, void *user_ptr);
typedef TBRW_U32 TBRW_DATA_DESC_CALLBACK(TBRW_SAMPREC_DESC_ENTRY *data_desc,
                                         TBRW_U32 data_desc_size, TBRW_U32 num_entries,
                                         void *user_ptr);

/* Bind callbacks: entry i of bind_table belongs to entry i of the data/module/tid batch. */
typedef TBRW_U32 BIND_DATA_CALLBACK(const void *data, TBRW_U32 sizeof_data_buffer,
                                    TBRW_U64 num_entries, const DATA_BIND_STRUCT *bind_table,
                                    TBRW_U32 sizeof_bind_buffer, void *user_ptr);
typedef TBRW_U32 BIND_MODULE_CALLBACK(const TBRW_MODULE *module, TBRW_U32 sizeof_module_buffer,
                                      TBRW_U64 num_entries, const MODULE_BIND_STRUCT *bind_table,
                                      TBRW_U32 sizeof_bind_buffer, void *user_ptr);
typedef TBRW_U32 BIND_TID_CALLBACK(const TBRW_TID *tid, TBRW_U32 sizeof_tid_buffer,
                                   TBRW_U64 num_entries, const TID_BIND_STRUCT *bind_table,
                                   TBRW_U32 sizeof_bind_buffer, void *user_ptr);

/* Layout checks: the sizes are the ones every LP64 host agrees on. */
#if !defined(__cplusplus)
#define TBRW_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#else
#define TBRW_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#endif
TBRW_STATIC_ASSERT(sizeof(TBRW_STRING_OR_ID) == 8, "TBRW_STRING_OR_ID");
TBRW_STATIC_ASSERT(sizeof(TBRW_CPUID_IA32) == 24, "TBRW_CPUID_IA32");
TBRW_STATIC_ASSERT(sizeof(TBRW_CPUID_IA64) == 24, "TBRW_CPUID_IA64");
TBRW_STATIC_ASSERT(sizeof(TBRW_HOST) == 24, "TBRW_HOST");
TBRW_STATIC_ASSERT(sizeof(TBRW_OS) == 40, "TBRW_OS");
TBRW_STATIC_ASSERT(sizeof(TBRW_APPLICATION) == 32, "TBRW_APPLICATION");
TBRW_STATIC_ASSERT(sizeof(TBRW_PID) == 48, "TBRW_PID");
TBRW_STATIC_ASSERT(sizeof(TBRW_TID) == 40, "TBRW_TID");
TBRW_STATIC_ASSERT(sizeof(TBRW_MODULE) == 104, "TBRW_MODULE");
TBRW_STATIC_ASSERT(offsetof(TBRW_MODULE, module_length) == 40, "TBRW_MODULE.module_length");
TBRW_STATIC_ASSERT(offsetof(TBRW_MODULE, module_path) == 80, "TBRW_MODULE.module_path");
TBRW_STATIC_ASSERT(sizeof(TBRW_VERSION_INFO) == 16, "TBRW_VERSION_INFO");
TBRW_STATIC_ASSERT(sizeof(TBRW_STREAM_INFO) == 56, "TBRW_STREAM_INFO");
TBRW_STATIC_ASSERT(sizeof(TBRW_EVENT_DETAIL) == 32, "TBRW_EVENT_DETAIL");
TBRW_STATIC_ASSERT(sizeof(TBRW_SAMPREC_DESC_ENTRY) == 40, "TBRW_SAMPREC_DESC_ENTRY");
TBRW_STATIC_ASSERT(sizeof(TBRW_CodeDescriptor) == 8, "TBRW_CodeDescriptor");
TBRW_STATIC_ASSERT(sizeof(TBRW_SampleRecordPC) == 32, "TBRW_SampleRecordPC");
TBRW_STATIC_ASSERT(offsetof(TBRW_SampleRecordPC, cs) == 16, "TBRW_SampleRecordPC.cs");
TBRW_STATIC_ASSERT(offsetof(TBRW_SampleRecordPC, tid) == 20, "TBRW_SampleRecordPC.tid");
TBRW_STATIC_ASSERT(offsetof(TBRW_SampleRecordPC, pidRecIndex) == 24, "TBRW_SampleRecordPC.pid");
TBRW_STATIC_ASSERT(offsetof(TBRW_SampleRecordPC, bitFields2) == 28, "TBRW_SampleRecordPC.bits");
TBRW_STATIC_ASSERT(sizeof(TBRW_SampleRecordTSC) == 8, "TBRW_SampleRecordTSC");
TBRW_STATIC_ASSERT(sizeof(DATA_BIND_STRUCT) == 24, "DATA_BIND_STRUCT");
TBRW_STATIC_ASSERT(sizeof(MODULE_BIND_STRUCT) == 8, "MODULE_BIND_STRUCT");
TBRW_STATIC_ASSERT(sizeof(TID_BIND_STRUCT) == 8, "TID_BIND_STRUCT");
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8
TBRW_STATIC_ASSERT(sizeof(TBRW_CPU_ARCH) == 16, "TBRW_CPU_ARCH");
TBRW_STATIC_ASSERT(sizeof(TBRW_CPU) == 64, "TBRW_CPU");
TBRW_STATIC_ASSERT(sizeof(TBRW_NODE) == 40, "TBRW_NODE");
TBRW_STATIC_ASSERT(sizeof(TBRW_SYSTEM) == 16, "TBRW_SYSTEM");
TBRW_STATIC_ASSERT(sizeof(TBRW_EVENT) == 48, "TBRW_EVENT");
#endif

#ifdef __cplusplus
}
#endif

#endif /* TBRW_TYPES_H */
