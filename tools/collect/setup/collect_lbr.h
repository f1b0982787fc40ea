/* `acart collect --lbr`: which LBR registers to ask for, as SEP does, for the target's
 * CPU. The LBR geometry comes from the same per-model table and CPUID rules the target
 * uses (arch/x86: pmu_models.c, lbr_caps_derive), fed with the target's model (its
 * status), IA32_PERF_CAPABILITIES (GET_PERF_CAPAB) and CPUID leaves 07H and 1CH (its
 * system configuration). docs/sep-protocol.md 6.3 has the record layout. */
#ifndef ACART_TOOLS_COLLECT_LBR_H
#define ACART_TOOLS_COLLECT_LBR_H

#include <stddef.h>
#include <stdint.h>

#include "acart_wire.h"
#include "diag.h"
#include "lbr_format.h"
#include "session.h"

struct collect_lbr {
    struct lbr_caps caps;
    int call_stack;
    uint32_t num_regs;
    struct sep_lbr_entry regs[SESSION_LBR_MAX_REGS];
};

struct collect_lbr_cpu {
    uint32_t family, model;
    uint64_t perf_capabilities;
    uint32_t cpuid7_edx, cpuid1c_eax, cpuid1c_ebx;
};

/* The registers to list: TOS (model-specific LBRs), then FROM, TO (not in format 0) and
 * INFO (where read) of each entry up to min(depth, 32). Returns 0, or COLLECT_DIAG_TARGET
 * with a message when the CPU has no LBR acart reads, or call_stack is asked of a CPU
 * without call-stack mode. */
int collect_lbr_plan(const struct collect_lbr_cpu *cpu, int call_stack, struct collect_lbr *out,
                     struct diag *d);

/* MSR_LBR_SELECT for the ECB: every branch, or call-stack mode. */
uint64_t collect_lbr_select(const struct collect_lbr *l);

/* The LBR_INFO payload (struct sep_lbr_info + entries) into buf; returns its size, or 0
 * when cap is too small. */
size_t collect_lbr_payload(const struct collect_lbr *l, uint8_t *buf, size_t cap);

/* session.json's lbr object for records carrying the registers at `offset`. */
void collect_lbr_session(const struct collect_lbr *l, uint32_t offset, struct session_lbr *out);

#endif
