/*
 * For the host tools:
 * samprec_shared.h - data descriptor types (ST_*) and subtypes (SST_*) of the TBRW
 * API, as listed in chapter 8.11 of the TBRW user guide. A data descriptor entry
 * (TBRW_SAMPREC_DESC_ENTRY) names one field of a stream's fixed-size record with
 * one of these.
 */
#ifndef TBRW_SAMPREC_SHARED_H
#define TBRW_SAMPREC_SHARED_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ST_NONE = 0,
    ST_LEGACY_SAMPLE_RECORD, /* a whole TBRW_SampleRecordPC: data stream 0 only */
    ST_IP,
    ST_PID,
    ST_TID,
    ST_PROCESSOR_NUMBER,
    ST_PROCESSOR_STATUS,
    ST_TIME_STAMP,
    ST_POWER,
    ST_INTERRUPT_FAULT_ADDR,
    ST_IEAR,
    ST_DEAR,
    ST_BRANCH_TRACE,
    ST_INST_TRACE,
    ST_PMD,
    ST_IEAR_PHYSICAL,
    ST_DEAR_PHYSICAL,
    ST_BRANCH_TRACE_PHYSICAL,
    ST_INST_TRACE_PHYSICAL,
    ST_PMD_PHYSICAL,
    ST_LEGACY_UNKNOWN,
    ST_SAMPLE_LAST,
    ST_TIMESTAMP = ST_TIME_STAMP, /* guide spelling (6.9) */

    /* Extended entries (0x2000-0x2FFF) are computed from a record; they occupy no
     * bytes of it. */
    ST_START_EXT_SAMPLE_REC_ENTRIES = 0x2000,
    ST_END_EXT_SAMPLE_REC_ENTRIES = 0x2FFF,
    ST_PROCESS = 0x2000,
    ST_THREAD,
    ST_MODULE_SEGMENT_NAME,
    ST_SEG_NUM,
    ST_SEG_OFFSET,
    ST_SEG_TYPE,
    ST_MODULE_LOAD_ADDRESS,
    ST_MODULE,
    ST_MODULE_PATH,
    ST_EVENT_ID,
    ST_EVENT,
    ST_HARDWARE_THREAD,
    ST_CORE,
    ST_PACKAGE,
    ST_SAMPLES,
    ST_EVENT_COUNTS,
    ST_FUNCTION,
    ST_FUNCTION_FULL_NAME,
    ST_CLASS,
    ST_FN_SIZE,
    ST_RVA,
    ST_FN_SEG_OFFSET,
    ST_FN_RVA,
    ST_WALL_CLOCK,
    ST_FNID_SUM,
    ST_FNID_AVG,
    ST_FNID_MIN,
    ST_FNID_MAX,
    ST_PROCESS_IDX,
    ST_THREAD_IDX,
    ST_MODULE_IDX,
    ST_EVENT_IDX,
    ST_SAMPLE_IDX,
    ST_PERCENTAGE_TOTAL,
    ST_PERCENTAGE_SEL,
    ST_MODULE_IDX_FOR_PROCESS_NAME,
    ST_ANNOTATION,
    ST_POST_PROCESS_LAST,

    /* User-defined fields (0x4000-0x7FFF): stored, never interpreted. */
    ST_START_USER_DEFINED = 0x4000,
    ST_END_USER_DEFINED = 0x7FFF,

    /* It is an error to use a type in this range. */
    ST_RESERVED_START = 0x8000,
    ST_RESERVED_END = 0xFFFF
} TBRW_DESC_TYPE;

typedef enum {
    SST_NONE = 0,
    SST_BLANK_SPACE, /* left empty by the collector for someone else to fill */
    SST_TS_MILLISECONDS,
    SST_TS_CPU_CYCLES,
    SST_TS_FSB_CYCLES,
    SST_TS_OTHER,
    SST_TS_SAMPLE_COUNT,
    SST_TS_NANOSECONDS,
    SST_LBR_TOS,
    SST_LBR_FROM,
    SST_LBR_TO,
    SST_LBR_FROM_TO,
    SST_LBR_OTHER,
    SST_IEAR_CONFIG,
    SST_IEAR_INST_ADDR,
    SST_IEAR_LATENCY,
    SST_DEAR_CONFIG,
    SST_DEAR_INST_ADDR,
    SST_DEAR_LATENCY,
    SST_DEAR_DATA_ADDR,
    SST_BTB_CONFIG,
    SST_BTB_INDEX,
    SST_BTB_EXTENSION,
    SST_BTB_DATA,
    SST_IPEAR_CONFIG,
    SST_IPEAR_INDEX,
    SST_IPEAR_EXTENSION,
    SST_IPEAR_DATA,
    SST_IIP,
    SST_IPSR,
    SST_EIP,
    SST_EFLAGS,
    SST_TSC,
    SST_ITC,
    SST_PSTATE,
    SST_IA32_PERF_STATUS,
    SST_IFA,
    SST_RESERVED_START = 0x8000,
    SST_RESERVED_END = 0xFFFF
} TBRW_DESC_SUBTYPE;

#ifdef __cplusplus
}
#endif

#endif /* TBRW_SAMPREC_SHARED_H */
