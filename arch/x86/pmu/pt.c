/* Intel PT capabilities from CPUID, and the IA32_RTIT_CTL value of a configuration. */
#include "pt.h"

#include <string.h>

#include "cpuid.h"

#define CPUID7_EBX_PT (1u << 25)

/* CPUID.(EAX=14H, ECX=0) */
#define PT14_EBX_CR3_FILTER (1u << 0)
#define PT14_EBX_PSB_CYC    (1u << 1)
#define PT14_EBX_IP_FILTER  (1u << 2)
#define PT14_EBX_MTC        (1u << 3)
#define PT14_EBX_PTWRITE    (1u << 4)
#define PT14_EBX_POWER      (1u << 5)
#define PT14_ECX_TOPA       (1u << 0)
#define PT14_ECX_TOPA_MULTI (1u << 1)
#define PT14_ECX_SINGLE     (1u << 2)
#define PT14_ECX_TRANSPORT  (1u << 3)
#define PT14_ECX_LIP        (1u << 31)

const char *pt_strerror(int err)
{
    switch (err) {
    case PT_OK:
        return "success";
    case PT_ERR_NO_PT:
        return "no Intel PT on this CPU";
    case PT_ERR_INVALID:
        return "invalid PT configuration";
    case PT_ERR_NO_CYC:
        return "this CPU has no cycle-accurate mode or configurable PSB period "
               "(CPUID.14H:EBX[1])";
    case PT_ERR_NO_MTC:
        return "this CPU has no MTC packets (CPUID.14H:EBX[3])";
    case PT_ERR_MTC_FREQ:
        return "MTC period not supported by this CPU (CPUID.(14H,1):EAX[31:16])";
    case PT_ERR_CYC_THRESH:
        return "CYC threshold not supported by this CPU (CPUID.(14H,1):EBX[15:0])";
    case PT_ERR_PSB_FREQ:
        return "PSB period not supported by this CPU (CPUID.(14H,1):EBX[31:16])";
    case PT_ERR_NO_PTWRITE:
        return "this CPU has no PTWRITE (CPUID.14H:EBX[4])";
    case PT_ERR_NO_POWER:
        return "this CPU has no power event trace (CPUID.14H:EBX[5])";
    case PT_ERR_RANGES:
        return "more address ranges than this CPU filters (CPUID.(14H,1):EAX[2:0])";
    case PT_ERR_RANGE:
        return "address range starts after its end, or is neither a filter nor a stop";
    case PT_ERR_FULL_NEEDS_TOPA:
        return "full mode needs ToPA output with several regions and the ToPA interrupt "
               "(CPUID.14H:ECX[1], perfmon v2); use snapshot mode";
    case PT_ERR_MEMORY:
        return "the trace memory is too small, misaligned or above MAXPHYADDR";
    case PT_ERR_NO_CPL:
        return "neither OS nor user code would be traced";
    case PT_ERR_STATE:
        return "the trace unit is not in the state this needs";
    }
    return "unknown PT error";
}

static int is_intel(const struct cpuid_regs *r0)
{
    return r0->ebx == 0x756e6547 && r0->edx == 0x49656e69 && r0->ecx == 0x6c65746e;
}

static int absent(struct pt_caps *caps, const char *why)
{
    caps->present = 0;
    caps->why = why;
    return PT_ERR_NO_PT;
}

int pt_probe(struct pt_caps *caps)
{
    struct cpuid_regs r0, r14, r14_1 = {0, 0, 0, 0};

    memset(caps, 0, sizeof(*caps));
    r0 = cpuid(0, 0);
    if (!is_intel(&r0))
        return absent(caps, "not an Intel CPU");
    if (r0.eax < 0x14 || !(cpuid(7, 0).ebx & CPUID7_EBX_PT))
        return absent(caps, "CPUID.07H:EBX[25] is clear (QEMU TCG and most VMs offer no Intel PT)");
    r14 = cpuid(0x14, 0);
    if (!(r14.ecx & (PT14_ECX_TOPA | PT14_ECX_SINGLE)))
        return absent(caps, "the trace unit cannot write to memory (CPUID.14H:ECX[0,2] clear)");
    if (r14.eax >= 1)
        r14_1 = cpuid(0x14, 1);
    caps->cr3_filter = (r14.ebx & PT14_EBX_CR3_FILTER) != 0;
    caps->psb_cyc = (r14.ebx & PT14_EBX_PSB_CYC) != 0;
    caps->ip_filter = (r14.ebx & PT14_EBX_IP_FILTER) != 0;
    caps->mtc = (r14.ebx & PT14_EBX_MTC) != 0;
    caps->ptwrite = (r14.ebx & PT14_EBX_PTWRITE) != 0;
    caps->power_events = (r14.ebx & PT14_EBX_POWER) != 0;
    caps->topa = (r14.ecx & PT14_ECX_TOPA) != 0;
    caps->topa_multi = caps->topa && (r14.ecx & PT14_ECX_TOPA_MULTI) != 0;
    caps->single_range = (r14.ecx & PT14_ECX_SINGLE) != 0;
    caps->transport = (r14.ecx & PT14_ECX_TRANSPORT) != 0;
    caps->lip = (r14.ecx & PT14_ECX_LIP) != 0;
    caps->num_ranges = caps->ip_filter ? (uint8_t)(r14_1.eax & 7) : 0;
    if (caps->num_ranges > PT_MAX_RANGES)
        caps->num_ranges = PT_MAX_RANGES;
    caps->mtc_periods = caps->mtc ? (uint16_t)(r14_1.eax >> 16) : 0;
    caps->cyc_thresholds = caps->psb_cyc ? (uint16_t)r14_1.ebx : 0;
    caps->psb_periods = caps->psb_cyc ? (uint16_t)(r14_1.ebx >> 16) : 0;
    if (r0.eax >= 0x15) {
        struct cpuid_regs r15 = cpuid(0x15, 0);

        caps->cpuid15_eax = r15.eax;
        caps->cpuid15_ebx = r15.ebx;
        caps->cpuid15_ecx = r15.ecx;
    }
    caps->maxphyaddr = 36; /* the SDM's value when 80000008H is absent */
    if (cpuid(0x80000000u, 0).eax >= 0x80000008u) {
        uint8_t bits = (uint8_t)cpuid(0x80000008u, 0).eax;

        if (bits)
            caps->maxphyaddr = bits;
    }
    /* The ToPA PMI sets IA32_PERF_GLOBAL_STATUS bit 55, acknowledged through
     * IA32_PERF_GLOBAL_OVF_CTRL: both exist from architectural perfmon v2 on. */
    caps->pmi = r0.eax >= 0xa && (cpuid(0xa, 0).eax & 0xff) >= 2;
    caps->present = 1;
    return PT_OK;
}

/* ADDRn_A/B take linear addresses sign-extended from bit 47; anything else is a #GP. */
static int canonical(uint64_t a)
{
    uint64_t top = a >> 47;

    return top == 0 || top == 0x1ffff;
}

static int supported(uint16_t bitmap, uint8_t encoding)
{
    return encoding < 16 && (bitmap & (1u << encoding)) != 0;
}

int pt_config_ctl(const struct pt_caps *caps, const struct pt_config *cfg, uint32_t output,
                  uint64_t *ctl)
{
    uint64_t v = RTIT_CTL_BRANCH_EN;

    if (!caps || !caps->present)
        return PT_ERR_NO_PT;
    if (!cfg || (cfg->flags & ~PT_FLAGS_VALID) || cfg->mode > PT_MODE_SNAPSHOT ||
        output > PT_OUT_SINGLE)
        return PT_ERR_INVALID;
    if (!(cfg->flags & (PT_TRACE_OS | PT_TRACE_USER)))
        return PT_ERR_NO_CPL;
    if (cfg->flags & PT_TRACE_OS)
        v |= RTIT_CTL_OS;
    if (cfg->flags & PT_TRACE_USER)
        v |= RTIT_CTL_USER;
    if (cfg->flags & PT_TIMING_TSC)
        v |= RTIT_CTL_TSC_EN;
    /* The SDM's #GP cases for IA32_RTIT_CTL, checked here so that no WRMSR faults. */
    if (cfg->flags & PT_TIMING_MTC) {
        if (!caps->mtc)
            return PT_ERR_NO_MTC;
        if (!supported(caps->mtc_periods, cfg->mtc_freq))
            return PT_ERR_MTC_FREQ;
        v |= RTIT_CTL_MTC_EN | RTIT_CTL_MTC_FREQ(cfg->mtc_freq);
    } else if (cfg->mtc_freq) {
        return PT_ERR_INVALID;
    }
    if (cfg->flags & PT_TIMING_CYC) {
        if (!caps->psb_cyc)
            return PT_ERR_NO_CYC;
        if (!supported(caps->cyc_thresholds, cfg->cyc_thresh))
            return PT_ERR_CYC_THRESH;
        v |= RTIT_CTL_CYC_EN | RTIT_CTL_CYC_THRESH(cfg->cyc_thresh);
    } else if (cfg->cyc_thresh) {
        return PT_ERR_INVALID;
    }
    if (cfg->psb_freq) {
        if (!caps->psb_cyc)
            return PT_ERR_NO_CYC;
        if (!supported(caps->psb_periods, cfg->psb_freq))
            return PT_ERR_PSB_FREQ;
        v |= RTIT_CTL_PSB_FREQ(cfg->psb_freq);
    }
    if (cfg->flags & PT_PACKETS_PTW) {
        if (!caps->ptwrite)
            return PT_ERR_NO_PTWRITE;
        v |= RTIT_CTL_PTW_EN;
    }
    if (cfg->flags & PT_PACKETS_POWER) {
        if (!caps->power_events)
            return PT_ERR_NO_POWER;
        v |= RTIT_CTL_PWR_EVT_EN;
    }
    if (cfg->num_ranges > caps->num_ranges)
        return PT_ERR_RANGES;
    for (uint32_t n = 0; n < cfg->num_ranges; n++) {
        const struct pt_range *r = &cfg->ranges[n];

        if (r->start > r->end || !canonical(r->start) || !canonical(r->end) ||
            (r->cfg != PT_RANGE_FILTER && r->cfg != PT_RANGE_STOP))
            return PT_ERR_RANGE;
        v |= RTIT_CTL_ADDR_CFG(n, r->cfg);
    }
    if (output != PT_OUT_SINGLE)
        v |= RTIT_CTL_TOPA;
    *ctl = v;
    return PT_OK;
}

uint32_t pt_config_msrs(const struct pt_config *cfg, uint32_t *msrs)
{
    uint32_t n = 0;

    msrs[n++] = MSR_IA32_RTIT_CTL;
    msrs[n++] = MSR_IA32_RTIT_STATUS;
    msrs[n++] = MSR_IA32_RTIT_OUTPUT_BASE;
    msrs[n++] = MSR_IA32_RTIT_OUTPUT_MASK_PTRS;
    for (uint32_t r = 0; r < cfg->num_ranges && r < PT_MAX_RANGES; r++) {
        msrs[n++] = MSR_IA32_RTIT_ADDR0_A + 2 * r;
        msrs[n++] = MSR_IA32_RTIT_ADDR0_A + 2 * r + 1;
    }
    return n;
}
