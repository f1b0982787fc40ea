/* LBR formats: what each CPU's stack looks like (lbr_caps_derive) and how its raw MSR
 * values decode (lbr_decode). No MSR access: the host tools decode SEP records with it too. */
#include "lbr_format.h"

/* FROM flag bits of formats 3 and 4, and the INFO bits of formats 5, 7 and Arch LBR. */
#define LBR_BIT_MISPRED       (1ull << 63)
#define LBR_BIT_IN_TX         (1ull << 62)
#define LBR_BIT_ABORT         (1ull << 61)
#define LBR_INFO_CYCLES_VALID (1ull << 60) /* Arch LBR only */
#define LBR_INFO_CYCLES       0xffffull

int lbr_format_supported(uint8_t format)
{
    return format <= LBR_FORMAT_INFO2 || format == LBR_FORMAT_ARCH;
}

/* CPUID.07H:EDX[19] architectural LBR; CPUID.1CH:EBX[2] call-stack mode. */
#define CPUID7_EDX_ARCH_LBR    (1u << 19)
#define CPUID1C_EBX_CALL_STACK (1u << 2)

static unsigned highest_bit_plus_one(unsigned v)
{
    unsigned n = 0;

    for (; v; v >>= 1)
        n++;
    return n;
}

void lbr_caps_derive(const struct lbr_model *row, uint64_t perf_capabilities, uint32_t leaf7_edx,
                     uint32_t leaf1c_eax, uint32_t leaf1c_ebx, struct lbr_caps *out)
{
    struct lbr_caps none = {0};

    *out = none;
    if (leaf7_edx & CPUID7_EDX_ARCH_LBR) {
        /* Deepest supported depth: bit n of EAX[7:0] allows 8 * (n + 1) entries. */
        unsigned depths = leaf1c_eax & 0xff;

        if (!depths)
            return;
        out->depth = (uint8_t)(8 * highest_bit_plus_one(depths));
        out->format = LBR_FORMAT_ARCH;
        out->arch = 1;
        out->has_info = 1;
        out->from_msr = MSR_ARCH_LBR_FROM_0;
        out->to_msr = MSR_ARCH_LBR_TO_0;
        out->info_msr = MSR_ARCH_LBR_INFO_0;
        out->callstack = (leaf1c_ebx & CPUID1C_EBX_CALL_STACK) != 0;
        return;
    }
    if (!row || !row->depth)
        return;
    /* Without PDCM there is no IA32_PERF_CAPABILITIES and the format is 0 (as Linux). */
    out->format = (uint8_t)(perf_capabilities & 0x3f);
    if (!lbr_format_supported(out->format) || out->format == LBR_FORMAT_ARCH) {
        out->format = 0;
        return;
    }
    out->depth = row->depth;
    out->tos_msr = row->tos;
    out->from_msr = row->from;
    out->to_msr = out->format == LBR_FORMAT_32 ? 0 : row->to;
    out->callstack = row->callstack;
    if (row->has_info && (out->format == LBR_FORMAT_INFO || out->format == LBR_FORMAT_INFO2)) {
        out->has_info = 1;
        out->info_msr = row->info;
    }
}

/* Addresses are 48-bit canonical; flag bits above are cleared by sign-extending bit 47.
 * (acart runs in 32-bit mode, where every address is a small positive one.) */
static uint64_t canonical(uint64_t addr)
{
    return (addr & (1ull << 47)) ? addr | 0xffff000000000000ull : addr & 0x0000ffffffffffffull;
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
unsigned lbr_readable(const struct lbr_caps *caps)
{
    unsigned depth = caps->depth;

    return depth > LBR_MAX_ENTRIES ? LBR_MAX_ENTRIES : depth;
}

unsigned lbr_decode(const struct lbr_caps *caps, const struct lbr_snapshot *snap,
                    struct lbr_entry *out, unsigned max)
{
    unsigned depth = lbr_readable(caps);
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
