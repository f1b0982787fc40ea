/* What the IPROBE files share: the counter layout, per-CPU state, the pool.
 *
 *   ipr_owner.c   ownership, CPU masks and contexts, messages, bit functions
 *   ipr_events.c  events, names, event sets, what each counter can count
 *   ipr_count.c   selection, programming, start/stop, 64-bit counts, the interrupts
 *   ipr_sample.c  sample buffers, skip, PC ranges, full actions, aca_ipr_poll
 *   ipr_hist.c    histograms
 *   ipr_file.c    sample files: named blobs in RAM, served by the agent
 *
 * The interrupt path (PMI or timer -> ipr_count.c -> ipr_take_sample) touches only its own
 * CPU's struct ipr_cpu, its sample buffers and histogram cells; no locks, no libc. */
#ifndef ACART_IPR_INTERNAL_H
#define ACART_IPR_INTERNAL_H

#include "ipr.h"
#include "ipr_name_source.h"

#include "acart_opts.h"
#include "acart_platform.h"
#include "acart_wire.h"
#include "pmu.h"

#define IPR_MAX_RANGES     8
#define IPR_MAX_BUFFERS    64 /* sample buffers per CPU */
#define IPR_MAX_HISTOGRAMS 16 /* over all CPUs */
#define IPR_NO_HW          0xffu

_Static_assert(ACA_MAX_CPUS <= IPR_MAX_CPUS, "a CPU mask holds every CPU");
_Static_assert(IPR_MAX_COUNTERS == 1 + PMU_MAX_FIXED + PMU_MAX_GP, "TSC, fixed, GP");

/* The counters of this machine: counter 0 the TSC, then fixed, then GP (ipr.h). */
struct ipr_layout {
    uint32_t num_counters;
    uint8_t hw_id[IPR_MAX_COUNTERS]; /* pmu counter id (0..7, 32..35); IPR_NO_HW for the TSC */
    int pmu;                         /* caps valid */
    struct pmu_caps caps;
    uint32_t num_cpus;
};

struct ipr_counter {
    IPR_EVENT event; /* IPR_EVENT_NONE: not selected */
    IPR_FREQ freq;   /* events per interrupt; 0 count only */
    uint64_t base;   /* the 64-bit count when the counter was last loaded with `load` */
    uint64_t load;   /* hardware value loaded (and reloaded after each overflow) */
    uint64_t skip, skip_left;
};

struct ipr_cpu {
    struct pmu_cpu_state pmu;
    struct ipr_counter ctr[IPR_MAX_COUNTERS];
    IPR_CTRMASK selected; /* counters with an event programmed (IprSetEvents) */
    IPR_CTRMASK running;
    IPR_CTRMASK active; /* interrupts of these take samples (IprSetActiveCounters) */
    IPR_MMASK modes;
    uint64_t tsc_since;    /* the TSC when counter 0 last started or resumed */
    volatile uint32_t seq; /* odd while the PMI handler updates counts */
    uint32_t timer_armed;
    /* Sample buffers (ipr_sample.c). */
    IPR_SBUFFER *buf[IPR_MAX_BUFFERS];
    uint32_t num_buffers, current;
    uint32_t dropped; /* samples with every buffer full */
    IPR_DMASK datcol, qdatcol;
    int fullaction;
    int (*routine)(void);
    uint32_t num_ranges;
    uint64_t ranges[2 * IPR_MAX_RANGES];
    volatile uint32_t ast_pending; /* buffers that became full since aca_ipr_poll looked */
};

struct ipr_hist {
    int used;
    uint32_t cpu;
    IPR_HMASK type;
    unsigned index, gran;
    uint64_t begin, end; /* end inclusive */
    uint32_t num_buckets;
    IPR_HISTELEM *cells; /* num_buckets * layout.num_counters */
};

extern struct ipr_layout ipr_layout;
extern struct ipr_cpu ipr_cpus[ACA_MAX_CPUS];
extern struct ipr_hist ipr_hists[IPR_MAX_HISTOGRAMS];

/* ipr_owner.c */
void ipr_layout_ensure(void); /* probes the counters once */
int ipr_allocated(void);
int ipr_is_owner(void);
IPR_STATUS ipr_check_owner(void); /* IPR__SUCCESS or why the caller may not */
/* The online CPUs of `cpus` (IPR_CURRENT_CPU: the caller's), or 0 for a mask naming none. */
IPR_CPUMASK ipr_cpus_of(IPR_CPUMASK cpus);
/* The CPU context iteration: the next CPU of mask after *ctx, or -1 when none is left
 * (then *ctx = IPR_MAX_CPUS). */
int ipr_next_cpu(IPR_CPUMASK mask, int *ctx);
/* fn(cpu, arg) on every CPU of mask, on that CPU, interrupts off there: at once for only
 * the caller's CPU, else through pmu_owner_call_all. */
typedef void (*ipr_cpu_fn)(uint32_t cpu, void *arg);
void ipr_on_cpus(IPR_CPUMASK mask, ipr_cpu_fn fn, void *arg);
void *ipr_pool_alloc(uint32_t bytes); /* 8-aligned from the pool, or NULL */
uint32_t ipr_pool_free(void);
void ipr_pool_reset_if_unused(void);

/* ipr_events.c */
int ipr_event_known(IPR_EVENT evt);          /* in the table and on this CPU */
int ipr_event_fixed(IPR_EVENT evt);          /* fixed counter j, or -1 */
int ipr_event_gp(IPR_EVENT evt);             /* countable on a GP counter */
IPR_STATUS ipr_event_check(IPR_EVENT evt);   /* IPR__SUCCESS or IPR__INVEVENT */
IPR_CTRMASK ipr_counters_for(IPR_EVENT evt); /* counters that can count it */

/* What to program for evt on a general counter: its event select bits, and the extra MSR
 * it needs (extra->msr 0: none; alt_evtsel as in struct ipr_name_source). */
void ipr_event_encoding(IPR_EVENT evt, uint32_t *evtsel, struct pmu_extra_msr *extra,
                        uint32_t *alt_evtsel);

/* ipr_count.c */
uint64_t ipr_count_of(struct ipr_cpu *c, unsigned ctr); /* on c's own CPU */
void ipr_count_reset(void);                             /* at IprAllocate / Deallocate */
int ipr_pmi(const struct aca_frame *frame);
void ipr_tick(const struct aca_frame *frame);

/* ipr_sample.c: one interrupt of counter `ctr` on this CPU, after skip. */
void ipr_take_sample(struct ipr_cpu *c, uint32_t cpu, unsigned ctr, const struct aca_frame *f);
void ipr_sample_reset(void);

/* ipr_hist.c */
void ipr_hist_add(uint32_t cpu, unsigned ctr, uint64_t pc, unsigned mode);
void ipr_hist_delete(IPR_CPUMASK mask);

/* ipr_file.c. The file lock serialises everything that writes the sample file or marks
 * buffers empty from more than one context (a task, aca_ipr_poll); append needs it held. */
void ipr_file_lock(void);
int ipr_file_trylock(void); /* 1 when taken */
void ipr_file_unlock(void);
int ipr_file_is_open(void);
IPR_STATUS ipr_file_append(uint32_t type, const void *a, uint32_t a_bytes, const void *b,
                           uint32_t b_bytes);
void ipr_file_count_write(int partial); /* automatic (IPR_FULL_WRITE) buffer writes */
/* The agent's side: closed files and reads from them (net context). */
uint32_t ipr_file_list(struct acart_file_entry *entries, uint32_t max);
int ipr_file_read(uint32_t id, uint32_t offset, uint8_t *out, uint32_t length);

#endif
