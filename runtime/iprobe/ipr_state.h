/* IPROBE's state that its files share: the counter layout, per-CPU state, histograms.
 * Each file declares its functions in its own header (ipr_owner.h, ipr_events.h,
 * ipr_count.h, ipr_sample.h, ipr_hist.h, ipr_file.h).
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
#ifndef ACART_IPR_STATE_H
#define ACART_IPR_STATE_H

#include "ipr.h"

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

#endif
