/* Generic core-PMU code: capabilities, programming, start/pause/stop. Model differences
 * come from pmu_caps (CPUID, IA32_PERF_CAPABILITIES) and the pmu_models.c table. */
#include "pmu.h"

#include <string.h>

#include "cpuid.h"
#include "msr.h"

#define CPUID1_ECX_DTES64               (1u << 2)
#define CPUID1_ECX_PDCM                 (1u << 15)
#define CPUID1_ECX_HYPERVISOR           (1u << 31)
#define CPUID1_EDX_DS                   (1u << 21)
#define CPUID7_EBX_HLE                  (1u << 4)
#define CPUID7_EBX_RTM                  (1u << 11)
#define CPUID7_EDX_HYBRID               (1u << 15)
#define CPUIDA_EDX_ANYTHREAD_DEPRECATED (1u << 15)

#define EVTSEL_IN_TX   (1ull << 32)
#define EVTSEL_IN_TXCP (1ull << 33)

/* IA32_DEBUGCTL bits this code owns; the rest belong to whoever else set them. */
#define DEBUGCTL_PMU_BITS                                                                          \
    (DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI | DEBUGCTL_FREEZE_PERFMON_ON_PMI)

const char *pmu_strerror(int err)
{
    switch (err) {
    case PMU_OK:
        return "success";
    case PMU_ERR_NO_PMU:
        return "no usable performance-monitoring unit (architectural perfmon v2+)";
    case PMU_ERR_INVALID:
        return "invalid argument";
    case PMU_ERR_NO_COUNTER:
        return "counter not present on this CPU";
    case PMU_ERR_RESERVED:
        return "control value sets reserved bits";
    case PMU_ERR_PERIOD:
        return "sample-after value out of range for the counter";
    case PMU_ERR_NO_PEBS:
        return "PEBS not available here";
    case PMU_ERR_NO_LBR:
        return "LBR not available on this CPU";
    case PMU_ERR_READ_ONLY:
        return "MSR is read-only";
    case PMU_ERR_TOO_SMALL:
        return "memory too small or misaligned";
    case PMU_ERR_RECORD:
        return "malformed PEBS record";
    case PMU_ERR_PERIOD_ERRATUM:
        return "Broadwell samples INST_RETIRED.ALL (event 0xC0, umask 0x01) correctly only every "
               "128 or more events, a multiple of 64 (errata BDM11, BDM57): choose such a "
               "period";
    case PMU_ERR_TXCP_SAMPLING:
        return "a checkpointed (IN_TXCP) count cannot sample: overflow, abort and rollback "
               "would loop";
    case PMU_ERR_CORE_TYPE:
        return "hybrid CPU: this core type has fewer counters than the boot CPU (CPUID.0AH "
               "on this core), and the plan uses one it lacks: place the events on the "
               "counters every core type has";
    }
    return "unknown PMU error";
}

static unsigned highest_bit_plus_one(uint32_t v)
{
    return v ? 32u - (unsigned)__builtin_clz(v) : 0;
}

static int is_intel(const struct cpuid_regs *r0)
{
    /* "GenuineIntel" in EBX, EDX, ECX. */
    return r0->ebx == 0x756e6547 && r0->edx == 0x49656e69 && r0->ecx == 0x6c65746e;
}

static void probe_signature(struct pmu_caps *caps, uint32_t sig)
{
    uint32_t family = (sig >> 8) & 0xf, model = (sig >> 4) & 0xf;

    if (family == 0xf)
        family += (sig >> 20) & 0xff;
    if (family == 6 || family >= 0xf)
        model |= ((sig >> 16) & 0xf) << 4;
    caps->family = family;
    caps->model = model;
    caps->stepping = sig & 0xf;
}

static void probe_counters(struct pmu_caps *caps, const struct cpuid_regs *ra,
                           const struct cpuid_regs *r1)
{
    unsigned num_fixed = ra->edx & 0x1f, fixed_width = (ra->edx >> 5) & 0xff;

    caps->num_gp = (uint8_t)((ra->eax >> 8) & 0xff);
    if (caps->num_gp > PMU_MAX_GP)
        caps->num_gp = PMU_MAX_GP;
    caps->gp_width = (uint8_t)((ra->eax >> 16) & 0xff);

    if (caps->version < 5) {
        /* Before v5 a CPU may report fewer fixed counters than the three it has (Core 2's
         * v2 reports none); Linux assumes three too. A hypervisor's report stands. */
        if (num_fixed < 3 && !(r1->ecx & CPUID1_ECX_HYPERVISOR)) {
            num_fixed = 3;
            if (!fixed_width)
                fixed_width = caps->gp_width;
        }
        caps->fixed_mask = (uint32_t)pmu_width_mask(num_fixed);
    } else {
        /* v5: fixed counter j exists if ECX[j] is set or j < EDX[4:0]. */
        caps->fixed_mask = ra->ecx | (uint32_t)pmu_width_mask(num_fixed);
    }
    caps->fixed_mask &= (1u << PMU_MAX_FIXED) - 1;
    caps->num_fixed = (uint8_t)highest_bit_plus_one(caps->fixed_mask);
    caps->fixed_width = (uint8_t)fixed_width;

    caps->counters = pmu_width_mask(caps->num_gp) | (uint64_t)caps->fixed_mask << 32;
    caps->max_period_gp = caps->full_width_write ? pmu_width_mask(caps->gp_width) >> 1 : 0x7fffffff;
    caps->max_period_fixed = pmu_width_mask(caps->fixed_width) >> 1;
}

/* Bit 55 (ToPA PMI) is not the PMU's to clear: the trace unit's handler (pt_cpu.c) owns it,
 * and clearing it here would lose the interrupt of a filled trace region. */
static void probe_status_and_controls(struct pmu_caps *caps, const struct cpuid_regs *ra,
                                      const struct cpuid_regs *r7)
{
    uint64_t ack = caps->counters | GLOBAL_STATUS_DS_BUFFER | GLOBAL_STATUS_COND_CHGD;
    int anythread =
        caps->version >= 3 && !(caps->version >= 5 && (ra->edx & CPUIDA_EDX_ANYTHREAD_DEPRECATED));
    uint64_t evtsel = 0xffffffffull;

    if (caps->version >= 3)
        ack |= GLOBAL_STATUS_UNCORE;
    if (caps->version >= 4)
        ack |= GLOBAL_STATUS_LBR_FROZEN | GLOBAL_STATUS_CTR_FROZEN | GLOBAL_STATUS_ASCI;
    if (caps->perf_capabilities & PERF_CAP_PERF_METRICS)
        ack |= GLOBAL_STATUS_PERF_METRICS;
    caps->status_ack_mask = ack;

    if (!anythread)
        evtsel &= ~EVTSEL_ANY;
    if (r7->ebx & (CPUID7_EBX_RTM | CPUID7_EBX_HLE))
        evtsel |= EVTSEL_IN_TX | EVTSEL_IN_TXCP;
    if (caps->pebs.adaptive)
        evtsel |= EVTSEL_ADAPTIVE;
    caps->evtsel_valid = evtsel;
}

#if ACA_WITH_LBR
static void probe_lbr(struct pmu_caps *caps, const struct pmu_model *row, uint32_t max_leaf,
                      const struct cpuid_regs *r7)
{
    struct cpuid_regs r1c = max_leaf >= 0x1c ? cpuid(0x1c, 0) : (struct cpuid_regs){0};

    lbr_caps_derive(row ? &row->lbr : 0, caps->perf_capabilities, r7->edx, r1c.eax, r1c.ebx,
                    &caps->lbr);
}
#endif

#if ACA_WITH_PEBS
static void probe_pebs(struct pmu_caps *caps, const struct pmu_model *row,
                       const struct cpuid_regs *r1)
{
    struct pebs_caps *pebs = &caps->pebs;
    uint64_t cap = caps->perf_capabilities;

    /* Only the 64-bit DS layout (DTES64) is supported; PEBS formats come from
     * PERF_CAPABILITIES, hence PDCM. */
    if (!(r1->edx & CPUID1_EDX_DS) || !(r1->ecx & CPUID1_ECX_DTES64) ||
        !(r1->ecx & CPUID1_ECX_PDCM))
        return;
    if (msr_read(MSR_IA32_MISC_ENABLE) & MISC_ENABLE_PEBS_UNAVAILABLE)
        return;
    pebs->format = PERF_CAP_PEBS_FORMAT(cap);
    if (pebs->format >= 4) {
        /* Adaptive PEBS enumerates itself: every counter can use it. */
        if (!(cap & PERF_CAP_PEBS_BASELINE))
            return;
        pebs->adaptive = 1;
        pebs->counters = caps->counters;
    } else {
        unsigned gp = row ? row->pebs_gp : 0;

        if (gp > caps->num_gp)
            gp = caps->num_gp;
        pebs->counters = pmu_width_mask(gp);
    }
    pebs->usable = pebs->counters != 0 && pebs_format_supported(pebs->format, pebs->adaptive);
    /* A model outside the table with adaptive PEBS has the facility on its GP counters. */
    pebs->load_latency_counters = pebs->counters & (row              ? row->ldlat_gp
                                                    : pebs->adaptive ? pmu_width_mask(caps->num_gp)
                                                                     : 0);
    if (pebs->usable) {
        const struct pebs_quirk *q = pebs_quirk_for_cpu(caps->family, caps->model, caps->stepping);
        if (q) {
            pebs->usable = 0;
            caps->pebs_quirk = q->reason;
        }
    }
    if (!pebs->usable)
        pebs->counters = pebs->load_latency_counters = 0;
}

#define MSR_IA32_BIOS_SIGN_ID 0x8bu

uint32_t pmu_microcode_revision(void)
{
    msr_write(MSR_IA32_BIOS_SIGN_ID, 0);
    (void)cpuid(1, 0);
    return (uint32_t)(msr_read(MSR_IA32_BIOS_SIGN_ID) >> 32);
}

const struct pebs_quirk *pebs_quirk_for_cpu(uint32_t family, uint32_t model, uint32_t stepping)
{
    /* The revision is read only where a row could apply. */
    if (!pebs_quirk_lookup(family, model, stepping, 0))
        return NULL;
    return pebs_quirk_lookup(family, model, stepping, pmu_microcode_revision());
}
#endif

int pmu_probe(struct pmu_caps *caps)
{
    struct cpuid_regs r0, r1, r7, ra;
    const struct pmu_model *row;

    if (!caps)
        return PMU_ERR_INVALID;
    memset(caps, 0, sizeof(*caps));
    caps->uarch = "unknown";
    r0 = cpuid(0, 0);
    if (!is_intel(&r0) || r0.eax < 0xa)
        return PMU_ERR_NO_PMU;
    r1 = cpuid(1, 0);
    probe_signature(caps, r1.eax);
    ra = cpuid(0xa, 0);
    caps->version = (uint8_t)(ra.eax & 0xff);
    if (caps->version < 2 || ((ra.eax >> 8) & 0xff) == 0 || ((ra.eax >> 16) & 0xff) < 32)
        return PMU_ERR_NO_PMU;
    r7 = cpuid(7, 0); /* present: the maximum leaf is at least 0xA */
    if (r1.ecx & CPUID1_ECX_PDCM)
        caps->perf_capabilities = msr_read(MSR_IA32_PERF_CAPABILITIES);
    caps->full_width_write = (caps->perf_capabilities & PERF_CAP_FULL_WIDTH) != 0;
    caps->streamlined_freeze = caps->version >= 4;

    row = pmu_model_lookup(caps->family, caps->model);
    if (row)
        caps->uarch = row->uarch;
    caps->inst_retired_all_limits = row ? row->inst_retired_all_limits : 0;
    /* A model the table does not know gets Linux's default, an early unmask: intel_pmu_init()
     * sets late_ack or mid_ack only per known model (and mid_ack on the small cores from
     * Gracemont on, which unmasking late would hang), never in its generic case. */
    caps->pmi_ack_late = row ? row->pmi_ack_late : 0;
    caps->pmi_ack_mid = row ? row->pmi_ack_mid : 0;
    caps->hybrid = (r7.edx & CPUID7_EDX_HYBRID) != 0;
    if (caps->hybrid && r0.eax >= 0x1a)
        caps->core_type = (uint8_t)(cpuid(0x1a, 0).eax >> 24);

    probe_counters(caps, &ra, &r1);
#if ACA_WITH_PEBS
    probe_pebs(caps, row, &r1);
#else
    caps->pebs_quirk = PMU_PEBS_NOT_BUILT;
#endif
    probe_status_and_controls(caps, &ra, &r7);
#if ACA_WITH_LBR
    probe_lbr(caps, row, r0.eax, &r7);
#endif
    caps->tsx_force_abort = (r7.edx & CPUID7_EDX_TSX_FORCE_ABORT) && caps->num_gp > 3;
    return PMU_OK;
}

/* ---- Per-CPU programming ---- */

/* This CPU's own counters on a hybrid part, from its CPUID leaf 0xA (SDM vol. 2A, CPUID
 * leaf 0AH; leaf 1AH names the core type), never more than the boot CPU's: the caps' widths,
 * event selects and period limits are the boot CPU's and are kept. */
static void cpu_counters(struct pmu_cpu_state *cpu, const struct pmu_caps *caps)
{
    struct cpuid_regs ra = cpuid(0xa, 0);
    unsigned gp = (ra.eax >> 8) & 0xff;
    uint32_t fixed = caps->version >= 5 ? ra.ecx | (uint32_t)pmu_width_mask(ra.edx & 0x1f)
                                        : (uint32_t)pmu_width_mask(ra.edx & 0x1f);

    cpu->core_type = (uint8_t)(cpuid(0x1a, 0).eax >> 24);
    cpu->num_gp = (uint8_t)(gp < caps->num_gp ? gp : caps->num_gp);
    cpu->fixed_mask = caps->fixed_mask & fixed;
    cpu->counters = pmu_width_mask(cpu->num_gp) | (uint64_t)cpu->fixed_mask << 32;
}

void pmu_cpu_init(struct pmu_cpu_state *cpu, const struct pmu_caps *caps)
{
    pmu_zero(cpu, sizeof(*cpu)); /* runs in the start IPI */
    cpu->caps = caps;
    if (!caps)
        return;
    cpu->num_gp = caps->num_gp;
    cpu->fixed_mask = caps->fixed_mask;
    cpu->counters = caps->counters;
    if (caps->hybrid)
        cpu_counters(cpu, caps);
}

int pmu_cpu_setup_pebs(struct pmu_cpu_state *cpu, void *memory, uint32_t bytes)
{
#if ACA_WITH_PEBS
    if (!cpu || !cpu->caps || !cpu->caps->pebs.usable)
        return PMU_ERR_NO_PEBS;
    return pebs_setup_cpu(&cpu->pebs, memory, bytes);
#else
    (void)cpu, (void)memory, (void)bytes;
    return PMU_ERR_NO_PEBS; /* built without PEBS */
#endif
}

static unsigned counter_id(const struct pmu_counter_plan *c)
{
    return c->kind == PMU_COUNTER_GP ? c->index : PMU_FIXED_ID(c->index);
}

static int check_counter(const struct pmu_cpu_state *cpu, const struct pmu_counter_plan *c)
{
    const struct pmu_caps *caps = cpu->caps;

    if (c->kind == PMU_COUNTER_GP) {
        if (c->index >= caps->num_gp)
            return PMU_ERR_NO_COUNTER;
        if (c->index >= cpu->num_gp)
            return PMU_ERR_CORE_TYPE;
        if (c->control & ~caps->evtsel_valid)
            return PMU_ERR_RESERVED;
        if (!(c->control & (EVTSEL_OS | EVTSEL_USR)))
            return PMU_ERR_INVALID; /* would count at no privilege level */
        if (c->sample_after > caps->max_period_gp)
            return PMU_ERR_PERIOD;
        /* A checkpointed count is rolled back when a transaction aborts, and the overflow's
         * PMI aborts it: sampling it loops (Linux's hsw_hw_config() refuses it too). */
        if ((c->control & EVTSEL_IN_TXCP) && c->sample_after)
            return PMU_ERR_TXCP_SAMPLING;
        /* Linux rounds such a period (bdw_limit_period()); acart refuses it, because the
         * host weighs each sample by the period it asked for. */
        if (caps->inst_retired_all_limits && (c->control & 0xffff) == 0x01c0 && c->sample_after &&
            (c->sample_after < 128 || (c->sample_after & 0x3f)))
            return PMU_ERR_PERIOD_ERRATUM;
    } else if (c->kind == PMU_COUNTER_FIXED) {
        if (c->index >= PMU_MAX_FIXED || !(caps->fixed_mask & (1u << c->index)))
            return PMU_ERR_NO_COUNTER;
        if (!(cpu->fixed_mask & (1u << c->index)))
            return PMU_ERR_CORE_TYPE;
        if (c->control & ~0xfull)
            return PMU_ERR_RESERVED;
        if ((c->control & FIXED_CTRL_ANY) && !(caps->evtsel_valid & EVTSEL_ANY))
            return PMU_ERR_RESERVED;
        if (!(c->control & (FIXED_CTRL_OS | FIXED_CTRL_USR)))
            return PMU_ERR_INVALID;
        if (c->sample_after > caps->max_period_fixed)
            return PMU_ERR_PERIOD;
    } else {
        return PMU_ERR_INVALID;
    }
    if (c->flags & ~(PMU_COUNTER_PEBS | PMU_COUNTER_LOAD_LATENCY))
        return PMU_ERR_INVALID;
    if (c->flags & PMU_COUNTER_PEBS) {
        if (!ACA_WITH_PEBS || !(caps->pebs.counters & (1ull << counter_id(c))) || !cpu->pebs.ds)
            return PMU_ERR_NO_PEBS;
        if (!c->sample_after)
            return PMU_ERR_INVALID; /* PEBS only samples */
    }
    if (c->flags & PMU_COUNTER_LOAD_LATENCY) {
        /* Load latency is a PEBS facility of general counters; format 0 (Core 2) records
         * no memory fields. */
        if (!(c->flags & PMU_COUNTER_PEBS) || c->kind != PMU_COUNTER_GP)
            return PMU_ERR_INVALID;
        if (!caps->pebs.adaptive && caps->pebs.format < 1)
            return PMU_ERR_NO_PEBS;
        /* The model's load-latency counters (Sandy and Ivy Bridge: PMC3 only; Ice Lake
         * and later: not PMC0), as Linux's PEBS constraint tables have them. */
        if (!(caps->pebs.load_latency_counters & (1ull << counter_id(c))))
            return PMU_ERR_NO_PEBS;
    }
    return PMU_OK;
}

static int check_plan(const struct pmu_cpu_state *cpu, const struct pmu_plan *plan,
                      uint32_t *pebs_record)
{
    const struct pmu_caps *caps = cpu->caps;
    uint64_t used = 0;
    int any_pebs = 0;

    if (plan->num_counters > PMU_MAX_COUNTERS)
        return PMU_ERR_INVALID;
    for (uint32_t i = 0; i < plan->num_counters; i++) {
        const struct pmu_counter_plan *c = &plan->counters[i];
        int err = check_counter(cpu, c);

        if (err)
            return err;
        if (used & (1ull << counter_id(c)))
            return PMU_ERR_INVALID;
        used |= 1ull << counter_id(c);
        any_pebs |= ACA_WITH_PEBS && (c->flags & PMU_COUNTER_PEBS); /* else refused above */
    }
    *pebs_record = 0;
    if (plan->pebs_data_cfg) {
        if (!caps->pebs.adaptive)
            return PMU_ERR_NO_PEBS;
        if (plan->pebs_data_cfg & ~PEBS_DATA_CFG_VALID)
            return PMU_ERR_RESERVED;
    }
    if (any_pebs) {
        *pebs_record = pebs_record_size(&caps->pebs, plan->pebs_data_cfg);
        if (!*pebs_record)
            return PMU_ERR_NO_PEBS;
        if (*pebs_record > cpu->pebs.buffer_bytes)
            return PMU_ERR_TOO_SMALL;
    }
    if (plan->num_extra > PMU_MAX_EXTRA)
        return PMU_ERR_INVALID;
    for (uint32_t i = 0; i < plan->num_extra; i++) {
        uint32_t msr = plan->extra[i].msr;
        if (msr != MSR_OFFCORE_RSP_0 && msr != MSR_OFFCORE_RSP_1 && msr != MSR_PEBS_LD_LAT &&
            msr != MSR_PEBS_FRONTEND)
            return PMU_ERR_INVALID;
    }
    if (plan->lbr) {
        if (!caps->lbr.depth)
            return PMU_ERR_NO_LBR;
        if ((plan->lbr_select & ~(uint64_t)LBR_SEL_VALID) ||
            ((plan->lbr_select & LBR_SEL_CALL_STACK) && !caps->lbr.callstack))
            return PMU_ERR_RESERVED;
    }
    return PMU_OK;
}

void pmu_clear_status(const struct pmu_caps *caps)
{
    uint64_t status = msr_read(MSR_IA32_PERF_GLOBAL_STATUS) & caps->status_ack_mask;

    if (status)
        msr_write(MSR_IA32_PERF_GLOBAL_OVF_CTRL, status);
}

void pmu_quiesce(struct pmu_cpu_state *cpu)
{
    const struct pmu_caps *caps = cpu->caps;

    cpu->running = 0;
    __asm__ volatile("" ::: "memory"); /* a PMI from here on must not re-enable */
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 0);
    if (caps->tsx_force_abort)
        msr_write(MSR_TSX_FORCE_ABORT, 0);
    if (caps->pebs.usable)
        msr_write(MSR_IA32_PEBS_ENABLE, 0);
    for (unsigned i = 0; i < cpu->num_gp; i++)
        msr_write(MSR_IA32_PERFEVTSEL0 + i, 0);
    if (caps->num_fixed)
        msr_write(MSR_IA32_FIXED_CTR_CTRL, 0);
    if (ACA_WITH_LBR && cpu->lbr_on)
        lbr_disable(&caps->lbr);
    cpu->debugctl = msr_read(MSR_IA32_DEBUGCTL) & ~DEBUGCTL_PMU_BITS;
    msr_write(MSR_IA32_DEBUGCTL, cpu->debugctl);
    pmu_clear_status(caps);
    if (ACA_WITH_PEBS && cpu->pebs.ds)
        pebs_rewind(&cpu->pebs);

    cpu->lbr_on = 0;
    cpu->lbr_callstack = 0;
    cpu->lbr_select = 0;
    cpu->global_ctrl = cpu->pebs_enable = cpu->pebs_counters = cpu->sampling = 0;
    cpu->load_latency = 0;
    pmu_zero(cpu->reload, sizeof(cpu->reload));
    pmu_zero(cpu->tag, sizeof(cpu->tag));
}

static void program_counter(struct pmu_cpu_state *cpu, const struct pmu_counter_plan *c,
                            uint64_t pebs_data_cfg, uint64_t *fixed_ctrl)
{
    const struct pmu_caps *caps = cpu->caps;
    unsigned id = counter_id(c), slot = pmu_slot(id);
    uint64_t preload = (0 - c->sample_after) & pmu_width_mask(pmu_counter_width(caps, id));
    int pebs = ACA_WITH_PEBS && (c->flags & PMU_COUNTER_PEBS); /* checked by check_plan */
    int interrupt = c->sample_after && !pebs;

    cpu->reload[slot] = preload;
    cpu->tag[slot] = c->tag;
    cpu->global_ctrl |= 1ull << id;
    if (c->sample_after)
        cpu->sampling |= 1ull << id;
    if (pebs) {
        cpu->pebs_counters |= 1ull << id;
        pebs_set_reset(&cpu->pebs, &caps->pebs, id, preload);
        if ((c->flags & PMU_COUNTER_LOAD_LATENCY) && caps->version < 5)
            cpu->load_latency |= 1ull << (32 + id);
    }
    msr_write(pmu_counter_msr(caps, id), preload);

    if (c->kind == PMU_COUNTER_GP) {
        uint64_t evtsel = (c->control | EVTSEL_EN) & ~EVTSEL_INT;

        if (interrupt)
            evtsel |= EVTSEL_INT;
        if (pebs && pebs_data_cfg)
            evtsel |= EVTSEL_ADAPTIVE;
        msr_write(MSR_IA32_PERFEVTSEL0 + c->index, evtsel);
    } else {
        uint64_t field = c->control & ~(uint64_t)FIXED_CTRL_PMI;

        if (interrupt)
            field |= FIXED_CTRL_PMI;
        *fixed_ctrl |= field << (4 * c->index);
        if (pebs && pebs_data_cfg)
            *fixed_ctrl |= 1ull << FIXED_CTRL_ADAPTIVE_BIT(c->index);
    }
}

int pmu_program_cpu(struct pmu_cpu_state *cpu, const struct pmu_plan *plan)
{
    uint64_t fixed_ctrl = 0, debugctl;
    uint32_t pebs_record;
    int err;

    if (!cpu || !plan)
        return PMU_ERR_INVALID;
    if (!cpu->caps)
        return PMU_ERR_NO_PMU;
    err = check_plan(cpu, plan, &pebs_record);
    if (err)
        return err;

    pmu_quiesce(cpu);
    for (uint32_t i = 0; i < plan->num_counters; i++)
        program_counter(cpu, &plan->counters[i], plan->pebs_data_cfg, &fixed_ctrl);
    if (cpu->caps->num_fixed)
        msr_write(MSR_IA32_FIXED_CTR_CTRL, fixed_ctrl);
    for (uint32_t i = 0; i < plan->num_extra; i++) {
        msr_write(plan->extra[i].msr, plan->extra[i].value);
        cpu->extra_msrs[i] = plan->extra[i].msr;
    }
    cpu->num_extra = plan->num_extra;

    if (ACA_WITH_PEBS && cpu->pebs_counters) {
        pebs_arm(&cpu->pebs, pebs_record); /* fits: checked by check_plan */
        if (cpu->caps->pebs.adaptive)
            msr_write(MSR_PEBS_DATA_CFG, plan->pebs_data_cfg);
        /* PEBS_ENABLE uses the counter-id bit layout for both GP and (adaptive) fixed;
         * before v5, bits 32 + i are the load-latency enables instead. */
        cpu->pebs_enable = cpu->pebs_counters | cpu->load_latency;
    }

    debugctl = cpu->debugctl;
    if (plan->freeze_on_pmi) {
        debugctl |= DEBUGCTL_FREEZE_PERFMON_ON_PMI;
        /* Never the LBRs' in call-stack mode (lbr_debugctl_bits()). */
        if (cpu->caps->lbr.depth && !(plan->lbr && (plan->lbr_select & LBR_SEL_CALL_STACK)))
            debugctl |= DEBUGCTL_FREEZE_LBRS_ON_PMI;
    }
    if (ACA_WITH_LBR && plan->lbr) { /* else refused by check_plan (no LBR depth) */
        lbr_enable(&cpu->caps->lbr, plan->lbr_select);
        debugctl |= lbr_debugctl_bits(&cpu->caps->lbr, plan->lbr_select);
        cpu->lbr_on = 1;
        cpu->lbr_select = plan->lbr_select;
        cpu->lbr_callstack = (plan->lbr_select & LBR_SEL_CALL_STACK) != 0;
    }
    cpu->debugctl = debugctl;
    msr_write(MSR_IA32_DEBUGCTL, debugctl);
    pmu_clear_status(cpu->caps);
    return PMU_OK;
}

/* ---- Running ---- */

void pmu_write_counter(const struct pmu_cpu_state *cpu, unsigned counter, uint64_t value)
{
    msr_write(pmu_counter_msr(cpu->caps, counter),
              value & pmu_width_mask(pmu_counter_width(cpu->caps, counter)));
}

void pmu_start_cpu(struct pmu_cpu_state *cpu)
{
    if (!cpu->caps)
        return;
    if (cpu->pebs_enable)
        msr_write(MSR_IA32_PEBS_ENABLE, cpu->pebs_enable);
    /* As Linux does by default: transactions abort while PMC3 counts, and run again once
     * it does not. */
    if (cpu->caps->tsx_force_abort)
        msr_write(MSR_TSX_FORCE_ABORT, (cpu->global_ctrl & (1ull << 3)) ? TSX_FORCE_ABORT_RTM : 0);
    cpu->running = 1;
    __asm__ volatile("" ::: "memory");
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, cpu->global_ctrl);
}

void pmu_pause_cpu(struct pmu_cpu_state *cpu)
{
    if (!cpu->caps)
        return;
    cpu->running = 0;
    __asm__ volatile("" ::: "memory"); /* a PMI from here on leaves counting off */
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 0);
    if (cpu->pebs_enable)
        msr_write(MSR_IA32_PEBS_ENABLE, 0);
}

void pmu_stop_cpu(struct pmu_cpu_state *cpu)
{
    const struct pmu_caps *caps = cpu->caps;

    if (!caps)
        return;
    pmu_quiesce(cpu);
    for (unsigned id = 0; id < 64; id++) {
        if (cpu->counters & (1ull << id))
            msr_write(pmu_counter_msr(caps, id), 0);
    }
    for (uint32_t i = 0; i < cpu->num_extra && i < PMU_MAX_EXTRA; i++)
        msr_write(cpu->extra_msrs[i], 0);
    cpu->num_extra = 0;
}

void pmu_double_periods(struct pmu_cpu_state *cpu)
{
    const struct pmu_caps *caps = cpu->caps;

    if (!caps)
        return;
    msr_write(MSR_IA32_PERF_GLOBAL_CTRL, 0);
    for (unsigned id = 0; id < 64; id++) {
        if (!(cpu->sampling & (1ull << id)))
            continue;
        unsigned slot = pmu_slot(id);
        uint64_t mask = pmu_width_mask(pmu_counter_width(caps, id));
        uint64_t max = id < 32 ? caps->max_period_gp : caps->max_period_fixed;
        uint64_t period = (0 - cpu->reload[slot]) & mask;
        uint64_t more = period <= max - period ? period : max - period;

        if (period > max || !more)
            continue;
        cpu->reload[slot] = (0 - (period + more)) & mask;
        /* Without full-width writes the counter takes bit 31 sign-extended: a distance to
         * overflow below 2^31 (max_period_gp) survives that. */
        pmu_write_counter(cpu, id, pmu_read_counter(cpu, id) - more);
        if (ACA_WITH_PEBS && (cpu->pebs_counters & (1ull << id)))
            pebs_set_reset(&cpu->pebs, &caps->pebs, id, cpu->reload[slot]);
    }
    if (cpu->running)
        msr_write(MSR_IA32_PERF_GLOBAL_CTRL, cpu->global_ctrl);
}

uint64_t pmu_read_counter(const struct pmu_cpu_state *cpu, unsigned counter)
{
    const struct pmu_caps *caps = cpu->caps;

    if (!caps || counter >= 64 || !(cpu->counters & (1ull << counter)))
        return 0;
    if (counter < 32)
        return msr_read(MSR_IA32_PMC0 + counter) & pmu_width_mask(caps->gp_width);
    return msr_read(MSR_IA32_FIXED_CTR0 + counter - 32) & pmu_width_mask(caps->fixed_width);
}
