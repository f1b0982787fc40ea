/* Intel Processor Trace: what the CPU offers, the trace output in RAM, and per-CPU
 * programming, after the Intel SDM vol. 3C, chapter "Intel Processor Trace".
 *
 * Three files, one job each, after pmu.c's layering:
 *  - pt.c: CPUID leaf 0x14 (and 0x15, MAXPHYADDR) into struct pt_caps, and the
 *    IA32_RTIT_CTL value a configuration asks for, refused field by field where the CPU
 *    lacks what it names (the SDM's #GP cases, caught before any WRMSR);
 *  - pt_output.c: the output in RAM the caller gives (no allocation): a ToPA table of
 *    regions, a ToPA table with one region, or one single-range region, split among the
 *    CPUs; where a byte of the trace is; the snapshot ring unrolled from its first PSB;
 *  - pt_cpu.c: the IA32_RTIT_* MSRs of the calling CPU, written only while TraceEn is
 *    clear as the SDM demands, start/pause/stop, the ToPA PMI (full mode: regions handed to
 *    the drain, a STOP entry ahead of undrained data, a discard region while the ring is
 *    full, every byte lost counted; snapshot mode: wraps counted) and the freeze.
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

/* ---- The output in RAM (pt_output.c) ---- */

enum pt_output {
    PT_OUT_TOPA = 0,     /* a ToPA table of `regions` regions, END pointing back */
    PT_OUT_TOPA_ONE = 1, /* a ToPA table of one region (CPUs without ToPA multi-entry) */
    PT_OUT_SINGLE = 2,   /* single-range output: a power-of-two region that wraps */
};

/* Alignment of the memory given to pt_output_layout (the largest region it cuts). */
#define PT_MEMORY_ALIGN    (64u * 1024u)
#define PT_REGION_MAX      (64u * 1024u)
#define PT_TOPA_ENTRIES    512u                  /* one 4 KiB table */
#define PT_TOPA_MAX_REGION (PT_TOPA_ENTRIES - 1) /* the END entry takes one */
#define PT_DISCARD_BYTES   PT_REGION_MAX

/* One CPU's output: a ring of `bytes` = regions * region_bytes contiguous bytes at data,
 * written in order and wrapping. */
struct pt_buffer {
    uint8_t *data;
    uint32_t bytes;
    uint32_t region_bytes;
    uint32_t regions;
    uint32_t output; /* enum pt_output */
    uint64_t *table; /* ToPA: its 4 KiB-aligned table; NULL for single range */
};

/* The output every CPU gets from one block of memory, and (full mode) the discard region
 * all CPUs write into while their ring is full: pt_output_layout cuts `memory`
 * (PT_MEMORY_ALIGN aligned, identity-mapped) for num_cpus CPUs. */
struct pt_layout {
    uint32_t output; /* enum pt_output, the same for every CPU */
    uint32_t num_cpus;
    struct pt_buffer discard; /* full mode: one region, its table's END pointing to itself */
};

/* Chooses the output the CPU and mode allow (full mode needs ToPA with several regions
 * and the ToPA PMI) and cuts memory into bufs[0..num_cpus) (ToPA tables included) and
 * layout->discard. Writes nothing into the memory. Returns PT_OK, PT_ERR_FULL_NEEDS_TOPA,
 * or PT_ERR_MEMORY when it is too small (under 16 KiB a CPU), misaligned, or beyond
 * MAXPHYADDR. */
int pt_output_layout(const struct pt_caps *caps, uint32_t mode, uint8_t *memory, uint32_t bytes,
                     uint32_t num_cpus, struct pt_layout *layout, struct pt_buffer *bufs);

/* Full mode: writes the discard region's ToPA table (net context, before any CPU is
 * programmed). */
void pt_output_write_discard(const struct pt_layout *layout);

/* IA32_RTIT_CTL for cfg with this output (TraceEn clear), or a PT_ERR_* naming the first
 * field the CPU does not support. */
int pt_config_ctl(const struct pt_caps *caps, const struct pt_config *cfg, uint32_t output,
                  uint64_t *ctl);

/* Every MSR pt_cpu.c writes for cfg, into msrs (room for PT_CONFIG_MAX_MSRS); returns the
 * count. The caller puts each through its allowlist before programming anything. */
#define PT_CONFIG_MAX_MSRS (4 + 2 * PT_MAX_RANGES)
uint32_t pt_config_msrs(const struct pt_config *cfg, uint32_t *msrs);

/* The first 16-byte PSB in the ring `buf` read from ring offset `from` for `len` bytes
 * (wrapping at buf->bytes): its distance from `from`, or `len` when there is none. */
uint32_t pt_find_psb(const struct pt_buffer *buf, uint32_t from, uint32_t len);

/* ---- One CPU (pt_cpu.c) ---- */

/* Where a CPU stands; every change is an atomic exchange so the PMI, a freeze from any
 * interrupt and the net context's IPIs never both act. */
enum pt_cpu_state {
    PT_CPU_IDLE = 0,    /* programmed (or not), TraceEn clear */
    PT_CPU_TRACING = 1, /* TraceEn set */
    PT_CPU_BUSY = 2,    /* the ToPA PMI handler works, TraceEn clear */
    PT_CPU_PAUSED = 3,  /* TraceEn clear until resumed */
    PT_CPU_DONE = 4,    /* stopped or frozen: the final position is known */
};

#define PT_MAX_LOSSES 16

struct pt_loss {
    uint64_t offset; /* bytes of trace kept before the loss */
    uint64_t bytes;  /* bytes the trace unit wrote into the discard region meanwhile: at
                      * least what it lost (nothing is written between the STOP and the
                      * PMI), 0 when not known */
};

struct pt_cpu {
    const struct pt_caps *caps;
    struct pt_buffer buf;
    const struct pt_buffer *discard; /* full mode */
    uint64_t ctl;                    /* IA32_RTIT_CTL without TraceEn */
    uint32_t mode;                   /* enum pt_mode */
    volatile uint32_t state;         /* enum pt_cpu_state */
    volatile uint32_t stop_pending;  /* a stop came while the PMI handler worked */
    /* Full mode. regions_done is this CPU's (PMI) count of regions filled; regions_freed
     * the net context's count of regions it sent, so free to fill again. */
    volatile uint32_t regions_done;
    volatile uint32_t regions_freed;
    uint32_t region;     /* the ring region being written */
    uint32_t stop_entry; /* the ToPA entry carrying STOP (R: none) */
    uint8_t discarding;  /* the ring is full: output goes to the discard region */
    uint8_t reserved[3];
    uint64_t loss_offset;  /* where the loss being counted began */
    uint64_t discard_laps; /* discard regions filled in this loss */
    /* Full mode: the losses, a ring this CPU appends to (num_losses counts every one
     * recorded) and the net context reads in order; when it is full, later losses are
     * only counted (unrecorded). */
    struct pt_loss losses[PT_MAX_LOSSES];
    volatile uint32_t num_losses;
    volatile uint32_t losses_sent; /* written by the net context */
    uint32_t unrecorded;
    /* Counts for the host. */
    uint64_t lost_bytes;   /* at least this many: see struct pt_loss */
    uint32_t lost_events;  /* losses, recorded or not */
    uint32_t lost_unknown; /* ... of those, of unknown size (counted as 0 in lost_bytes) */
    uint32_t pmis, wraps, errors;
    /* Valid in PT_CPU_DONE: bytes written in the region being filled (full), or the
     * ring's write offset (snapshot). */
    uint32_t tail;
    uint64_t done_tsc; /* TSC when it stopped or froze */
};

/* Ties c to its buffer and configuration (no MSR). */
void pt_cpu_init(struct pt_cpu *c, const struct pt_caps *caps, const struct pt_buffer *buf,
                 const struct pt_buffer *discard, const struct pt_config *cfg, uint64_t ctl);

/* On the CPU itself, TraceEn clear (cleared first if a previous user left it set): zeroes
 * the ring, writes the ToPA table, IA32_RTIT_STATUS, OUTPUT_BASE, OUTPUT_MASK_PTRS and the
 * ADDRn pairs, then IA32_RTIT_CTL without TraceEn. */
void pt_cpu_program(struct pt_cpu *c, const struct pt_config *cfg);
void pt_cpu_start(struct pt_cpu *c);  /* TraceEn set: IDLE -> TRACING */
void pt_cpu_pause(struct pt_cpu *c);  /* TRACING -> PAUSED */
void pt_cpu_resume(struct pt_cpu *c); /* PAUSED -> TRACING */

/* Stops tracing for good and records where the trace ends (the freeze of snapshot
 * mode). Any context on the CPU itself, an exception handler or NMI included; returns 1
 * when this call stopped it, 0 when it was not tracing (already done, or never started). */
int pt_cpu_stop(struct pt_cpu *c, uint64_t tsc);

/* The ToPA PMI: 1 when IA32_PERF_GLOBAL_STATUS bit 55 was set (handled and acknowledged),
 * 0 when this PMI was not the trace unit's. NMI context on the CPU itself. */
int pt_cpu_pmi(struct pt_cpu *c);

/* Net context, any CPU. Full mode: bytes of trace ready to send (whole regions while
 * tracing, everything once done); losses recorded so far, and loss number i (i below
 * that count and at most PT_MAX_LOSSES behind it). */
uint64_t pt_cpu_ready_bytes(const struct pt_cpu *c);
uint32_t pt_cpu_num_losses(const struct pt_cpu *c);
struct pt_loss pt_cpu_loss(const struct pt_cpu *c, uint32_t i);
/* Full mode: the caller has sent the trace up to byte `sent` and the first losses_sent
 * losses; those regions and loss slots may be reused. */
void pt_cpu_sent(struct pt_cpu *c, uint64_t sent, uint32_t losses_sent);

/* Snapshot mode, once done: the ring unrolled from the first PSB after its oldest byte;
 * *first is that PSB's ring offset, the return value the bytes from there on (0 without
 * a PSB), *wrapped whether older trace was overwritten. */
uint32_t pt_cpu_snapshot(const struct pt_cpu *c, uint32_t *first, int *wrapped);

#endif
