#include "pt_path.h"

#include <Zydis/Zydis.h>

#include "array_grow.h"

static int machine_mode(enum pt_exec_mode mode, ZydisDecoder *d)
{
    ZyanStatus s;
    switch (mode) {
    case ptem_64bit:
        s = ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
        break;
    case ptem_32bit:
        s = ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_COMPAT_32, ZYDIS_STACK_WIDTH_32);
        break;
    case ptem_16bit:
        s = ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_COMPAT_16, ZYDIS_STACK_WIDTH_16);
        break;
    default:
        return PT_PATH_UNKNOWN;
    }
    /* Lengths and the raw immediate are all a path needs. */
    if (ZYAN_SUCCESS(s))
        s = ZydisDecoderEnableMode(d, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE);
    return ZYAN_SUCCESS(s) ? 0 : PT_PATH_UNKNOWN;
}

static int add_segment(struct pt_path_segments *segs, uint32_t name, uint32_t ninsn, bool call)
{
    if (array_grow((void **)&segs->at, &segs->cap, segs->num, sizeof *segs->at, 256))
        return DIAG_NOMEM;
    segs->at[segs->num++] = (struct pt_path_segment){.name = name, .ninsn = ninsn, .call = call};
    return 0;
}

/* Where the walk stands: the region of the current segment and the code read around it. */
struct walk {
    const struct pt_code *c;
    const struct pt_block *b;
    struct pt_path_segments *segs;
    size_t region;
    uint64_t region_start, region_last;
    uint32_t ninsn; /* in the current segment */
    uint8_t code[128];
    uint64_t code_ip;
    size_t code_len;
};

static void enter_region(struct walk *w, uint64_t ip)
{
    w->region = pt_code_region(w->c, ip);
    w->region_start = pt_code_region_start(w->c, w->region);
    w->region_last = pt_code_region_last(w->c, w->region);
}

/* Counts the instruction at ip in the current segment, which closes first where ip lies in
 * another region (code running on into the next function). */
static int count_insn(struct walk *w, uint64_t ip)
{
    if (ip < w->region_start || ip > w->region_last) {
        if (w->ninsn) {
            int rc = add_segment(w->segs, w->c->region_names[w->region], w->ninsn, false);
            if (rc)
                return rc;
        }
        enter_region(w, ip);
        w->ninsn = 0;
    }
    w->ninsn++;
    return 0;
}

/* The instruction at ip, from the block's section. */
static int decode_at(struct walk *w, const ZydisDecoder *d, uint64_t ip,
                     ZydisDecodedInstruction *insn)
{
    if (ip < w->code_ip || ip - w->code_ip + ZYDIS_MAX_INSTRUCTION_LENGTH > w->code_len) {
        int n = pt_iscache_read(w->c->iscache, w->code, sizeof w->code, w->b->isid, ip);
        if (n <= 0)
            return PT_PATH_UNKNOWN;
        w->code_ip = ip;
        w->code_len = (size_t)n;
    }
    size_t at = (size_t)(ip - w->code_ip);
    if (at >= w->code_len ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(d, NULL, w->code + at, w->code_len - at, insn)))
        return PT_PATH_UNKNOWN;
    return 0;
}

/* Direct calls one path follows at most. More, in a block of at most 65535 instructions
 * with no branch that reads trace, is a loop of direct calls (code calling itself with no
 * way out, a wrong image): blocks that end at calls let the decode's loop watch show it
 * as the gap it is, after one turn, instead of thousands of calls. */
#define PATH_MAX_CALLS 256

int pt_path_walk(const struct pt_code *c, const struct pt_block *b, struct pt_path_segments *segs)
{
    ZydisDecoder d;
    if (!c->iscache || !b->ninsn || machine_mode(b->mode, &d))
        return PT_PATH_UNKNOWN;
    struct walk w = {.c = c, .b = b, .segs = segs};
    size_t first = segs->num;
    enter_region(&w, b->ip);
    uint64_t ip = b->ip;
    unsigned calls = 0;
    int rc = 0;
    /* The last instruction is where the block says; only those before it are read. */
    for (uint32_t i = 1; i < b->ninsn && !rc; i++) {
        ZydisDecodedInstruction insn;
        if ((rc = count_insn(&w, ip)) || (rc = decode_at(&w, &d, ip, &insn)))
            break;
        uint64_t next = ip + insn.length;
        if (insn.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && insn.opcode == 0xe8) {
            /* A direct near call, which libipt follows within the block. */
            next += (uint64_t)insn.raw.imm[0].value.s;
            rc = ++calls > PATH_MAX_CALLS
                     ? PT_PATH_UNKNOWN
                     : add_segment(segs, c->region_names[w.region], w.ninsn, true);
            w.ninsn = 0;
        }
        ip = next;
    }
    if (!rc && ip != b->end_ip)
        rc = PT_PATH_UNKNOWN;
    if (!rc && !(rc = count_insn(&w, ip)))
        rc = add_segment(segs, c->region_names[w.region], w.ninsn, false);
    if (rc)
        segs->num = first;
    return rc;
}
