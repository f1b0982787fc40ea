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

/* MSR_LBR_SELECT (model-specific): a set bit 0-8 suppresses that kind of branch; bit 9
 * turns the stack into a call stack (calls push, returns pop), where the model has it. It
 * is also acart's one vocabulary for filtering: architectural LBRs get the same request
 * translated into IA32_LBR_CTL (lbr_enable). */
#define LBR_SEL_CPL_EQ_0   (1u << 0)
#define LBR_SEL_CPL_NEQ_0  (1u << 1)
#define LBR_SEL_JCC        (1u << 2)
#define LBR_SEL_REL_CALL   (1u << 3)
#define LBR_SEL_IND_CALL   (1u << 4)
#define LBR_SEL_RETURN     (1u << 5)
#define LBR_SEL_IND_JMP    (1u << 6)
#define LBR_SEL_REL_JMP    (1u << 7)
#define LBR_SEL_FAR        (1u << 8)
#define LBR_SEL_CALL_STACK (1u << 9)
#define LBR_SEL_VALID      0x3ffu
/* Call-stack mode as Linux asks for it: only near calls and returns recorded. */
#define LBR_SEL_CALL_STACK_MODE                                                                    \
    (LBR_SEL_CALL_STACK | LBR_SEL_JCC | LBR_SEL_IND_JMP | LBR_SEL_REL_JMP | LBR_SEL_FAR)

#define DEBUGCTL_LBR                (1ull << 0)
#define DEBUGCTL_FREEZE_LBRS_ON_PMI (1ull << 11)

/* IA32_PERF_CAPABILITIES[5:0]: how an entry is encoded. */
enum lbr_format {
    LBR_FORMAT_32 = 0,         /* FROM (bits 31:0) and TO (63:32) in one MSR (Core 2) */
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
    uint8_t callstack; /* call-stack mode (LBR_SEL_CALL_STACK) available */
    uint8_t reserved[3];
    uint32_t tos_msr;  /* model-specific only */
    uint32_t from_msr; /* first FROM MSR */
    uint32_t to_msr;   /* first TO MSR; 0 for LBR_FORMAT_32 (TO is in the FROM MSR) */
    uint32_t info_msr; /* first INFO MSR, 0 when absent */
};

#define LBR_FLAG_MISPRED 0x1 /* the branch was mispredicted */
#define LBR_FLAG_IN_TX   0x2 /* inside a TSX transaction */
#define LBR_FLAG_ABORT   0x4 /* a TSX abort */
#define LBR_FLAG_CYCLES  0x8 /* `cycles` is valid */

/* The stack as the CPU holds it, read at one instant: TOS and every entry's raw MSR
 * values by MSR index (not yet rotated to newest first). SEP records carry these raw
 * values (docs/sep-protocol.md 6.3); lbr_decode() turns them into entries. */
struct lbr_snapshot {
    uint64_t tos; /* MSR_LBR_TOS; 0 for architectural LBRs */
    uint64_t from[LBR_MAX_ENTRIES];
    uint64_t to[LBR_MAX_ENTRIES];
    uint64_t info[LBR_MAX_ENTRIES];
};

struct lbr_entry {
    uint64_t from;   /* address of the branch instruction, sign-extended from bit 47 */
    uint64_t to;     /* its target */
    uint16_t cycles; /* core cycles since the previous recorded branch (LBR_FLAG_CYCLES) */
    uint8_t flags;   /* LBR_FLAG_* */
    uint8_t reserved;
};

/* A model's LBR stack as its per-model table row gives it (pmu_models.c). */
struct lbr_model {
    uint8_t depth;     /* entries; 0: no model-specific LBR */
    uint8_t has_info;  /* LBR_INFO MSRs at `info` */
    uint8_t callstack; /* LBR_SELECT bit 9: call-stack mode (Haswell and later cores) */
    uint16_t tos, from, to, info;
};

/* Whether this format is one lbr_decode() decodes. */
int lbr_format_supported(uint8_t format);

/* This CPU's LBRs from its table row (NULL: unknown model), IA32_PERF_CAPABILITIES (0
 * without PDCM), CPUID.07H:EDX and CPUID.1CH:EAX/EBX (0 when the leaf is beyond the
 * maximum). depth 0: no LBR acart can use. Shared by pmu_probe() and the host tools,
 * which learn the same facts from the target's system configuration. */
void lbr_caps_derive(const struct lbr_model *row, uint64_t perf_capabilities, uint32_t leaf7_edx,
                     uint32_t leaf1c_eax, uint32_t leaf1c_ebx, struct lbr_caps *out);

/* Entries a snapshot holds: the depth, at most LBR_MAX_ENTRIES. */
unsigned lbr_readable(const struct lbr_caps *caps);

/* Clears every entry, then starts recording: model-specific LBRs with `select` written
 * to MSR_LBR_SELECT (0: every branch at every CPL); architectural LBRs at full depth with
 * `select` translated into IA32_LBR_CTL's CPL, branch-type and call-stack bits. Recording also
 * needs the bits of lbr_debugctl_bits() in IA32_DEBUGCTL, which the caller writes. */
void lbr_enable(const struct lbr_caps *caps, uint64_t select);

/* Stops recording (architectural LBR_CTL; the caller clears the IA32_DEBUGCTL bits). */
void lbr_disable(const struct lbr_caps *caps);

/* IA32_DEBUGCTL bits that recording with `select` needs: LBR enable (model-specific only)
 * and FREEZE_LBRS_ON_PMI, so that the stack the PMI handler reads ends at the overflow
 * rather than at the handler's own branches; but not the freeze in call-stack mode
 * (LBR_SEL_CALL_STACK), where a PMI near a call or return moves the top of stack (Linux's
 * __intel_pmu_lbr_enable: "PMI near call/return instructions may cause superfluous
 * increase/decrease of LBR_TOS"): there the handler stops recording itself (pmi.c). */
uint64_t lbr_debugctl_bits(const struct lbr_caps *caps, uint64_t select);

/* IA32_LBR_CTL for `select` (architectural LBRs): what lbr_enable() writes. */
uint64_t lbr_arch_ctl(uint64_t select);

/* Removes the `n` newest entries from a snapshot, as if they had been popped: the entries
 * the PMI handler's own calls pushed in call-stack mode (model-specific: TOS moves back,
 * their slots zeroed; architectural: the older entries move up, the tail zeroed). */
void lbr_trim(const struct lbr_caps *caps, struct lbr_snapshot *snap, unsigned n);

/* Reads TOS and the first min(depth, LBR_MAX_ENTRIES) entries into *snap. Interrupt
 * context: reads MSRs only. */
void lbr_snapshot(const struct lbr_caps *caps, struct lbr_snapshot *snap);

/* Decodes up to `max` entries of a snapshot, newest first, into out[] and returns how
 * many. Entries never written since lbr_enable() (and, in call-stack mode, popped ones)
 * end the stack early. */
unsigned lbr_decode(const struct lbr_caps *caps, const struct lbr_snapshot *snap,
                    struct lbr_entry *out, unsigned max);

/* lbr_snapshot then lbr_decode, through caller memory. */
unsigned lbr_read(const struct lbr_caps *caps, struct lbr_snapshot *snap, struct lbr_entry *out,
                  unsigned max);

#endif
