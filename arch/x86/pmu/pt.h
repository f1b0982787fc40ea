/* Intel Processor Trace: what the CPU offers, the trace output in RAM, and per-CPU
 * programming, after the Intel SDM vol. 3C, chapter "Intel Processor Trace".
 *
 * Three files, one job each, after pmu.c's layering, each with its header:
 *  - pt.c (this header): CPUID leaf 0x14 (and 0x15, MAXPHYADDR) into struct pt_caps, and
 *    the IA32_RTIT_CTL value a configuration asks for, refused field by field where the
 *    CPU lacks what it names (the SDM's #GP cases, caught before any WRMSR);
 *  - pt_output.c (pt_output.h): the output in RAM the caller gives (no allocation): a
 *    ToPA table of regions, a ToPA table with one region, or one single-range region,
 *    split among the CPUs; where a byte of the trace is; the snapshot ring unrolled from
 *    its first PSB;
 *  - pt_cpu.c (pt_cpu.h): the IA32_RTIT_* MSRs of the calling CPU, written only while
 *    TraceEn is clear as the SDM demands, start/pause/stop, the ToPA PMI (full mode:
 *    regions handed to the drain, a STOP entry ahead of undrained data, a discard region
 *    while the ring is full, every byte lost counted; snapshot mode: wraps counted) and
 *    the freeze.
 *
 * Contexts: pt_probe() once on the boot CPU; pt_output_* in the net context; pt_cpu_*
 * on the CPU they act on (from aca_plat_call_on_all_cpus, the PMI, or any interrupt for
 * pt_cpu_stop), touching only that CPU's MSRs and struct pt_cpu, no libc, no locks. The
 * net context reads a struct pt_cpu through the pt_cpu_*_bytes() accessors only.
 *
 * Addresses: the ToPA and OUTPUT_BASE hold physical addresses; the memory given here must
 * be identity-mapped (linear == physical), as the kit and rtos-pc map all RAM. */
#ifndef ACART_ARCH_X86_PT_H
#define ACART_ARCH_X86_PT_H

#include <stdint.h>

#define MSR_IA32_RTIT_OUTPUT_BASE      0x560u
#define MSR_IA32_RTIT_OUTPUT_MASK_PTRS 0x561u
#define MSR_IA32_RTIT_CTL              0x570u
#define MSR_IA32_RTIT_STATUS           0x571u
#define MSR_IA32_RTIT_CR3_MATCH        0x572u
#define MSR_IA32_RTIT_ADDR0_A          0x580u /* ADDRn_A = 0x580 + 2n, ADDRn_B = 0x581 + 2n */
#define PT_MAX_RANGES                  4      /* ADDR0..ADDR3 */

/* IA32_RTIT_CTL */
#define RTIT_CTL_TRACE_EN       (1ull << 0)
#define RTIT_CTL_CYC_EN         (1ull << 1)
#define RTIT_CTL_OS             (1ull << 2)
#define RTIT_CTL_USER           (1ull << 3)
#define RTIT_CTL_PWR_EVT_EN     (1ull << 4)
#define RTIT_CTL_FUP_ON_PTW     (1ull << 5)
#define RTIT_CTL_FABRIC_EN      (1ull << 6)
#define RTIT_CTL_CR3_FILTER     (1ull << 7)
#define RTIT_CTL_TOPA           (1ull << 8)
#define RTIT_CTL_MTC_EN         (1ull << 9)
#define RTIT_CTL_TSC_EN         (1ull << 10)
#define RTIT_CTL_DIS_RETC       (1ull << 11)
#define RTIT_CTL_PTW_EN         (1ull << 12)
#define RTIT_CTL_BRANCH_EN      (1ull << 13)
#define RTIT_CTL_MTC_FREQ(v)    ((uint64_t)(v) << 14)             /* bits 17:14 */
#define RTIT_CTL_CYC_THRESH(v)  ((uint64_t)(v) << 19)             /* bits 22:19 */
#define RTIT_CTL_PSB_FREQ(v)    ((uint64_t)(v) << 24)             /* bits 27:24 */
#define RTIT_CTL_ADDR_CFG(n, v) ((uint64_t)(v) << (32 + 4 * (n))) /* ADDRn_CFG, bits 35:32.. */

/* ADDRn_CFG values */
#define PT_RANGE_FILTER 1 /* trace only inside [ADDRn_A, ADDRn_B] (FilterEn) */
#define PT_RANGE_STOP   2 /* TraceStop when a branch lands inside */

/* IA32_RTIT_STATUS */
#define RTIT_STATUS_FILTER_EN      (1ull << 0)
#define RTIT_STATUS_CONTEXT_EN     (1ull << 1)
#define RTIT_STATUS_TRIGGER_EN     (1ull << 2)
#define RTIT_STATUS_ERROR          (1ull << 4)
#define RTIT_STATUS_STOPPED        (1ull << 5)
#define RTIT_STATUS_BYTE_CNT_SHIFT 32 /* PacketByteCnt, bits 48:32 */

/* IA32_RTIT_OUTPUT_MASK_PTRS: LowerMask (6:0, reads as ones), MaskOrTableOffset (31:7:
 * the current ToPA entry's index, or the single range's size - 1), OutputOffset (63:32). */
#define RTIT_MASK_LOWER 0x7full

/* A ToPA entry: END, INT, STOP, the region size (4 KiB << Size) and its base. */
#define TOPA_END        (1ull << 0)
#define TOPA_INT        (1ull << 2)
#define TOPA_STOP       (1ull << 4)
#define TOPA_SIZE_SHIFT 6 /* bits 9:6 */

enum pt_error {
    PT_OK = 0,
    PT_ERR_NO_PT = -1,            /* no Intel PT on this CPU (see pt_caps.why) */
    PT_ERR_INVALID = -2,          /* malformed argument */
    PT_ERR_NO_CYC = -3,           /* CYC packets (or PSBFreq) without CPUID.14H:EBX[1] */
    PT_ERR_NO_MTC = -4,           /* MTC packets without CPUID.14H:EBX[3] */
    PT_ERR_MTC_FREQ = -5,         /* an MTC period CPUID.(14H,1):EAX[31:16] does not list */
    PT_ERR_CYC_THRESH = -6,       /* a CYC threshold CPUID.(14H,1):EBX[15:0] does not list */
    PT_ERR_PSB_FREQ = -7,         /* a PSB period CPUID.(14H,1):EBX[31:16] does not list */
    PT_ERR_NO_PTWRITE = -8,       /* PTWRITE packets without CPUID.14H:EBX[4] */
    PT_ERR_NO_POWER = -9,         /* power event packets without CPUID.14H:EBX[5] */
    PT_ERR_RANGES = -10,          /* more address ranges than CPUID.(14H,1):EAX[2:0] */
    PT_ERR_RANGE = -11,           /* a range with start > end, or a bad ADDRn_CFG */
    PT_ERR_FULL_NEEDS_TOPA = -12, /* full mode without ToPA regions and the ToPA PMI */
    PT_ERR_MEMORY = -13,          /* the trace memory is too small, misaligned or too high */
    PT_ERR_NO_CPL = -14,          /* neither OS nor user code traced */
    PT_ERR_STATE = -15,           /* the CPU is not in the state the call needs */
};

const char *pt_strerror(int err);

/* What CPUID says of this CPU's trace unit. All CPUs of a board are assumed alike. */
struct pt_caps {
    uint8_t present;      /* Intel PT usable: the rest is valid */
    uint8_t cr3_filter;   /* EBX[0] */
    uint8_t psb_cyc;      /* EBX[1]: PSBFreq, CYC packets, PacketByteCnt */
    uint8_t ip_filter;    /* EBX[2]: ADDRn ranges (IP filtering, TraceStop) */
    uint8_t mtc;          /* EBX[3]: MTC packets */
    uint8_t ptwrite;      /* EBX[4]: PTWRITE */
    uint8_t power_events; /* EBX[5]: power event trace */
    uint8_t topa;         /* ECX[0]: ToPA output */
    uint8_t topa_multi;   /* ECX[1]: ToPA tables of several entries */
    uint8_t single_range; /* ECX[2]: single-range output */
    uint8_t transport;    /* ECX[3]: output to the trace transport subsystem */
    uint8_t lip;          /* ECX[31]: IP payloads are linear addresses (CS base added) */
    uint8_t num_ranges;   /* (14H,1):EAX[2:0], 0 without ip_filter */
    uint8_t maxphyaddr;   /* physical address bits (80000008H:EAX[7:0], else 36) */
    uint8_t pmi;          /* the ToPA PMI can be taken and acknowledged (perfmon v2+) */
    uint8_t reserved;
    uint16_t mtc_periods;    /* (14H,1):EAX[31:16]: MTCFreq encodings, bit n = 2^n ticks */
    uint16_t cyc_thresholds; /* (14H,1):EBX[15:0] */
    uint16_t psb_periods;    /* (14H,1):EBX[31:16]: PSBFreq encodings, bit n = 2K << n */
    uint16_t reserved2;
    uint32_t cpuid15_eax, cpuid15_ebx, cpuid15_ecx; /* TSC/crystal ratio, crystal Hz */
    const char *why; /* without PT: why, for the console and the host */
};

/* Fills caps from CPUID (leaves 0, 1, 7, 0xA, 0x14, 0x15, 0x80000008); reads no MSR.
 * Returns PT_OK, or PT_ERR_NO_PT with caps->why saying what is missing (not Intel, no
 * CPUID.07H:EBX[25] as under QEMU TCG and most hypervisors, no output to memory). */
int pt_probe(struct pt_caps *caps);

/* ---- What to trace ---- */

enum pt_mode {
    PT_MODE_FULL = 0,     /* every byte: regions drained while tracing, losses counted */
    PT_MODE_SNAPSHOT = 1, /* a ring that wraps until frozen: the last bytes before a trigger */
};

#define PT_TRACE_OS      0x01u /* CPL 0 */
#define PT_TRACE_USER    0x02u /* CPL > 0 */
#define PT_TIMING_TSC    0x04u /* TSC packets */
#define PT_TIMING_MTC    0x08u /* MTC packets every 2^mtc_freq crystal ticks */
#define PT_TIMING_CYC    0x10u /* CYC packets: cycle-accurate */
#define PT_PACKETS_PTW   0x20u /* PTWRITE packets */
#define PT_PACKETS_POWER 0x40u /* power event packets */
#define PT_FLAGS_VALID   0x7fu

struct pt_range {
    uint64_t start, end; /* linear addresses, end inclusive (ADDRn_A, ADDRn_B) */
    uint32_t cfg;        /* PT_RANGE_FILTER or PT_RANGE_STOP */
};

struct pt_config {
    uint32_t mode;  /* enum pt_mode */
    uint32_t flags; /* PT_TRACE_*, PT_TIMING_*, PT_PACKETS_* */
    uint8_t mtc_freq, cyc_thresh, psb_freq;
    uint8_t num_ranges;
    struct pt_range ranges[PT_MAX_RANGES];
};

/* ---- The output's kind, and what a configuration writes ---- */

enum pt_output {
    PT_OUT_TOPA = 0,     /* a ToPA table of `regions` regions, END pointing back */
    PT_OUT_TOPA_ONE = 1, /* a ToPA table of one region (CPUs without ToPA multi-entry) */
    PT_OUT_SINGLE = 2,   /* single-range output: a power-of-two region that wraps */
};

/* IA32_RTIT_CTL for cfg with this output (TraceEn clear), or a PT_ERR_* naming the first
 * field the CPU does not support. */
int pt_config_ctl(const struct pt_caps *caps, const struct pt_config *cfg, uint32_t output,
                  uint64_t *ctl);

/* Every MSR pt_cpu.c writes for cfg, into msrs (room for PT_CONFIG_MAX_MSRS); returns the
 * count. The caller puts each through its allowlist before programming anything. */
#define PT_CONFIG_MAX_MSRS (4 + 2 * PT_MAX_RANGES)
uint32_t pt_config_msrs(const struct pt_config *cfg, uint32_t *msrs);

#endif
