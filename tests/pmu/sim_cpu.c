/* The simulated CPU: CPUID, the PMU MSR file, counting, overflow, PMI, freeze, PEBS and
 * LBR. Written from the SDM independently of arch/x86/pmu*.c: it shares no code or
 * constants with them, so a misreading on one side shows up as a failing test. */
#include "sim_cpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "msr.h"

#define BIT(n) (1ull << (n))

/* MSRs, by SDM name. */
enum {
    PMC0 = 0xc1,
    PERFEVTSEL0 = 0x186,
    MISC_ENABLE = 0x1a0,
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
};

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
    uint64_t lbr_from[MAX_LBR], lbr_to[MAX_LBR], lbr_info[MAX_LBR];
    /* the running code */
    unsigned ring;
    uint64_t ip, data_address, tsc;
    /* observations */
    int pmi_pending;
    unsigned pmis, pebs_records, pebs_dropped, accesses, faults;
    unsigned overflows; /* of sampling counters (INT/PMI or PEBS), re-asserted ones too */
    /* sim_reassert_overflow: status bits that come back when cleared */
    uint64_t reassert;
    unsigned reassert_left;
    char fault[256];
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

void sim_set_ip(uint64_t ip)
{
    S.ip = ip;
}

void sim_set_data_address(uint64_t addr)
{
    S.data_address = addr;
}

int sim_take_pmi(void)
{
    int p = S.pmi_pending;

    S.pmi_pending = 0;
    return p;
}

unsigned sim_pmi_count(void)
{
    return S.pmis;
}

uint64_t sim_tsc(void)
{
    return S.tsc;
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

/* The MSR's value, or 0 (and *ok = 0) when this model does not implement it. */
static uint64_t read_msr(uint32_t msr, int *ok)
{
    const struct sim_model *m = S.m;
    int legacy_lbr = !S.arch_lbr && m->lbr_depth;
    uint64_t *lbr;

    *ok = 1;
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
    switch (msr) {
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

/* The model counts only a few events, and no qualifiers: refuse what it cannot count
 * rather than count it wrong. */
static void check_modelled_event(uint32_t msr, uint64_t sel)
{
    unsigned code = sel & 0xffff;

    if (!(sel & BIT(22)))
        return;
    if (code != 0x003c && code != 0x00c0 && code != 0x00c4)
        fault("wrmsr %#x <- %#llx: event %#x not modelled", msr, (unsigned long long)sel, code);
    if (sel & (BIT(18) | BIT(19) | BIT(21) | BIT(23) | 0xff000000ull | BIT(32) | BIT(33)))
        fault("wrmsr %#x <- %#llx: qualifiers not modelled", msr, (unsigned long long)sel);
}

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

void msr_write(uint32_t msr, uint64_t value)
{
    const struct sim_model *m = S.m;
    int legacy_lbr = !S.arch_lbr && m->lbr_depth;
    uint64_t *lbr;

    S.accesses++;
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
            check_modelled_event(msr, value);
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
    switch (msr) {
    case FIXED_CTR_CTRL:
        if (S.version < 2)
            break;
        if (!reserved(msr, value, S.fixed_ctrl_valid))
            S.fixed_ctrl = value;
        return;
    case GLOBAL_CTRL:
        if (S.version < 2)
            break;
        if (!reserved(msr, value, S.global_ctrl_valid))
            S.global_ctrl = value;
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
        if (!reserved(msr, value, 0x3ff))
            S.lbr_select = value;
        return;
    case ARCH_LBR_CTL:
        if (!S.arch_lbr)
            break;
        if (!reserved(msr, value, 0xf | (0x7full << 16)))
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

static void raise_pmi(void)
{
    S.pmi_pending = 1;
    S.pmis++;
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

static uint64_t gp_increment(unsigned i, const struct sim_events *ev)
{
    uint64_t sel = S.evtsel[i];

    if (!(S.global_ctrl & BIT(i)) || !(sel & BIT(22)) ||
        !ring_allows((sel & BIT(17)) != 0, (sel & BIT(16)) != 0))
        return 0;
    switch (sel & 0xffff) {
    case 0x003c:
        return ev->cycles;
    case 0x00c0:
        return ev->instructions;
    case 0x00c4:
        return ev->branches;
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

static uint32_t record_bytes(unsigned id)
{
    static const uint32_t legacy[] = {0x90, 0xb0, 0xc0, 0xc8};
    uint64_t g;
    uint32_t size = 0x20;

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

static void write_record(uint8_t *rec, unsigned id, uint32_t size)
{
    memset(rec, 0, size);
    if (!S.adaptive) {
        wr64(rec + 0x00, SIM_RFLAGS);
        wr64(rec + 0x08, S.ip + SIM_INSN_BYTES);
        write_gprs(rec + 0x10, 16);
        if (S.pebs_format >= 1) {
            wr64(rec + 0x90, S.pebs_format >= 3 ? BIT(id) : S.status);
            wr64(rec + 0x98, S.data_address);
            wr64(rec + 0xa0, 0x1); /* data source: L1 hit */
            wr64(rec + 0xa8, 7);   /* latency */
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
        wr64(rec + off + 8, 0x1);
        wr64(rec + off + 16, 7);
        off += 0x20;
    }
    if (g & 2) {
        wr64(rec + off, SIM_RFLAGS);
        wr64(rec + off + 8, S.ip);
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
    index = rd64(ds + 0x28);
    if (index + size > rd64(ds + 0x30) || index < rd64(ds + 0x20)) {
        S.pebs_dropped++;
    } else {
        write_record((uint8_t *)(uintptr_t)index, id, size);
        index += size;
        wr64(ds + 0x28, index);
        S.pebs_records++;
    }
    reset = id < 32 ? rd64(ds + 0x40 + 8 * id) : rd64(ds + 0x80 + 8 * (id - 32));
    *counter = (reset + leftover) & mask;
    if (index >= rd64(ds + 0x38)) {
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
    if (S.version >= 4 && (S.status & BIT(59)))
        return; /* counters frozen until the handler clears CTR_FRZ */
    for (unsigned i = 0; i < S.num_gp; i++)
        gp[i] = gp_increment(i, ev);
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
}

/* ---- LBR ---- */

static void record_arch_branch(uint64_t from, uint64_t to, int mispredicted, uint16_t cycles)
{
    unsigned depth = (unsigned)S.lbr_depth;

    if (!(S.lbr_ctl & 1) || (S.status & BIT(58)) || !depth)
        return;
    if (!ring_allows((S.lbr_ctl & 2) != 0, (S.lbr_ctl & 4) != 0))
        return;
    memmove(&S.lbr_from[1], &S.lbr_from[0], (depth - 1) * sizeof(uint64_t));
    memmove(&S.lbr_to[1], &S.lbr_to[0], (depth - 1) * sizeof(uint64_t));
    memmove(&S.lbr_info[1], &S.lbr_info[0], (depth - 1) * sizeof(uint64_t));
    S.lbr_from[0] = from;
    S.lbr_to[0] = to;
    S.lbr_info[0] = (mispredicted ? BIT(63) : 0) | BIT(60) | cycles;
}

void sim_branch(uint64_t from, uint64_t to, int mispredicted, uint16_t cycles)
{
    unsigned depth = S.m->lbr_depth, t;
    uint64_t mis = mispredicted ? BIT(63) : 0;

    if (S.arch_lbr) {
        record_arch_branch(from, to, mispredicted, cycles);
        return;
    }
    if (!depth || !(S.debugctl & BIT(0)))
        return;
    if (S.version >= 4 && (S.status & BIT(58)))
        return;
    /* LBR_SELECT bit 0 suppresses CPL 0, bit 1 the other levels. */
    if (S.ring == 0 ? (S.lbr_select & 1) : (S.lbr_select & 2))
        return;
    t = S.lbr_tos = (S.lbr_tos + 1) % depth;
    switch (S.lbr_format) {
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
