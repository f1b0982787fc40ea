/* The sampling engine: per-CPU rings and the interrupt that fills them.
 *
 * Two sources produce the same SampleRecordPC records:
 *  - the PMU (architectural perfmon v2+): counters preloaded with -sample_after raise a
 *    PMI on overflow, delivered as NMI (default) or on a vector;
 *  - the LAPIC timer, when the CPU has no usable PMU (QEMU TCG, KVM without vPMU): each
 *    CPU's timer fires at the period the event's sample-after value implies at the TSC
 *    rate, so samples are time-based.
 * The interrupt path touches only its own CPU's ring and state, never locks, never
 * prints. Everything else here runs in net context on one CPU. */
#ifndef ACART_SAMPLER_H
#define ACART_SAMPLER_H

#include "ring.h"
#include "pmi_budget.h"
#include "pmu.h"

#include <stdint.h>

/* Event groups (multiplexing): each group gets the counters in its turn. One counter per
 * event inside a group; all groups together hold at most SAMPLER_MAX_EVENTS events. */
#define SAMPLER_MAX_GROUPS 8
#define SAMPLER_MAX_EVENTS 32
#define SAMPLER_MAX_EXTRA  (PMU_MAX_EXTRA * SAMPLER_MAX_GROUPS)
_Static_assert(SAMPLER_MAX_EVENTS >= PMU_MAX_COUNTERS, "one group may use every counter");

/* Limits on how often one CPU may be interrupted: a PMU counter overflowing every few
 * events, or a timer faster than the board can serve, is an interrupt storm. VTune's own
 * finest sampling is 100 kHz per CPU. */
#define SAMPLER_MIN_SAMPLE_AFTER 1000
#define SAMPLER_MAX_TIMER_HZ     100000

enum sampler_source { SAMPLER_SOURCE_TIMER, SAMPLER_SOURCE_PMU };

/* One sampled event, from the ECB the host sent. */
struct sampler_event {
    uint32_t event_index;   /* recorded in each sample (bits 27:20 of bit_fields2) */
    uint32_t descriptor_id; /* recorded in each sample */
    uint64_t sample_after;  /* events between samples */
    int fixed;              /* 1: fixed counter `counter`, 0: general-purpose */
    uint32_t counter;
    uint64_t control; /* PERFEVTSEL value (general) or 4-bit FIXED_CTR_CTRL field */
    int precise;      /* sample through PEBS (the exact IP of the event) */
    uint32_t group;   /* the event group whose turn it counts in */
    int lbr;          /* its records carry the LBR registers (ECB: SEP_EVREG_LBR_VALUE) */
    uint32_t slot;    /* counting mode: its place in a CPU's counts (core_event_id) */
    int load_latency; /* precise load-latency event (ECB: SEP_EVREG_LATENCY): its samples
                         carry the PEBS record's memory information */
};

/* One LBR register a record carries: TOS, or entry `index`'s FROM, TO or INFO MSR. */
struct sampler_lbr_reg {
    uint8_t etype; /* SEP_LBR_ENTRY_*; SAMPLER_LBR_NONE: a slot that stays zero */
    uint8_t index; /* stack entry, by MSR index, below LBR_MAX_ENTRIES */
};
#define SAMPLER_LBR_NONE     0xff
#define SAMPLER_MAX_LBR_REGS (1 + 3 * LBR_MAX_ENTRIES) /* TOS, then FROM/TO/INFO per entry */

struct sampler_config {
    enum sampler_source source;
    int use_nmi; /* PMU source: PMI as NMI, else on `vector` */
    uint8_t vector;
    uint32_t num_events;
    struct sampler_event events[SAMPLER_MAX_EVENTS];
    uint32_t num_extra; /* MSRs the events need besides their selects (offcore response...) */
    struct pmu_extra_msr extra[SAMPLER_MAX_EXTRA];
    uint8_t extra_group[SAMPLER_MAX_EXTRA]; /* the group each extra MSR belongs to */
    /* Multiplexing (PMU source, num_groups > 1): the groups take turns on every CPU, each
     * turn ending after switch_tsc TSC ticks (the host's switch interval; the platform's
     * sampling timer on each CPU), after switch_overflows overflows of the event whose
     * event_index is switch_event (the reference's event-based mode), or on
     * sampler_switch_group(). A group's counts carry over from one turn to its next. */
    uint32_t num_groups; /* 0 or 1: one group, no turns */
    /* Counting mode (VTune's EMON): the events count and never interrupt (sample_after 0);
     * sampler_read_counts() reads them, restarts them from 0 and may start the next
     * group's turn; nothing else ends a turn. */
    int counting;
    uint64_t switch_tsc;
    uint32_t switch_overflows;
    uint32_t switch_event;
    uint32_t record_size; /* bytes per sample record (48 for SampleRecordPC) */
    /* Call stacks (acart's reading of the descriptor's callstack area): callstack_depth
     * u64 return addresses at callstack_offset of each record, innermost caller first,
     * zero-filled. 0: none. */
    uint32_t callstack_offset;
    uint32_t callstack_depth;
    /* LBRs (docs/sep-protocol.md 6.3): for events with `lbr`, lbr_num_regs raw u64 MSR
     * values at lbr_offset, in the host's LBR_INFO order, read at the overflow while the
     * stack was frozen. 0: none. lbr_select (LBR_SEL_*) filters what is recorded. */
    uint32_t lbr_offset;
    uint32_t lbr_num_regs;
    struct sampler_lbr_reg lbr_regs[SAMPLER_MAX_LBR_REGS];
    uint64_t lbr_select;
    /* Memory information (docs/sep-protocol.md 6.4): for samples of load-latency events
     * taken through PEBS, a struct sep_latency_info at latency_offset (its first
     * SEP_LATENCY_INFO_FILLED bytes written, the rest zero). 0: none. On adaptive PEBS the
     * records then carry the memory group (MSR_PEBS_DATA_CFG). */
    uint32_t latency_offset;
    /* The PMI budget of each CPU (pmi_budget.h): at most pmi_max_rate_hz PMIs per second
     * (0: no budget), of which pmi_cpu_percent % of its time may go to the handler; over
     * it, the CPU's periods double. The agent sets them from struct aca_config. */
    uint32_t pmi_max_rate_hz;
    uint32_t pmi_cpu_percent;
    /* Stack copies (docs/sep-protocol.md 6.5, struct acart_stack_copy): the interrupted
     * registers and stack_copy_bytes of its stack from SP, at stack_copy_offset, the last
     * area of the record (it ends there). 0: none. */
    uint32_t stack_copy_offset;
    uint32_t stack_copy_bytes;
};

/* sampled = records committed to the ring + dropped, exactly; dropped is the sum of the
 * reasons below. */
struct sampler_cpu_counts {
    uint32_t sampled;      /* samples taken: each delivered or dropped */
    uint32_t dropped;      /* of those, lost (the reasons follow) */
    uint32_t pending;      /* records still in the ring */
    uint32_t unclaimed;    /* PMIs/NMIs that found no overflow of ours */
    uint32_t ring_full;    /* the ring had no room */
    uint32_t no_counter;   /* a PEBS record or overflow for no counter/event of the session */
    uint32_t malformed;    /* a PEBS record that did not decode */
    uint32_t collision;    /* a PEBS record (format <= 2) naming several PEBS counters */
    uint32_t stuck;        /* lost when a stuck PMI made the handler reset the PMU */
    uint32_t stuck_resets; /* those resets (sampling on the CPU ended) */
    uint32_t tick_skipped; /* sampling from the port's tick: windows that passed without a
                            * tick (not samples: neither in sampled nor in dropped) */
};

/* Intel PT's share of the PMI (a filled trace region sets IA32_PERF_GLOBAL_STATUS bit 55):
 * called first on every PMI, returns 1 when it was the trace unit's. Set before
 * sampler_setup, which then installs the handler and routes the LVT entry even for
 * time-based sampling; NULL when the session has no PT. */
typedef int (*sampler_trace_pmi_fn)(void);
void sampler_set_trace_pmi(sampler_trace_pmi_fn fn);

/* Probes the PMU once, on the boot CPU: 0 when it can sample (architectural perfmon
 * v2+), else a negative PMU_ERR_* (pmu_strerror names it) and sampling is time-based. */
int sampler_probe_pmu(void);
const struct pmu_caps *sampler_pmu_caps(void); /* NULL without a usable PMU */
/* Why precise events are refused on this CPU (a PEBS erratum its microcode does not fix),
 * or NULL. sampler_setup() then answers ACA_ERR_UNSUPPORTED to a precise event. */
const char *sampler_pebs_refusal(void);

/* Rings over the caller's memory (bytes_per_cpu each, num_cpus of them). */
int sampler_setup(uint32_t num_cpus, uint8_t *ring_memory, uint32_t bytes_per_cpu,
                  const struct sampler_config *cfg);
int sampler_start(void); /* on every CPU; waits until all have started */
/* After sampler_start() failed: why, readable, and the first CPU that could not start
 * (a plan its core type cannot hold, a timer the platform refused); NULL otherwise. */
const char *sampler_start_error(uint32_t *cpu);
void sampler_pause(void);
void sampler_resume(void);
void sampler_stop(void);  /* on every CPU; afterwards no interrupt touches a ring */
void sampler_reset(void); /* forget the session: rings emptied, counts zeroed */

/* The next group on every CPU (SWITCH_GROUP). Net context, while running or paused. */
void sampler_switch_group(void);

/* How long each group counted on a CPU, in TSC ticks: running[g] for g < num_groups, and
 * their sum, the time the CPU was enabled (a group counts whenever the CPU does). Turns
 * the CPU took, counted at every switch. */
struct sampler_group_times {
    uint64_t enabled;
    uint64_t running[SAMPLER_MAX_GROUPS];
    uint32_t switches;
};
void sampler_group_times(uint32_t cpu, struct sampler_group_times *out);

/* Counting mode: on every CPU, the TSC ticks since its last read (or its start) into
 * tsc[cpu], its current group's counts into counts[offset[cpu] + slot] (entries at or
 * past `cap` are left out), then its counters restart from 0, with the next group when
 * `next_group`. Net context, running or paused. */
void sampler_read_counts(uint64_t *tsc, uint64_t *counts, uint32_t cap, const uint32_t *offset,
                         int next_group);

/* The overflows (sampling interrupts) each event took on `cpu` so far, by event index of
 * the configuration: out[i] for i < n and i < SAMPLER_MAX_EVENTS, the rest 0. */
void sampler_interrupt_counts(uint32_t cpu, uint64_t *out, uint32_t n);

int sampler_is_running(void);
uint32_t sampler_num_cpus(void);
struct ring *sampler_ring(uint32_t cpu);
void sampler_counts(uint32_t cpu, struct sampler_cpu_counts *out);

/* aca_selftest: while on, aca_sample_tick() only counts, per CPU, ticks, ticks where the
 * port names a current task, and ticks whose stack pointer lies inside (or outside) the
 * bounds the platform gives. Net or task context, with no collection running. */
struct sampler_selftest_counts {
    uint32_t ticks, in_task, stack_ok, stack_bad;
};
void sampler_selftest_begin(void);
uint32_t sampler_selftest_end(struct sampler_selftest_counts *out, uint32_t max);

/* A copy of `cpu`'s PMI budget: its PMIs, their time, the rate it allows and the raises of
 * its periods (pmi_budget.h); zeroes for a CPU outside the session. Net context; exact once
 * the CPU stopped sampling. */
void sampler_pmi_budget(uint32_t cpu, struct pmi_budget *out);

/* Records every CPU's ring took in this collection (sampled minus dropped). */
uint64_t sampler_records_committed(void);

#endif
