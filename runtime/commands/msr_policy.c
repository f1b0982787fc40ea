/*
 * msr_policy.c - the MSR allowlist (see msr_policy.h).
 *
 * One table, one row per MSR or per range of indexed MSRs. A range's length is not a
 * constant but a bound taken from the CPU (counters, LBR depth), so a host cannot reach
 * past the last counter this CPU implements into whatever MSR follows it.
 */
#include "msr_policy.h"

#include <stddef.h>

enum msr_access_kind {
    MSR_R = 1,     /* read only */
    MSR_RW = 3,    /* read and write */
    MSR_R_OWN = 5, /* the host reads; only acart's own trace code writes */
};

/* How many consecutive MSRs a row covers. */
enum msr_bound {
    BOUND_ONE,      /* just the first */
    BOUND_GP,       /* num_gp_counters */
    BOUND_GP_FULL,  /* num_gp_counters, only with full_width_writes */
    BOUND_FIXED,    /* num_fixed_counters */
    BOUND_LBR_FROM, /* lbr_depth, from lbr_from_base */
    BOUND_LBR_TO,   /* lbr_depth, from lbr_to_base */
    BOUND_LBR_INFO, /* lbr_depth, from lbr_info_base */
    BOUND_PT,       /* one, on a CPU with Intel PT */
    BOUND_PT_OUT,   /* one, on a CPU with PT output to memory */
    BOUND_PT_ADDR,  /* 2 * pt_ranges */
    BOUND_UNCORE,   /* one, on a CPU with the client uncore MSRs */
    BOUND_UNC_ARB,  /* two, on a CPU with the client uncore MSRs */
};

struct msr_rule {
    const char *name;
    uint32_t first; /* unused for the LBR rows, whose base comes from the limits */
    uint8_t bound;  /* enum msr_bound */
    uint8_t access; /* enum msr_access_kind */
};

/* Architectural performance monitoring (Intel SDM vol. 4, table 2-2), plus the few
 * model-specific PMU registers SEP's core ECBs program (off-core response, load latency,
 * LBR), the read-only registers the platform and setup replies report, and Intel PT's
 * (vol. 3C, "Intel Processor Trace"). */
static const struct msr_rule rules[] = {
    {"IA32_TSC", 0x010, BOUND_ONE, MSR_R},
    {"IA32_PLATFORM_ID", 0x017, BOUND_ONE, MSR_R},
    {"IA32_PMC", 0x0C1, BOUND_GP, MSR_RW},
    {"MSR_PLATFORM_INFO", 0x0CE, BOUND_ONE, MSR_R},
    {"IA32_MPERF", 0x0E7, BOUND_ONE, MSR_R},
    {"IA32_APERF", 0x0E8, BOUND_ONE, MSR_R},
    {"IA32_PERFEVTSEL", 0x186, BOUND_GP, MSR_RW},
    {"IA32_MISC_ENABLE", 0x1A0, BOUND_ONE, MSR_R},
    {"MSR_OFFCORE_RSP_0", 0x1A6, BOUND_ONE, MSR_RW},
    {"MSR_OFFCORE_RSP_1", 0x1A7, BOUND_ONE, MSR_RW},
    {"MSR_LBR_SELECT", 0x1C8, BOUND_ONE, MSR_RW},
    {"MSR_LASTBRANCH_TOS", 0x1C9, BOUND_ONE, MSR_RW},
    {"IA32_DEBUGCTL", 0x1D9, BOUND_ONE, MSR_RW},
    {"IA32_FIXED_CTR", 0x309, BOUND_FIXED, MSR_RW},
    {"IA32_PERF_CAPABILITIES", 0x345, BOUND_ONE, MSR_R},
    {"IA32_FIXED_CTR_CTRL", 0x38D, BOUND_ONE, MSR_RW},
    {"MSR_UNC_PERF_FIXED_CTRL", 0x394, BOUND_UNCORE, MSR_RW},
    {"MSR_UNC_PERF_FIXED_CTR", 0x395, BOUND_UNCORE, MSR_RW},
    {"MSR_UNC_CBO_CONFIG", 0x396, BOUND_UNCORE, MSR_R},
    {"MSR_UNC_ARB_PERFCTR", 0x3B0, BOUND_UNC_ARB, MSR_RW},
    {"MSR_UNC_ARB_PERFEVTSEL", 0x3B2, BOUND_UNC_ARB, MSR_RW},
    {"IA32_PERF_GLOBAL_STATUS", 0x38E, BOUND_ONE, MSR_R},
    {"IA32_PERF_GLOBAL_CTRL", 0x38F, BOUND_ONE, MSR_RW},
    {"IA32_PERF_GLOBAL_OVF_CTRL", 0x390, BOUND_ONE, MSR_RW},
    {"IA32_PEBS_ENABLE", 0x3F1, BOUND_ONE, MSR_RW},
    {"MSR_PEBS_LD_LAT", 0x3F6, BOUND_ONE, MSR_RW},
    {"MSR_PEBS_FRONTEND", 0x3F7, BOUND_ONE, MSR_RW},
    {"IA32_A_PMC", 0x4C1, BOUND_GP_FULL, MSR_RW},
    {"IA32_RTIT_OUTPUT_BASE", 0x560, BOUND_PT_OUT, MSR_R_OWN},
    {"IA32_RTIT_OUTPUT_MASK_PTRS", 0x561, BOUND_PT_OUT, MSR_R_OWN},
    {"IA32_RTIT_CTL", 0x570, BOUND_PT, MSR_R_OWN},
    {"IA32_RTIT_STATUS", 0x571, BOUND_PT, MSR_R_OWN},
    {"IA32_RTIT_ADDR", 0x580, BOUND_PT_ADDR, MSR_R_OWN},
    {"IA32_DS_AREA", 0x600, BOUND_ONE, MSR_RW},
    {"MSR_LASTBRANCH_FROM_IP", 0, BOUND_LBR_FROM, MSR_RW},
    {"MSR_LASTBRANCH_TO_IP", 0, BOUND_LBR_TO, MSR_RW},
    {"MSR_LBR_INFO", 0, BOUND_LBR_INFO, MSR_RW},
    {"MSR_UNC_PERF_GLOBAL_CTRL", 0xE01, BOUND_UNCORE, MSR_RW},
    {"MSR_UNC_PERF_GLOBAL_STATUS", 0xE02, BOUND_UNCORE, MSR_RW},
};

/* CBo n's registers (SDM vol. 4, "uncore PMU MSRs" of the client parts): PERFEVTSEL0/1 at
 * 0x700 + 0x10 n and +1, PERFCTR0/1 at +6 and +7; the block holds at most eight units. */
#define UNC_CBO_BASE   0x700u
#define UNC_CBO_STRIDE 0x10u
#define UNC_CBO_MAX    8u

static struct msr_policy_limits limits; /* zero until configured: no counters, no LBRs */

void msr_policy_configure(const struct msr_policy_limits *l)
{
    limits = *l;
}

const char *msr_policy_strerror(int err)
{
    switch (err) {
    case MSR_POLICY_OK:
        return "allowed";
    case MSR_POLICY_ERR_UNLISTED:
        return "MSR is not a performance-monitoring register acart allows";
    case MSR_POLICY_ERR_READ_ONLY:
        return "MSR may only be read";
    case MSR_POLICY_ERR_INDEX:
        return "counter, LBR or trace address range beyond what this CPU implements";
    case MSR_POLICY_ERR_MODE:
        return "MSR of IA-32e (64-bit) mode only, and this target runs 32-bit code";
    default:
        return "unknown MSR policy error";
    }
}

/* The span a row may cover at most (architecturally), and the part this CPU has. */
struct span {
    uint32_t first;
    uint32_t max;    /* MSRs the row could name */
    uint32_t actual; /* MSRs this CPU implements */
};

static struct span rule_span(const struct msr_rule *r)
{
    struct span s = {r->first, 1, 1};

    switch (r->bound) {
    case BOUND_GP:
        s.max = 8; /* 0xC1..0xC8 and 0x186..0x18D are reserved for eight counters */
        s.actual = limits.num_gp_counters;
        break;
    case BOUND_GP_FULL:
        s.max = 8;
        s.actual = limits.full_width_writes ? limits.num_gp_counters : 0;
        break;
    case BOUND_FIXED:
        s.max = 4; /* 0x309..0x30C */
        s.actual = limits.num_fixed_counters;
        break;
    case BOUND_LBR_FROM:
        s.first = limits.lbr_from_base;
        s.max = s.actual = s.first ? limits.lbr_depth : 0;
        break;
    case BOUND_LBR_TO:
        s.first = limits.lbr_to_base;
        s.max = s.actual = s.first ? limits.lbr_depth : 0;
        break;
    case BOUND_LBR_INFO:
        s.first = limits.lbr_info_base;
        s.max = s.actual = s.first ? limits.lbr_depth : 0;
        break;
    case BOUND_PT: /* without PT these are no registers at all, not missing indexes */
        s.max = s.actual = limits.pt ? 1 : 0;
        break;
    case BOUND_PT_OUT:
        s.max = s.actual = limits.pt && limits.pt_output ? 1 : 0;
        break;
    case BOUND_PT_ADDR:
        s.max = limits.pt ? 8 : 0; /* 0x580..0x587: four ranges */
        s.actual = 2u * limits.pt_ranges;
        break;
    case BOUND_UNCORE:
        s.max = s.actual = limits.uncore_client ? 1 : 0;
        break;
    case BOUND_UNC_ARB:
        s.max = s.actual = limits.uncore_client ? 2 : 0;
        break;
    default:
        break;
    }
    if (s.actual > s.max)
        s.actual = s.max;
    return s;
}

static const struct msr_rule cbo_select = {"MSR_UNC_CBO_PERFEVTSEL", 0, BOUND_ONE, MSR_RW};
static const struct msr_rule cbo_counter = {"MSR_UNC_CBO_PERFCTR", 0, BOUND_ONE, MSR_RW};

/* The CBo rows: a strided block the table's consecutive ranges cannot express. */
static const struct msr_rule *find_cbo(uint32_t msr, int *beyond_cpu)
{
    if (!limits.uncore_client || msr < UNC_CBO_BASE ||
        msr >= UNC_CBO_BASE + UNC_CBO_MAX * UNC_CBO_STRIDE)
        return NULL;
    uint32_t unit = (msr - UNC_CBO_BASE) / UNC_CBO_STRIDE, reg = msr % UNC_CBO_STRIDE;
    const struct msr_rule *r = reg <= 1 ? &cbo_select : reg == 6 || reg == 7 ? &cbo_counter : NULL;
    if (r != NULL && unit >= limits.uncore_cbos) {
        *beyond_cpu = 1;
        return NULL;
    }
    return r;
}

static const struct msr_rule *find_rule(uint32_t msr, int *beyond_cpu)
{
    *beyond_cpu = 0;
    const struct msr_rule *cbo = find_cbo(msr, beyond_cpu);
    if (cbo != NULL || *beyond_cpu)
        return cbo;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        struct span s = rule_span(&rules[i]);
        if (msr < s.first || msr - s.first >= s.max)
            continue;
        if (msr - s.first >= s.actual) {
            *beyond_cpu = 1;
            continue; /* another row may still own it (an LBR base may overlap) */
        }
        return &rules[i];
    }
    return NULL;
}

/* The system-call and segment-base MSRs that only IA-32e mode uses (SDM vol. 4, table 2-2:
 * IA32_STAR .. IA32_FMASK, IA32_FS_BASE .. IA32_KERNEL_GS_BASE). None is a PMU register,
 * so none is allowed in either mode; on a 32-bit target the refusal says why it can never
 * be, rather than only that acart does not allow it. */
static int long_mode_only(uint32_t msr)
{
    return (msr >= 0xC0000081u && msr <= 0xC0000084u) || (msr >= 0xC0000100u && msr <= 0xC0000102u);
}

int msr_policy_check(uint32_t msr, int write)
{
    int beyond_cpu;
    const struct msr_rule *r = find_rule(msr, &beyond_cpu);

    if (r == NULL && sizeof(void *) == 4 && long_mode_only(msr)) /* a 32-bit build */
        return MSR_POLICY_ERR_MODE;
    if (r == NULL)
        return beyond_cpu ? MSR_POLICY_ERR_INDEX : MSR_POLICY_ERR_UNLISTED;
    if (write && r->access != MSR_RW)
        return MSR_POLICY_ERR_READ_ONLY; /* MSR_R_OWN included: never the host's to write */
    return MSR_POLICY_OK;
}

int msr_policy_check_own(uint32_t msr)
{
    int beyond_cpu;
    const struct msr_rule *r = find_rule(msr, &beyond_cpu);

    if (r == NULL)
        return beyond_cpu ? MSR_POLICY_ERR_INDEX : MSR_POLICY_ERR_UNLISTED;
    return r->access == MSR_R ? MSR_POLICY_ERR_READ_ONLY : MSR_POLICY_OK;
}

int msr_policy_core_pmu(uint32_t msr)
{
    int beyond_cpu;
    const struct msr_rule *r = find_rule(msr, &beyond_cpu);
    if (r == NULL || r == &cbo_select || r == &cbo_counter || r->bound == BOUND_UNCORE ||
        r->bound == BOUND_UNC_ARB)
        return 0;
    return r->access == MSR_RW; /* not the trace unit's (MSR_R_OWN) nor read-only ones */
}

const char *msr_policy_name(uint32_t msr)
{
    int beyond_cpu;
    const struct msr_rule *r = find_rule(msr, &beyond_cpu);
    return r ? r->name : NULL;
}

/* MCHBAR: the host bridge's register that holds the memory controller's BAR, the base of
 * the client IMC's counters (a 64-bit register: the low half at 0x48, the high at 0x4C). */
#define MCHBAR_DEV    0u
#define MCHBAR_OFFSET 0x48u

int pci_policy_check(uint8_t bus, uint8_t dev, uint8_t func, uint16_t offset, int write)
{
    if (limits.imc_mmio_len == 0 || bus != 0 || dev != MCHBAR_DEV || func != 0 ||
        (offset != MCHBAR_OFFSET && offset != MCHBAR_OFFSET + 4))
        return MSR_POLICY_ERR_UNLISTED;
    return write ? MSR_POLICY_ERR_READ_ONLY : MSR_POLICY_OK;
}

int mmio_policy_check(uint8_t bus, uint8_t dev, uint8_t func, uint16_t bar_offset, uint64_t offset,
                      uint32_t size, int write)
{
    if (pci_policy_check(bus, dev, func, bar_offset, 0) != MSR_POLICY_OK ||
        bar_offset != MCHBAR_OFFSET)
        return MSR_POLICY_ERR_UNLISTED;
    if (size == 0 || offset < limits.imc_mmio_first ||
        offset + size > (uint64_t)limits.imc_mmio_first + limits.imc_mmio_len)
        return MSR_POLICY_ERR_UNLISTED;
    return write ? MSR_POLICY_ERR_READ_ONLY : MSR_POLICY_OK;
}
