/* The core performance-monitoring unit of Intel CPUs (architectural perfmon v2 and later).
 *
 * Layering, after Linux's arch/x86/events: pmu.c is generic and driven by what pmu_probe()
 * reads from CPUID and IA32_PERF_CAPABILITIES, plus a per-model table (pmu_models.c) for
 * the few facts CPUID does not enumerate; pebs.c owns the DS area and PEBS records, lbr.c
 * the branch stack, pmi.c the overflow handler (pmi.h).
 *
 * Counter ids are the counters' bits in IA32_PERF_GLOBAL_CTRL/STATUS: 0..7 for the
 * general-purpose IA32_PMCx, 32..35 for the fixed IA32_FIXED_CTRx (PMU_FIXED_ID(j)).
 *
 * Contexts. pmu_probe() runs once, on the boot CPU, before anything else; the caps it fills
 * are read-only afterwards and shared by all CPUs. Every other call acts on the MSRs of the
 * CPU it runs on and on that CPU's struct pmu_cpu_state only: no locks, no allocation, no
 * blocking. Nothing here knows the SEP protocol. */
#ifndef ACART_ARCH_X86_PMU_H
#define ACART_ARCH_X86_PMU_H

#include <stdint.h>

#include "acart_opts.h"
#include "lbr.h"
#include "pmu_models.h"
#include "pebs.h"
#include "pmu_error.h"

#define PMU_MAX_GP       8 /* IA32_PMC0..7 */
#define PMU_MAX_FIXED    4 /* IA32_FIXED_CTR0..3 */
#define PMU_MAX_COUNTERS (PMU_MAX_GP + PMU_MAX_FIXED)
#define PMU_FIXED_ID(j)  (32u + (j))

#define MSR_IA32_PMC0                 0xc1u  /* + i; writes sign-extend bit 31 */
#define MSR_IA32_PERFEVTSEL0          0x186u /* + i */
#define MSR_IA32_PERF_CAPABILITIES    0x345u
#define MSR_IA32_FIXED_CTR0           0x309u /* + j */
#define MSR_IA32_FIXED_CTR_CTRL       0x38du
#define MSR_IA32_PERF_GLOBAL_STATUS   0x38eu
#define MSR_IA32_PERF_GLOBAL_CTRL     0x38fu
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL 0x390u /* IA32_PERF_GLOBAL_STATUS_RESET from v4 on */
#define MSR_IA32_PERF_GLOBAL_INUSE    0x392u
#define MSR_IA32_A_PMC0               0x4c1u /* + i; full-width writes */
#define MSR_IA32_DEBUGCTL             0x1d9u
/* The MSRs some events need besides their event select (perfmon's MSRIndex). */
#define MSR_OFFCORE_RSP_0 0x1a6u
#define MSR_OFFCORE_RSP_1 0x1a7u
#define MSR_PEBS_LD_LAT   0x3f6u
#define MSR_PEBS_FRONTEND 0x3f7u
#define PMU_MAX_EXTRA     4 /* one of each */

#define DEBUGCTL_FREEZE_PERFMON_ON_PMI (1ull << 12)

/* Skylake-family clients with the 2019 TSX microcode: PMC3 counts right only while every
 * RTM transaction is forced to abort (Linux: PMU_FL_TFA, intel_set_tfa()). */
#define CPUID7_EDX_TSX_FORCE_ABORT (1u << 13)
#define MSR_TSX_FORCE_ABORT        0x10fu
#define TSX_FORCE_ABORT_RTM        (1ull << 0)

/* IA32_PERFEVTSELx */
#define EVTSEL_USR      (1ull << 16)
#define EVTSEL_OS       (1ull << 17)
#define EVTSEL_INT      (1ull << 20)
#define EVTSEL_ANY      (1ull << 21)
#define EVTSEL_EN       (1ull << 22)
#define EVTSEL_ADAPTIVE (1ull << 34) /* adaptive PEBS: record the PEBS_DATA_CFG groups */

/* The 4-bit field of fixed counter j in IA32_FIXED_CTR_CTRL, at bit 4 * j. */
#define FIXED_CTRL_OS              0x1u
#define FIXED_CTRL_USR             0x2u
#define FIXED_CTRL_ANY             0x4u
#define FIXED_CTRL_PMI             0x8u
#define FIXED_CTRL_ADAPTIVE_BIT(j) (32u + 4u * (j)) /* adaptive PEBS for fixed counter j */

/* IA32_PERF_GLOBAL_STATUS bits beyond the counters. */
#define GLOBAL_STATUS_TRACE_TOPA   (1ull << 55)
#define GLOBAL_STATUS_PERF_METRICS (1ull << 48)
#define GLOBAL_STATUS_LBR_FROZEN   (1ull << 58)
#define GLOBAL_STATUS_CTR_FROZEN   (1ull << 59)
#define GLOBAL_STATUS_ASCI         (1ull << 60)
#define GLOBAL_STATUS_UNCORE       (1ull << 61)
#define GLOBAL_STATUS_DS_BUFFER    (1ull << 62) /* PEBS threshold reached */
#define GLOBAL_STATUS_COND_CHGD    (1ull << 63)

/* IA32_PERF_CAPABILITIES */
#define PERF_CAP_LBR_FORMAT(c)  ((uint8_t)((c)&0x3f))
#define PERF_CAP_PEBS_FORMAT(c) ((uint8_t)(((c) >> 8) & 0xf))
#define PERF_CAP_FREEZE_SMM     (1ull << 12)
#define PERF_CAP_FULL_WIDTH     (1ull << 13)
#define PERF_CAP_PEBS_BASELINE  (1ull << 14)
#define PERF_CAP_PERF_METRICS   (1ull << 15)

/* What the boot CPU's PMU offers. On a hybrid part (CPUID.07H:EDX[15]) the core types differ
 * in their counters: each CPU's own are in its struct pmu_cpu_state (pmu_cpu_init), and a
 * plan that uses a counter its core type lacks is refused there (PMU_ERR_CORE_TYPE). */
struct pmu_caps {
    uint32_t family, model, stepping; /* display family/model, as in perfmon's mapfile */
    const char *uarch;                /* per-model table name, or "unknown" */
    uint8_t version;                  /* CPUID.0AH:EAX[7:0] */
    uint8_t num_gp, gp_width;         /* counters we use (at most PMU_MAX_GP), their bits */
    uint8_t num_fixed, fixed_width;
    uint8_t full_width_write;   /* GP counters preloaded through IA32_A_PMCx */
    uint8_t streamlined_freeze; /* v4+: freeze-on-PMI sets GLOBAL_STATUS bits 58/59;
                                   before, it clears GLOBAL_CTRL and DEBUGCTL.LBR */
    /* When the handler unmasks the LVT entry (pmi.h): neither flag, first thing (Linux's
     * default, also for models it does not know); mid: just before counting is re-enabled;
     * late: after it. Linux's late_ack and mid_ack, per model (pmu_models.c). */
    uint8_t pmi_ack_late;
    uint8_t pmi_ack_mid;
    uint8_t tsx_force_abort;         /* PMC3 needs TSX_FORCE_ABORT set while it counts */
    uint8_t inst_retired_all_limits; /* Broadwell: INST_RETIRED.ALL periods (BDM11, BDM57) */
    uint8_t hybrid;                  /* CPUID.07H:EDX[15]: core types differ (pmu_cpu_init) */
    uint8_t core_type;               /* the boot CPU's, CPUID.1AH:EAX[31:24]; 0 if not hybrid */
    uint8_t reserved[2];
    uint32_t fixed_mask;        /* fixed counters present, bit j = IA32_FIXED_CTRj */
    uint64_t perf_capabilities; /* IA32_PERF_CAPABILITIES; 0 without CPUID PDCM */
    uint64_t counters;          /* every counter id present, as GLOBAL_CTRL bits */
    uint64_t status_ack_mask;   /* GLOBAL_STATUS bits GLOBAL_OVF_CTRL may clear */
    uint64_t evtsel_valid;      /* IA32_PERFEVTSELx bits this CPU implements */
    uint64_t max_period_gp;     /* largest sample-after for a GP counter */
    uint64_t max_period_fixed;
    struct pebs_caps pebs;
    /* Why precise events are refused though the CPU may have PEBS: an erratum turned it
     * off (pebs_quirk_lookup), or the library was built without it (ACA_WITH_PEBS 0,
     * PMU_PEBS_NOT_BUILT); else NULL. */
    const char *pebs_quirk;
    struct lbr_caps lbr;
};

/* Built without PEBS or LBR (acart_opts.h): pebs.c and lbr.c are not in the library,
 * pmu_probe() reports neither (pebs.usable 0, pebs_quirk saying why; lbr.depth 0), so
 * every plan that asks for them is refused as on a CPU without them. */
#define PMU_PEBS_NOT_BUILT "not built in: libacart.a has ACA_WITH_PEBS 0"

/* Fills caps from CPUID, IA32_PERF_CAPABILITIES and the per-model table. Returns 0, or
 * PMU_ERR_NO_PMU when the CPU is not Intel or offers perfmon version < 2 (QEMU TCG and
 * most hypervisors without a virtual PMU report version 0): the caller samples on a timer.
 * Reads no MSR the CPU has not enumerated. */
int pmu_probe(struct pmu_caps *caps);

/* The text of a PMU_ERR_* (pmu_error.h). */
const char *pmu_strerror(int err);

/* ---- This CPU's PEBS erratum (the per-model facts are pmu_models.h's). ---- */

/* The microcode revision this CPU runs (IA32_BIOS_SIGN_ID[63:32], read as the SDM says:
 * write 0, CPUID leaf 1, read). */
uint32_t pmu_microcode_revision(void);

/* pebs_quirk_lookup for the CPU this runs on, reading its microcode revision only for a
 * model and stepping with a row. */
const struct pebs_quirk *pebs_quirk_for_cpu(uint32_t family, uint32_t model, uint32_t stepping);

/* ---- Per-CPU programming. ---- */

enum pmu_counter_kind { PMU_COUNTER_GP = 0, PMU_COUNTER_FIXED = 1 };

#define PMU_COUNTER_PEBS 0x1u /* sample through PEBS (needs pmu_cpu_setup_pebs) */
/* With PMU_COUNTER_PEBS, on a general counter counting a load-latency event
 * (MEM_TRANS_RETIRED.LOAD_LATENCY_*, whose threshold is the plan's MSR_PEBS_LD_LAT extra):
 * turns on the load-latency facility for it. Before perfmon v5 that is IA32_PEBS_ENABLE's
 * LL_EN bit 32 + i (from v5 on those bits enable fixed-counter PEBS and the event alone
 * selects the facility, as Linux's intel_pmu_pebs_enable does). PEBS format 1 or later:
 * the records carry the load's address, data source and latency. */
#define PMU_COUNTER_LOAD_LATENCY 0x2u

/* One counter of a plan. */
struct pmu_counter_plan {
    uint8_t kind;   /* enum pmu_counter_kind */
    uint8_t index;  /* i of IA32_PMCi, or j of IA32_FIXED_CTRj */
    uint16_t flags; /* PMU_COUNTER_* */
    uint32_t tag;   /* the caller's name for it (event index), handed back on overflow */
    /* GP: the IA32_PERFEVTSELx value (event, umask, USR/OS, cmask, ...); EN is set for you,
     * INT for sampling counters (and cleared for PEBS ones: the DS threshold interrupts).
     * Fixed: its 4-bit IA32_FIXED_CTR_CTRL field (FIXED_CTRL_*); PMI set for you likewise. */
    uint64_t control;
    uint64_t sample_after; /* events per sample; 0: count only, never interrupt */
};

/* An MSR an event needs besides its event select: MSR_OFFCORE_RSP_0/1, MSR_PEBS_LD_LAT or
 * MSR_PEBS_FRONTEND, and its value. */
struct pmu_extra_msr {
    uint32_t msr;
    uint64_t value;
};

struct pmu_plan {
    uint32_t num_counters;
    struct pmu_counter_plan counters[PMU_MAX_COUNTERS];
    uint32_t num_extra; /* written with the controls, zeroed by pmu_stop_cpu */
    struct pmu_extra_msr extra[PMU_MAX_EXTRA];
    uint8_t freeze_on_pmi;  /* DEBUGCTL freeze of counters (and LBRs) while a PMI is pending */
    uint8_t lbr;            /* record branches; each overflow report carries the stack */
    uint64_t lbr_select;    /* LBR_SEL_* (0: every branch), translated for architectural LBR */
    uint64_t pebs_data_cfg; /* adaptive PEBS groups (PEBS_DATA_CFG_*); 0: basic group */
};

/* Why the handler could not hand a sample on. Each PEBS record dropped counts once; an
 * overflow of a counter without PEBS counts once. */
enum pmu_drop_reason {
    PMU_DROP_NO_COUNTER, /* a PEBS record that names no PEBS counter of ours */
    PMU_DROP_MALFORMED,  /* a PEBS record that does not decode (or a DS index gone wrong) */
    PMU_DROP_COLLISION,  /* format <= 2: a record naming several PEBS counters (as Linux) */
    PMU_DROP_STUCK,      /* left when the handler gave up on status bits that stay set */
    PMU_DROP_REASONS
};

/* Per-CPU state: one per CPU, owned by that CPU, in memory the PMI handler may touch. */
struct pmu_cpu_state {
    const struct pmu_caps *caps; /* NULL: no PMU; the handler then claims nothing */
    volatile uint8_t running;    /* between pmu_start_cpu and pmu_pause/stop_cpu */
    uint8_t lbr_on;
    uint8_t num_gp;      /* this CPU's general counters: caps' unless its core type has fewer */
    uint8_t core_type;   /* CPUID.1AH:EAX[31:24] on this CPU (hybrid parts), else 0 */
    uint32_t fixed_mask; /* this CPU's fixed counters, likewise */
    uint64_t counters;   /* this CPU's counter ids, as GLOBAL_CTRL bits */
    /* LBR call-stack mode, which records without freeze (lbr_debugctl_bits): the handler
     * stops recording first and resumes it last (pmi.h), and drops from its snapshot the
     * newest entries through the call into lbr_handler, the caller's PMI handler (its own
     * calls, pushed before recording stopped). */
    uint8_t lbr_callstack;
    uint8_t reserved[7];
    uint64_t lbr_select; /* as programmed */
    uintptr_t lbr_handler;
    uint32_t unclaimed;                 /* handler calls that found no overflow of ours */
    uint32_t dropped[PMU_DROP_REASONS]; /* samples lost in the handler, by reason */
    uint32_t stuck_resets;              /* PMIs whose status would not clear: the PMU was reset (as
                                           Linux's intel_pmu_reset), sampling on this CPU ended */
    uint64_t global_ctrl;               /* IA32_PERF_GLOBAL_CTRL while running */
    uint64_t debugctl;                  /* IA32_DEBUGCTL as programmed */
    uint64_t pebs_enable;               /* IA32_PEBS_ENABLE while running */
    uint64_t pebs_counters;             /* counter ids sampled through PEBS */
    uint64_t load_latency;              /* IA32_PEBS_ENABLE's LL_EN bits (before v5) */
    uint64_t sampling;                  /* counter ids the handler reports and reloads */
    uint32_t extra_msrs[PMU_MAX_EXTRA]; /* the plan's extra MSRs, zeroed at stop */
    uint32_t num_extra;
    uint64_t reload[PMU_MAX_COUNTERS]; /* per slot (pmu_slot()): value written on overflow */
    uint32_t tag[PMU_MAX_COUNTERS];
    struct pebs_cpu pebs;
    struct lbr_snapshot lbr_raw;           /* the handler's snapshot of the stack */
    struct lbr_entry lbr[LBR_MAX_ENTRIES]; /* ... decoded, newest first */
};

/* Counter ids index the per-slot arrays through pmu_slot(); the DS area has a reset value
 * per GP and per fixed counter. */
_Static_assert(PMU_MAX_GP + (PMU_FIXED_ID(PMU_MAX_FIXED - 1) - 32) < PMU_MAX_COUNTERS,
               "every counter id has a slot");
_Static_assert(PMU_MAX_GP <= 8 && 32 + PMU_MAX_FIXED <= PEBS_MAX_RESETS,
               "a DS reset value per counter in every PEBS format");

/* Zeroes `bytes` at `p` with word stores. The PMI, IPI and timer paths must not call
 * libc (a port's memset may use SSE, which interrupts do not save), and GCC turns a plain
 * loop or a large struct assignment into a memset call; volatile stores it leaves alone. */
static inline void pmu_zero(void *p, uint32_t bytes)
{
    volatile uint8_t *b = p;
    uint32_t i = 0;

    for (; i + 4 <= bytes && ((uintptr_t)(b + i) & 3) == 0; i += 4)
        *(volatile uint32_t *)(b + i) = 0;
    for (; i < bytes; i++)
        b[i] = 0;
}

/* The low `bits` bits set. */
static inline uint64_t pmu_width_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* Bits of a counter id's counter. */
static inline unsigned pmu_counter_width(const struct pmu_caps *caps, unsigned id)
{
    return id < 32 ? caps->gp_width : caps->fixed_width;
}

/* Slot of a counter id in the per-counter arrays. */
static inline unsigned pmu_slot(unsigned counter)
{
    return counter < 32 ? counter : PMU_MAX_GP + (counter - 32);
}

/* MSR through which a counter is written: IA32_A_PMCx when full-width writes exist (the
 * legacy IA32_PMCx sign-extends bit 31), IA32_FIXED_CTRj for fixed counters. */
static inline uint32_t pmu_counter_msr(const struct pmu_caps *caps, unsigned counter)
{
    if (counter >= 32)
        return MSR_IA32_FIXED_CTR0 + (counter - 32);
    return (caps->full_width_write ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + counter;
}

/* Zeroes the state and ties it to caps (NULL when pmu_probe failed). Touches no MSR. On a
 * hybrid part it reads CPUID leaves 0xA and 0x1A on the calling CPU, which must be the CPU
 * the state is for: an E-core has fewer counters than a P-core (Alder Lake: 6 general
 * counters against 8), and a write to one it lacks is a #GP. */
void pmu_cpu_init(struct pmu_cpu_state *cpu, const struct pmu_caps *caps);

/* Gives this CPU a DS area and PEBS buffer in `memory` (PEBS_DS_BYTES_PER_CPU bytes,
 * PEBS_DS_ALIGN aligned) and points IA32_DS_AREA at it. PMU_ERR_NO_PEBS without PEBS. */
int pmu_cpu_setup_pebs(struct pmu_cpu_state *cpu, void *memory, uint32_t bytes);

/* Checks the whole plan first (nothing is written if any counter is refused), then, with
 * counting disabled: clears all counter controls, preloads each counter with
 * -sample_after (masked to its width; IA32_A_PMCx when full-width writes exist), writes
 * the controls, PEBS reset values and threshold, LBR, IA32_DEBUGCTL, and clears
 * GLOBAL_STATUS. Counting starts with pmu_start_cpu(). */
int pmu_program_cpu(struct pmu_cpu_state *cpu, const struct pmu_plan *plan);

/* Counting off on this CPU, every control cleared, status cleared; the per-CPU
 * bookkeeping reset (pmu_program_cpu and pmu_raw.h's pmu_program_raw begin with it). */
void pmu_quiesce(struct pmu_cpu_state *cpu);

/* Acknowledges whatever GLOBAL_STATUS holds that GLOBAL_OVF_CTRL may clear. */
void pmu_clear_status(const struct pmu_caps *caps);

/* Writes a counter (counter id, as in GLOBAL_CTRL) what pmu_read_counter() read: how a
 * group's counts carry over from one multiplexing turn to its next. It goes through
 * pmu_counter_msr(): without full-width writes it sign-extends bit 31, which keeps the
 * value of a counter preloaded with -sample_after for any sample-after below 2^31. Call
 * with counting paused. */
void pmu_write_counter(const struct pmu_cpu_state *cpu, unsigned counter, uint64_t value);

/* Enables what was programmed (IA32_PEBS_ENABLE, then IA32_PERF_GLOBAL_CTRL). */
void pmu_start_cpu(struct pmu_cpu_state *cpu);

/* Disables counting globally; programming, counts and pending status stay, and
 * pmu_start_cpu() resumes. */
void pmu_pause_cpu(struct pmu_cpu_state *cpu);

/* Disables counting globally and returns the CPU's PMU to its idle state: GLOBAL_STATUS
 * cleared, counter controls, counters, PEBS enables, LBR and freeze bits cleared, PEBS
 * records not yet reported dropped. Program again before the next start. */
void pmu_stop_cpu(struct pmu_cpu_state *cpu);

/* Doubles the period of every sampling counter of this CPU, at most to the counter's
 * largest: the reload value, a PEBS counter's DS reset value, and the count in progress,
 * which is moved back by what the period grew, so the interval from each counter's last
 * reload to its next overflow is the new period. Counting pauses meanwhile. The PMI
 * budget's throttle (runtime/sampling/pmi_budget.h); interrupt context on this CPU. */
void pmu_double_periods(struct pmu_cpu_state *cpu);

/* Current value of a counter (masked to its width), or 0 for a counter id it lacks. */
uint64_t pmu_read_counter(const struct pmu_cpu_state *cpu, unsigned counter);

#endif
