/* Precise Event-Based Sampling: on overflow of a PEBS-enabled counter the CPU itself writes
 * a record (the exact IP of the instruction, registers, TSC, ...) into a buffer described by
 * the Debug Store (DS) save area, reloads the counter from a reset value kept there, and
 * raises a PMI once the buffer index passes a threshold. We set the threshold one record
 * past the base, so every record interrupts and the handler sees it while it is fresh.
 *
 * Each CPU needs its own DS area and buffer; the caller provides PEBS_DS_BYTES_PER_CPU bytes
 * per CPU (static, 64-byte aligned, in memory that stays mapped: the CPU writes it from any
 * context). Only the 64-bit DS layout is supported, which CPUs with DTES64 use in every mode,
 * 32-bit protected mode included.
 *
 * Record layouts by IA32_PERF_CAPABILITIES[11:8]: formats 0-3 are fixed-size records whose
 * fields grow with each format; formats 4 and later with PEBS "baseline" are adaptive: a
 * basic group (record info, IP, applicable counters, TSC) followed by the groups chosen in
 * MSR_PEBS_DATA_CFG. */
#ifndef ACART_ARCH_X86_PEBS_H
#define ACART_ARCH_X86_PEBS_H

#include <stdint.h>

#ifndef PEBS_DS_BYTES_PER_CPU
#define PEBS_DS_BYTES_PER_CPU 4096
#endif
#define PEBS_DS_ALIGN 64
/* The DS area proper, rounded up; records follow it. */
#define PEBS_DS_HEADER_BYTES 512

#define MSR_IA32_MISC_ENABLE          0x1a0u
#define MISC_ENABLE_PERFMON_AVAILABLE (1ull << 7)
#define MISC_ENABLE_PEBS_UNAVAILABLE  (1ull << 12)
#define MSR_IA32_DS_AREA              0x600u
#define MSR_IA32_PEBS_ENABLE          0x3f1u
#define MSR_PEBS_DATA_CFG             0x3f2u

/* MSR_PEBS_DATA_CFG: groups an adaptive record carries after the basic group. */
#define PEBS_DATA_CFG_MEMORY    (1ull << 0)
#define PEBS_DATA_CFG_GPRS      (1ull << 1)
#define PEBS_DATA_CFG_XMMS      (1ull << 2)
#define PEBS_DATA_CFG_LBRS      (1ull << 3)
#define PEBS_DATA_CFG_LBR_SHIFT 24 /* [31:24]: LBR entries minus one */
#define PEBS_DATA_CFG_VALID     (0xffull << PEBS_DATA_CFG_LBR_SHIFT | 0xfull)

/* The DS save area in its 64-bit layout (SDM vol. 3B, "64-bit format of the DS save
 * area"). The PEBS counter reset values follow at 0x40, one per counter: IA32_PMCx at
 * reset[x]; fixed counter j (from adaptive PEBS on) at reset[8 + j] up to PEBS format 4,
 * and at reset[32 + j] from format 5, whose area has room for 32 general counters (Linux
 * intel_pmu_pebs_enable(): MAX_PEBS_EVENTS_FMT4 + j, MAX_PEBS_EVENTS + j). */
#define PEBS_MAX_RESETS 36
struct pebs_ds_area {
    uint64_t bts_base, bts_index, bts_max, bts_threshold;
    uint64_t pebs_base, pebs_index, pebs_max, pebs_threshold;
    uint64_t reset[PEBS_MAX_RESETS]; /* reload value of a counter after its record */
};
_Static_assert(sizeof(struct pebs_ds_area) == 0x160, "DS area size");
_Static_assert(__builtin_offsetof(struct pebs_ds_area, pebs_base) == 0x20, "pebs_base");
_Static_assert(__builtin_offsetof(struct pebs_ds_area, pebs_threshold) == 0x38, "threshold");
_Static_assert(__builtin_offsetof(struct pebs_ds_area, reset) == 0x40, "reset");
_Static_assert(__builtin_offsetof(struct pebs_ds_area, reset[8]) == 0x80, "fixed, format < 5");
_Static_assert(__builtin_offsetof(struct pebs_ds_area, reset[32]) == 0x140, "fixed, format >= 5");

_Static_assert(sizeof(struct pebs_ds_area) <= PEBS_DS_HEADER_BYTES, "header room");
_Static_assert(PEBS_DS_BYTES_PER_CPU % PEBS_DS_ALIGN == 0, "per-CPU size keeps alignment");

/* What this CPU's PEBS can do; filled by pmu_probe(). */
struct pebs_caps {
    uint8_t usable;   /* DS, DTES64, not disabled in MISC_ENABLE, format known */
    uint8_t format;   /* IA32_PERF_CAPABILITIES[11:8] */
    uint8_t adaptive; /* layout set by MSR_PEBS_DATA_CFG (format >= 4 with baseline) */
    uint8_t reserved;
    uint64_t counters;              /* counters (GLOBAL_STATUS bit layout) that can use PEBS */
    uint64_t load_latency_counters; /* of those, the ones with the load-latency facility */
};

/* Per-CPU PEBS state. */
struct pebs_cpu {
    volatile struct pebs_ds_area *ds; /* NULL: no DS area on this CPU */
    uint32_t buffer_bytes;            /* record space after the DS area */
    uint32_t record_size;             /* bytes per record as armed by pebs_arm() */
};

/* A decoded record. Fields not in the record's format are 0 and their PEBS_HAVE_ bit off. */
#define PEBS_HAVE_RFLAGS   0x1
#define PEBS_HAVE_TSC      0x2
#define PEBS_HAVE_COUNTERS 0x4
#define PEBS_HAVE_MEMORY   0x8
#define PEBS_IP_EXACT                                                                              \
    0x10                   /* ip is the instruction that caused the event; without                 \
                              it (formats 0, 1), ip is the instruction after it */
#define PEBS_HAVE_LBR 0x20 /* adaptive: the record's LBR group (lbr, lbr_count) */
struct pebs_sample {
    uint64_t ip;
    uint64_t rflags;
    uint64_t tsc;
    uint64_t counters;     /* counters (status-bit layout) this record belongs to */
    uint64_t data_address; /* loads/stores: linear address, data source, latency */
    uint64_t data_source;
    uint64_t latency;
    uint32_t have; /* PEBS_HAVE_*, PEBS_IP_EXACT */
    uint32_t size; /* bytes the record occupies in the buffer */
    /* The LBR group: lbr_count entries of FROM, TO, INFO (u64 each, PEBS_LBR_ENTRY_BYTES),
     * newest first, as the stack was when the CPU wrote the record. Points into the
     * record: valid until the buffer is rewound. */
    const uint8_t *lbr;
    uint32_t lbr_count;
};
#define PEBS_LBR_ENTRY_BYTES 0x18

/* Whether pebs.c decodes records of this format (adaptive: with PEBS baseline). */
int pebs_format_supported(uint8_t format, int adaptive);

/* Bytes per record for this CPU's format and `data_cfg` (adaptive formats; else ignored),
 * or 0 when the format is not one we decode. */
uint32_t pebs_record_size(const struct pebs_caps *caps, uint64_t data_cfg);

/* Lays out the DS area and the record buffer in `memory` (`bytes` long, PEBS_DS_ALIGN
 * aligned) and points IA32_DS_AREA at it. Nothing is recorded until pebs_arm() and
 * IA32_PEBS_ENABLE. Returns 0 or PMU_ERR_TOO_SMALL. */
int pebs_setup_cpu(struct pebs_cpu *p, void *memory, uint32_t bytes);

/* Empties the buffer and sets the threshold for records of `record_size` bytes: one record
 * per interrupt. Returns 0 or PMU_ERR_TOO_SMALL (not even one record fits). */
int pebs_arm(struct pebs_cpu *p, uint32_t record_size);

/* Value the CPU reloads into `counter` (status-bit id) after writing its record. */
void pebs_set_reset(struct pebs_cpu *p, const struct pebs_caps *caps, unsigned counter,
                    uint64_t value);

/* Decodes the record at `rec` (`avail` bytes readable). Returns the bytes it occupies, or
 * PMU_ERR_RECORD when it is malformed or truncated. */
int pebs_decode(const struct pebs_caps *caps, const uint8_t *rec, uint32_t avail,
                struct pebs_sample *out);

/* Records written since the last rewind, one per call: start with *offset = 0. Returns
 * PEBS_NEXT_RECORD with *out filled, PEBS_NEXT_MALFORMED for a record that does not
 * decode (skipped: the walk goes on at the next record, so nothing after it is lost; an
 * index outside the buffer counts as one), or PEBS_NEXT_END. Interrupt context. */
enum pebs_next_result { PEBS_NEXT_END = 0, PEBS_NEXT_RECORD = 1, PEBS_NEXT_MALFORMED = 2 };
int pebs_next(const struct pebs_cpu *p, const struct pebs_caps *caps, uint32_t *offset,
              struct pebs_sample *out);

/* Forgets the records written so far (index back to base). Interrupt context. */
void pebs_rewind(struct pebs_cpu *p);

#endif
