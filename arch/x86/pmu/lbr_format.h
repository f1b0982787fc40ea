/* LBR formats (lbr_format.c): what a CPU's stack of Last Branch Records looks like and how
 * its raw MSR values decode. No MSR access: pmu_probe() and lbr.c use it on the target, and
 * the host tools decode SEP records with it too.
 *
 * Two kinds exist. Model-specific LBRs (Nehalem to Tiger Lake, the Atoms up to Tremont)
 * are a ring of FROM/TO MSR pairs, optionally with INFO MSRs, and a top-of-stack index;
 * their depth and MSR numbers are not enumerated, so they come from the per-model table
 * (pmu_models.c) and their record format from IA32_PERF_CAPABILITIES[5:0]. Architectural
 * LBRs (Sapphire Rapids, Alder Lake and later) are enumerated by CPUID leaf 0x1C, sit at
 * fixed MSRs and keep entry 0 as the newest, with no top-of-stack. */
#ifndef ACART_ARCH_X86_LBR_FORMAT_H
#define ACART_ARCH_X86_LBR_FORMAT_H

#include <stdint.h>

/* Entries kept per CPU; deeper stacks are read only this far (newest first). */
#ifndef LBR_MAX_ENTRIES
#define LBR_MAX_ENTRIES 32
#endif

/* Where a stack sits: the model-specific top of stack (the FROM/TO MSRs are the model's,
 * pmu_models.c); architectural LBRs' fixed MSRs, entry i at + i. */
#define MSR_LBR_TOS         0x1c9u /* model-specific: index of the newest entry */
#define MSR_ARCH_LBR_FROM_0 0x1500u
#define MSR_ARCH_LBR_TO_0   0x1600u
#define MSR_ARCH_LBR_INFO_0 0x1200u

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

/* Decodes up to `max` entries of a snapshot, newest first, into out[] and returns how
 * many. Entries never written since lbr_enable() (and, in call-stack mode, popped ones)
 * end the stack early. */
unsigned lbr_decode(const struct lbr_caps *caps, const struct lbr_snapshot *snap,
                    struct lbr_entry *out, unsigned max);

#endif
