/* LBR: enabling, and reading the stack newest first in each record format. */
#include "lbr.h"

#include "msr.h"

/* FROM flag bits of formats 3 and 4, and the INFO bits of formats 5, 7 and Arch LBR. */
#define LBR_BIT_MISPRED       (1ull << 63)
#define LBR_BIT_IN_TX         (1ull << 62)
#define LBR_BIT_ABORT         (1ull << 61)
#define LBR_INFO_CYCLES_VALID (1ull << 60) /* Arch LBR only */
#define LBR_INFO_CYCLES       0xffffull

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

int lbr_format_supported(uint8_t format)
{
    return format <= LBR_FORMAT_INFO2 || format == LBR_FORMAT_ARCH;
}

/* MSR_LBR_SELECT's suppress bits become IA32_LBR_CTL's enable bits: select 0 records
 * every branch at every CPL, as on model-specific LBRs. */
static uint64_t arch_ctl(uint64_t select)
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

/* Addresses are 48-bit canonical; flag bits above are cleared by sign-extending bit 47.
 * (acart runs in 32-bit mode, where every address is a small positive one.) */
static uint64_t canonical(uint64_t addr)
{
    return (addr & (1ull << 47)) ? addr | 0xffff000000000000ull : addr & 0x0000ffffffffffffull;
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
        msr_write(MSR_LBR_CTL, arch_ctl(select));
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

uint64_t lbr_debugctl_bits(const struct lbr_caps *caps)
{
    if (!caps->depth)
        return 0;
    return caps->arch ? DEBUGCTL_FREEZE_LBRS_ON_PMI : DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI;
}

static void decode(const struct lbr_caps *caps, uint64_t from, uint64_t to, uint64_t info,
                   struct lbr_entry *e)
{
    e->flags = 0;
    e->cycles = 0;
    e->reserved = 0;
    switch (caps->format) {
    case LBR_FORMAT_32:
        to = from >> 32;
        from &= 0xffffffffull;
        break;
    case LBR_FORMAT_EIP_FLAGS2:
        if (from & LBR_BIT_IN_TX)
            e->flags |= LBR_FLAG_IN_TX;
        if (from & LBR_BIT_ABORT)
            e->flags |= LBR_FLAG_ABORT;
        /* fall through */
    case LBR_FORMAT_EIP_FLAGS:
        if (from & LBR_BIT_MISPRED)
            e->flags |= LBR_FLAG_MISPRED;
        break;
    case LBR_FORMAT_TIME:
        if (from & LBR_BIT_MISPRED)
            e->flags |= LBR_FLAG_MISPRED;
        e->cycles = (uint16_t)(to >> 48);
        e->flags |= LBR_FLAG_CYCLES;
        break;
    case LBR_FORMAT_INFO:
    case LBR_FORMAT_INFO2:
    case LBR_FORMAT_ARCH:
        if (!caps->has_info)
            break;
        if (info & LBR_BIT_MISPRED)
            e->flags |= LBR_FLAG_MISPRED;
        if (info & LBR_BIT_IN_TX)
            e->flags |= LBR_FLAG_IN_TX;
        if (info & LBR_BIT_ABORT)
            e->flags |= LBR_FLAG_ABORT;
        if (!caps->arch || (info & LBR_INFO_CYCLES_VALID)) {
            e->cycles = (uint16_t)(info & LBR_INFO_CYCLES);
            e->flags |= LBR_FLAG_CYCLES;
        }
        break;
    default:
        break;
    }
    e->from = canonical(from);
    e->to = canonical(to);
}

/* Entries a snapshot holds: the stack's depth, at most LBR_MAX_ENTRIES. */
static unsigned readable(const struct lbr_caps *caps)
{
    unsigned depth = caps->depth;

    return depth > LBR_MAX_ENTRIES ? LBR_MAX_ENTRIES : depth;
}

void lbr_snapshot(const struct lbr_caps *caps, struct lbr_snapshot *snap)
{
    unsigned n = readable(caps);

    snap->tos = caps->arch ? 0 : msr_read(caps->tos_msr);
    for (unsigned i = 0; i < n; i++) {
        snap->from[i] = msr_read(caps->from_msr + i);
        snap->to[i] = caps->to_msr ? msr_read(caps->to_msr + i) : 0;
        snap->info[i] = caps->has_info ? msr_read(caps->info_msr + i) : 0;
    }
}

unsigned lbr_decode(const struct lbr_caps *caps, const struct lbr_snapshot *snap,
                    struct lbr_entry *out, unsigned max)
{
    unsigned depth = readable(caps);
    unsigned n = depth < max ? depth : max, tos = 0, count = 0;

    if (!n)
        return 0;
    /* Model-specific LBRs are a ring whose newest entry is at TOS; Arch LBR keeps the
     * newest at entry 0. */
    if (!caps->arch)
        tos = (unsigned)snap->tos % caps->depth; /* 32-bit: no libgcc division */
    for (unsigned i = 0; i < n; i++) {
        unsigned idx = caps->arch ? i : (tos + caps->depth - i) % caps->depth;

        if (idx >= depth || (!snap->from[idx] && !snap->to[idx]))
            break; /* never written since lbr_enable(), popped, or beyond what we read */
        decode(caps, snap->from[idx], snap->to[idx], snap->info[idx], &out[count++]);
    }
    return count;
}

unsigned lbr_read(const struct lbr_caps *caps, struct lbr_snapshot *snap, struct lbr_entry *out,
                  unsigned max)
{
    if (!caps->depth)
        return 0;
    lbr_snapshot(caps, snap);
    return lbr_decode(caps, snap, out, max);
}
