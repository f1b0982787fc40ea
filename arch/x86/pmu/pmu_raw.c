/* The raw path (pmu_raw.h): a host's MSR writes applied as they come. No runtime code calls
 * it yet (the agent programs plans through pmu_program_cpu), so it is not in libacart.a:
 * tests/pmu builds it with pmu.c. */
#include "pmu_raw.h"

#include "msr.h"

static int msr_is_read_only(uint32_t msr)
{
    return msr == MSR_IA32_PERF_GLOBAL_STATUS || msr == MSR_IA32_PERF_CAPABILITIES ||
           msr == MSR_IA32_PERF_GLOBAL_INUSE;
}

/* Counter id written through `msr` on this CPU, or -1. */
static int raw_counter_id(const struct pmu_cpu_state *cpu, uint32_t msr)
{
    const struct pmu_caps *caps = cpu->caps;

    if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + cpu->num_gp)
        return (int)(msr - MSR_IA32_PMC0);
    if (caps->full_width_write && msr >= MSR_IA32_A_PMC0 && msr < MSR_IA32_A_PMC0 + cpu->num_gp)
        return (int)(msr - MSR_IA32_A_PMC0);
    if (msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + PMU_MAX_FIXED &&
        (cpu->fixed_mask & (1u << (msr - MSR_IA32_FIXED_CTR0))))
        return (int)PMU_FIXED_ID(msr - MSR_IA32_FIXED_CTR0);
    return -1;
}

/* A counter or event-select MSR the boot CPU has and this CPU's core type lacks (a #GP). */
static int raw_beyond_core_type(const struct pmu_cpu_state *cpu, uint32_t msr)
{
    const struct pmu_caps *caps = cpu->caps;
    static const uint32_t banks[] = {MSR_IA32_PMC0, MSR_IA32_A_PMC0, MSR_IA32_PERFEVTSEL0};

    for (unsigned b = 0; b < sizeof(banks) / sizeof(banks[0]); b++)
        if (msr >= banks[b] + cpu->num_gp && msr < banks[b] + caps->num_gp)
            return 1;
    return msr >= MSR_IA32_FIXED_CTR0 && msr < MSR_IA32_FIXED_CTR0 + PMU_MAX_FIXED &&
           (caps->fixed_mask & ~cpu->fixed_mask & (1u << (msr - MSR_IA32_FIXED_CTR0)));
}

/* Which counters a control write enables and makes interrupt, in counter-id bits. */
static void raw_control(const struct pmu_cpu_state *cpu, uint32_t msr, uint64_t value,
                        uint64_t *enabled, uint64_t *interrupting)
{
    const struct pmu_caps *caps = cpu->caps;

    if (msr >= MSR_IA32_PERFEVTSEL0 && msr < MSR_IA32_PERFEVTSEL0 + cpu->num_gp) {
        uint64_t bit = 1ull << (msr - MSR_IA32_PERFEVTSEL0);

        *enabled = (value & EVTSEL_EN) ? *enabled | bit : *enabled & ~bit;
        *interrupting = (value & EVTSEL_INT) ? *interrupting | bit : *interrupting & ~bit;
    } else if (msr == MSR_IA32_FIXED_CTR_CTRL) {
        *enabled &= pmu_width_mask(32);
        *interrupting &= pmu_width_mask(32);
        for (unsigned j = 0; j < caps->num_fixed; j++) {
            uint64_t field = value >> (4 * j), bit = 1ull << PMU_FIXED_ID(j);

            if (field & (FIXED_CTRL_OS | FIXED_CTRL_USR))
                *enabled |= bit;
            if (field & FIXED_CTRL_PMI)
                *interrupting |= bit;
        }
    }
}

int pmu_program_raw(struct pmu_cpu_state *cpu, const struct pmu_msr_write *writes,
                    uint32_t num_writes)
{
    const struct pmu_caps *caps;
    uint64_t global_ctrl = 0, enabled = 0, interrupting = 0, pebs_enable = 0, data_cfg = 0;
    uint64_t arch_lbr_ctl = 0;
    uint32_t pebs_record = 0;
    int have_global_ctrl = 0;

    if (!cpu || (!writes && num_writes))
        return PMU_ERR_INVALID;
    caps = cpu->caps;
    if (!caps)
        return PMU_ERR_NO_PMU;

    /* Refuse the whole list before writing any of it. */
    for (uint32_t i = 0; i < num_writes; i++) {
        if (msr_is_read_only(writes[i].msr))
            return PMU_ERR_READ_ONLY;
        if (writes[i].msr == MSR_IA32_DS_AREA)
            return PMU_ERR_INVALID; /* the DS area is this CPU's own, set up once */
        if (raw_beyond_core_type(cpu, writes[i].msr))
            return PMU_ERR_CORE_TYPE;
        if (writes[i].msr == MSR_IA32_PEBS_ENABLE)
            pebs_enable = writes[i].value;
        if (writes[i].msr == MSR_PEBS_DATA_CFG)
            data_cfg = writes[i].value;
    }
    if (pebs_enable && !caps->pebs.usable)
        return PMU_ERR_NO_PEBS;
    if (pebs_enable & caps->pebs.counters) {
        if (!cpu->pebs.ds)
            return PMU_ERR_NO_PEBS;
        pebs_record = pebs_record_size(&caps->pebs, data_cfg);
        if (!pebs_record)
            return PMU_ERR_NO_PEBS;
        if (pebs_record > cpu->pebs.buffer_bytes)
            return PMU_ERR_TOO_SMALL;
    }

    pmu_quiesce(cpu);
    for (uint32_t i = 0; i < num_writes; i++) {
        const struct pmu_msr_write *w = &writes[i];
        int id = raw_counter_id(cpu, w->msr);

        if (w->msr == MSR_IA32_PERF_GLOBAL_CTRL) {
            global_ctrl = w->value; /* counting starts with pmu_start_cpu() */
            have_global_ctrl = 1;
            continue;
        }
        if (w->msr == MSR_IA32_PEBS_ENABLE)
            continue; /* likewise */
        msr_write(w->msr, w->value);
        if (id >= 0) {
            cpu->reload[pmu_slot((unsigned)id)] =
                w->value & pmu_width_mask(pmu_counter_width(caps, (unsigned)id));
            cpu->tag[pmu_slot((unsigned)id)] = w->tag;
        } else if (w->msr == MSR_IA32_DEBUGCTL) {
            cpu->debugctl = w->value;
        } else if (w->msr == MSR_LBR_CTL) {
            arch_lbr_ctl = w->value;
        } else {
            raw_control(cpu, w->msr, w->value, &enabled, &interrupting);
        }
    }
    cpu->global_ctrl = have_global_ctrl ? global_ctrl : enabled;
    cpu->pebs_enable = pebs_enable;
    cpu->pebs_counters = pebs_enable & caps->pebs.counters;
    cpu->sampling = interrupting | cpu->pebs_counters;
    if (cpu->pebs_counters) {
        pebs_arm(&cpu->pebs, pebs_record);
        for (unsigned id = 0; id < 64; id++) {
            if (cpu->pebs_counters & (1ull << id))
                pebs_set_reset(&cpu->pebs, &caps->pebs, id, cpu->reload[pmu_slot(id)]);
        }
    }
    cpu->lbr_on = caps->lbr.arch ? (arch_lbr_ctl & 1) != 0
                                 : caps->lbr.depth && (cpu->debugctl & DEBUGCTL_LBR);
    pmu_clear_status(caps);
    return PMU_OK;
}
