/* The events `acart collect` can ask for, and the event control blocks (EM_CONFIG_NEXT
 * payloads) that program them.
 *
 * Each built-in event is one fixed-function counter; events named from perfmon's tables
 * (collect_events.h) use general counters and extra MSRs too. The ECB is laid out the way VTune's
 * SEP host lays out a core event group (the one in shared/fixtures/aca, for
 * CPU_CLK_UNHALTED.REF_TSC): 22 register slots for global control, event selects, fixed
 * and general counters, extras and the global status register, with the PMU operation
 * table pointing into them. Only the slots of the chosen counters are filled. */
#ifndef ACART_TOOLS_COLLECT_ECB_H
#define ACART_TOOLS_COLLECT_ECB_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of every ECB built here: the 1728-byte header and 22 entries of 136 bytes. */
#define COLLECT_ECB_SIZE 4720

/* Counters the layout has room for. */
#define COLLECT_ECB_GP_COUNTERS    4
#define COLLECT_ECB_FIXED_COUNTERS 3
#define COLLECT_ECB_MAX_EVENTS     (COLLECT_ECB_FIXED_COUNTERS + COLLECT_ECB_GP_COUNTERS)

/* Counters are 48 bits wide: a sample-after value is at least 1 and below 2^48. */
#define COLLECT_ECB_MAX_SAMPLE_AFTER 0xFFFFFFFFFFFFull

#define COLLECT_ECB_NO_FIXED 0xFFu /* collect_event_def.fixed_counter of a general event */

/* The extra MSRs an event may need, and the ECB programs in its extras slots. */
#define COLLECT_ECB_MSR_OFFCORE_RSP_0 0x1A6u
#define COLLECT_ECB_MSR_OFFCORE_RSP_1 0x1A7u
#define COLLECT_ECB_MSR_PEBS_LD_LAT   0x3F6u
#define COLLECT_ECB_MSR_PEBS_FRONTEND 0x3F7u

enum collect_ecb_error {
    COLLECT_ECB_OK = 0,
    COLLECT_ECB_ERR_COUNT = -1,        /* no events, or more than COLLECT_ECB_MAX_EVENTS */
    COLLECT_ECB_ERR_SAME_COUNTER = -2, /* two events need the same fixed counter */
    COLLECT_ECB_ERR_SAMPLE_AFTER = -3, /* 0, or not below 2^48 */
    COLLECT_ECB_ERR_BUFFER = -4,       /* the output buffer is smaller than COLLECT_ECB_SIZE */
    COLLECT_ECB_ERR_GP = -5,           /* the general events do not fit the general counters */
    COLLECT_ECB_ERR_EXTRA = -6,        /* more offcore events than response MSRs, or one extra
                                          MSR asked for with two values */
    COLLECT_ECB_ERR_PRECISE = -7,      /* precise asked of a fixed counter */
};

const char *collect_ecb_strerror(int err);

/* An event a collection can sample: a built-in one (a fixed counter) or one resolved from
 * perfmon's tables (collect_events.c). */
struct collect_event_def {
    const char *name;              /* e.g. "CPU_CLK_UNHALTED.REF_TSC" */
    uint8_t fixed_counter;         /* n of IA32_FIXED_CTRn, or COLLECT_ECB_NO_FIXED */
    uint64_t default_sample_after; /* events between samples unless the user says */
    /* General-counter events: */
    uint8_t gp_mask;      /* the IA32_PMCn it may use, bit n */
    uint8_t precise;      /* sample through PEBS */
    uint32_t evtsel;      /* IA32_PERFEVTSELx event bits: code, umask, edge, any, inv, cmask */
    uint32_t extra_msr;   /* 0, or COLLECT_ECB_MSR_* it needs (OFFCORE_RSP_0: either pair) */
    uint64_t extra_value; /* what that MSR holds for it */
    uint32_t alt_evtsel;  /* offcore: the event bits with MSR_OFFCORE_RSP_1; 0: RSP_0 only */
};

/* The built-in event called name (exact, case-sensitive), or NULL. */
const struct collect_event_def *collect_event_find(const char *name);

/* The i-th built-in event, or NULL past the last: for listing them. */
const struct collect_event_def *collect_event_at(size_t i);

/* The event every collection samples when the user names none. */
const struct collect_event_def *collect_event_default(void);

/* One event of a collection: the index its samples carry is its position in the array
 * handed to collect_ecb_build. */
struct collect_event {
    const struct collect_event_def *def;
    uint64_t sample_after;
};

/* Writes the ECB for one event group sampling events[0..n) into out (cap bytes): fixed
 * events on their fixed counter, general ones on IA32_PMC0..3 within their gp_mask (the
 * most constrained first), offcore events on MSR_OFFCORE_RSP_0 then _1. Returns the ECB's
 * size (COLLECT_ECB_SIZE) or a negative COLLECT_ECB_ERR_*. */
int collect_ecb_build(const struct collect_event *events, size_t n, uint8_t *out, size_t cap);

/* The same for event group `group` of a multiplexed collection: the ECB's group_id, each
 * counter's event index first_index + i (samples name events across all groups), and its
 * descriptor `group`, so every sample carries its group as its descriptor_id (one
 * descriptor per group, as the reference's event-based counts do). */
int collect_ecb_build_group(const struct collect_event *events, size_t n, uint32_t group,
                            uint32_t first_index, uint8_t *out, size_t cap);

/* Turns an ECB the functions above wrote into one that asks for LBRs, as SEP's do:
 * MSR_LBR_SELECT = lbr_select (docs/sep-protocol.md 6.3), IA32_DEBUGCTL.LBR set, and
 * SEP_EVREG_LBR_VALUE on every counter (the fixed ones carry it already). */
void collect_ecb_ask_lbr(uint8_t *ecb, uint64_t lbr_select);
/* The ECB of group `group` of a counting-mode collection (collect --count): the same
 * counters, counting from 0 without interrupts (no INT/PMI, preload 0), each counter's
 * core_event_id first_index + i: its slot in the counts READ_AND_RESET returns. */
int collect_ecb_build_counts(const struct collect_event *events, size_t n, uint32_t group,
                             uint32_t first_index, uint8_t *out, size_t cap);

#endif
