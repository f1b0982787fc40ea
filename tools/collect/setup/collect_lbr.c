/* LBR registers for `acart collect --lbr` (see collect_lbr.h). */
#include "collect_lbr.h"

#include <inttypes.h>
#include <string.h>

#include "collect_link.h"
#include "lbr.h"
#include "pmu_models.h"

int collect_lbr_plan(const struct collect_lbr_cpu *cpu, int call_stack, struct collect_lbr *out,
                     struct diag *d)
{
    memset(out, 0, sizeof *out);
    const struct pmu_model *row = pmu_model_lookup(cpu->family, cpu->model);
    lbr_caps_derive(row ? &row->lbr : NULL, cpu->perf_capabilities, cpu->cpuid7_edx,
                    cpu->cpuid1c_eax, cpu->cpuid1c_ebx, &out->caps);
    const struct lbr_caps *c = &out->caps;
    if (!c->depth)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--lbr: the target's CPU (family %" PRIu32 " model 0x%02" PRIX32
                         ") has no LBR acart can read: %s",
                         cpu->family, cpu->model,
                         row ? "its LBR format is one acart does not decode"
                             : "no architectural LBR and a model outside acart's table");
    if (call_stack && !c->callstack)
        return diag_fail(
            d, COLLECT_DIAG_TARGET,
            "--lbr=call-stack: the target's CPU (%s) has no LBR call-stack mode "
            "(Haswell and later cores, Tremont, architectural LBR with CPUID.1CH:EBX[2])",
            row ? row->uarch : "architectural LBR");
    out->call_stack = call_stack;
    unsigned n = lbr_readable(c);
    if (!c->arch)
        out->regs[out->num_regs++] = (struct sep_lbr_entry){SEP_LBR_ENTRY_TOS, 0, c->tos_msr};
    for (unsigned i = 0; i < n; i++) {
        out->regs[out->num_regs++] =
            (struct sep_lbr_entry){SEP_LBR_ENTRY_FROM, (uint16_t)i, c->from_msr + i};
        if (c->to_msr)
            out->regs[out->num_regs++] =
                (struct sep_lbr_entry){SEP_LBR_ENTRY_TO, (uint16_t)i, c->to_msr + i};
        if (c->has_info)
            out->regs[out->num_regs++] =
                (struct sep_lbr_entry){SEP_LBR_ENTRY_INFO, (uint16_t)i, c->info_msr + i};
    }
    return 0;
}

uint64_t collect_lbr_select(const struct collect_lbr *l)
{
    return l->call_stack ? LBR_SEL_CALL_STACK_MODE : 0;
}

size_t collect_lbr_payload(const struct collect_lbr *l, uint8_t *buf, size_t cap)
{
    struct sep_lbr_info head;
    size_t size = sizeof head + l->num_regs * sizeof l->regs[0];
    if (size > cap)
        return 0;
    head.size = (uint32_t)size;
    head.num_entries = l->num_regs;
    memcpy(buf, &head, sizeof head);
    memcpy(buf + sizeof head, l->regs, l->num_regs * sizeof l->regs[0]);
    return size;
}

void collect_lbr_session(const struct collect_lbr *l, uint32_t offset, struct session_lbr *out)
{
    _Static_assert(SEP_LBR_ENTRY_TOS == SESSION_LBR_TOS && SEP_LBR_ENTRY_FROM == SESSION_LBR_FROM &&
                       SEP_LBR_ENTRY_TO == SESSION_LBR_TO && SEP_LBR_ENTRY_INFO == SESSION_LBR_INFO,
                   "session.json names the wire's LBR entry kinds");
    memset(out, 0, sizeof *out);
    out->format = l->caps.format;
    out->depth = l->caps.depth;
    out->has_info = l->caps.has_info;
    out->call_stack = l->call_stack;
    out->offset = offset;
    out->num_regs = l->num_regs;
    for (uint32_t i = 0; i < l->num_regs; i++) {
        out->regs[i].kind = (uint8_t)l->regs[i].etype;
        out->regs[i].index = (uint8_t)l->regs[i].type_index;
    }
}
