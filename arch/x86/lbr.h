/* Last Branch Records: the CPU's stack of the most recent taken branches.
 *
 * Two kinds exist. Model-specific LBRs (Nehalem to Tiger Lake, the Atoms up to Tremont)
 * are a ring of FROM/TO MSR pairs, optionally with INFO MSRs, and a top-of-stack index;
 * their depth and MSR numbers are not enumerated, so they come from the per-model table
 * (pmu_models.c) and their record format from IA32_PERF_CAPABILITIES[5:0]. Architectural
 * LBRs (Sapphire Rapids, Alder Lake and later) are enumerated by CPUID leaf 0x1C, sit at
 * fixed MSRs and keep entry 0 as the newest, with no top-of-stack.
 *
 * lbr.c owns the LBR MSRs (select/control, depth, the stack). IA32_DEBUGCTL, which also
 * carries the freeze bits of the counters, belongs to pmu.c: lbr_debugctl_bits() tells it
 * what to set. All calls act on the calling CPU and never block. */
#ifndef ACART_ARCH_X86_LBR_H
#define ACART_ARCH_X86_LBR_H

#include <stdint.h>

/* Entries kept per CPU; deeper stacks are read only this far (newest first). */
#ifndef LBR_MAX_ENTRIES
#define LBR_MAX_ENTRIES 32
#endif

#define MSR_LBR_SELECT      0x1c8u  /* model-specific: branch filter, 0 = every branch */
#define MSR_LBR_TOS         0x1c9u  /* model-specific: index of the newest entry */
#define MSR_LBR_CTL         0x14ceu /* architectural: enable, CPL and branch-type filters */
#define MSR_LBR_DEPTH       0x14cfu /* architectural: entries in use */
#define MSR_ARCH_LBR_FROM_0 0x1500u
#define MSR_ARCH_LBR_TO_0   0x1600u
#define MSR_ARCH_LBR_INFO_0 0x1200u

#define DEBUGCTL_LBR                (1ull << 0)
#define DEBUGCTL_FREEZE_LBRS_ON_PMI (1ull << 11)

/* IA32_PERF_CAPABILITIES[5:0]: how an entry is encoded. */
enum lbr_format {
    LBR_FORMAT_32 = 0,         /* FROM and TO in one MSR, 32 bits each (not supported) */
    LBR_FORMAT_LIP = 1,        /* 64-bit linear addresses */
    LBR_FORMAT_EIP = 2,        /* 64-bit effective addresses */
    LBR_FORMAT_EIP_FLAGS = 3,  /* + FROM[63] mispredicted */
    LBR_FORMAT_EIP_FLAGS2 = 4, /* + FROM[62] in TSX, FROM[61] TSX abort */
    LBR_FORMAT_INFO = 5,       /* flags and cycles in the LBR_INFO MSRs */
    LBR_FORMAT_TIME = 6,       /* FROM[63] mispredicted, TO[63:48] cycles */
    LBR_FORMAT_INFO2 = 7,      /* as 5, more INFO fields */
    LBR_FORMAT_ARCH = 0x3f,    /* architectural LBR: read CPUID 0x1C instead */
};

/* What lbr.c needs to know about this CPU's LBRs; filled by pmu_probe(). depth == 0 means
 * no usable LBR (none, unknown model, or a format we do not decode). */
struct lbr_caps {
    uint8_t depth;     /* entries in the stack (architectural: the deepest supported) */
    uint8_t format;    /* enum lbr_format */
    uint8_t arch;      /* 1: architectural LBR */
    uint8_t has_info;  /* INFO MSRs present and read */
    uint32_t tos_msr;  /* model-specific only */
    uint32_t from_msr; /* first FROM MSR */
    uint32_t to_msr;   /* first TO MSR */
    uint32_t info_msr; /* first INFO MSR, 0 when absent */
};

#define LBR_FLAG_MISPRED 0x1 /* the branch was mispredicted */
#define LBR_FLAG_IN_TX   0x2 /* inside a TSX transaction */
#define LBR_FLAG_ABORT   0x4 /* a TSX abort */
#define LBR_FLAG_CYCLES  0x8 /* `cycles` is valid */

struct lbr_entry {
    uint64_t from;   /* address of the branch instruction, sign-extended from bit 47 */
    uint64_t to;     /* its target */
    uint16_t cycles; /* core cycles since the previous recorded branch (LBR_FLAG_CYCLES) */
    uint8_t flags;   /* LBR_FLAG_* */
    uint8_t reserved;
};

/* Whether this format is one lbr_read() decodes. */
int lbr_format_supported(uint8_t format);

/* Clears every entry, then starts recording: model-specific LBRs with `select` written
 * to MSR_LBR_SELECT (0: every branch at every CPL); architectural LBRs at full depth,
 * every CPL and branch type (`select` is ignored). Recording also needs the bits of
 * lbr_debugctl_bits() in IA32_DEBUGCTL, which the caller writes. */
void lbr_enable(const struct lbr_caps *caps, uint64_t select);

/* Stops recording (architectural LBR_CTL; the caller clears the IA32_DEBUGCTL bits). */
void lbr_disable(const struct lbr_caps *caps);

/* IA32_DEBUGCTL bits that recording with freeze-on-PMI needs: LBR enable (model-specific
 * only) and FREEZE_LBRS_ON_PMI, so that the stack the PMI handler reads ends at the
 * overflow rather than at the handler's own branches. */
uint64_t lbr_debugctl_bits(const struct lbr_caps *caps);

/* Copies up to `max` entries, newest first, into out[] and returns how many. Entries never
 * written since lbr_enable() end the stack early. Interrupt context: reads MSRs only. */
unsigned lbr_read(const struct lbr_caps *caps, struct lbr_entry *out, unsigned max);

#endif
