/* Sampling interrupt and per-CPU start/stop. See sampler.h. */
#include "sampler.h"
#include "acart.h"
#include "acart_opts.h"
#include "acart_wire.h"

#include "acart_platform.h"
#include "irq_attribution.h"
#include "pmi_budget.h"
#include "pmi_lvt.h"
#include "pmu_owner.h"

#include "code_mode.h"
#include "io.h"
#include "msr.h"
#include "pebs.h"
#include "pmi.h"

#include <string.h>

/* Set-up, start, stop, the counts the agent reads and the programming of a group run in
 * net context or in its calls on every CPU, a few times per collection (and once per turn
 * when groups take turns): cold, so GCC builds them for size as it does the control-plane
 * files (-Os, runtime/CMakeLists.txt) and keeps them away from the sample path (the timer
 * tick, the PMI and the record they write), which stays at -O2. */
#define CONTROL_PLANE __attribute__((cold))

struct sampler_cpu {
    struct ring ring;
    volatile uint32_t active;       /* 0 while paused or stopped: interrupts record nothing */
    volatile int32_t program_error; /* pmu_program_cpu() or timer result at start */
    uint32_t timer_error;           /* program_error is the timer's (an ACA_ERR_*) */
    uint32_t no_event;              /* overflows whose tag names no event of the session */
    uint32_t timer_armed;           /* the platform gave this CPU a sampling timer */
    /* Sampling from the port's own tick (port_tick): the current window of sample_after
     * TSC cycles, the instant drawn in it, the generator's state (never 0), and the windows
     * that passed without a tick. */
    uint64_t tick_window, tick_at;
    uint32_t tick_rng;
    uint32_t tick_skipped;
    struct pmu_cpu_state pmu;
    /* Multiplexing: the group whose turn it is, since when (TSC), each group's time and the
     * counts its events had when its last turn ended (saved[] by event, valid for the
     * groups in `turned`). `switching` keeps a PMI out while a switch reprograms the PMU. */
    uint32_t group;
    uint32_t turned;
    uint64_t group_since;
    uint64_t running[SAMPLER_MAX_GROUPS];
    uint64_t saved[SAMPLER_MAX_EVENTS];
    uint32_t switches;
    uint32_t trigger_left;
    uint32_t switch_due;
    uint32_t late_pmi;    /* a switch took overflows whose PMI may still arrive */
    uint64_t count_since; /* counting mode: TSC of the last read */
    uint32_t interrupts[SAMPLER_MAX_EVENTS]; /* overflows taken, by event */
    volatile uint32_t switching;
    struct pmi_budget budget; /* this CPU's PMI rate and time (pmi_budget.h) */
};

static struct sampler_cpu cpus[ACA_MAX_CPUS];
static struct pmu_caps pmu_caps;
static int pmu_usable;
static int nmi_installed;
static int vector_installed;
#if ACA_WITH_PEBS
static uint8_t pebs_memory[ACA_MAX_CPUS][PEBS_DS_BYTES_PER_CPU]
    __attribute__((section(".bss.acart_pebs"), aligned(PEBS_DS_ALIGN)));
#endif
static struct sampler_config config;
/* Words after the 48-byte record that record_sample zeroes or walks: all of them, or those
 * before the stack copy, which ends the record and fills itself. */
static uint32_t tail_words;
static uint32_t num_cpus;
static volatile int running;
/* Some CPU samples from the port's tick (its aca_plat_timer_arm refused); the jitter's
 * scale: sample_after >> tick_shift, which fits 32 bits (tick_jitter). */
static volatile int port_ticks;
static uint32_t tick_scale, tick_shift;
static sampler_trace_pmi_fn trace_pmi;

#if ACA_WITH_COUNTING
static void switch_tick(const struct aca_frame *frame);
#endif

/* Return addresses of the interrupted code's callers, innermost first, found by following
 * saved frame pointers (the image is built with -fno-omit-frame-pointer). Reads only
 * inside the stack the platform says the interrupted code ran on (a task's own stack or
 * the CPU's), and only upwards, so a corrupt or absent frame ends the walk instead of
 * touching memory-mapped devices. When the interrupt hit a function
 * before its prologue saved EBP/RBP, the first entry is its caller's caller: a known limit
 * of frame-pointer walks. A frame is two pointer-sized words (saved frame pointer, return
 * address) in either mode. Writes whole u64 entries and returns how many; the caller
 * zeroes the rest. */
static uint32_t record_callstack(uint32_t *out, uint32_t depth, const struct aca_frame *interrupted)
{
    const uintptr_t frame_bytes = 2 * sizeof(uintptr_t);
    uintptr_t lo, hi;
    if (aca_plat_stack_bounds(interrupted, &lo, &hi) != 0 || hi - lo < frame_bytes)
        return 0;
    uintptr_t fp = interrupted->fp;
    uint32_t n = 0;
    while (n < depth) {
        if (fp < lo || fp > hi - frame_bytes || (fp & (sizeof(uintptr_t) - 1)))
            break;
        const uintptr_t *frame = (const uintptr_t *)fp;
        uintptr_t return_address = frame[1], caller_fp = frame[0];
        if (return_address == 0)
            break;
        out[2 * n] = (uint32_t)return_address; /* u64 little-endian: low word, high word */
        out[2 * n + 1] = (uint32_t)((uint64_t)return_address >> 32);
        n++;
        if (caller_fp <= fp)
            break;
        fp = caller_fp;
    }
    return n;
}

/* One u64 of a wire area as two little-endian words: records are 4-byte aligned only. */
static inline void put_u64(uint32_t *out, uint64_t v)
{
    out[0] = (uint32_t)v;
    out[1] = (uint32_t)(v >> 32);
}

#if ACA_WITH_STACK_COPY
/* The interrupted registers and a copy of its stack from SP upwards (struct
 * acart_stack_copy), for the host's CFI unwinder: what a call stack needs in code built
 * without frame pointers. Fills the whole area at `out`, stack_copy_bytes after the head.
 * The copy stays inside the stack the platform names (never past its top, where a task's
 * stack may border device memory or another task's stack) and is a word loop (no libc,
 * whose memcpy may use SSE). Its cost is one load and one store per word, the area's size
 * fixed for the collection: bench/sample_cost.py measures it. Out of line, so the samples
 * of a collection without it keep their frame. */
static __attribute__((noinline)) void record_stack_copy(uint32_t *out,
                                                        const struct aca_frame *interrupted)
{
    const uint32_t head_words = ACART_STACK_COPY_HEAD / 4, words = config.stack_copy_bytes / 4;
    for (uint32_t i = 0; i < head_words; i++)
        out[i] = 0;
    put_u64(out + 2 + 2 * ACART_REG_IP, interrupted->ip);
    put_u64(out + 2 + 2 * ACART_REG_SP, interrupted->sp);
    put_u64(out + 2 + 2 * ACART_REG_BP, interrupted->fp);
    put_u64(out + 2 + 2 * ACART_REG_FLAGS, interrupted->flags);
    put_u64(out + 2 + 2 * ACART_REG_CS, interrupted->cs);
    put_u64(out, (1u << ACART_REG_IP) | (1u << ACART_REG_SP) | (1u << ACART_REG_BP) |
                     (1u << ACART_REG_FLAGS) | (1u << ACART_REG_CS));
    uint32_t *stack = out + head_words, n = 0;
    uintptr_t lo, hi, sp = interrupted->sp;
    if (aca_plat_stack_bounds(interrupted, &lo, &hi) == 0 && sp >= lo && sp < hi && !(sp & 3)) {
        uintptr_t avail = (hi - sp) / 4;
        n = avail < words ? (uint32_t)avail : words;
        const volatile uint32_t *from = (const volatile uint32_t *)sp;
        for (uint32_t i = 0; i < n; i++)
            stack[i] = from[i];
    }
    out[head_words - 2] = 4 * n; /* copied */
    for (uint32_t i = n; i < words; i++)
        stack[i] = 0;
}
#endif

#if ACA_WITH_LBR
/* Entry `index`'s FROM, TO or INFO word (`word` 0, 1, 2) of a PEBS record's LBR group
 * (architectural order: entry 0 the newest), 0 past its last entry. */
static uint64_t pebs_lbr_word(const struct pebs_sample *pebs, uint32_t index, uint32_t word)
{
    uint64_t v = 0;
    if (index < pebs->lbr_count)
        __builtin_memcpy(&v, pebs->lbr + index * PEBS_LBR_ENTRY_BYTES + 8 * word, sizeof(v));
    return v;
}

/* The LBR registers the host listed, as u64 words: from the handler's frozen snapshot, or
 * from `pebs`'s LBR group when the record has one (the stack when the event happened;
 * architectural LBRs, so no TOS). */
static void record_lbrs(uint32_t *out, const struct lbr_snapshot *snap,
                        const struct pebs_sample *pebs)
{
    for (uint32_t i = 0; i < config.lbr_num_regs; i++) {
        const struct sampler_lbr_reg *r = &config.lbr_regs[i];
        uint64_t v = 0;
        switch (r->etype) {
        case SEP_LBR_ENTRY_TOS:
            v = pebs ? 0 : snap->tos;
            break;
        case SEP_LBR_ENTRY_FROM:
            v = pebs ? pebs_lbr_word(pebs, r->index, 0) : snap->from[r->index];
            break;
        case SEP_LBR_ENTRY_TO:
            v = pebs ? pebs_lbr_word(pebs, r->index, 1) : snap->to[r->index];
            break;
        case SEP_LBR_ENTRY_INFO:
            v = pebs ? pebs_lbr_word(pebs, r->index, 2) : snap->info[r->index];
            break;
        default:
            break;
        }
        out[2 * i] = (uint32_t)v;
        out[2 * i + 1] = (uint32_t)(v >> 32);
    }
}
#endif

#if ACA_WITH_PEBS
/* The load's address, data source and latency as u64 words (struct sep_latency_info). */
static void record_memory(uint32_t *out, const struct pebs_sample *mem)
{
    const uint64_t v[3] = {mem->data_address, mem->data_source, mem->latency};
    _Static_assert(sizeof(v) == SEP_LATENCY_INFO_FILLED, "the filled part of the latency info");
    for (uint32_t i = 0; i < 3; i++) {
        out[2 * i] = (uint32_t)v[i];
        out[2 * i + 1] = (uint32_t)(v[i] >> 32);
    }
}
#endif

#if ACA_WITH_LBR || ACA_WITH_PEBS
/* What a counter overflow adds to its sample's `tail` (the words after the 48-byte
 * record): the LBR snapshot of this PMI, or the PEBS record's LBR group, which is the
 * stack when the event happened and replaces it (the LBRs are on); a load-latency event's
 * memory information. Out of line: the timer's samples never come here. */
static __attribute__((noinline)) void
record_overflow_data(uint32_t *tail, const struct sampler_event *ev, const struct pmu_overflow *ov)
{
    const struct pebs_sample *pebs = ov->pebs;
#if ACA_WITH_LBR
    if (ov->lbr_raw && ev->lbr && config.lbr_num_regs)
        record_lbrs(tail + (config.lbr_offset - sizeof(struct sep_sample_pc)) / 4, ov->lbr_raw,
                    pebs && (pebs->have & PEBS_HAVE_LBR) ? pebs : 0);
#endif
#if ACA_WITH_PEBS
    if (pebs && config.latency_offset && ev->load_latency && (pebs->have & PEBS_HAVE_MEMORY))
        record_memory(tail + (config.latency_offset - sizeof(struct sep_sample_pc)) / 4, pebs);
#endif
}
#endif

/* The one place a sample record is written: on this CPU, into this CPU's ring. `ip` is
 * the interrupted EIP, or the event's exact IP when PEBS recorded it; `ov` the counter
 * overflow that took the sample (record_overflow_data), NULL for the timer's, which pay
 * one test for it. */
static void record_sample(const struct aca_frame *frame, uint64_t ip,
                          const struct sampler_event *ev, const struct pmu_overflow *ov)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= num_cpus)
        return;
    struct sampler_cpu *c = &cpus[cpu];
    if (!c->active)
        return;
    struct sep_sample_pc *s = ring_reserve(&c->ring);
    if (!s)
        return;
    uint32_t pid = 0, tid = 0;
    int irq = irq_attribution_vector(cpu);
    if (irq >= 0) {
        pid = ACA_IRQ_PID;
        tid = ACA_IRQ_TID(irq);
    } else if (aca_port_current_task(cpu, &pid, &tid) != 0) {
        pid = tid = 0;
    }
    s->descriptor_id = ev->descriptor_id;
    s->osid = 0;
    s->iip = ip;
    s->ipsr = (uint32_t)frame->flags; /* the reference's EFLAGS | (CPL << 32), CPL 0 */
    s->cs = (uint16_t)frame->cs;
    s->cpu_and_os = (uint16_t)((cpu & SEP_SAMPLE_CPU_NUM_MASK) |
                               ((CPU_LONG_MODE ? SEP_MODE_64BIT : SEP_MODE_32BIT)
                                << SEP_SAMPLE_CODE_MODE_SHIFT));
    s->tid = tid;
    s->pid_rec_index = pid;
    s->bit_fields2 =
        ((ev->event_index << SEP_SAMPLE_EVENT_INDEX_SHIFT) & SEP_SAMPLE_EVENT_INDEX_MASK) |
        SEP_SAMPLE_TID_IS_RAW | SEP_SAMPLE_IA64PC | SEP_SAMPLE_PID_RAW;
    s->tsc = rdtsc();
    /* The rest of the record is zero but for the call-stack entries the walk wrote. Word
     * loops, not memset: libc's may use SSE, which this path must not touch. */
    uint32_t *tail = (uint32_t *)(s + 1);
    uint32_t words = tail_words, walked_from = words, walked_to = words;
    if (config.callstack_depth) {
        walked_from = (config.callstack_offset - sizeof(*s)) / 4;
        walked_to =
            walked_from + 2 * record_callstack(tail + walked_from, config.callstack_depth, frame);
    }
    for (uint32_t i = 0; i < walked_from; i++)
        tail[i] = 0;
    for (uint32_t i = walked_to; i < words; i++)
        tail[i] = 0;
#if ACA_WITH_LBR || ACA_WITH_PEBS
    if (ov)
        record_overflow_data(tail, ev, ov);
#else
    (void)ov;      /* nothing beyond the IP: no LBR, no PEBS record */
#endif
#if ACA_WITH_STACK_COPY
    if (config.stack_copy_bytes)
        record_stack_copy(tail + words, frame);
#endif
    ring_commit(&c->ring);
}

/* aca_selftest's view of the ticks: counted per CPU, no sample recorded. */
static volatile int selftest_on;
static struct sampler_selftest_counts selftest[ACA_MAX_CPUS];

/* Kept out of line: inlined, its locals and saved registers would give every sampling
 * tick a bigger frame (bench/sample_cost.py counts the instructions). */
CONTROL_PLANE __attribute__((noinline)) static void selftest_tick(const struct aca_frame *frame)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= ACA_MAX_CPUS)
        return;
    struct sampler_selftest_counts *c = &selftest[cpu];
    uint32_t pid, tid;
    uintptr_t lo, hi;
    c->ticks++;
    if (aca_port_current_task(cpu, &pid, &tid) == 0)
        c->in_task++;
    if (aca_plat_stack_bounds(frame, &lo, &hi) == 0) {
        if (frame->sp >= lo && frame->sp < hi)
            c->stack_ok++;
        else
            c->stack_bad++;
    }
}

/* An offset drawn uniformly in [0, sample_after): Marsaglia's 32-bit xorshift, scaled by
 * a multiply-high (one 32x32->64 multiply, also on i686; no division, no libgcc). The low
 * tick_shift bits are 0, a bias of at most 1/2^32 of a window. */
static inline uint64_t tick_jitter(struct sampler_cpu *c)
{
    uint32_t x = c->tick_rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c->tick_rng = x;
    return ((uint64_t)x * tick_scale >> 32) << tick_shift;
}

/* The first window of the port's tick on this CPU starts now (at START, and at RESUME,
 * so a pause is no gap). Interrupts off. The seed differs by CPU and by session. */
static void port_tick_begin(struct sampler_cpu *c, uint32_t cpu, uint64_t now)
{
    if (!c->tick_rng)
        c->tick_rng = ((uint32_t)now ^ (0x9e3779b9u * (cpu + 1))) | 1;
    c->tick_window = now;
    c->tick_at = now + tick_jitter(c);
}

/* Time-based sampling from the port's own tick (its aca_plat_timer_arm refused). The tick
 * that samples is also the tick that switches tasks, so which ticks sample decides what
 * is seen: taking every tick gives samples x sample_after = (elapsed time) x sample_after
 * / (tick period), the wrong count, and taking every Nth tick, the right count, sees only
 * the tasks that run at one phase of any schedule whose period shares a factor with N
 * (slices of 1, 2 and 3 ticks, N = 2: the workers at 33/33/33 % or 0/33/67 % against
 * 17/33/50 %).
 *
 * Instead the TSC time line is cut into windows of sample_after cycles and each window
 * gets one sample, taken at the first tick at or after an instant drawn uniformly in it
 * (jittered sampling). Every tick then has the same chance of sampling whatever its place
 * in the schedule (the gap before it over sample_after), so no schedule locks on, and the
 * samples count the time exactly, to one window, as a timer of acart's own would.
 *
 * Two windows' instants can fall before one tick (the first window's drawn late, the
 * second's early): both are taken, the same sample twice, which keeps the count. A tick
 * that comes after a whole window passed without one (the CPU stopped, interrupts were
 * off, a virtual CPU was descheduled, a tick slower than sample_after) takes the overdue
 * window's sample only: the windows that ended since are skipped and counted in
 * tick_skipped (the agent logs them at STOP), as a timer's coalesced interrupts are lost,
 * rather than all given to the one instruction this tick interrupted. Out of line, as
 * selftest_tick. */
__attribute__((noinline)) static void port_tick(const struct aca_frame *frame)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= num_cpus)
        return;
    struct sampler_cpu *c = &cpus[cpu];
    if (c->timer_armed) { /* this CPU has a timer of acart's own: each tick is a sample */
        record_sample(frame, frame->ip, &config.events[0], 0);
        return;
    }
    uint64_t now = rdtsc();
    if (!c->active || now < c->tick_at)
        return; /* most ticks: a load, rdtsc, two compares */
    const uint64_t sample_after = config.events[0].sample_after;
    record_sample(frame, frame->ip, &config.events[0], 0);
    c->tick_window += sample_after;
    if (c->tick_window + sample_after <= now) {
        do {
            c->tick_window += sample_after;
            c->tick_skipped++;
        } while (c->tick_window + sample_after <= now);
        c->tick_at = c->tick_window + tick_jitter(c); /* if passed: at the next tick */
        return;
    }
    c->tick_at = c->tick_window + tick_jitter(c);
    if (now < c->tick_at)
        return;
    /* The next window's instant fell before this tick too; the one after starts after
     * it (this window has not ended), so two samples at most. */
    record_sample(frame, frame->ip, &config.events[0], 0);
    c->tick_window += sample_after;
    c->tick_at = c->tick_window + tick_jitter(c);
}

void aca_sample_tick(const struct aca_frame *frame)
{
    pmu_owner_tick_fn iprobe = pmu_owner_tick(); /* set while an IPROBE program owns it */
    if (selftest_on)
        selftest_tick(frame);
    else if (iprobe)
        iprobe(frame);
    else if (config.source == SAMPLER_SOURCE_TIMER && port_ticks)
        port_tick(frame);
    else if (config.source == SAMPLER_SOURCE_TIMER)
        record_sample(frame, frame->ip, &config.events[0], 0);
#if ACA_WITH_COUNTING
    else if (config.num_groups > 1 && config.switch_tsc)
        switch_tick(frame);
#endif
}

CONTROL_PLANE void sampler_selftest_begin(void)
{
    for (uint32_t i = 0; i < ACA_MAX_CPUS; i++) {
        selftest[i].ticks = selftest[i].in_task = 0;
        selftest[i].stack_ok = selftest[i].stack_bad = 0;
    }
    __atomic_store_n(&selftest_on, 1, __ATOMIC_RELEASE);
}

CONTROL_PLANE uint32_t sampler_selftest_end(struct sampler_selftest_counts *out, uint32_t max)
{
    __atomic_store_n(&selftest_on, 0, __ATOMIC_RELEASE);
    uint32_t n = aca_plat_num_cpus();
    if (n > max)
        n = max;
    if (n > ACA_MAX_CPUS)
        n = ACA_MAX_CPUS;
    for (uint32_t i = 0; i < n; i++)
        out[i] = selftest[i];
    return n;
}

#if ACA_WITH_COUNTING
static void switch_on_this_cpu(struct sampler_cpu *c, const struct aca_frame *frame);
#endif

static void on_overflow(void *ctx, const struct pmu_overflow *ov)
{
    const struct aca_frame *frame = ctx;
    uint64_t ip = ACA_WITH_PEBS && ov->pebs ? ov->pebs->ip : frame->ip;
    if (ov->tag < config.num_events) {
        const struct sampler_event *ev = &config.events[ov->tag];
        record_sample(frame, ip, ev, ov);
        struct sampler_cpu *c = &cpus[aca_plat_cpu_index()];
        if (c->active)
            c->interrupts[ov->tag]++; /* the samples record_sample took: ring's `sampled` */
        if (ACA_WITH_COUNTING && config.switch_overflows &&
            ev->event_index == config.switch_event && c->trigger_left && --c->trigger_left == 0)
            c->switch_due = 1;
    } else
        cpus[aca_plat_cpu_index()].no_event++; /* counted, as every sample the PMU took */
}

/* The LVT unmask of models that acknowledge mid-handler: status clear, counting still off
 * (pmi.h). */
static void pmi_mid_ack(void *ctx)
{
    (void)ctx;
    pmi_lvt_unmask(aca_plat_cpu_index());
}

/* The PMI, as NMI or on a vector. The CPU masked the LVT entry when it delivered the
 * PMI; it is unmasked before, in the middle of or after the handler core depending on the
 * model (pmi.h). Its time, from here to the last overflow reported, goes to the CPU's PMI
 * budget, which may double the CPU's periods before counting goes on (pmi_budget.h). */
static int on_pmi(const struct aca_frame *frame)
{
    uint64_t start = rdtsc();
    /* Every NMI comes here, also on CPUs beyond the session (a board with more CPUs online
     * than ACA_MAX_CPUS): they have no state in cpus[] and claim nothing. */
    uint32_t cpu = aca_plat_cpu_index();
    struct pmu_cpu_state *pmu = cpu < num_cpus ? &cpus[cpu].pmu : 0;
    if (!pmu)
        return 0;
    if (ACA_WITH_COUNTING && cpus[cpu].switching) {
        /* A switch on this CPU was interrupted: it takes the pending overflows itself. */
        pmi_lvt_unmask(cpu);
        if (!config.use_nmi)
            aca_plat_eoi();
        return 1;
    }
    if (!pmu_caps.pmi_ack_late && !pmu_caps.pmi_ack_mid)
        pmi_lvt_unmask(cpu);
    /* The trace unit first: its status bit is not the PMU's to clear. */
    unsigned handled = trace_pmi ? (unsigned)trace_pmi() : 0;
    unsigned overflows = pmu_handle_overflow_ack(pmu, on_overflow, pmi_mid_ack, (void *)frame);
    handled += overflows;
    /* Only the counters' PMIs count against the budget: a trace region's or a stranger's
     * NMI is not a sample. */
    if (overflows && config.source == SAMPLER_SOURCE_PMU &&
        pmi_budget_took(&cpus[cpu].budget, start, rdtsc()))
        pmu_double_periods(pmu);
    /* The PMI of overflows a switch already took finds nothing: still ours. */
    if (!handled && cpus[cpu].late_pmi) {
        pmu->unclaimed--;
        handled = 1;
    }
    cpus[cpu].late_pmi = 0;
#if ACA_WITH_COUNTING
    if (cpus[cpu].switch_due)
        switch_on_this_cpu(&cpus[cpu], frame);
#endif
    if (pmu_caps.pmi_ack_late)
        pmi_lvt_unmask(cpu);
    if (!config.use_nmi)
        aca_plat_eoi();
    return handled != 0; /* 0: not ours, the platform passes the NMI on */
}

CONTROL_PLANE void sampler_set_trace_pmi(sampler_trace_pmi_fn fn)
{
    trace_pmi = fn;
}

/* The PMI is taken for the PMU's counters or the trace unit's regions. */
static int wants_pmi(void)
{
    return config.source == SAMPLER_SOURCE_PMU || trace_pmi;
}

CONTROL_PLANE int sampler_probe_pmu(void)
{
    int err = pmu_probe(&pmu_caps);
    pmu_usable = err == 0;
    return err;
}

CONTROL_PLANE const char *sampler_pebs_refusal(void)
{
    return pmu_usable ? pmu_caps.pebs_quirk : 0;
}

CONTROL_PLANE const struct pmu_caps *sampler_pmu_caps(void)
{
    return pmu_usable ? &pmu_caps : 0;
}

static int uses_pebs(const struct sampler_event *ev)
{
    return ACA_WITH_PEBS && ev->precise && pmu_caps.pebs.usable;
}

/* Programs the events of this CPU's current group (paused), with the counts they had when
 * the group's last turn ended. */
CONTROL_PLANE static int program_group(struct sampler_cpu *c)
{
    struct pmu_plan plan;
    pmu_zero(&plan, sizeof(plan)); /* in the start IPI: no libc */
    _Static_assert(PMU_MAX_COUNTERS <= sizeof(plan.counters) / sizeof(plan.counters[0]),
                   "every event of a group needs a counter slot in the PMU plan");
    for (uint32_t i = 0; i < config.num_events; i++) {
        const struct sampler_event *ev = &config.events[i];
        if (ev->group != c->group)
            continue;
        if (plan.num_counters >= PMU_MAX_COUNTERS)
            return PMU_ERR_INVALID;
        struct pmu_counter_plan *p = &plan.counters[plan.num_counters++];
        p->kind = ev->fixed ? PMU_COUNTER_FIXED : PMU_COUNTER_GP;
        p->index = (uint8_t)ev->counter;
        p->tag = i;
        p->control = ev->control;
        /* The period the PMI budget left this CPU with (pmi_budget.h). */
        p->sample_after = ev->sample_after ? pmi_budget_period(ev->sample_after, c->budget.shift,
                                                               ev->fixed ? pmu_caps.max_period_fixed
                                                                         : pmu_caps.max_period_gp)
                                           : 0;
        if (uses_pebs(ev)) {
            p->flags |= PMU_COUNTER_PEBS;
            if (ev->load_latency) {
                p->flags |= PMU_COUNTER_LOAD_LATENCY;
                /* Adaptive records carry the load's address, source and latency only in
                 * the memory group, which must be asked for (Linux's pebs_update_adaptive_cfg). */
                if (pmu_caps.pebs.adaptive && config.latency_offset)
                    plan.pebs_data_cfg |= PEBS_DATA_CFG_MEMORY;
            }
            /* Adaptive PEBS with architectural LBRs records the stack with the event
             * (the LBR group): its samples carry that one, as Linux's do. */
            if (ev->lbr && config.lbr_num_regs && pmu_caps.pebs.adaptive && pmu_caps.lbr.arch &&
                pmu_caps.lbr.depth)
                plan.pebs_data_cfg |= PEBS_DATA_CFG_LBRS | (uint64_t)(pmu_caps.lbr.depth - 1)
                                                               << PEBS_DATA_CFG_LBR_SHIFT;
        }
    }
    for (uint32_t i = 0; i < config.num_extra && i < SAMPLER_MAX_EXTRA; i++) {
        if (config.extra_group[i] != c->group)
            continue;
        if (plan.num_extra >= PMU_MAX_EXTRA)
            return PMU_ERR_INVALID;
        plan.extra[plan.num_extra].msr = config.extra[i].msr;
        plan.extra[plan.num_extra++].value = config.extra[i].value;
    }
    /* Counters keep counting until the handler stops them, as Linux has them (it never
     * freezes counters on PMI by default, and dropped the option in 5.11): with freeze on,
     * an overflow between re-enabling and a late unmask of the LVT entry freezes every
     * counter, and its PMI, lost to the masked entry, is the only thing that would have
     * thawed them. LBRs still freeze (lbr_debugctl_bits()). */
    plan.freeze_on_pmi = 0;
    plan.lbr = config.lbr_num_regs != 0;
    plan.lbr_select = config.lbr_select;
    int err = pmu_program_cpu(&c->pmu, &plan);
    if (err || !ACA_WITH_COUNTING || !(c->turned & (1u << c->group)))
        return err;
    for (uint32_t i = 0; i < config.num_events; i++) {
        const struct sampler_event *ev = &config.events[i];
        if (ev->group == c->group)
            pmu_write_counter(&c->pmu, ev->fixed ? PMU_FIXED_ID(ev->counter) : ev->counter,
                              c->saved[i]);
    }
    return 0;
}

CONTROL_PLANE static int program_pmu_on_this_cpu(struct sampler_cpu *c)
{
    int precise = 0;
    for (uint32_t i = 0; i < config.num_events; i++)
        precise |= uses_pebs(&config.events[i]);
    pmu_cpu_init(&c->pmu, &pmu_caps);
    /* In LBR call-stack mode the handler drops its own calls, through the call into this
     * one, from the stack it reads (pmi.c). */
    c->pmu.lbr_handler = (uintptr_t)on_pmi;
#if ACA_WITH_PEBS
    if (precise) {
        int err =
            pmu_cpu_setup_pebs(&c->pmu, pebs_memory[aca_plat_cpu_index()], PEBS_DS_BYTES_PER_CPU);
        if (err)
            return err;
    }
#else
    (void)precise; /* never: uses_pebs() is 0 */
#endif
    c->group = 0;
    c->turned = 0;
    c->switches = 0;
    for (uint32_t i = 0; i < SAMPLER_MAX_EVENTS; i++)
        c->interrupts[i] = 0;
    c->trigger_left = config.switch_overflows;
    for (uint32_t g = 0; g < SAMPLER_MAX_GROUPS; g++)
        c->running[g] = 0;
    return program_group(c);
}

/* The group counting on this CPU ran until now. */
static void account_turn(struct sampler_cpu *c, uint64_t now)
{
    c->running[c->group] += now - c->group_since;
    c->group_since = now;
}

#if ACA_WITH_COUNTING
/* A frame for samples a switch takes outside any interrupted code (SWITCH_GROUP's call):
 * their IP is unknown, 0. */
static const struct aca_frame no_frame;

/* Ends the turn of this CPU's group and starts the next group's. Interrupt context on this
 * CPU (the sampling timer, the PMI, or SWITCH_GROUP's call on every CPU), `frame` what it
 * interrupted or NULL. */
static void switch_on_this_cpu(struct sampler_cpu *c, const struct aca_frame *frame)
{
    c->switching = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    int was_running = c->pmu.running;
    pmu_pause_cpu(&c->pmu);
    /* What the outgoing group had pending are its samples: taken now, counters reloaded. */
    if (msr_read(MSR_IA32_PERF_GLOBAL_STATUS) & ~GLOBAL_STATUS_TRACE_TOPA) {
        pmu_handle_overflow(&c->pmu, on_overflow, (void *)(frame ? frame : &no_frame));
        c->late_pmi = 1;
    }
    for (uint32_t i = 0; i < config.num_events; i++) {
        const struct sampler_event *ev = &config.events[i];
        if (ev->group == c->group)
            c->saved[i] =
                pmu_read_counter(&c->pmu, ev->fixed ? PMU_FIXED_ID(ev->counter) : ev->counter);
    }
    c->turned |= 1u << c->group;
    if (c->active)
        account_turn(c, rdtsc());
    c->group = (c->group + 1) % config.num_groups;
    c->switches++;
    c->switch_due = 0;
    c->trigger_left = config.switch_overflows;
    int err = program_group(c);
    if (err)
        c->program_error = err; /* counting stays off on this CPU */
    else if (was_running)
        pmu_start_cpu(&c->pmu);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    c->switching = 0;
}

/* The sampling timer of a multiplexed collection: when the platform gives acart a timer it
 * fires once per turn; a port's own faster tick ends a turn once it lasted switch_tsc. Out of
 * line, as selftest_tick. */
__attribute__((noinline)) static void switch_tick(const struct aca_frame *frame)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= num_cpus)
        return;
    struct sampler_cpu *c = &cpus[cpu];
    if (!c->active || c->program_error)
        return;
    if (c->timer_armed || rdtsc() - c->group_since >= config.switch_tsc)
        switch_on_this_cpu(c, frame);
}
#endif

CONTROL_PLANE static void start_on_this_cpu(void *arg)
{
    (void)arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= num_cpus)
        return;
    struct sampler_cpu *c = &cpus[cpu];
    if (config.source == SAMPLER_SOURCE_TIMER) {
        c->active = 1;
        if (trace_pmi)
            pmi_lvt_route(cpu, config.use_nmi, config.vector);
        int err = aca_plat_timer_arm(config.events[0].sample_after);
        /* No timer for acart: the port's own tick calls aca_sample_tick() (port_tick). */
        c->timer_armed = err == 0;
        if (err == ACA_ERR_UNSUPPORTED) {
            port_tick_begin(c, cpu, rdtsc());
            port_ticks = 1;
        } else if (err) {
            c->program_error = err;
            c->timer_error = 1;
        }
        return;
    }
    c->timer_error = 0;
    pmi_budget_init(&c->budget, config.pmi_max_rate_hz, config.pmi_cpu_percent, aca_plat_tsc_hz(),
                    rdtsc());
    c->program_error = program_pmu_on_this_cpu(c);
    if (c->program_error)
        return;
    if (ACA_WITH_COUNTING && config.num_groups > 1 && config.switch_tsc) {
        int err = aca_plat_timer_arm(config.switch_tsc);
        /* No timer for acart: the port's own tick calls aca_sample_tick(). */
        c->timer_armed = err == 0;
        if (err && err != ACA_ERR_UNSUPPORTED) {
            c->program_error = err;
            c->timer_error = 1;
            return;
        }
    }
    c->group_since = rdtsc();
    c->count_since = c->group_since;
    c->active = 1;
    pmi_lvt_route(cpu, config.use_nmi, config.vector);
    pmu_start_cpu(&c->pmu);
}

CONTROL_PLANE static void stop_on_this_cpu(void *arg)
{
    (void)arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= num_cpus)
        return;
    if (config.source == SAMPLER_SOURCE_TIMER) {
        /* Also where the platform refused a timer (its tick samples): aca_plat_timer_disarm
         * then marks the end of sampling for the port, as aca_selftest's does. */
        aca_plat_timer_disarm();
        cpus[cpu].timer_armed = 0;
        if (trace_pmi)
            pmi_lvt_mask(cpu);
    } else {
        struct sampler_cpu *c = &cpus[cpu];
        if (c->timer_armed)
            aca_plat_timer_disarm();
        c->timer_armed = 0;
        pmu_stop_cpu(&c->pmu);
        pmi_lvt_mask(cpu);
        if (c->active)
            account_turn(c, rdtsc());
    }
    cpus[cpu].active = 0;
}

CONTROL_PLANE static void set_active_on_this_cpu(void *arg)
{
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= num_cpus)
        return;
    int on = (int)(uintptr_t)arg;
    /* As at start and stop: recording is on before counting resumes and goes off only once
     * counting has paused, so a PMI in between still records its sample. */
    struct sampler_cpu *c = &cpus[cpu];
    if (on && !c->active) {
        c->group_since = rdtsc();
        if (config.source == SAMPLER_SOURCE_TIMER && !c->timer_armed)
            port_tick_begin(c, cpu, c->group_since);
    }
    if (on)
        c->active = 1;
    if (config.source == SAMPLER_SOURCE_PMU) {
        if (on)
            pmu_start_cpu(&c->pmu);
        else
            pmu_pause_cpu(&c->pmu);
    }
    if (!on && c->active) {
        account_turn(c, rdtsc());
        c->active = 0;
    }
}

/* Whether the record areas [a, a + alen) and [b, b + blen) share a byte (an empty one
 * shares none). */
CONTROL_PLANE static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

CONTROL_PLANE int sampler_setup(uint32_t ncpus, uint8_t *ring_memory, uint32_t bytes_per_cpu,
                                const struct sampler_config *cfg)
{
    if (running)
        return ACA_ERR_BUSY;
    if (ncpus == 0 || ncpus > ACA_MAX_CPUS || cfg->num_events == 0 ||
        cfg->num_events > SAMPLER_MAX_EVENTS || cfg->record_size < sizeof(struct sep_sample_pc) ||
        cfg->record_size % 4)
        return ACA_ERR_INVALID;
    if (cfg->callstack_depth &&
        (cfg->callstack_offset < sizeof(struct sep_sample_pc) || cfg->callstack_offset % 8 ||
         cfg->callstack_offset + 8ull * cfg->callstack_depth > cfg->record_size))
        return ACA_ERR_INVALID;
    /* The stack copy ends the record and shares no byte with the other areas. */
    if (cfg->stack_copy_bytes &&
        (!ACA_WITH_STACK_COPY || cfg->stack_copy_offset < sizeof(struct sep_sample_pc) ||
         cfg->stack_copy_offset % 8 || cfg->stack_copy_bytes % 8 ||
         cfg->stack_copy_bytes > ACART_STACK_COPY_MAX ||
         (uint64_t)cfg->stack_copy_offset + ACART_STACK_COPY_HEAD + cfg->stack_copy_bytes !=
             cfg->record_size ||
         (cfg->callstack_depth &&
          cfg->callstack_offset + 8ull * cfg->callstack_depth > cfg->stack_copy_offset) ||
         (cfg->lbr_num_regs &&
          cfg->lbr_offset + 8ull * cfg->lbr_num_regs > cfg->stack_copy_offset) ||
         (cfg->latency_offset &&
          cfg->latency_offset + SEP_LATENCY_INFO_FILLED > cfg->stack_copy_offset)))
        return ACA_ERR_INVALID;
    if (cfg->lbr_num_regs &&
        (!ACA_WITH_LBR || cfg->source != SAMPLER_SOURCE_PMU ||
         cfg->lbr_num_regs > SAMPLER_MAX_LBR_REGS ||
         cfg->lbr_offset < sizeof(struct sep_sample_pc) || cfg->lbr_offset % 8 ||
         cfg->lbr_offset + 8ull * cfg->lbr_num_regs > cfg->record_size ||
         (cfg->callstack_depth &&
          cfg->lbr_offset < cfg->callstack_offset + 8ull * cfg->callstack_depth &&
          cfg->callstack_offset < cfg->lbr_offset + 8ull * cfg->lbr_num_regs)))
        return ACA_ERR_INVALID;
    for (uint32_t i = 0; i < cfg->lbr_num_regs; i++)
        if (cfg->lbr_regs[i].etype != SAMPLER_LBR_NONE && cfg->lbr_regs[i].index >= LBR_MAX_ENTRIES)
            return ACA_ERR_INVALID;
    if (cfg->latency_offset &&
        (cfg->source != SAMPLER_SOURCE_PMU || cfg->latency_offset < sizeof(struct sep_sample_pc) ||
         cfg->latency_offset % 8 ||
         cfg->latency_offset + SEP_LATENCY_INFO_FILLED > cfg->record_size ||
         overlaps(cfg->latency_offset, SEP_LATENCY_INFO_FILLED, cfg->callstack_offset,
                  8ull * cfg->callstack_depth) ||
         overlaps(cfg->latency_offset, SEP_LATENCY_INFO_FILLED, cfg->lbr_offset,
                  8ull * cfg->lbr_num_regs)))
        return ACA_ERR_INVALID;
    if (cfg->source == SAMPLER_SOURCE_PMU && !pmu_usable)
        return ACA_ERR_NO_PMU;
    /* A CPU whose PEBS an erratum turned off refuses precise events, as Linux does, rather
     * than sample them imprecisely: sampler_pebs_refusal() says why. */
    for (uint32_t i = 0; cfg->source == SAMPLER_SOURCE_PMU && i < cfg->num_events; i++)
        if (cfg->events[i].precise && pmu_caps.pebs_quirk)
            return ACA_ERR_UNSUPPORTED;
    /* One counter per event: a group holds at most PMU_MAX_COUNTERS; several groups take
     * turns only on the PMU. */
    uint32_t groups = cfg->num_groups ? cfg->num_groups : 1;
    if (groups > SAMPLER_MAX_GROUPS || cfg->num_extra > SAMPLER_MAX_EXTRA ||
        (groups > 1 && (!ACA_WITH_COUNTING || cfg->source != SAMPLER_SOURCE_PMU)))
        return ACA_ERR_INVALID;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < cfg->num_events; i++)
            n += cfg->events[i].group == g;
        if (n == 0 || n > PMU_MAX_COUNTERS)
            return ACA_ERR_INVALID;
    }
    for (uint32_t i = 0; i < cfg->num_events; i++)
        if (cfg->events[i].group >= groups)
            return ACA_ERR_INVALID;
    for (uint32_t i = 0; i < cfg->num_extra; i++)
        if (cfg->extra_group[i] >= groups)
            return ACA_ERR_INVALID;
    if (cfg->counting && (!ACA_WITH_COUNTING || cfg->source != SAMPLER_SOURCE_PMU))
        return ACA_ERR_NO_PMU;
    for (uint32_t i = 0; i < cfg->num_events; i++)
        if (cfg->counting ? cfg->events[i].sample_after != 0
                          : cfg->events[i].sample_after < SAMPLER_MIN_SAMPLE_AFTER)
            return ACA_ERR_INVALID;
    /* A period the board cannot take would turn into an interrupt storm that starves
     * everything else, the network included: refuse more than SAMPLER_MAX_TIMER_HZ. */
    if (cfg->source == SAMPLER_SOURCE_TIMER &&
        aca_plat_tsc_hz() / cfg->events[0].sample_after > SAMPLER_MAX_TIMER_HZ)
        return ACA_ERR_INVALID;
    for (uint32_t i = 0; i < ncpus; i++) {
        int err = ring_init(&cpus[i].ring, ring_memory + (uint64_t)i * bytes_per_cpu, bytes_per_cpu,
                            cfg->record_size);
        if (err)
            return err;
        cpus[i].active = 0;
    }
    config = *cfg;
    config.num_groups = groups;
    /* port_tick's jitter: sample_after in 32 bits, the bits it drops put back as a shift. */
    tick_shift = 0;
    while ((config.events[0].sample_after >> tick_shift) > UINT32_MAX)
        tick_shift++;
    tick_scale = (uint32_t)(config.events[0].sample_after >> tick_shift);
    tail_words = ((config.stack_copy_bytes ? config.stack_copy_offset : config.record_size) -
                  (uint32_t)sizeof(struct sep_sample_pc)) /
                 4;
    num_cpus = ncpus;
    int err = ACA_OK;
    if (wants_pmi() && cfg->use_nmi && !nmi_installed) {
        err = aca_plat_nmi_install(on_pmi);
        nmi_installed = err == ACA_OK;
    } else if (wants_pmi() && !cfg->use_nmi) {
        err = aca_plat_vector_install(cfg->vector, on_pmi);
        vector_installed = err == ACA_OK;
    }
    if (err)
        num_cpus = 0;
    return err;
}

static uint32_t start_error_cpu, start_error_timer;
static int32_t start_error;

CONTROL_PLANE int sampler_start(void)
{
    if (num_cpus == 0)
        return ACA_ERR_STATE;
    if (running)
        return ACA_ERR_BUSY;
    running = 1;
    start_error = 0;
    port_ticks = 0; /* until a CPU's aca_plat_timer_arm refuses */
    aca_plat_call_on_all_cpus(start_on_this_cpu, 0);
    for (uint32_t i = 0; i < num_cpus; i++) {
        if (cpus[i].program_error) {
            start_error_cpu = i;
            start_error = cpus[i].program_error;
            start_error_timer = cpus[i].timer_error;
            sampler_stop();
            return ACA_ERR_INVALID; /* the plan does not fit this CPU's PMU */
        }
    }
    return ACA_OK;
}

CONTROL_PLANE const char *sampler_start_error(uint32_t *cpu)
{
    if (!start_error)
        return 0;
    *cpu = start_error_cpu;
    return start_error_timer ? "the platform refused this CPU a sampling timer (aca_plat_timer_arm)"
                             : pmu_strerror(start_error);
}

CONTROL_PLANE void sampler_pmi_budget(uint32_t cpu, struct pmi_budget *out)
{
    pmu_zero(out, sizeof(*out));
    if (cpu < num_cpus)
        *out = cpus[cpu].budget;
}

CONTROL_PLANE void sampler_pause(void)
{
    if (running)
        aca_plat_call_on_all_cpus(set_active_on_this_cpu, (void *)0);
}

CONTROL_PLANE void sampler_resume(void)
{
    if (running)
        aca_plat_call_on_all_cpus(set_active_on_this_cpu, (void *)1);
}

#if ACA_WITH_COUNTING
static void switch_call(void *arg)
{
    (void)arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu < num_cpus && !cpus[cpu].program_error)
        switch_on_this_cpu(&cpus[cpu], 0);
}

#endif

/* Built without counting mode (ACA_WITH_COUNTING 0) a session has one group, counted by
 * nobody: sampler_setup() refuses more, and these do nothing. */
CONTROL_PLANE void sampler_switch_group(void)
{
#if ACA_WITH_COUNTING
    if (running && config.num_groups > 1)
        aca_plat_call_on_all_cpus(switch_call, 0);
#endif
}

#if ACA_WITH_COUNTING
struct count_read {
    uint64_t *tsc, *counts;
    uint32_t cap;
    const uint32_t *offset;
    int next_group;
};

static uint32_t counter_id_of(const struct sampler_event *ev)
{
    return ev->fixed ? PMU_FIXED_ID(ev->counter) : ev->counter;
}

/* The reference's order: time stamp, freeze, read, reprogram, time stamp, resume; the
 * time spent reading is in no interval. */
static void read_counts_on_this_cpu(void *arg)
{
    const struct count_read *r = arg;
    uint32_t cpu = aca_plat_cpu_index();
    if (cpu >= num_cpus)
        return;
    struct sampler_cpu *c = &cpus[cpu];
    uint64_t now = rdtsc();
    r->tsc[cpu] = now - c->count_since;
    int was_running = c->pmu.running;
    pmu_pause_cpu(&c->pmu);
    for (uint32_t i = 0; i < config.num_events; i++) {
        const struct sampler_event *ev = &config.events[i];
        if (ev->group != c->group)
            continue;
        uint64_t at = (uint64_t)r->offset[cpu] + ev->slot;
        if (at < r->cap)
            r->counts[at] = pmu_read_counter(&c->pmu, counter_id_of(ev));
        pmu_write_counter(&c->pmu, counter_id_of(ev), 0);
    }
    if (c->active)
        account_turn(c, now);
    if (r->next_group && config.num_groups > 1) {
        c->group = (c->group + 1) % config.num_groups;
        c->switches++;
        int err = program_group(c); /* a counting group never keeps counts: from 0 */
        if (err) {
            c->program_error = err;
            was_running = 0;
        }
    }
    c->count_since = rdtsc();
    c->group_since = c->count_since;
    if (was_running)
        pmu_start_cpu(&c->pmu);
}

#endif

CONTROL_PLANE void sampler_read_counts(uint64_t *tsc, uint64_t *counts, uint32_t cap,
                                       const uint32_t *offset, int next_group)
{
#if ACA_WITH_COUNTING
    struct count_read r = {tsc, counts, cap, offset, next_group};
    if (running && config.counting)
        aca_plat_call_on_all_cpus(read_counts_on_this_cpu, &r);
#else
    (void)tsc, (void)counts, (void)cap, (void)offset, (void)next_group;
#endif
}

CONTROL_PLANE void sampler_interrupt_counts(uint32_t cpu, uint64_t *out, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        out[i] = cpu < num_cpus && i < SAMPLER_MAX_EVENTS ? cpus[cpu].interrupts[i] : 0;
}

CONTROL_PLANE void sampler_group_times(uint32_t cpu, struct sampler_group_times *out)
{
    memset(out, 0, sizeof(*out));
    if (cpu >= num_cpus)
        return;
    const struct sampler_cpu *c = &cpus[cpu];
    for (uint32_t g = 0; g < config.num_groups && g < SAMPLER_MAX_GROUPS; g++) {
        out->running[g] = c->running[g];
        out->enabled += c->running[g];
    }
    out->switches = c->switches;
}

CONTROL_PLANE void sampler_stop(void)
{
    if (!running)
        return;
    aca_plat_call_on_all_cpus(stop_on_this_cpu, 0);
    running = 0;
}

CONTROL_PLANE void sampler_reset(void)
{
    sampler_stop();
    for (uint32_t i = 0; i < num_cpus; i++)
        memset(&cpus[i], 0, sizeof(cpus[i]));
    num_cpus = 0;
    /* The agent resets at every session end, also after sessions that never set up. */
    if (nmi_installed)
        aca_plat_nmi_remove(on_pmi);
    nmi_installed = 0;
    if (vector_installed)
        aca_plat_vector_remove(config.vector);
    vector_installed = 0;
}

int sampler_is_running(void)
{
    return running;
}

uint32_t sampler_num_cpus(void)
{
    return num_cpus;
}

struct ring *sampler_ring(uint32_t cpu)
{
    return cpu < num_cpus ? &cpus[cpu].ring : 0;
}

CONTROL_PLANE void sampler_counts(uint32_t cpu, struct sampler_cpu_counts *out)
{
    memset(out, 0, sizeof(*out));
    if (cpu >= num_cpus)
        return;
    const struct sampler_cpu *c = &cpus[cpu];
    out->ring_full = c->ring.dropped;
    out->no_counter = c->pmu.dropped[PMU_DROP_NO_COUNTER] + c->no_event;
    out->malformed = c->pmu.dropped[PMU_DROP_MALFORMED];
    out->collision = c->pmu.dropped[PMU_DROP_COLLISION];
    out->stuck = c->pmu.dropped[PMU_DROP_STUCK];
    out->stuck_resets = c->pmu.stuck_resets;
    /* Lost before the ring are samples too: sampled = delivered + dropped, exactly. */
    uint32_t lost_before_ring = out->no_counter + out->malformed + out->collision + out->stuck;
    out->sampled = c->ring.sampled + lost_before_ring;
    out->dropped = c->ring.dropped + lost_before_ring;
    out->pending = ring_used(&c->ring);
    out->unclaimed = c->pmu.unclaimed;
    out->tick_skipped = c->tick_skipped;
}

CONTROL_PLANE uint64_t sampler_records_committed(void)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < sampler_num_cpus(); i++) {
        struct sampler_cpu_counts c;
        sampler_counts(i, &c);
        total += c.sampled - c.dropped;
    }
    return total;
}
