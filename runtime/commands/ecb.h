/*
 * ecb.h - decoding event control blocks (the EM_CONFIG_NEXT payload) and turning a core
 * ECB into a sampling plan.
 *
 * An ECB is what the host wants programmed for one event group: a 1728-byte header
 * (struct sep_ecb_header) and an array of 136-byte register entries (struct
 * sep_event_reg), each naming an MSR and a value. ecb_decode() checks every size, count
 * and index against the bytes actually received and copies the useful fields into a
 * bounded struct ecb; it never reads outside [bytes, bytes + len). ecb_plan_sampling()
 * then finds the counters (DATA entries) and what each needs: counter MSR, sample-after
 * value, fixed or general counter number, event select, interrupt on overflow.
 *
 * Freestanding: no allocation, only memcpy/memset. Errors are negative ECB_ERR_* values;
 * ecb_strerror() names them.
 */
#ifndef ACART_RUNTIME_ECB_H
#define ACART_RUNTIME_ECB_H

#include <stddef.h>
#include <stdint.h>

#include "acart_wire.h"

#define ECB_MAX_ENTRIES  64 /* entries kept per ECB; larger ECBs are refused */
#define ECB_MAX_GENERAL  8  /* IA32_PMC0..7 (0xC1..0xC8) */
#define ECB_MAX_FIXED    4  /* IA32_FIXED_CTR0..3 (0x309..0x30C) */
#define ECB_MAX_COUNTERS (ECB_MAX_GENERAL + ECB_MAX_FIXED)
#define ECB_MAX_EXTRA    4 /* MSR_OFFCORE_RSP_0/1, MSR_PEBS_LD_LAT, MSR_PEBS_FRONTEND */

enum ecb_error {
    ECB_OK = 0,
    ECB_ERR_NULL = -1,             /* a required pointer is NULL */
    ECB_ERR_TRUNCATED = -2,        /* fewer bytes than the 1728-byte header */
    ECB_ERR_VERSION = -3,          /* header version is not SEP_ECB_VERSION */
    ECB_ERR_SIZE = -4,             /* entry area not a whole number of entries, or
                                      size_of_allocation disagrees with the length */
    ECB_ERR_TOO_MANY_ENTRIES = -5, /* more than ECB_MAX_ENTRIES entries */
    ECB_ERR_NUM_ENTRIES = -6,      /* num_entries exceeds the entries present */
    ECB_ERR_RANGE = -7,            /* a cccr/escr/data/metric range leaves num_entries */
    ECB_ERR_OPERATION = -8,        /* an operation slot is mistyped or leaves the entries */
    ECB_ERR_REG_TYPE = -9,         /* an entry has an unknown reg_type */
    ECB_ERR_NOT_CORE = -10,        /* planning asked for a non-core (uncore) ECB */
    ECB_ERR_COUNTER = -11,         /* a DATA entry is no counter MSR, or a counter twice */
    ECB_ERR_COUNTER_WIDTH = -12,   /* max_bits is not a low mask, or the preload exceeds it */
    ECB_ERR_TXCP_SAMPLING = -13,   /* a sampling counter counts checkpointed (IN_TXCP) */
};

const char *ecb_strerror(int err);

/* An index range of entries: [start, start + count). */
struct ecb_range {
    uint32_t start;
    uint32_t count;
};

/* The fields of one register entry that the agent uses. */
struct ecb_entry {
    uint8_t reg_type;     /* SEP_REG_*; SEP_REG_EMPTY for an unused slot */
    uint8_t prog_type;    /* 0 or 1: MSR; 2 PCI; 3 MMIO (uncore) */
    uint16_t event_index; /* host's event id index (goes into samples' eventIndex) */
    uint16_t desc_id;     /* sample descriptor for overflows of this counter */
    uint16_t flags;       /* SEP_EVREG_* */
    uint16_t counter_event_offset;
    uint32_t core_event_id; /* counting mode: the counter's slot in a CPU's counts */
    uint32_t reg_id;        /* MSR index (or PCI/MMIO offset when prog_type >= 2) */
    uint64_t value;         /* value to write; for a DATA entry the preload */
    uint64_t max_bits;      /* counter width mask (DATA entries) */
    /* Uncore entries only. */
    uint8_t counter_type;               /* SEP_UNC_COUNTER_* (static, free-running, ...) */
    uint8_t rw_type;                    /* SEP_REG_RW_* */
    uint8_t data_size;                  /* PCI/MMIO access width in bytes */
    uint8_t pci_bus, pci_dev, pci_func; /* PCI entries */
};

/* The PCI BAR an uncore ECB's MMIO entries are relative to (pcidev_entry_node): the BAR
 * is read from the device's configuration space at bar_offset and masked. */
struct ecb_bar {
    uint8_t bus, dev, func;
    uint16_t bar_offset; /* 0 and mask 0: the ECB names no BAR */
    uint64_t bar_mask;
    uint32_t base_offset; /* where the reference's mapping starts, from the BAR */
};

/* A decoded ECB. */
struct ecb {
    uint8_t version;
    uint16_t flags;    /* SEP_ECB_* */
    uint32_t group_id; /* event group, 0-based */
    uint32_t num_events;
    uint32_t num_entries; /* header's count (entries in the three ranges) */
    uint32_t entry_count; /* entries present in the payload (>= num_entries) */
    uint32_t size_of_allocation;
    uint32_t device_type; /* 1 core; >= 10 uncore */
    uint32_t descriptor_id;
    uint32_t group_offset; /* uncore: where a record carries its group number + 1 */
    struct ecb_bar bar;    /* uncore: the BAR of its MMIO entries */
    struct ecb_range cccr; /* control registers */
    struct ecb_range escr; /* event selects and extras */
    struct ecb_range data; /* counters */
    struct ecb_range metric;
    /* operations[t]: entries for PMU operation t (SEP_PMU_OP_*); count 0 when absent */
    struct ecb_range operations[SEP_MAX_PMU_OPERATIONS];
    struct ecb_entry entries[ECB_MAX_ENTRIES]; /* entry_count of them */
};

/* Decodes len bytes of an EM_CONFIG_NEXT (or EM_CONFIG_NEXT_UNC) payload into *out.
 * Returns ECB_OK or a negative ECB_ERR_*; *out is unspecified after an error. */
int ecb_decode(const void *bytes, size_t len, struct ecb *out);

enum ecb_counter_kind {
    ECB_COUNTER_GENERAL = 0, /* IA32_PMCn / IA32_A_PMCn */
    ECB_COUNTER_FIXED = 1,   /* IA32_FIXED_CTRn */
};

/* One counter to program for sampling. */
struct ecb_counter {
    uint8_t kind;           /* enum ecb_counter_kind */
    uint8_t index;          /* n of PMCn / FIXED_CTRn */
    uint8_t has_control;    /* an event select (general) / FIXED_CTR_CTRL (fixed) entry exists */
    uint8_t pmi;            /* interrupt on overflow is requested by that control */
    uint16_t entry;         /* index of the DATA entry in ecb.entries */
    uint16_t event_index;   /* from the DATA entry */
    uint16_t desc_id;       /* from the DATA entry */
    uint16_t flags;         /* SEP_EVREG_* of the DATA entry */
    uint32_t core_event_id; /* from the DATA entry: its slot in counting mode's counts */
    uint32_t msr;           /* the counter MSR */
    uint64_t preload;       /* value written to the counter at start and after each overflow */
    uint64_t width_mask;    /* counter width, e.g. 0xFFFFFFFFFFFF */
    uint64_t sample_after;  /* events per sample: (-preload) & width_mask (0 -> width_mask + 1) */
    uint32_t control_msr;   /* IA32_PERFEVTSELn (0x186 + n) or IA32_FIXED_CTR_CTRL (0x38D) */
    uint64_t control;       /* general: the event select value; fixed: this counter's 4-bit
                               field of IA32_FIXED_CTR_CTRL (bit 0 OS, 1 USR, 2 any, 3 PMI) */
    uint8_t event_code;     /* general with control: event select bits 7:0 */
    uint8_t umask;          /* general with control: event select bits 15:8 */
};

struct ecb_plan {
    uint32_t num_counters;
    struct ecb_counter counters[ECB_MAX_COUNTERS]; /* in entry order */
    uint64_t enable_mask; /* IA32_PERF_GLOBAL_CTRL bits of these counters (n, or 32 + n) */
    uint8_t has_global_ctrl;
    uint64_t global_ctrl; /* the ECB's own IA32_PERF_GLOBAL_CTRL value, when it has one */
    /* MSR_LBR_SELECT as the ECB writes it (0 when absent: every branch); the filter of the
     * LBRs samples carry when LBR_INFO asked for them, also for architectural LBRs. */
    uint64_t lbr_select;
    /* The MSRs events need besides their selects (perfmon's MSRIndex: offcore response,
     * load-latency threshold, frontend), from the ECB's written entries, each once. */
    uint32_t num_extra;
    struct {
        uint32_t msr;
        uint64_t value;
    } extra[ECB_MAX_EXTRA];
};

/* Derives the sampling plan of a decoded core ECB. Returns ECB_OK or a negative
 * ECB_ERR_* (ECB_ERR_NOT_CORE for uncore ECBs, ECB_ERR_COUNTER for a DATA entry that is
 * not a core counter MSR). */
int ecb_plan_sampling(const struct ecb *ecb, struct ecb_plan *plan);

#endif
