/* The PMI handler core: read status, hand each overflow on, re-arm, re-enable. It runs in
 * NMI context, so it touches only this CPU's state and MSRs, allocates nothing, never
 * waits. The order of steps is in pmi.h. */
#include "pmi.h"

#include "msr.h"

/* Status re-reads before giving up on bits that keep coming back (counters are off while
 * we run, so a second pass is already rare). */
#define PMI_MAX_PASSES 4

/* Index of the lowest set bit of v != 0, without libgcc's 64-bit helpers on i686. */
static unsigned lowest_bit(uint64_t v)
{
    uint32_t lo = (uint32_t)v;

    return lo ? (unsigned)__builtin_ctz(lo) : 32u + (unsigned)__builtin_ctz((uint32_t)(v >> 32));
}

static unsigned popcount(uint64_t v)
{
    unsigned n = 0;

    for (; v; v &= v - 1)
        n++;
    return n;
}

#if ACA_WITH_PEBS
/* The PEBS counters a record is for, after Linux's intel_pmu_drain_pebs_nhm: the record's
 * status (formats 1-2: IA32_PERF_GLOBAL_STATUS as the record was written, other counters'
 * bits included) or applicable counters (format 3 on), limited to our PEBS counters.
 * Before format 3 a record that names none while exactly one PEBS counter is enabled is
 * that counter's (the status raced with its clearing), and a record that names several is
 * a collision: the CPU folded several events into one record, which belongs to none. */
static uint64_t pebs_owners(const struct pmu_cpu_state *cpu, const struct pebs_sample *sample,
                            enum pmu_drop_reason *why)
{
    uint64_t enabled = cpu->pebs_counters, mine = sample->counters & enabled;
    int legacy_status = !cpu->caps->pebs.adaptive && cpu->caps->pebs.format <= 2;

    if (legacy_status && !mine && enabled && !(enabled & (enabled - 1)))
        mine = enabled;
    if (!mine)
        *why = PMU_DROP_NO_COUNTER;
    else if (legacy_status && (mine & (mine - 1)))
        *why = PMU_DROP_COLLISION;
    else
        return mine;
    return 0;
}

#if ACA_WITH_LBR
/* PEBS formats 0 and 1 give the instruction after the event (trap-like assist). The one
 * case Linux's intel_pmu_pebs_fixup_ip() makes exact without decoding instructions is
 * taken here: when the record's IP is the newest LBR entry's target, the event was that
 * branch, at its FROM. Only with a stack that records every branch in every ring
 * (LBR_SELECT 0, so not call-stack mode), where the newest entry is the last branch
 * taken, as Linux asks for PERF_SAMPLE_BRANCH_ANY for its fixup; any other record keeps
 * the next instruction, PEBS_IP_EXACT off. */
static void pebs_branch_ip(const struct pmu_cpu_state *cpu, const struct pmu_overflow *ov,
                           struct pebs_sample *sample)
{
    const struct pebs_caps *pebs = &cpu->caps->pebs;

    if (pebs->adaptive || pebs->format >= 2 || (sample->have & PEBS_IP_EXACT) || !ov->lbr ||
        !ov->lbr_count || cpu->lbr_select)
        return;
    if (ov->lbr[0].to == sample->ip && ov->lbr[0].from) {
        sample->ip = ov->lbr[0].from;
        sample->have |= PEBS_IP_EXACT;
    }
}
#endif

/* Each PEBS record goes to the PEBS counters it is for, or is counted as dropped with its
 * reason; the CPU has already reloaded those counters from the DS area. Returns the
 * records seen. */
static unsigned report_pebs(struct pmu_cpu_state *cpu, struct pmu_overflow *ov,
                            pmu_overflow_fn on_overflow, void *ctx)
{
    struct pebs_sample sample;
    uint32_t offset = 0;
    unsigned n = 0;
    int got;

    while ((got = pebs_next(&cpu->pebs, &cpu->caps->pebs, &offset, &sample)) != PEBS_NEXT_END) {
        enum pmu_drop_reason why = PMU_DROP_MALFORMED;
        uint64_t mine = got == PEBS_NEXT_RECORD ? pebs_owners(cpu, &sample, &why) : 0;

        n++;
        if (!mine)
            cpu->dropped[why]++;
#if ACA_WITH_LBR
        else
            pebs_branch_ip(cpu, ov, &sample);
#endif
        ov->pebs = &sample;
        for (; mine; mine &= mine - 1) {
            ov->counter = (uint8_t)lowest_bit(mine);
            ov->tag = cpu->tag[pmu_slot(ov->counter)];
            on_overflow(ctx, ov);
        }
    }
    ov->pebs = 0;
    pebs_rewind(&cpu->pebs);
    return n;
}
#endif

/* Status bits that did not clear in PMI_MAX_PASSES passes: as Linux's intel_pmu_handle_irq
 * after its loop limit, count what is lost and reset this CPU's PMU (pmu_stop_cpu: every
 * control, counter and enable cleared, status acknowledged, not running), so a counter
 * that keeps interrupting cannot take the board down. Sampling on this CPU ends; the
 * reset and the samples are counted for the host. */
static void give_up(struct pmu_cpu_state *cpu, uint64_t status)
{
    uint64_t lost = status & cpu->sampling & ~cpu->pebs_counters;

    cpu->dropped[PMU_DROP_STUCK] += popcount(lost);
#if ACA_WITH_PEBS
    struct pebs_sample sample;
    uint32_t offset = 0;

    if (status & GLOBAL_STATUS_DS_BUFFER) {
        while (pebs_next(&cpu->pebs, &cpu->caps->pebs, &offset, &sample) != PEBS_NEXT_END)
            cpu->dropped[PMU_DROP_STUCK]++;
    }
#endif
    cpu->stuck_resets++;
    pmu_stop_cpu(cpu);
}

#if ACA_WITH_LBR
/* LBR recording off on this CPU: IA32_LBR_CTL.EN (architectural) or IA32_DEBUGCTL.LBR. */
static void lbr_stop_recording(const struct pmu_cpu_state *cpu)
{
    if (cpu->caps->lbr.arch)
        msr_write(MSR_LBR_CTL, 0);
    else
        msr_write(MSR_IA32_DEBUGCTL, cpu->debugctl & ~DEBUGCTL_LBR);
}

/* Without freeze, the calls that led into the handler were recorded before it stopped the
 * LBRs: the caller's handler (lbr_handler) and what it called on its way here, newest on
 * top. They go, up to and including the call into lbr_handler, searched among the newest
 * few; the stack below is the interrupted code's. Returns the decoded entries left. */
#define HANDLER_CALLS_MAX 4
static unsigned drop_handler_calls(struct pmu_cpu_state *cpu)
{
    const struct lbr_caps *lbr = &cpu->caps->lbr;
    unsigned n = lbr_decode(lbr, &cpu->lbr_raw, cpu->lbr, HANDLER_CALLS_MAX);

    for (unsigned k = 0; k < n; k++) {
        if (cpu->lbr_handler && cpu->lbr[k].to == (uint64_t)cpu->lbr_handler) {
            lbr_trim(lbr, &cpu->lbr_raw, k + 1);
            break;
        }
    }
    return lbr_decode(lbr, &cpu->lbr_raw, cpu->lbr, LBR_MAX_ENTRIES);
}
#endif

/* Bit 55 of the status (a filled Intel PT region) is left to pt_cpu_pmi(), which takes it
 * first: counting it here would make a trace interrupt look stuck. */
unsigned pmu_handle_overflow(struct pmu_cpu_state *cpu, pmu_overflow_fn on_overflow, void *ctx)
{
    return pmu_handle_overflow_ack(cpu, on_overflow, 0, ctx);
}

unsigned pmu_handle_overflow_ack(struct pmu_cpu_state *cpu, pmu_overflow_fn on_overflow,
                                 pmu_ack_fn mid_ack, void *ctx)
{
    const struct pmu_caps *caps = cpu->caps;
    struct pmu_overflow ov = {0};
    uint64_t status;
    unsigned handled = 0;

    if (!caps)
        return 0; /* no PMU: the NMI came from elsewhere */
#if ACA_WITH_LBR
    /* Call-stack mode records on through the PMI (no freeze): stop it before anything else
     * so that the calls this handler makes from here on stay off the stack. */
    if (cpu->lbr_callstack)
        lbr_stop_recording(cpu);
#endif
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 0);
    status = msr_read(MSR_IA32_PERF_GLOBAL_STATUS) & ~GLOBAL_STATUS_TRACE_TOPA;
#if ACA_WITH_LBR
    if (status && cpu->lbr_on) {
        ov.lbr = cpu->lbr;
        ov.lbr_raw = &cpu->lbr_raw;
        ov.lbr_count = lbr_read(&caps->lbr, &cpu->lbr_raw, cpu->lbr, LBR_MAX_ENTRIES);
        if (cpu->lbr_callstack)
            ov.lbr_count = drop_handler_calls(cpu);
    }
#endif

    for (unsigned pass = 0; status && pass < PMI_MAX_PASSES; pass++) {
        uint64_t due = status & cpu->sampling & ~cpu->pebs_counters;

        /* Clearing first: an overflow while we report sets its bit again. */
        msr_write(MSR_IA32_PERF_GLOBAL_OVF_CTRL, status & caps->status_ack_mask);
        ov.status = status;
#if ACA_WITH_PEBS
        if (status & GLOBAL_STATUS_DS_BUFFER) {
            unsigned n = report_pebs(cpu, &ov, on_overflow, ctx);

            handled += n ? n : 1;
        }
#endif
        /* Counting-only counters wrapped: ours, nothing to report. */
        for (uint64_t quiet = status & caps->counters & ~cpu->sampling; quiet; quiet &= quiet - 1)
            handled++;
        for (; due; due &= due - 1) {
            unsigned id = lowest_bit(due), slot = pmu_slot(id);

            ov.counter = (uint8_t)id;
            ov.tag = cpu->tag[slot];
            on_overflow(ctx, &ov);
            msr_write(pmu_counter_msr(caps, id), cpu->reload[slot]);
            handled++;
        }
        status = msr_read(MSR_IA32_PERF_GLOBAL_STATUS) & ~GLOBAL_STATUS_TRACE_TOPA;
    }
    if (status) {
        give_up(cpu, status);
        handled++;
    }

    /* Linux's mid_ack (intel_pmu_handle_irq, the small cores from Gracemont on): the LVT
     * entry is unmasked once the status is clear and before counting resumes. */
    if (mid_ack && caps->pmi_ack_mid)
        mid_ack(ctx);
#if ACA_WITH_LBR
    /* Before v4, freezing LBRs on PMI cleared DEBUGCTL.LBR (and counter freezing cleared
     * GLOBAL_CTRL, which is rewritten below anyway); call-stack mode stopped it above. */
    if (cpu->lbr_callstack && caps->lbr.arch)
        msr_write(MSR_LBR_CTL, lbr_arch_ctl(cpu->lbr_select));
    else if (cpu->lbr_callstack || (!caps->streamlined_freeze && (cpu->debugctl & DEBUGCTL_LBR) &&
                                    (cpu->debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI)))
        msr_write(MSR_IA32_DEBUGCTL, cpu->debugctl);
#endif
    if (cpu->running)
        msr_write(MSR_IA32_PERF_GLOBAL_CTRL, cpu->global_ctrl);
    if (!handled)
        cpu->unclaimed++;
    return handled;
}
