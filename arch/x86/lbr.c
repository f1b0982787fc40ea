/* LBR: enabling, and reading the stack newest first in each record format. */
#include "lbr.h"

#include "msr.h"

/* FROM flag bits of formats 3 and 4, and the INFO bits of formats 5, 7 and Arch LBR. */
#define LBR_BIT_MISPRED       (1ull << 63)
#define LBR_BIT_IN_TX         (1ull << 62)
#define LBR_BIT_ABORT         (1ull << 61)
#define LBR_INFO_CYCLES_VALID (1ull << 60) /* Arch LBR only */
#define LBR_INFO_CYCLES       0xffffull

/* IA32_LBR_CTL: enable, record at CPL 0 and above, every branch type (bits 16-22). */
#define ARCH_LBR_CTL_ALL 0x7f0007ull

int lbr_format_supported(uint8_t format)
{
    return (format >= LBR_FORMAT_LIP && format <= LBR_FORMAT_INFO2) || format == LBR_FORMAT_ARCH;
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
        msr_write(MSR_LBR_CTL, ARCH_LBR_CTL_ALL);
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

unsigned lbr_read(const struct lbr_caps *caps, struct lbr_entry *out, unsigned max)
{
    unsigned n = caps->depth < max ? caps->depth : max, tos = 0, count = 0;

    if (!n)
        return 0;
    /* Model-specific LBRs are a ring whose newest entry is at TOS; Arch LBR keeps the
     * newest at entry 0. */
    if (!caps->arch)
        tos = (unsigned)msr_read(caps->tos_msr) % caps->depth;
    for (unsigned i = 0; i < n; i++) {
        unsigned idx = caps->arch ? i : (tos + caps->depth - i) % caps->depth;
        uint64_t from = msr_read(caps->from_msr + idx);
        uint64_t to = msr_read(caps->to_msr + idx);
        uint64_t info = caps->has_info ? msr_read(caps->info_msr + idx) : 0;

        if (!from && !to)
            break; /* never written since lbr_enable() */
        decode(caps, from, to, info, &out[count++]);
    }
    return count;
}
