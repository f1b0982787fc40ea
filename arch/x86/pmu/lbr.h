/* Last Branch Records: the CPU's stack of the most recent taken branches, recorded
 * (lbr.c). What the stack looks like and how it decodes is lbr_format.h's (lbr_format.c).
 *
 * lbr.c owns the LBR MSRs (select/control, depth, the stack). IA32_DEBUGCTL, which also
 * carries the freeze bits of the counters, belongs to pmu.c: lbr_debugctl_bits() tells it
 * what to set. All calls act on the calling CPU and never block. */
#ifndef ACART_ARCH_X86_LBR_H
#define ACART_ARCH_X86_LBR_H

#include <stdint.h>

#include "lbr_format.h"

#define MSR_LBR_SELECT 0x1c8u  /* model-specific: branch filter, 0 = every branch */
#define MSR_LBR_CTL    0x14ceu /* architectural: enable, CPL and branch-type filters */
#define MSR_LBR_DEPTH  0x14cfu /* architectural: entries in use */

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

/* lbr_snapshot then lbr_decode, through caller memory. */
unsigned lbr_read(const struct lbr_caps *caps, struct lbr_snapshot *snap, struct lbr_entry *out,
                  unsigned max);

#endif
