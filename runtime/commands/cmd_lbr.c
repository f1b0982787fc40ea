/* LBR_INFO: which LBR registers each sample carries (docs/sep-protocol.md 6.3). The host
 * names MSRs; each must be this CPU's TOS or the FROM, TO or INFO MSR of the stack entry
 * its type_index names, so the interrupt reads from the snapshot it took while the stack
 * was frozen instead of reading host-named MSRs after the freeze ended. Built without LBRs
 * it is refused. */
#include "cmd_lbr.h"
#include "collection.h"
#include "target.h"
#include "commands.h"
#include "log.h"
#include "msr_policy.h"

#include <string.h>

#if !ACA_WITH_LBR
/* Built without LBRs (ACA_WITH_LBR 0): refused as on a CPU without LBRs acart can read, so
 * no LBR register ever reaches a sample. */
int32_t cmd_lbr_info(struct cmd_request *req)
{
    (void)req;
    agent_log("acart: LBR_INFO refused: not built in: libacart.a has ACA_WITH_LBR 0");
    return SEP_STATUS_UNSUPPORTED_ARCH_TYPE;
}
#else
/* The MSR entry `index` of kind `etype` has on this CPU, or 0 when it has none. */
static uint32_t lbr_msr(const struct lbr_caps *lbr, uint16_t etype, uint16_t index)
{
    unsigned readable = lbr->depth < LBR_MAX_ENTRIES ? lbr->depth : LBR_MAX_ENTRIES;
    switch (etype) {
    case SEP_LBR_ENTRY_TOS:
        return lbr->arch ? 0 : lbr->tos_msr;
    case SEP_LBR_ENTRY_FROM:
        return index < readable ? lbr->from_msr + index : 0;
    case SEP_LBR_ENTRY_TO:
        return index < readable && lbr->to_msr ? lbr->to_msr + index : 0;
    case SEP_LBR_ENTRY_INFO:
        return index < readable && lbr->has_info ? lbr->info_msr + index : 0;
    default:
        return 0;
    }
}

int32_t cmd_lbr_info(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    static const char *const kinds[] = {"TOS", "FROM", "TO", "INFO"};
    struct sep_lbr_info head;

    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    if (!coll->want_lbrs) {
        agent_log("acart: LBR_INFO refused: INIT did not ask for LBRs (collect_lbrs)");
        return SEP_STATUS_NOT_CONFIGURED;
    }
    const struct pmu_caps *caps = sampler_pmu_caps();
    if (!caps || !caps->lbr.depth) {
        agent_log("acart: LBR_INFO refused: this CPU has no LBR acart can read (%s)",
                  caps ? caps->uarch : target.sampling_note);
        return SEP_STATUS_UNSUPPORTED_ARCH_TYPE;
    }
    memcpy(&head, req->in, sizeof(head));
    if (head.num_entries == 0 || head.num_entries > SAMPLER_MAX_LBR_REGS ||
        sizeof(head) + (uint64_t)head.num_entries * sizeof(struct sep_lbr_entry) > req->in_len)
        return SEP_STATUS_BAD_PARAMETER;
    for (uint32_t i = 0; i < head.num_entries; i++) {
        struct sep_lbr_entry e;
        memcpy(&e, req->in + sizeof(head) + i * sizeof(e), sizeof(e));
        struct sampler_lbr_reg *r = &coll->lbr_regs[i];
        if (e.reg_id == 0) {
            r->etype = SAMPLER_LBR_NONE; /* the reference skips these too */
            r->index = 0;
            continue;
        }
        int perr = msr_policy_check(e.reg_id, 0);
        uint32_t expected = lbr_msr(&caps->lbr, e.etype, e.type_index);
        if (perr || expected != e.reg_id) {
            agent_log("acart: LBR_INFO entry %u: MSR 0x%x is not this CPU's LBR %s %u%s%s",
                      (unsigned)i, (unsigned)e.reg_id, e.etype < 4 ? kinds[e.etype] : "?",
                      (unsigned)e.type_index, perr ? ": " : "",
                      perr ? msr_policy_strerror(perr) : "");
            coll->lbr_num_regs = 0;
            return SEP_STATUS_BAD_PARAMETER;
        }
        r->etype = (uint8_t)e.etype;
        r->index = (uint8_t)e.type_index;
    }
    coll->lbr_num_regs = head.num_entries;
    return SEP_STATUS_SUCCESS;
}

void cmd_lbr_apply(const struct collection *coll, struct sampler_config *sc)
{
    uint32_t desc = sc->events[0].descriptor_id;
    if (!coll->want_lbrs || !coll->store_lbrs || !coll->lbr_num_regs ||
        desc >= coll->num_descriptors || !coll->descriptors[desc].lbr_offset)
        return;
    const struct sep_event_desc *d = &coll->descriptors[desc];
    uint32_t n = d->lbr_num_regs && d->lbr_num_regs < coll->lbr_num_regs ? d->lbr_num_regs
                                                                         : coll->lbr_num_regs;
    sc->lbr_offset = d->lbr_offset;
    sc->lbr_num_regs = n;
    memcpy(sc->lbr_regs, coll->lbr_regs, n * sizeof(sc->lbr_regs[0]));
}
#endif
