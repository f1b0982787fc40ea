/* LBR: enabling, filtering and snapshotting the stack (decoding: lbr_format.c). */
#include "lbr.h"

#include "msr.h"

/* IA32_LBR_CTL */
#define ARCH_LBR_CTL_EN         (1ull << 0)
#define ARCH_LBR_CTL_OS         (1ull << 1)
#define ARCH_LBR_CTL_USR        (1ull << 2)
#define ARCH_LBR_CTL_CALL_STACK (1ull << 3)
#define ARCH_LBR_CTL_JCC        (1ull << 16)
#define ARCH_LBR_CTL_IND_JMP    (1ull << 17)
#define ARCH_LBR_CTL_REL_JMP    (1ull << 18)
#define ARCH_LBR_CTL_IND_CALL   (1ull << 19)
#define ARCH_LBR_CTL_REL_CALL   (1ull << 20)
#define ARCH_LBR_CTL_RETURN     (1ull << 21)
#define ARCH_LBR_CTL_OTHER      (1ull << 22)

/* MSR_LBR_SELECT's suppress bits become IA32_LBR_CTL's enable bits: select 0 records
 * every branch at every CPL, as on model-specific LBRs. */
uint64_t lbr_arch_ctl(uint64_t select)
{
    static const struct {
        uint16_t sel;
        uint64_t ctl;
    } map[] = {
        {LBR_SEL_CPL_EQ_0, ARCH_LBR_CTL_OS},       {LBR_SEL_CPL_NEQ_0, ARCH_LBR_CTL_USR},
        {LBR_SEL_JCC, ARCH_LBR_CTL_JCC},           {LBR_SEL_REL_CALL, ARCH_LBR_CTL_REL_CALL},
        {LBR_SEL_IND_CALL, ARCH_LBR_CTL_IND_CALL}, {LBR_SEL_RETURN, ARCH_LBR_CTL_RETURN},
        {LBR_SEL_IND_JMP, ARCH_LBR_CTL_IND_JMP},   {LBR_SEL_REL_JMP, ARCH_LBR_CTL_REL_JMP},
        {LBR_SEL_FAR, ARCH_LBR_CTL_OTHER},
    };
    uint64_t ctl = ARCH_LBR_CTL_EN;

    for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!(select & map[i].sel))
            ctl |= map[i].ctl;
    if (select & LBR_SEL_CALL_STACK)
        ctl |= ARCH_LBR_CTL_CALL_STACK;
    return ctl;
}

static void lbr_clear(const struct lbr_caps *caps)
{
    for (unsigned i = 0; i < caps->depth; i++) {
        msr_write(caps->from_msr + i, 0);
        if (caps->to_msr)
            msr_write(caps->to_msr + i, 0);
        if (caps->has_info)
            msr_write(caps->info_msr + i, 0);
    }
}

void lbr_enable(const struct lbr_caps *caps, uint64_t select)
{
    if (!caps->depth)
        return;
    if (caps->arch) {
        msr_write(MSR_LBR_CTL, 0);
        msr_write(MSR_LBR_DEPTH, caps->depth);
        lbr_clear(caps);
        msr_write(MSR_LBR_CTL, lbr_arch_ctl(select));
    } else {
        lbr_clear(caps);
        msr_write(MSR_LBR_SELECT, select);
    }
}

void lbr_disable(const struct lbr_caps *caps)
{
    if (caps->arch)
        msr_write(MSR_LBR_CTL, 0);
}

uint64_t lbr_debugctl_bits(const struct lbr_caps *caps, uint64_t select)
{
    uint64_t freeze = (select & LBR_SEL_CALL_STACK) ? 0 : DEBUGCTL_FREEZE_LBRS_ON_PMI;

    if (!caps->depth)
        return 0;
    return caps->arch ? freeze : DEBUGCTL_LBR | freeze;
}

void lbr_trim(const struct lbr_caps *caps, struct lbr_snapshot *snap, unsigned n)
{
    unsigned depth = lbr_readable(caps), tos = (unsigned)snap->tos; /* no 64-bit % */

    if (!depth || n == 0)
        return;
    if (n > depth)
        n = depth;
    for (unsigned k = 0; k < depth; k++) {
        if (caps->arch) {
            unsigned src = k + n;
            snap->from[k] = src < depth ? snap->from[src] : 0;
            snap->to[k] = src < depth ? snap->to[src] : 0;
            snap->info[k] = src < depth ? snap->info[src] : 0;
        } else if (k < n) {
            unsigned slot = (tos + depth - k) % depth;
            snap->from[slot] = snap->to[slot] = snap->info[slot] = 0;
        }
    }
    if (!caps->arch)
        snap->tos = (tos + depth - n) % depth;
}

void lbr_snapshot(const struct lbr_caps *caps, struct lbr_snapshot *snap)
{
    unsigned n = lbr_readable(caps);

    snap->tos = caps->arch ? 0 : msr_read(caps->tos_msr);
    for (unsigned i = 0; i < n; i++) {
        snap->from[i] = msr_read(caps->from_msr + i);
        snap->to[i] = caps->to_msr ? msr_read(caps->to_msr + i) : 0;
        snap->info[i] = caps->has_info ? msr_read(caps->info_msr + i) : 0;
    }
}

unsigned lbr_read(const struct lbr_caps *caps, struct lbr_snapshot *snap, struct lbr_entry *out,
                  unsigned max)
{
    if (!caps->depth)
        return 0;
    lbr_snapshot(caps, snap);
    return lbr_decode(caps, snap, out, max);
}
