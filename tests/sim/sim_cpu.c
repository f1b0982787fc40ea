/* The simulated CPU: CPUID, the PMU MSR file, counting, overflow, PMI, freeze, PEBS and
 * LBR. Written from the SDM independently of arch/x86/pmu*.c: it shares no code or
 * constants with them, so a misreading on one side shows up as a failing test. */
#include "sim_cpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msr.h"

#define BIT(n) (1ull << (n))

/* MSRs, by SDM name. */
enum {
    PMC0 = 0xc1,
    PERFEVTSEL0 = 0x186,
    MISC_ENABLE = 0x1a0,
    BIOS_SIGN_ID = 0x8b,
    OFFCORE_RSP_0 = 0x1a6,
    OFFCORE_RSP_1 = 0x1a7,
    PEBS_LD_LAT = 0x3f6,
    PEBS_FRONTEND = 0x3f7,
    LBR_SELECT = 0x1c8,
    LBR_TOS = 0x1c9,
    DEBUGCTL = 0x1d9,
    FIXED_CTR0 = 0x309,
    PERF_CAPABILITIES = 0x345,
    FIXED_CTR_CTRL = 0x38d,
    GLOBAL_STATUS = 0x38e,
    GLOBAL_CTRL = 0x38f,
    GLOBAL_OVF_CTRL = 0x390,
    PEBS_ENABLE = 0x3f1,
    PEBS_DATA_CFG = 0x3f2,
    A_PMC0 = 0x4c1,
    DS_AREA = 0x600,
    ARCH_LBR_INFO0 = 0x1200,
    ARCH_LBR_CTL = 0x14ce,
    ARCH_LBR_DEPTH = 0x14cf,
    ARCH_LBR_FROM0 = 0x1500,
    ARCH_LBR_TO0 = 0x1600,
    PLATFORM_INFO = 0xce,
    RTIT_OUTPUT_BASE = 0x560,
    RTIT_OUTPUT_MASK = 0x561,
    RTIT_CTL = 0x570,
    RTIT_STATUS = 0x571,
    RTIT_CR3_MATCH = 0x572,
    RTIT_ADDR0_A = 0x580,
};

/* IA32_RTIT_CTL and IA32_RTIT_STATUS bits, by SDM name. */
enum {
    CTL_TRACE_EN = 0,
    CTL_CYC_EN = 1,
    CTL_OS = 2,
    CTL_USER = 3,
    CTL_PWR_EVT = 4,
    CTL_FUP_ON_PTW = 5,
    CTL_FABRIC = 6,
    CTL_CR3_FILTER = 7,
    CTL_TOPA = 8,
    CTL_MTC_EN = 9,
    CTL_TSC_EN = 10,
    CTL_DIS_RETC = 11,
    CTL_PTW_EN = 12,
    CTL_BRANCH_EN = 13,
    ST_FILTER_EN = 0,
    ST_CONTEXT_EN = 1,
    ST_TRIGGER_EN = 2,
    ST_ERROR = 4,
    ST_STOPPED = 5,
};

#define SIM_MAXPHYADDR 48 /* the host's pointers are the simulated physical addresses */
#define SIM_PT_WRITES  4096
#define SIM_PSB_BYTES  16

enum { MAX_GP = 8, MAX_FIXED = 4, MAX_LBR = 64 };

static struct sim {
    const struct sim_model *m;
    /* derived from the model's CPUID answers */
    unsigned version, num_gp, gp_width, fixed_width, pebs_format, lbr_format;
    uint32_t fixed_mask;
    int full_width, adaptive, arch_lbr, has_ds;
    uint64_t evtsel_valid, fixed_ctrl_valid, global_ctrl_valid, ovf_valid, pebs_enable_valid,
        debugctl_valid;
    /* MSR state */
    uint64_t pmc[MAX_GP], evtsel[MAX_GP], fixed[MAX_FIXED];
    uint64_t fixed_ctrl, global_ctrl, status, debugctl, pebs_enable, pebs_data_cfg, ds_area;
    uint64_t lbr_select, lbr_ctl, lbr_depth;
    unsigned lbr_tos;
    uint64_t tsx_force_abort; /* MSR 0x10F, with CPUID.(7,0):EDX[13] */
    uint64_t pmc3_clobbered;  /* retires whose PMC3 count the TSX microcode destroyed */
    uint64_t lbr_from[MAX_LBR], lbr_to[MAX_LBR], lbr_info[MAX_LBR];
    int near_call_return; /* +1 / -1: a call / return was recorded since the last retire */
    /* the running code */
    unsigned ring;
    uint64_t ip, data_address, tsc;
    uint32_t tsc_per_msr, tsc_per_pmi;  /* sim_set_tsc_costs */
    uint64_t data_source, load_latency; /* of the loads retiring next (sim_set_load) */
    uint64_t bios_sign_id; /* IA32_BIOS_SIGN_ID: what was written, or the microcode revision */
    /* observations */
    int pmi_pending;
    unsigned pmis, pebs_records, pebs_dropped, accesses, faults;
    unsigned overflows; /* of sampling counters (INT/PMI or PEBS), re-asserted ones too */
    /* sim_reassert_overflow: status bits that come back when cleared */
    uint64_t reassert;
    unsigned reassert_left;
    char fault[256];
    /* What some events need besides their select: offcore response 0/1, the load-latency
     * threshold and the frontend event's selection (SDM vol. 4, from Nehalem and
     * Silvermont on; kept, not acted on). */
    uint64_t extra[4];
    /* Intel PT: what CPUID enumerates, the MSRs, the trace unit */
    int pt;
    uint32_t pt_ebx, pt_ecx, pt_ranges, mtc_periods, cyc_thresholds, psb_periods;
    uint64_t rtit_ctl, rtit_status, rtit_base, rtit_mask, rtit_cr3, rtit_addr[8];
    uint64_t byte_cnt; /* PacketByteCnt */
    const uint8_t *src;
    size_t src_len;
    uint64_t src_pos, written;
    int psb_due;
    struct sim_pt_write writes[SIM_PT_WRITES];
    size_t num_writes;
} S;

static void fault(const char *fmt, ...)
{
    va_list ap;
    char text[256];

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    fprintf(stderr, "sim %s: #GP: %s\n", S.m ? S.m->name : "?", text);
    if (!S.faults++)
        snprintf(S.fault, sizeof(S.fault), "%s", text);
}

static unsigned extra_slot(uint32_t msr)
{
    return msr == OFFCORE_RSP_0 ? 0 : msr == OFFCORE_RSP_1 ? 1 : msr == PEBS_LD_LAT ? 2 : 3;
}

static uint64_t mask_bits(unsigned n)
{
    return n >= 64 ? ~0ull : BIT(n) - 1;
}

static int pdcm(void)
{
    return (S.m->leaf1_ecx & BIT(15)) != 0;
}

void sim_reset(const struct sim_model *m)
{
    const struct cpuid_regs *a = &m->leaf_0a;
    unsigned nfixed = a->edx & 0x1f;
    uint64_t caps = m->perf_capabilities;

    memset(&S, 0, sizeof(S));
    S.m = m;
    S.data_source = 0x1; /* an L1 hit, until a test says otherwise (sim_set_load) */
    S.load_latency = 7;
    S.version = a->eax & 0xff;
    S.num_gp = (a->eax >> 8) & 0xff;
    S.gp_width = (a->eax >> 16) & 0xff;
    S.fixed_width = (a->edx >> 5) & 0xff;
    if (m->fixed_unreported) {
        nfixed = m->fixed_unreported;
        S.fixed_width = S.gp_width;
    }
    S.fixed_mask = (uint32_t)mask_bits(nfixed) | (S.version >= 5 ? a->ecx : 0);
    S.fixed_mask &= (1u << MAX_FIXED) - 1;
    if (S.num_gp > MAX_GP)
        S.num_gp = MAX_GP;
    S.has_ds = (m->leaf1_edx & BIT(21)) && !m->pebs_unavailable;
    S.full_width = pdcm() && (caps & BIT(13));
    S.pebs_format = pdcm() ? (caps >> 8) & 0xf : 0;
    S.adaptive = S.pebs_format >= 4 && (caps & BIT(14));
    S.lbr_format = pdcm() ? caps & 0x3f : 0;
    S.arch_lbr = (m->leaf7_edx & BIT(19)) != 0;

    int anythread = S.version >= 3 && !(S.version >= 5 && (a->edx & BIT(15)));
    S.evtsel_valid = 0xffffffffull & ~(anythread ? 0 : BIT(21));
    if (m->leaf7_ebx & (BIT(4) | BIT(11)))
        S.evtsel_valid |= BIT(32) | BIT(33);
    if (S.adaptive)
        S.evtsel_valid |= BIT(34);
    for (unsigned j = 0; j < MAX_FIXED; j++) {
        if (!(S.fixed_mask & BIT(j)))
            continue;
        S.fixed_ctrl_valid |= (uint64_t)(anythread ? 0xf : 0xb) << (4 * j);
        if (S.adaptive)
            S.fixed_ctrl_valid |= BIT(32 + 4 * j);
    }
    S.global_ctrl_valid = mask_bits(S.num_gp) | (uint64_t)S.fixed_mask << 32;
    if (caps & BIT(15))
        S.global_ctrl_valid |= BIT(48);
    /* MSR 0x390, which bits a write may set, per perfmon version (SDM vol. 4, table 2-2
     * "IA-32 Architectural MSRs": IA32_PERF_GLOBAL_OVF_CTRL for versions 1 to 3,
     * IA32_PERF_GLOBAL_STATUS_RESET from version 4; vol. 3B "Architectural Performance
     * Monitoring Version 2/3/4" and their GLOBAL_STATUS figures):
     * - every version: one clear bit per counter, 62 (OvfBuf, the DS buffer) and 63
     *   (CondChgd); 48 (PERF_METRICS_OVF) with IA32_PERF_CAPABILITIES[15];
     * - 61 (Ovf_Uncore): the status bit exists "if CPUID.0AH:EAX[7:0] > 2", its clear bit
     *   from the version 3 parts (table 2-2: "introduced at 06_2EH");
     * - from version 4: 58 (LBR_Frz), 59 (CTR_Frz) and 60 (ASCI): writing them clears the
     *   freeze, the "streamlined" unfreeze Linux relies on (intel/lbr.c,
     *   __intel_pmu_lbr_enable(): "No need to unfreeze manually, as v4 can do that as part
     *   of the GLOBAL_STATUS ack");
     * - 55 (Trace_ToPA_PMI) with Intel PT (CPUID.(07H,0):EBX[25]).
     * Any other bit is reserved: a #GP. */
    S.ovf_valid = S.global_ctrl_valid | BIT(62) | BIT(63);
    if (S.version >= 3)
        S.ovf_valid |= BIT(61);
    if (S.version >= 4)
        S.ovf_valid |= BIT(58) | BIT(59) | BIT(60);
    if (m->leaf7_ebx & BIT(25))
        S.ovf_valid |= BIT(55);
    if (S.adaptive)
        S.pebs_enable_valid = mask_bits(S.num_gp) | (uint64_t)S.fixed_mask << 32;
    else
        S.pebs_enable_valid = mask_bits(m->pebs_gp) | mask_bits(m->pebs_gp) << 32;
    S.pt = (m->leaf7_ebx & BIT(25)) && m->max_leaf >= 0x14;
    if (S.pt) {
        S.pt_ebx = m->leaf_14[0].ebx;
        S.pt_ecx = m->leaf_14[0].ecx;
        if (m->leaf_14[0].eax >= 1) {
            S.pt_ranges = (S.pt_ebx & BIT(2)) ? m->leaf_14[1].eax & 7 : 0;
            S.mtc_periods = (S.pt_ebx & BIT(3)) ? m->leaf_14[1].eax >> 16 : 0;
            S.cyc_thresholds = (S.pt_ebx & BIT(1)) ? m->leaf_14[1].ebx & 0xffff : 0;
            S.psb_periods = (S.pt_ebx & BIT(1)) ? m->leaf_14[1].ebx >> 16 : 0;
        }
    }
    S.debugctl_valid = BIT(1) | BIT(11) | BIT(12);
    if (!S.arch_lbr && m->lbr_depth)
        S.debugctl_valid |= BIT(0);
    if (caps & BIT(12))
        S.debugctl_valid |= BIT(14);
}

void sim_set_ring(unsigned ring)
{
    S.ring = ring;
}

/* `a` when the simulated code can have that address in this CPU's mode (sim_models.h): below
 * 4 GiB in protected mode, canonical (48 bits, sign-extended) in IA-32e mode. Any other is
 * the test's mistake, not something the code under test could see: the program stops. */
static uint64_t mode_address(const char *what, uint64_t a)
{
    const uint64_t top = a >> 47;

    if (sim_ia32e() ? top == 0 || top == 0x1ffff : a <= 0xffffffffull)
        return a;
    fprintf(stderr, "sim: %s %#llx cannot occur in %s: the test is wrong\n", what,
            (unsigned long long)a,
            sim_ia32e() ? "IA-32e mode (not canonical)" : "protected mode (above 4 GiB)");
    abort();
}

void sim_set_ip(uint64_t ip)
{
    S.ip = mode_address("IP", ip);
}

void sim_set_data_address(uint64_t addr)
{
    S.data_address = mode_address("data address", addr);
}

void sim_set_load(uint64_t addr, uint16_t latency, uint64_t data_source)
{
    S.data_address = mode_address("load address", addr);
    S.load_latency = latency;
    S.data_source = data_source;
}

int sim_take_pmi(void)
{
    int p = S.pmi_pending;

    S.pmi_pending = 0;
    if (p)
        S.tsc += S.tsc_per_pmi; /* delivering it: the NMI's entry, task switches */
    return p;
}

void sim_set_tsc_costs(uint32_t per_msr_access, uint32_t per_pmi)
{
    S.tsc_per_msr = per_msr_access;
    S.tsc_per_pmi = per_pmi;
}

unsigned sim_pmi_count(void)
{
    return S.pmis;
}

uint64_t sim_tsc(void)
{
    return S.tsc;
}

uint64_t sim_pmc3_clobbered(void)
{
    return S.pmc3_clobbered;
}

unsigned sim_pebs_records(void)
{
    return S.pebs_records;
}

unsigned sim_pebs_dropped(void)
{
    return S.pebs_dropped;
}

unsigned sim_accesses(void)
{
    return S.accesses;
}

unsigned sim_faults(void)
{
    return S.faults;
}

const char *sim_fault_text(void)
{
    return S.faults ? S.fault : "";
}

void sim_clear_faults(void)
{
    S.faults = 0;
    S.fault[0] = 0;
}

/* ---- CPUID ---- */

struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r = {0};
    const struct sim_model *m = S.m;

    S.accesses++;
    if (leaf == 0x80000000u) {
        r.eax = 0x80000008u;
        return r;
    }
    if (leaf == 0x80000008u) {
        r.eax = SIM_MAXPHYADDR;
        return r;
    }
    if (leaf > m->max_leaf)
        return r; /* beyond the maximum basic leaf: nothing to report */
    switch (leaf) {
    case 0:
        r.eax = m->max_leaf;
        memcpy(&r.ebx, m->vendor, 4);
        memcpy(&r.edx, m->vendor + 4, 4);
        memcpy(&r.ecx, m->vendor + 8, 4);
        break;
    case 1:
        r.eax = m->signature;
        r.ecx = m->leaf1_ecx;
        r.edx = m->leaf1_edx;
        /* SDM vol. 3A, "Microcode Update Signature": CPUID leaf 1 loads the revision
         * into IA32_BIOS_SIGN_ID[63:32], which software cleared first. */
        S.bios_sign_id = (uint64_t)m->microcode << 32;
        break;
    case 7:
        if (subleaf == 0) {
            r.ebx = m->leaf7_ebx;
            r.edx = m->leaf7_edx;
        }
        break;
    case 0xa:
        r = m->leaf_0a;
        break;
    case 0x1c:
        if (S.arch_lbr)
            r = m->leaf_1c;
        break;
    case 0x1a:
        /* SDM vol. 2A, CPUID leaf 1AH (hybrid information): EAX[31:24] the core type of
         * the logical processor that executes CPUID (20H Atom, 40H Core); zero on a part
         * that is not hybrid (CPUID.07H:EDX[15] clear). */
        if (m->leaf7_edx & BIT(15))
            r = m->leaf_1a;
        break;
    case 0x14:
        if (S.pt && subleaf <= m->leaf_14[0].eax && subleaf < 2)
            r = m->leaf_14[subleaf];
        break;
    case 0x15:
        r = m->leaf_15;
        break;
    }
    return r;
}

/* ---- MSRs ---- */

static int in_range(uint32_t msr, uint32_t base, unsigned n)
{
    return msr >= base && msr < base + n;
}

static unsigned arch_lbr_max_depth(void)
{
    unsigned bits = S.m->leaf_1c.eax & 0xff, depth = 0;

    for (unsigned n = 0; n < 8; n++) {
        if (bits & (1u << n))
            depth = 8 * (n + 1);
    }
    return depth;
}

/* Pointer to the LBR array slot an MSR names, or NULL. */
static uint64_t *lbr_slot(uint32_t msr)
{
    const struct sim_model *m = S.m;

    if (S.arch_lbr) {
        unsigned d = arch_lbr_max_depth();

        if (in_range(msr, ARCH_LBR_FROM0, d))
            return &S.lbr_from[msr - ARCH_LBR_FROM0];
        if (in_range(msr, ARCH_LBR_TO0, d))
            return &S.lbr_to[msr - ARCH_LBR_TO0];
        if (in_range(msr, ARCH_LBR_INFO0, d))
            return &S.lbr_info[msr - ARCH_LBR_INFO0];
        return NULL;
    }
    if (!m->lbr_depth)
        return NULL;
    if (in_range(msr, m->lbr_from, m->lbr_depth))
        return &S.lbr_from[msr - m->lbr_from];
    if (in_range(msr, m->lbr_to, m->lbr_depth))
        return &S.lbr_to[msr - m->lbr_to];
    if (m->lbr_info && in_range(msr, m->lbr_info, m->lbr_depth))
        return &S.lbr_info[msr - m->lbr_info];
    return NULL;
}

static uint64_t sext32(uint64_t v)
{
    uint32_t lo = (uint32_t)v;

    return (lo & BIT(31)) ? 0xffffffff00000000ull | lo : lo;
}

static uint64_t misc_enable(void)
{
    uint64_t v = BIT(11); /* BTS unavailable: not modelled */

    if (S.version)
        v |= BIT(7);
    if (!S.has_ds)
        v |= BIT(12);
    return v;
}

/* ---- Intel PT: the MSRs ---- */

static int reserved(uint32_t msr, uint64_t value, uint64_t valid);

static int pt_has_output(void)
{
    return (S.pt_ecx & (BIT(0) | BIT(2))) != 0; /* ToPA or single range */
}

/* Is msr one of the IA32_RTIT_* MSRs this model's CPUID enumerates? */
static int pt_msr(uint32_t msr)
{
    if (!S.pt)
        return 0;
    switch (msr) {
    case RTIT_CTL:
    case RTIT_STATUS:
        return 1;
    case RTIT_OUTPUT_BASE:
    case RTIT_OUTPUT_MASK:
        return pt_has_output();
    case RTIT_CR3_MATCH:
        return (S.pt_ebx & BIT(0)) != 0;
    }
    return in_range(msr, RTIT_ADDR0_A, 2 * S.pt_ranges);
}

static uint64_t pt_read(uint32_t msr)
{
    switch (msr) {
    case RTIT_CTL:
        return S.rtit_ctl;
    case RTIT_STATUS: {
        int trigger = (S.rtit_ctl & BIT(CTL_TRACE_EN)) &&
                      !(S.rtit_status & (BIT(ST_ERROR) | BIT(ST_STOPPED)));

        return S.rtit_status | (trigger ? BIT(ST_TRIGGER_EN) | BIT(ST_CONTEXT_EN) : 0) |
               (S.byte_cnt & 0x1ffff) << 32;
    }
    case RTIT_OUTPUT_BASE:
        return S.rtit_base;
    case RTIT_OUTPUT_MASK:
        return S.rtit_mask;
    case RTIT_CR3_MATCH:
        return S.rtit_cr3;
    }
    return S.rtit_addr[msr - RTIT_ADDR0_A];
}

static uint64_t pt_ctl_valid(void)
{
    uint64_t v = BIT(CTL_TRACE_EN) | BIT(CTL_OS) | BIT(CTL_USER) | BIT(CTL_TSC_EN) |
                 BIT(CTL_DIS_RETC) | BIT(CTL_BRANCH_EN);

    if (S.pt_ebx & BIT(1))
        v |= BIT(CTL_CYC_EN) | 0xfull << 19 | 0xfull << 24; /* CycThresh, PSBFreq */
    if (S.pt_ebx & BIT(3))
        v |= BIT(CTL_MTC_EN) | 0xfull << 14; /* MTCFreq */
    if (S.pt_ebx & BIT(4))
        v |= BIT(CTL_PTW_EN) | BIT(CTL_FUP_ON_PTW);
    if (S.pt_ebx & BIT(5))
        v |= BIT(CTL_PWR_EVT);
    if (S.pt_ebx & BIT(0))
        v |= BIT(CTL_CR3_FILTER);
    if (S.pt_ecx & BIT(0))
        v |= BIT(CTL_TOPA);
    if (S.pt_ecx & BIT(3))
        v |= BIT(CTL_FABRIC);
    for (unsigned n = 0; n < S.pt_ranges; n++)
        v |= 0xfull << (32 + 4 * n);
    return v;
}

static void pt_operational_error(const char *why)
{
    fprintf(stderr, "sim %s: Intel PT operational error: %s\n", S.m->name, why);
    S.rtit_status |= BIT(ST_ERROR);
}

static void pt_enable(void)
{
    /* SDM: a PSB+ starts the output when PacketByteCnt is 0, and always on CPUs whose
     * PSB period is not configurable. */
    if (!(S.pt_ebx & BIT(1)) || S.byte_cnt == 0)
        S.psb_due = 1;
    if (!(S.rtit_ctl & BIT(CTL_TOPA))) {
        uint64_t mask = S.rtit_mask & 0xffffffffull;

        if (S.rtit_base & mask)
            pt_operational_error("single-range base overlaps the mask");
    } else if (S.rtit_base & 0xfff) {
        pt_operational_error("ToPA table base not 4 KiB aligned");
    }
}

static void pt_write_ctl(uint64_t v)
{
    uint64_t old = S.rtit_ctl;

    if (reserved(RTIT_CTL, v, pt_ctl_valid()))
        return;
    /* SDM: any change while TraceEn is set is a #GP unless the write clears TraceEn; the
     * same value written again is not. */
    if ((old & BIT(CTL_TRACE_EN)) && (v & BIT(CTL_TRACE_EN)) && v != old) {
        fault("wrmsr IA32_RTIT_CTL <- %#llx: changed while TraceEn is set (was %#llx)",
              (unsigned long long)v, (unsigned long long)old);
        return;
    }
    if ((S.pt_ebx & BIT(3)) && !(S.mtc_periods & BIT((v >> 14) & 0xf))) {
        fault("wrmsr IA32_RTIT_CTL <- %#llx: MTCFreq %llu not supported", (unsigned long long)v,
              (unsigned long long)((v >> 14) & 0xf));
        return;
    }
    if ((S.pt_ebx & BIT(1)) && (!(S.cyc_thresholds & BIT((v >> 19) & 0xf)) ||
                                ((v >> 24) & 0xf && !(S.psb_periods & BIT((v >> 24) & 0xf))))) {
        fault("wrmsr IA32_RTIT_CTL <- %#llx: CycThresh or PSBFreq not supported",
              (unsigned long long)v);
        return;
    }
    for (unsigned n = 0; n < S.pt_ranges; n++) {
        if (((v >> (32 + 4 * n)) & 0xf) > 2) {
            fault("wrmsr IA32_RTIT_CTL <- %#llx: ADDR%u_CFG reserved", (unsigned long long)v, n);
            return;
        }
    }
    if ((v & BIT(CTL_TRACE_EN)) && !(v & (BIT(CTL_TOPA) | BIT(CTL_FABRIC))) &&
        !(S.pt_ecx & BIT(2))) {
        fault("wrmsr IA32_RTIT_CTL <- %#llx: TraceEn with single-range output, which this "
              "CPU lacks",
              (unsigned long long)v);
        return;
    }
    S.rtit_ctl = v;
    if (!(old & BIT(CTL_TRACE_EN)) && (v & BIT(CTL_TRACE_EN)))
        pt_enable();
}

static int pt_canonical(uint64_t a)
{
    uint64_t top = a >> 47;

    return top == 0 || top == 0x1ffff;
}

static void pt_write(uint32_t msr, uint64_t v)
{
    if (msr == RTIT_CTL) {
        pt_write_ctl(v);
        return;
    }
    /* SDM: the other trace MSRs are written only while TraceEn is clear. */
    if (S.rtit_ctl & BIT(CTL_TRACE_EN)) {
        fault("wrmsr %#x <- %#llx: Intel PT MSR written while TraceEn is set", msr,
              (unsigned long long)v);
        return;
    }
    switch (msr) {
    case RTIT_STATUS: {
        uint64_t valid = BIT(ST_FILTER_EN) | BIT(ST_CONTEXT_EN) | BIT(ST_TRIGGER_EN) |
                         BIT(ST_ERROR) | BIT(ST_STOPPED);

        if (S.pt_ebx & BIT(1))
            valid |= 0x1ffffull << 32;
        if (!reserved(msr, v, valid)) {
            S.rtit_status = v & (BIT(ST_ERROR) | BIT(ST_STOPPED)); /* 2:0 are read-only */
            S.byte_cnt = (v >> 32) & 0x1ffff;
        }
        return;
    }
    case RTIT_OUTPUT_BASE:
        if (!reserved(msr, v, mask_bits(SIM_MAXPHYADDR) & ~0x7full))
            S.rtit_base = v;
        return;
    case RTIT_OUTPUT_MASK:
        S.rtit_mask = v | 0x7f; /* LowerMask reads as ones */
        return;
    case RTIT_CR3_MATCH:
        if (!reserved(msr, v, ~0x1full))
            S.rtit_cr3 = v;
        return;
    }
    if (!pt_canonical(v)) {
        fault("wrmsr %#x <- %#llx: address not canonical", msr, (unsigned long long)v);
        return;
    }
    S.rtit_addr[msr - RTIT_ADDR0_A] = v;
}

/* The MSR's value, or 0 (and *ok = 0) when this model does not implement it. */
static uint64_t read_msr(uint32_t msr, int *ok)
{
    const struct sim_model *m = S.m;
    int legacy_lbr = !S.arch_lbr && m->lbr_depth;
    uint64_t *lbr;

    *ok = 1;
    if (msr == 0x10) /* IA32_TIME_STAMP_COUNTER: what RDTSC reads (SDM vol. 3B 18.17) */
        return S.tsc;
    if (msr == 0x10f && (m->leaf7_edx & BIT(13)))
        return S.tsx_force_abort;
    if (in_range(msr, PMC0, S.num_gp))
        return S.pmc[msr - PMC0];
    if (S.full_width && in_range(msr, A_PMC0, S.num_gp))
        return S.pmc[msr - A_PMC0];
    if (in_range(msr, PERFEVTSEL0, S.num_gp))
        return S.evtsel[msr - PERFEVTSEL0];
    if (in_range(msr, FIXED_CTR0, MAX_FIXED) && (S.fixed_mask & BIT(msr - FIXED_CTR0)))
        return S.fixed[msr - FIXED_CTR0];
    lbr = lbr_slot(msr);
    if (lbr)
        return *lbr;
    if (pt_msr(msr))
        return pt_read(msr);
    switch (msr) {
    case PLATFORM_INFO:
        if (m->platform_info)
            return m->platform_info;
        break;
    case FIXED_CTR_CTRL:
        if (S.version >= 2)
            return S.fixed_ctrl;
        break;
    case GLOBAL_STATUS:
        if (S.version >= 2)
            return S.status;
        break;
    case GLOBAL_CTRL:
        if (S.version >= 2)
            return S.global_ctrl;
        break;
    case PERF_CAPABILITIES:
        if (pdcm())
            return m->perf_capabilities;
        break;
    case MISC_ENABLE:
        return misc_enable();
    case BIOS_SIGN_ID:
        return S.bios_sign_id;
    case DEBUGCTL:
        return S.debugctl;
    case PEBS_ENABLE:
        if (S.has_ds)
            return S.pebs_enable;
        break;
    case PEBS_DATA_CFG:
        if (S.adaptive)
            return S.pebs_data_cfg;
        break;
    case DS_AREA:
        if (m->leaf1_edx & BIT(21))
            return S.ds_area;
        break;
    case LBR_SELECT:
        if (legacy_lbr)
            return S.lbr_select;
        break;
    case LBR_TOS:
        if (legacy_lbr)
            return S.lbr_tos;
        break;
    case OFFCORE_RSP_0:
    case OFFCORE_RSP_1:
    case PEBS_LD_LAT:
    case PEBS_FRONTEND:
        if (S.version >= 2)
            return S.extra[extra_slot(msr)];
        break;
    case ARCH_LBR_CTL:
        if (S.arch_lbr)
            return S.lbr_ctl;
        break;
    case ARCH_LBR_DEPTH:
        if (S.arch_lbr)
            return S.lbr_depth;
        break;
    }
    *ok = 0;
    return 0;
}

uint64_t msr_read(uint32_t msr)
{
    int ok;
    uint64_t v;

    S.accesses++;
    v = read_msr(msr, &ok);
    if (!ok)
        fault("rdmsr %#x: not implemented", msr);
    S.tsc += S.tsc_per_msr;
    return v;
}

uint64_t sim_msr(uint32_t msr)
{
    int ok;

    return read_msr(msr, &ok);
}

static int reserved(uint32_t msr, uint64_t value, uint64_t valid)
{
    if (value & ~valid) {
        fault("wrmsr %#x <- %#llx: reserved bits %#llx", msr, (unsigned long long)value,
              (unsigned long long)(value & ~valid));
        return 1;
    }
    return 0;
}

/* Event selects with a qualifier (edge, pin control, any thread, invert, counter mask,
 * TSX): the model counts none of them. */
#define QUALIFIERS (BIT(18) | BIT(19) | BIT(21) | BIT(23) | 0xff000000ull | BIT(32) | BIT(33))

static void write_arch_lbr_depth(uint64_t value)
{
    unsigned bits = S.m->leaf_1c.eax & 0xff;

    if (value == 0 || value % 8 || value > 64 || !(bits & (1u << (value / 8 - 1)))) {
        fault("wrmsr IA32_LBR_DEPTH <- %llu: unsupported depth", (unsigned long long)value);
        return;
    }
    /* A depth write clears the records. */
    S.lbr_depth = value;
    memset(S.lbr_from, 0, sizeof(S.lbr_from));
    memset(S.lbr_to, 0, sizeof(S.lbr_to));
    memset(S.lbr_info, 0, sizeof(S.lbr_info));
}

static int counter_enabled(unsigned id)
{
    if (id < 32)
        return id < MAX_GP && (S.evtsel[id] & BIT(22)) != 0;
    return id - 32 < MAX_FIXED && ((S.fixed_ctrl >> (4 * (id - 32))) & 3) != 0;
}

/* The counters of sim_reassert_overflow overflow again as soon as their bit is cleared,
 * while they stay enabled. */
static void reassert(uint64_t cleared)
{
    for (uint64_t bits = cleared & S.reassert; bits && S.reassert_left; bits &= bits - 1) {
        unsigned id = (unsigned)__builtin_ctzll(bits);

        if (!counter_enabled(id))
            continue;
        S.status |= BIT(id);
        S.overflows++;
        if (S.reassert_left != ~0u)
            S.reassert_left--;
    }
}

void sim_reassert_overflow(uint64_t counters, unsigned times)
{
    S.reassert = counters;
    S.reassert_left = times;
}

unsigned sim_overflows(void)
{
    return S.overflows;
}

/* Broadwell's INST_RETIRED.ALL (event 0xC0, umask 0x01) on a general counter: the count
 * to overflow must have its low 6 bits clear (erratum BDM57) and be at least 100 (BDM11);
 * Linux's bdw_limit_period() enforces both as a period of at least 128 with the low 6
 * bits clear. Enabling such a counter with another sampling period is a fault here: real
 * parts count it wrongly. */
static void check_inst_retired_all_periods(void)
{
    if (!S.m->inst_retired_all_limits)
        return;
    for (unsigned i = 0; i < S.num_gp; i++) {
        uint64_t to_overflow = (0 - S.pmc[i]) & mask_bits(S.gp_width);
        if (!(S.global_ctrl & BIT(i)) || (S.evtsel[i] & 0xffff) != 0x01c0 ||
            !(S.evtsel[i] & BIT(20)))
            continue;
        if (to_overflow < 100 || (to_overflow & 0x3f))
            fault("PMC%u samples INST_RETIRED.ALL every %llu: BDM11/BDM57 need at least 100 "
                  "and the low 6 bits clear",
                  i, (unsigned long long)to_overflow);
    }
}

void msr_write(uint32_t msr, uint64_t value)
{
    const struct sim_model *m = S.m;
    int legacy_lbr = !S.arch_lbr && m->lbr_depth;
    uint64_t *lbr;

    S.accesses++;
    S.tsc += S.tsc_per_msr;
    if (msr == 0x10) { /* IA32_TIME_STAMP_COUNTER: writable (SDM vol. 3B 18.17) */
        S.tsc = value;
        return;
    }
    if (msr == 0x10f && (m->leaf7_edx & BIT(13))) {
        if (!reserved(msr, value, BIT(0)))
            S.tsx_force_abort = value;
        return;
    }
    if (in_range(msr, PMC0, S.num_gp)) {
        /* Legacy counter writes take EAX sign-extended; EDX is ignored. */
        S.pmc[msr - PMC0] = sext32(value) & mask_bits(S.gp_width);
        return;
    }
    if (in_range(msr, A_PMC0, S.num_gp)) {
        if (!S.full_width)
            fault("wrmsr %#x: full-width writes not supported", msr);
        else if (!reserved(msr, value, mask_bits(S.gp_width)))
            S.pmc[msr - A_PMC0] = value;
        return;
    }
    if (in_range(msr, PERFEVTSEL0, S.num_gp)) {
        if (!reserved(msr, value, S.evtsel_valid)) {
            S.evtsel[msr - PERFEVTSEL0] = value;
        }
        return;
    }
    if (in_range(msr, FIXED_CTR0, MAX_FIXED) && (S.fixed_mask & BIT(msr - FIXED_CTR0))) {
        if (!reserved(msr, value, mask_bits(S.fixed_width)))
            S.fixed[msr - FIXED_CTR0] = value;
        return;
    }
    lbr = lbr_slot(msr);
    if (lbr) {
        *lbr = value;
        return;
    }
    if (pt_msr(msr)) {
        pt_write(msr, value);
        return;
    }
    switch (msr) {
    case PLATFORM_INFO:
        if (!m->platform_info)
            break;
        fault("wrmsr %#x: read-only", msr);
        return;
    case BIOS_SIGN_ID:
        S.bios_sign_id = value;
        return;
    case FIXED_CTR_CTRL:
        if (S.version < 2)
            break;
        if (!reserved(msr, value, S.fixed_ctrl_valid))
            S.fixed_ctrl = value;
        return;
    case GLOBAL_CTRL:
        if (S.version < 2)
            break;
        if (!reserved(msr, value, S.global_ctrl_valid)) {
            S.global_ctrl = value;
            check_inst_retired_all_periods();
        }
        return;
    case GLOBAL_OVF_CTRL:
        if (S.version < 2)
            break;
        if (!reserved(msr, value, S.ovf_valid)) {
            S.status &= ~value;
            reassert(value);
        }
        return;
    case GLOBAL_STATUS: /* read-only; cleared through GLOBAL_OVF_CTRL */
        if (S.version < 2)
            break;
        fault("wrmsr %#x: read-only", msr);
        return;
    case PERF_CAPABILITIES:
        if (!pdcm())
            break;
        fault("wrmsr %#x: read-only", msr);
        return;
    case LBR_TOS: /* writable on some models; nothing here needs to write it */
        if (!legacy_lbr)
            break;
        fault("wrmsr %#x: read-only in this model", msr);
        return;
    case DEBUGCTL:
        if (!reserved(msr, value, S.debugctl_valid))
            S.debugctl = value;
        return;
    case PEBS_ENABLE:
        if (!S.has_ds)
            break;
        if (!reserved(msr, value, S.pebs_enable_valid))
            S.pebs_enable = value;
        return;
    case PEBS_DATA_CFG:
        if (!S.adaptive)
            break;
        if (!reserved(msr, value, 0xff00000full))
            S.pebs_data_cfg = value;
        return;
    case DS_AREA:
        if (!(m->leaf1_edx & BIT(21)))
            break;
        S.ds_area = value;
        return;
    case LBR_SELECT:
        if (!legacy_lbr)
            break;
        if (!reserved(msr, value, S.m->lbr_callstack ? 0x3ff : 0x1ff))
            S.lbr_select = value;
        return;
    case OFFCORE_RSP_0:
    case OFFCORE_RSP_1:
    case PEBS_LD_LAT:
    case PEBS_FRONTEND:
        if (S.version < 2)
            break;
        /* MSR_PEBS_LD_LAT: the threshold is bits 15:0, the rest reserved (SDM vol. 3B,
         * "Load Latency Performance Monitoring Facility"). */
        if (msr == PEBS_LD_LAT && reserved(msr, value, 0xffff))
            return;
        S.extra[extra_slot(msr)] = value;
        return;
    case ARCH_LBR_CTL:
        if (!S.arch_lbr)
            break;
        /* Bit 3 (call-stack mode) only where CPUID.1CH:EBX[2] says so. */
        if (!reserved(msr, value,
                      0x7 | ((S.m->leaf_1c.ebx & BIT(2)) ? BIT(3) : 0) | (0x7full << 16)))
            S.lbr_ctl = value;
        return;
    case ARCH_LBR_DEPTH:
        if (!S.arch_lbr)
            break;
        write_arch_lbr_depth(value);
        return;
    }
    fault("wrmsr %#x <- %#llx: not implemented", msr, (unsigned long long)value);
}

/* ---- Counting, overflow, PMI ---- */

/* A PMI that lands next to a call or return in LBR call-stack mode with FREEZE_LBRS_ON_PMI
 * set moves the top of stack by one more than the branch did (Linux, intel/lbr.c,
 * __intel_pmu_lbr_enable(): "PMI near call/return instructions may cause superfluous
 * increase/decrease of LBR_TOS", the reason it never sets the freeze in call-stack mode).
 * Modelled for the model-specific stack (Haswell to Tiger Lake, the parts with LBR_TOS):
 * the call's push, or the return's pop, happens twice, the extra slot left as it was. */
static void freeze_tos_drift(void)
{
    unsigned depth = S.m->lbr_depth;

    if (S.arch_lbr || !depth || !(S.debugctl & BIT(0)) || !(S.debugctl & BIT(11)) ||
        !(S.lbr_select & BIT(9)) || !S.near_call_return)
        return;
    S.lbr_tos = (S.lbr_tos + depth + (S.near_call_return > 0 ? 1 : depth - 1)) % depth;
}

/* A PMI, and the freezes IA32_DEBUGCTL asks for with it (SDM vol. 3B, "Freezing LBR and
 * Performance Counters on PMI"; "Architectural Performance Monitoring Version 4",
 * "Enhancement in IA32_PERF_GLOBAL_STATUS"):
 * - FREEZE_PERFMON_ON_PMI (bit 12). Before version 4 the legacy freeze: the CPU clears
 *   IA32_PERF_GLOBAL_CTRL, and software writes it back to count again. From version 4 the
 *   streamlined freeze: GLOBAL_CTRL stays as it was and the CPU sets GLOBAL_STATUS.CTR_Frz
 *   (bit 59) instead, a read-only enable of every counter until software clears it through
 *   GLOBAL_STATUS_RESET (see sim_retire()).
 * - FREEZE_LBRS_ON_PMI (bit 11). Before version 4 the CPU clears DEBUGCTL.LBR (bit 0);
 *   from version 4 it sets GLOBAL_STATUS.LBR_Frz (bit 58), recording stops while it is set
 *   and resumes when software clears it, DEBUGCTL untouched. Architectural LBRs (SDM vol.
 *   3B, "Last Branch Records", architectural LBR freeze) only have LBR_Frz: IA32_LBR_CTL
 *   is never cleared by a PMI.
 * Linux reads it the same way: before v4 __intel_pmu_lbr_enable() sets DEBUGCTL.LBR again
 * after every PMI, from v4 its GLOBAL_STATUS ack unfreezes (intel/lbr.c). */
static void raise_pmi(void)
{
    S.pmi_pending = 1;
    S.pmis++;
    freeze_tos_drift();
    if (S.debugctl & BIT(12)) {
        if (S.version >= 4)
            S.status |= BIT(59);
        else
            S.global_ctrl = 0;
    }
    if (S.debugctl & BIT(11)) {
        if (S.version >= 4 || S.arch_lbr)
            S.status |= BIT(58);
        else
            S.debugctl &= ~BIT(0);
    }
}

static int ring_allows(int os, int usr)
{
    return S.ring == 0 ? os : usr;
}

/* The load-latency facility (SDM vol. 3B, "Load Latency Performance Monitoring
 * Facility"): the event counts loads slower than MSR_PEBS_LD_LAT[15:0] cycles. Before
 * perfmon v5 it works only while IA32_PEBS_ENABLE's LL_EN bit of the counter (32 + i) is
 * set; from Ice Lake on (v5, adaptive PEBS) the event alone selects it. */
static uint64_t load_latency_loads(unsigned i, const struct sim_events *ev)
{
    if (S.version < 5 && !(S.has_ds && S.pebs_format >= 1 && (S.pebs_enable & BIT(32 + i))))
        return 0;
    return S.load_latency > (S.extra[extra_slot(PEBS_LD_LAT)] & 0xffff) ? ev->loads : 0;
}

static uint64_t gp_increment(unsigned i, const struct sim_events *ev)
{
    uint64_t sel = S.evtsel[i];

    /* Any event code and qualifier may be programmed (SDM vol. 3B 20.2); the model counts
     * only the events below, unqualified: the others hold still, so a test that expects
     * them to count fails instead of passing on invented numbers. */
    if (!(S.global_ctrl & BIT(i)) || !(sel & BIT(22)) || (sel & QUALIFIERS) ||
        !ring_allows((sel & BIT(17)) != 0, (sel & BIT(16)) != 0))
        return 0;
    switch (sel & 0xffff) {
    case 0x003c:
        return ev->cycles;
    case 0x00c0:
        return ev->instructions;
    case 0x00c4:
        return ev->branches;
    case 0x00c5:
        return ev->mispredicts;
    case 0x81d0:
        return ev->loads;
    case 0x82d0:
        return ev->stores;
    case 0x4f2e:
        return ev->llc_refs;
    case 0x412e:
        return ev->llc_misses;
    case 0x010e:
        return ev->uops;
    case 0x01cd: /* MEM_TRANS_RETIRED.LOAD_LATENCY (Sandy Bridge on) */
    case 0x100b: /* MEM_INST_RETIRED.LATENCY_ABOVE_THRESHOLD (Nehalem, Westmere) */
        return load_latency_loads(i, ev);
    }
    return 0;
}

static uint64_t fixed_increment(unsigned j, const struct sim_events *ev)
{
    uint64_t field = (S.fixed_ctrl >> (4 * j)) & 0xf;

    if (!(S.global_ctrl & BIT(32 + j)) || !ring_allows(field & 1, (field & 2) != 0))
        return 0;
    switch (j) {
    case 0:
        return ev->instructions;
    case 1:
        return ev->cycles;
    case 2:
        return ev->ref_cycles;
    default:
        return 4 * ev->cycles;
    }
}

static int pebs_armed(unsigned id)
{
    if (!S.has_ds || !(S.pebs_enable & BIT(id)))
        return 0;
    if (id >= 32)
        return S.adaptive; /* legacy bits 32+ are load-latency enables, not fixed PEBS */
    return S.adaptive || id < S.m->pebs_gp;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return v;
}

static void wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* The format of the DS save area and of PEBS records (SDM vol. 3B, "BTS and DS Save Area",
 * "64 Bit Format of the DS Save Area"): the 64-bit one with DTES64 (CPUID.1:ECX[2]) in every
 * mode and without it in IA-32e mode; the 32-bit one in protected mode without DTES64. */
static int ds_64bit(void)
{
    return sim_ia32e() || (S.m->leaf1_ecx & BIT(2));
}

/* DS save area field `k` (0-3 BTS base, index, maximum, threshold; 4-7 the same for PEBS):
 * 8 bytes each in the 64-bit format, 4 in the 32-bit one. */
static uint64_t ds_field(const uint8_t *ds, unsigned k)
{
    uint32_t v;

    if (ds_64bit())
        return rd64(ds + 8 * k);
    memcpy(&v, ds + 4 * k, 4);
    return v;
}

static void ds_set_field(uint8_t *ds, unsigned k, uint64_t value)
{
    uint32_t v = (uint32_t)value;

    if (ds_64bit())
        wr64(ds + 8 * k, value);
    else
        memcpy(ds + 4 * k, &v, 4);
}
enum { DS_PEBS_BASE = 4, DS_PEBS_INDEX, DS_PEBS_MAX, DS_PEBS_THRESHOLD };

/* The 32-bit PEBS record (SDM vol. 3B, "PEBS Record Format" of the 32-bit DS format):
 * EFLAGS, the linear IP after the instruction, then EAX, EBX, ECX, EDX, ESI, EDI, EBP, ESP:
 * 4 bytes each, whatever the PEBS format says about the 64-bit records. */
#define SIM_PEBS32_BYTES 0x28

/* Groups of counter id's record: those of PEBS_DATA_CFG when the counter's "adaptive
 * record" bit is set (PERFEVTSELx[34], FIXED_CTR_CTRL[32 + 4j]), else the basic group. */
static uint64_t adaptive_groups(unsigned id)
{
    int adaptive_bit;

    if (id < MAX_GP)
        adaptive_bit = (S.evtsel[id] & BIT(34)) != 0;
    else
        adaptive_bit = (S.fixed_ctrl >> (32 + 4 * ((id - 32) % MAX_FIXED)) & 1) != 0;
    return adaptive_bit ? S.pebs_data_cfg : 0;
}

/* Record sizes. The 64-bit legacy records (SDM vol. 3B, the "PEBS Record Format" tables of
 * the Intel Core microarchitecture, of Nehalem, of the 4th generation Intel Core (Haswell)
 * and of the 6th generation Intel Core (Skylake) processors; Linux intel/ds.c, struct
 * pebs_record_core, pebs_record_nhm, pebs_record_hsw and pebs_record_skl):
 * - format 0: RFLAGS, RIP, RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8-R15 (0x90 bytes);
 * - format 1: + IA32_PERF_GLOBAL_STATUS at 0x90, data linear address 0x98, data source
 *   0xa0, load latency 0xa8 (0xb0);
 * - format 2: + EventingIP at 0xb0 and TSX tuning at 0xb8 (0xc0);
 * - format 3: + TSC at 0xc0 (0xc8), and 0x90 holds the applicable counters rather than
 *   GLOBAL_STATUS (Linux intel_pmu_drain_pebs_nhm(): "PEBS v3 has more accurate status
 *   bits").
 * Adaptive records (formats 4 and later with PERF_CAPABILITIES[14], SDM vol. 3B, "Adaptive
 * PEBS": "Basic Info Group", "Memory Access Info Group", "GPRs Group", "XMMs Group", "LBRs
 * Group"; Linux struct pebs_basic, pebs_meminfo, pebs_gprs, pebs_xmm, lbr_entry): the
 * basic group (0x20), then each group MSR_PEBS_DATA_CFG selects in this order: memory
 * (0x20), GPRs (0x90), XMMs (16 x 16 bytes), LBRs (DATA_CFG[31:24] + 1 entries of FROM, TO,
 * INFO; Linux PEBS_DATACFG_LBR_SHIFT). */
static uint32_t record_bytes(unsigned id)
{
    static const uint32_t legacy[] = {0x90, 0xb0, 0xc0, 0xc8};
    uint64_t g;
    uint32_t size = 0x20;

    if (!ds_64bit())
        return SIM_PEBS32_BYTES;
    if (!S.adaptive)
        return S.pebs_format < 4 ? legacy[S.pebs_format] : 0;
    g = adaptive_groups(id);
    size += (g & 1) ? 0x20 : 0;
    size += (g & 2) ? 0x90 : 0;
    size += (g & 4) ? 0x100 : 0;
    size += (g & 8) ? 0x18 * (uint32_t)(((g >> 24) & 0xff) + 1) : 0;
    return size;
}

/* The general registers of the sampled code: recognisable values. */
static void write_gprs(uint8_t *p, unsigned count)
{
    for (unsigned k = 0; k < count; k++)
        wr64(p + 8 * k, 0xa0a0a0a000000000ull + k);
}

#define SIM_RFLAGS     0x246
#define SIM_INSN_BYTES 3 /* length of the sampled instruction: RIP = IP + 3 */

/* One PEBS record, the fields as record_bytes() lists them. The IPs: the legacy record's
 * RIP (0x08) is the instruction after the one that caused the event on every format (trap-
 * like PEBS; Linux intel_pmu_pebs_fixup_ip(): formats 0/1 give "the IP of the instruction
 * after the one that caused the event"); EventingIP (format 2 on) and the adaptive basic
 * group's IP are the instruction itself (Linux setup_pebs_adaptive_sample_data(): "The ip
 * in basic is EventingIP"); the GPR group's RIP is the next instruction again (Linux uses
 * it, without PERF_EFLAGS_EXACT, only when precise_ip < 2). */
static void write_record(uint8_t *rec, unsigned id, uint32_t size)
{
    memset(rec, 0, size);
    if (!ds_64bit()) {
        const uint32_t words[] = {SIM_RFLAGS,  (uint32_t)(S.ip + SIM_INSN_BYTES),
                                  0xa0a0a000u, 0xa0a0a001u,
                                  0xa0a0a002u, 0xa0a0a003u,
                                  0xa0a0a004u, 0xa0a0a005u,
                                  0xa0a0a006u, 0xa0a0a007u};
        _Static_assert(sizeof(words) == SIM_PEBS32_BYTES, "32-bit PEBS record");
        memcpy(rec, words, sizeof(words));
        return;
    }
    if (!S.adaptive) {
        wr64(rec + 0x00, SIM_RFLAGS);
        wr64(rec + 0x08, S.ip + SIM_INSN_BYTES);
        write_gprs(rec + 0x10, 16);
        if (S.pebs_format >= 1) {
            wr64(rec + 0x90, S.pebs_format >= 3 ? BIT(id) : S.status);
            wr64(rec + 0x98, S.data_address);
            wr64(rec + 0xa0, S.data_source);
            wr64(rec + 0xa8, S.load_latency);
        }
        if (S.pebs_format >= 2)
            wr64(rec + 0xb0, S.ip);
        if (S.pebs_format >= 3)
            wr64(rec + 0xc0, S.tsc);
        return;
    }
    uint64_t g = adaptive_groups(id);
    uint32_t off = 0x20;

    wr64(rec + 0x00, g | (uint64_t)size << 48);
    wr64(rec + 0x08, S.ip);
    wr64(rec + 0x10, BIT(id));
    wr64(rec + 0x18, S.tsc);
    if (g & 1) {
        wr64(rec + off, S.data_address);
        wr64(rec + off + 8, S.data_source);
        wr64(rec + off + 16, S.load_latency);
        off += 0x20;
    }
    if (g & 2) {
        wr64(rec + off, SIM_RFLAGS);
        wr64(rec + off + 8, S.ip + SIM_INSN_BYTES);
        write_gprs(rec + off + 16, 16);
        off += 0x90;
    }
    if (g & 4)
        off += 0x100;
    if (g & 8) {
        for (unsigned k = 0; k <= ((g >> 24) & 0xff); k++, off += 0x18) {
            wr64(rec + off, S.lbr_from[k]);
            wr64(rec + off + 8, S.lbr_to[k]);
            wr64(rec + off + 16, S.lbr_info[k]);
        }
    }
}

/* The PEBS assist on overflow of counter `id`: record, reload from the DS area. Returns
 * 1 when the buffer threshold is reached (a PMI with GLOBAL_STATUS bit 62). */
static int pebs_assist(unsigned id, uint64_t *counter, uint64_t mask, uint64_t leftover)
{
    uint8_t *ds = (uint8_t *)(uintptr_t)S.ds_area;
    uint64_t index, reset;
    uint32_t size = record_bytes(id);

    if (!ds) {
        fault("PEBS assist for counter %u with IA32_DS_AREA = 0", id);
        *counter = leftover;
        return 0;
    }
    index = ds_field(ds, DS_PEBS_INDEX);
    if (index + size > ds_field(ds, DS_PEBS_MAX) || index < ds_field(ds, DS_PEBS_BASE)) {
        S.pebs_dropped++;
    } else {
        write_record((uint8_t *)(uintptr_t)index, id, size);
        index += size;
        ds_set_field(ds, DS_PEBS_INDEX, index);
        S.pebs_records++;
    }
    /* Reset values follow the buffer fields at 0x40, one per counter (SDM vol. 3B, "DS Save
     * Area"): IA32_PMCx at 0x40 + 8x. Fixed counter j follows the eight general counters
     * up to PEBS format 4 (0x80 + 8j); from format 5 the area has room for 32 general
     * counters and fixed counter j is at 0x140 + 8j (Linux intel_pmu_pebs_enable():
     * pebs_event_reset[MAX_PEBS_EVENTS_FMT4 + j] below format 5, [MAX_PEBS_EVENTS + j]
     * from it, MAX_PEBS_EVENTS_FMT4 = 8 and MAX_PEBS_EVENTS = 32). */
    if (!ds_64bit())
        reset = rd64(ds + 0x20); /* the 32-bit format's one "PEBS counter reset" */
    else if (id < 32)
        reset = rd64(ds + 0x40 + 8 * id);
    else
        reset = rd64(ds + (S.pebs_format < 5 ? 0x80 : 0x140) + 8 * (id - 32));
    *counter = (reset + leftover) & mask;
    if (index >= ds_field(ds, DS_PEBS_THRESHOLD)) {
        S.status |= BIT(62);
        return 1;
    }
    return 0;
}

/* Adds inc to a counter; on overflow sets its status bit, runs the PEBS assist if armed.
 * Returns 1 when a PMI is due. */
static int advance(unsigned id, uint64_t *counter, unsigned width, uint64_t inc, int interrupt)
{
    uint64_t mask = mask_bits(width), sum = *counter + inc, leftover;

    if (sum <= mask) {
        *counter = sum;
        return 0;
    }
    leftover = sum - mask - 1;
    if (leftover > mask)
        fault("a batch overflows counter %u twice: split it", id);
    S.status |= BIT(id);
    if (pebs_armed(id) || interrupt)
        S.overflows++;
    if (pebs_armed(id))
        return pebs_assist(id, counter, mask, leftover) || interrupt;
    *counter = leftover;
    return interrupt;
}

void sim_retire(const struct sim_events *ev)
{
    uint64_t gp[MAX_GP] = {0}, fx[MAX_FIXED] = {0};
    int pmi = 0;

    S.tsc += ev->ref_cycles;
    /* From version 4 a counter counts only while "IA32_PERFEVTSELn.EN &
     * IA32_PERF_GLOBAL_CTRL.PMCn & !IA32_PERF_GLOBAL_STATUS.CTR_FRZ" (fixed counters: their
     * IA32_FIXED_CTR_CTRL enable), SDM vol. 3B, "Architectural Performance Monitoring
     * Version 4", "Enhancement in IA32_PERF_GLOBAL_STATUS": frozen until the handler clears
     * CTR_Frz. The TSC runs on. */
    if (S.version >= 4 && (S.status & BIT(59)))
        return;
    for (unsigned i = 0; i < S.num_gp; i++)
        gp[i] = gp_increment(i, ev);
    /* Skylake-family clients with the 2019 TSX microcode (CPUID.(7,0):EDX[13],
     * TSX_FORCE_ABORT): unless MSR 0x10F bit 0 (RTM_FORCE_ABORT) makes every transaction
     * abort, the microcode clobbers PMC3 whenever TSX code runs (Linux commit "perf/x86/
     * intel: Implement support for TSX Force Abort", PMU_FL_TFA; Intel's "Performance
     * Monitoring Impact of Intel TSX Memory Ordering Issue"). The firmware may run TSX
     * code at any time, so here PMC3 loses what it counted. */
    if ((S.m->leaf7_edx & BIT(13)) && !(S.tsx_force_abort & 1) && S.num_gp > 3 && gp[3]) {
        S.pmc[3] = 0;
        gp[3] = 0;
        S.pmc3_clobbered++;
    }
    for (unsigned j = 0; j < MAX_FIXED; j++) {
        if (S.fixed_mask & BIT(j))
            fx[j] = fixed_increment(j, ev);
    }
    for (unsigned i = 0; i < S.num_gp; i++) {
        if (gp[i])
            pmi |= advance(i, &S.pmc[i], S.gp_width, gp[i], (S.evtsel[i] & BIT(20)) != 0);
    }
    for (unsigned j = 0; j < MAX_FIXED; j++) {
        if (fx[j])
            pmi |= advance(32 + j, &S.fixed[j], S.fixed_width, fx[j],
                           ((S.fixed_ctrl >> (4 * j)) & 8) != 0);
    }
    if (pmi)
        raise_pmi();
    S.near_call_return = 0;
}

/* ---- LBR ---- */

/* MSR_LBR_SELECT bit (a set bit suppresses) and IA32_LBR_CTL bit (a set bit records) of
 * each kind, per the SDM's LBR filtering tables. */
static const struct {
    uint64_t select, ctl;
} kind_bits[] = {
    [SIM_BR_JCC] = {BIT(2), BIT(16)},      [SIM_BR_REL_CALL] = {BIT(3), BIT(20)},
    [SIM_BR_IND_CALL] = {BIT(4), BIT(19)}, [SIM_BR_RET] = {BIT(5), BIT(21)},
    [SIM_BR_IND_JMP] = {BIT(6), BIT(17)},  [SIM_BR_REL_JMP] = {BIT(7), BIT(18)},
    [SIM_BR_FAR] = {BIT(8), BIT(22)},
};

static void record_arch_branch(uint64_t from, uint64_t to, enum sim_branch_kind kind,
                               int mispredicted, uint16_t cycles)
{
    unsigned depth = (unsigned)S.lbr_depth;

    if (!(S.lbr_ctl & 1) || (S.status & BIT(58)) || !depth)
        return;
    if (!ring_allows((S.lbr_ctl & 2) != 0, (S.lbr_ctl & 4) != 0))
        return;
    if (!(S.lbr_ctl & kind_bits[kind].ctl))
        return;
    /* Call-stack mode: a return pops the newest entry (the call it returns from). */
    if ((S.lbr_ctl & BIT(3)) && kind == SIM_BR_RET) {
        memmove(&S.lbr_from[0], &S.lbr_from[1], (depth - 1) * sizeof(uint64_t));
        memmove(&S.lbr_to[0], &S.lbr_to[1], (depth - 1) * sizeof(uint64_t));
        memmove(&S.lbr_info[0], &S.lbr_info[1], (depth - 1) * sizeof(uint64_t));
        S.lbr_from[depth - 1] = S.lbr_to[depth - 1] = S.lbr_info[depth - 1] = 0;
        return;
    }
    memmove(&S.lbr_from[1], &S.lbr_from[0], (depth - 1) * sizeof(uint64_t));
    memmove(&S.lbr_to[1], &S.lbr_to[0], (depth - 1) * sizeof(uint64_t));
    memmove(&S.lbr_info[1], &S.lbr_info[0], (depth - 1) * sizeof(uint64_t));
    S.lbr_from[0] = from;
    S.lbr_to[0] = to;
    S.lbr_info[0] = (mispredicted ? BIT(63) : 0) | BIT(60) | cycles;
}

void sim_branch_kind(uint64_t from, uint64_t to, enum sim_branch_kind kind, int mispredicted,
                     uint16_t cycles)
{
    unsigned depth = S.m->lbr_depth, t;
    uint64_t mis = mispredicted ? BIT(63) : 0;

    /* Outside 64-bit mode the CPU stores the upper 32 bits of LBR addresses as 0 (SDM vol.
     * 3B, "LBR Stack and Intel 64 Processors"): a protected-mode address has none. */
    from = mode_address("branch source", from);
    to = mode_address("branch target", to);

    if (S.arch_lbr) {
        record_arch_branch(from, to, kind, mispredicted, cycles);
        return;
    }
    if (!depth || !(S.debugctl & BIT(0)))
        return;
    if (S.version >= 4 && (S.status & BIT(58)))
        return;
    /* LBR_SELECT bit 0 suppresses CPL 0, bit 1 the other levels. */
    if (S.ring == 0 ? (S.lbr_select & 1) : (S.lbr_select & 2))
        return;
    if (S.lbr_select & kind_bits[kind].select)
        return;
    if (S.lbr_select & BIT(9))
        S.near_call_return = kind == SIM_BR_RET                                   ? -1
                             : kind == SIM_BR_REL_CALL || kind == SIM_BR_IND_CALL ? 1
                                                                                  : 0;
    if ((S.lbr_select & BIT(9)) && kind == SIM_BR_RET) {
        S.lbr_from[S.lbr_tos] = S.lbr_to[S.lbr_tos] = S.lbr_info[S.lbr_tos] = 0;
        S.lbr_tos = (S.lbr_tos + depth - 1) % depth;
        return;
    }
    t = S.lbr_tos = (S.lbr_tos + 1) % depth;
    switch (S.lbr_format) {
    case 0: /* 32-bit: FROM in bits 31:0 and TO in 63:32 of the FROM MSR */
        S.lbr_from[t] = (from & 0xffffffffull) | (to << 32);
        break;
    case 3:
    case 4:
        S.lbr_from[t] = from | mis;
        S.lbr_to[t] = to;
        break;
    case 5:
    case 7:
        S.lbr_from[t] = from;
        S.lbr_to[t] = to;
        S.lbr_info[t] = mis | cycles;
        break;
    case 6:
        S.lbr_from[t] = from | mis;
        S.lbr_to[t] = to | (uint64_t)cycles << 48;
        break;
    default:
        S.lbr_from[t] = from;
        S.lbr_to[t] = to;
        break;
    }
}

void sim_branch(uint64_t from, uint64_t to, int mispredicted, uint16_t cycles)
{
    sim_branch_kind(from, to, SIM_BR_JCC, mispredicted, cycles);
}

/* ---- Intel PT: the trace unit ---- */

void sim_pt_source(const uint8_t *stream, size_t len)
{
    S.src = stream;
    S.src_len = len;
    S.src_pos = 0;
}

uint64_t sim_pt_position(void)
{
    return S.src_pos;
}

uint64_t sim_pt_written(void)
{
    return S.written;
}

size_t sim_pt_writes(struct sim_pt_write *out, size_t max)
{
    for (size_t i = 0; i < S.num_writes && i < max; i++)
        out[i] = S.writes[i];
    return S.num_writes;
}

static int pt_triggered(void)
{
    return (S.rtit_ctl & BIT(CTL_TRACE_EN)) && !(S.rtit_status & (BIT(ST_ERROR) | BIT(ST_STOPPED)));
}

static int src_psb_at(uint64_t pos)
{
    for (unsigned j = 0; j < SIM_PSB_BYTES; j++) {
        if (S.src[(pos + j) % S.src_len] != ((j & 1) ? 0x82 : 0x02))
            return 0;
    }
    return 1;
}

static void log_write(uint64_t address, size_t n)
{
    struct sim_pt_write *last = S.num_writes ? &S.writes[S.num_writes - 1] : NULL;

    if (last && last->source + last->bytes == S.src_pos && last->address + last->bytes == address) {
        last->bytes += n;
        return;
    }
    if (S.num_writes == SIM_PT_WRITES) {
        fault("trace unit: more than %d separate writes to log", SIM_PT_WRITES);
        return;
    }
    S.writes[S.num_writes++] = (struct sim_pt_write){S.src_pos, address, n};
}

/* Copies n source bytes to `address` (a host pointer), counting PacketByteCnt from the
 * last PSB written. */
static void emit(uint64_t address, size_t n)
{
    uint8_t *dst = (uint8_t *)(uintptr_t)address;

    log_write(address, n);
    for (size_t i = 0; i < n; i++) {
        if (src_psb_at(S.src_pos))
            S.byte_cnt = 0;
        dst[i] = S.src[S.src_pos % S.src_len];
        S.src_pos++;
        S.byte_cnt++;
    }
    S.written += n;
}

/* The current ToPA entry, following END entries; 0 after an operational error. */
static uint64_t topa_current(uint64_t *region, uint64_t *size)
{
    uint64_t valid_base = mask_bits(SIM_MAXPHYADDR) & ~0xfffull;

    for (int hops = 0; hops < 4; hops++) {
        const uint64_t *table = (const uint64_t *)(uintptr_t)S.rtit_base;
        unsigned index = (unsigned)((S.rtit_mask & 0xffffffffull) >> 7);
        uint64_t e = table[index];

        /* Reserved bits: 1, 3, 5, 11:10, and above MAXPHYADDR. */
        if (e & ~(valid_base | BIT(0) | BIT(2) | BIT(4) | 0xfull << 6)) {
            pt_operational_error("ToPA entry with reserved bits set");
            return 0;
        }
        if (e & BIT(0)) {
            if (e & (BIT(2) | BIT(4))) {
                pt_operational_error("INT or STOP on an END entry");
                return 0;
            }
            if (index == 0) {
                pt_operational_error("END in entry 0 of a ToPA table");
                return 0;
            }
            S.rtit_base = e & valid_base;
            S.rtit_mask = 0x7f;
            continue;
        }
        if (!(S.pt_ecx & BIT(1)) && index > 0) {
            pt_operational_error("second output entry on a one-entry ToPA CPU");
            return 0;
        }
        if (!(S.pt_ecx & BIT(1)) &&
            ((table[1] & ~0xfffull) != S.rtit_base || !(table[1] & BIT(0)))) {
            pt_operational_error("one-entry ToPA: entry 1 is not END to the table's base");
            return 0;
        }
        *size = 4096ull << ((e >> 6) & 0xf);
        *region = e & valid_base;
        if (*region & (*size - 1)) {
            pt_operational_error("ToPA region not aligned to its size");
            return 0;
        }
        if ((S.rtit_mask >> 32) >= *size) {
            pt_operational_error("ToPA OutputOffset beyond its region");
            return 0;
        }
        return e;
    }
    pt_operational_error("ToPA END entries that lead nowhere");
    return 0;
}

/* Writes up to n bytes into the current ToPA region; returns how many it took. */
static size_t topa_output(size_t n)
{
    uint64_t region, size, e = topa_current(&region, &size);
    uint64_t offset = S.rtit_mask >> 32;
    size_t k;

    if (!e)
        return 0;
    k = size - offset < n ? (size_t)(size - offset) : n;
    emit(region + offset, k);
    offset += k;
    S.rtit_mask = (S.rtit_mask & 0xffffffffull) | offset << 32;
    if (offset < size)
        return k;
    /* The region is full. */
    if (e & BIT(2)) {
        S.status |= BIT(55);
        raise_pmi();
    }
    if (e & BIT(4)) {
        /* ToPA STOP: the pointers stay on this entry, OutputOffset = its size. */
        S.rtit_status |= BIT(ST_STOPPED);
        return k;
    }
    unsigned index = (unsigned)((S.rtit_mask & 0xffffffffull) >> 7) + 1;
    const uint64_t *table = (const uint64_t *)(uintptr_t)S.rtit_base;

    S.rtit_mask = (uint64_t)index << 7 | 0x7f;
    if (table[index] & BIT(0)) /* the unit follows END at once: the pointers never rest on it */
        topa_current(&region, &size);
    return k;
}

/* Single-range output: the region wraps at its mask. */
static size_t single_output(size_t n)
{
    uint64_t size = (S.rtit_mask & 0xffffffffull) + 1;
    uint64_t offset = S.rtit_mask >> 32;
    size_t k = size - offset < n ? (size_t)(size - offset) : n;

    emit(S.rtit_base + offset, k);
    offset = (offset + k) % size;
    S.rtit_mask = (S.rtit_mask & 0xffffffffull) | offset << 32;
    return k;
}

void sim_pt_run(size_t bytes)
{
    if (!S.src_len) {
        fault("sim_pt_run without a source stream");
        return;
    }
    while (bytes) {
        if (!pt_triggered()) {
            S.src_pos += bytes; /* the code runs untraced */
            return;
        }
        if (S.psb_due) {
            while (bytes && !src_psb_at(S.src_pos)) {
                S.src_pos++;
                bytes--;
            }
            if (!bytes)
                return;
            S.psb_due = 0;
        }
        size_t k = (S.rtit_ctl & BIT(CTL_TOPA)) ? topa_output(bytes) : single_output(bytes);

        if (k == 0 && pt_triggered()) {
            fault("trace unit made no progress");
            return;
        }
        bytes -= k;
    }
}
