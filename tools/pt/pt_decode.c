#include "pt_decode.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"

int pt_trace_load(const char *dir, const struct session *s, uint32_t cpu, struct pt_cpu_trace *t,
                  struct diag *d)
{
    char name[32];
    snprintf(name, sizeof name, "pt-cpu%" PRIu32 ".bin", cpu);
    char *path = file_join(dir, name);
    if (!path) {
        memset(t, 0, sizeof *t);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    int rc = pt_trace_load_file(path, s, cpu, t, d);
    free(path);
    return rc;
}

int pt_trace_load_file(const char *path, const struct session *s, uint32_t cpu,
                       struct pt_cpu_trace *t, struct diag *d)
{
    memset(t, 0, sizeof *t);
    t->cpu = cpu;
    t->info = &s->pt->per_cpu[cpu];
    char *data;
    int rc = file_read_all(path, &data, &t->size, d);
    if (!rc)
        t->data = (uint8_t *)data;
    return rc;
}

void pt_trace_free(struct pt_cpu_trace *t)
{
    free(t->data);
    t->data = NULL;
}

void pt_decode_config(const struct session *s, struct pt_config *config)
{
    const struct session_pt *pt = s->pt;
    pt_config_init(config);
    /* Family 0: no CPU given (`--cpu-model none`): libipt decodes by the specification,
     * with no errata, as ptxed does with `--cpu none`. */
    if (s->cpu_family) {
        config->cpu.vendor = pcv_intel;
        config->cpu.family = (uint16_t)s->cpu_family;
        config->cpu.model = (uint8_t)s->cpu_model;
        config->cpu.stepping = (uint8_t)s->cpu_stepping;
    }
    /* A CPU libipt does not know has no errata it knows of. */
    if (pt_cpu_errata(&config->errata, &config->cpu) < 0)
        memset(&config->errata, 0, sizeof config->errata);
    config->cpuid_0x15_eax = pt->cpuid_15_eax;
    config->cpuid_0x15_ebx = pt->cpuid_15_ebx;
    config->mtc_freq = (uint8_t)pt->mtc_freq;
    config->nom_freq = (uint8_t)pt->nom_freq;
    /* Time at every branch that has some, not only at events: calls and functions need it. */
    config->flags.variant.insn.enable_tick_events = 1;
    /* IA32_RTIT_CTL.ADDRn_CFG, 4 bits each from bit 32. */
    config->addr_filter.config.addr_cfg = (pt->rtit_ctl >> 32) & 0xffff;
    uint64_t *bounds[SESSION_PT_MAX_FILTERS][2] = {
        {&config->addr_filter.addr0_a, &config->addr_filter.addr0_b},
        {&config->addr_filter.addr1_a, &config->addr_filter.addr1_b},
        {&config->addr_filter.addr2_a, &config->addr_filter.addr2_b},
        {&config->addr_filter.addr3_a, &config->addr_filter.addr3_b},
    };
    for (size_t i = 0; i < pt->num_filters; i++) {
        *bounds[i][0] = pt->filters[i].start;
        *bounds[i][1] = pt->filters[i].end;
    }
}

static const char *const error_names[] = {
    "pte_ok",
    "pte_internal",
    "pte_invalid",
    "pte_nosync",
    "pte_bad_opc",
    "pte_bad_packet",
    "pte_bad_context",
    "pte_eos",
    "pte_bad_query",
    "pte_nomem",
    "pte_bad_config",
    "pte_noip",
    "pte_ip_suppressed",
    "pte_nomap",
    "pte_bad_insn",
    "pte_no_time",
    "pte_no_cbr",
    "pte_bad_image",
    "pte_bad_lock",
    "pte_not_supported",
    "pte_retstack_empty",
    "pte_bad_retcomp",
    "pte_bad_status_update",
    "pte_no_enable",
    "pte_event_ignored",
    "pte_overflow",
    "pte_bad_file",
    "pte_bad_cpu",
};

const char *pt_error_name(int errcode)
{
    size_t code = (size_t)pt_errcode(errcode);
    return code < sizeof error_names / sizeof error_names[0] ? error_names[code] : "pte_unknown";
}

void pt_gap_describe(const struct pt_gap *gap, char *buf, size_t size)
{
    int n = 0;
    switch (gap->kind) {
    case PT_GAP_DECODE:
        n = snprintf(buf, size, "gap at offset 0x%" PRIx64 ": %s (%s)", gap->offset,
                     pt_error_name(gap->errcode), pt_errstr(pt_errcode(gap->errcode)));
        /* What the user must add to the image is the address the decoder went to, not
         * the instruction it came from. */
        if (gap->has_unmapped && n >= 0 && (size_t)n < size)
            n += snprintf(buf + n, size - (size_t)n,
                          ": 0x%" PRIx64 " is in no image given (--elf, --raw)", gap->unmapped);
        if (gap->ip && n >= 0 && (size_t)n < size)
            n += snprintf(buf + n, size - (size_t)n, " after ip 0x%" PRIx64, gap->ip);
        break;
    case PT_GAP_NO_SYNC:
        n = snprintf(buf, size, "gap at offset 0x%" PRIx64 ": no PSB to synchronise on",
                     gap->offset);
        break;
    case PT_GAP_LOST:
        /* 0: the trace unit stopped at a full ring, so what it would have written is not
         * known (docs/pt.md); never print it as "0 bytes". */
        if (gap->lost_bytes)
            n = snprintf(buf, size,
                         "gap at offset 0x%" PRIx64 ": the target lost at least %" PRIu64
                         " bytes of trace here",
                         gap->offset, gap->lost_bytes);
        else
            n = snprintf(buf, size,
                         "gap at offset 0x%" PRIx64 ": the target lost trace here (how many "
                         "bytes is not known: its trace unit stopped at a full buffer)",
                         gap->offset);
        break;
    case PT_GAP_LOOP:
        n = snprintf(buf, size,
                     "gap at offset 0x%" PRIx64 ": a loop of direct branches through ip 0x%" PRIx64
                     " (it needs no trace, so how often it ran and what ended it are not known)",
                     gap->offset, gap->ip);
        break;
    case PT_GAP_TRUNCATED:
        n = snprintf(buf, size,
                     "gap at offset 0x%" PRIx64 ": the file ends %" PRIu64
                     " bytes short of what the target sent",
                     gap->offset, gap->lost_bytes);
        break;
    }
    if ((gap->kind == PT_GAP_DECODE || gap->kind == PT_GAP_NO_SYNC || gap->kind == PT_GAP_LOOP) &&
        n >= 0 && (size_t)n < size) {
        if (gap->resynced)
            snprintf(buf + n, size - (size_t)n, ", resynchronised at the PSB at 0x%" PRIx64,
                     gap->resync_offset);
        else
            snprintf(buf + n, size - (size_t)n, ", no PSB after it");
    }
}

/* What every stretch of one CPU's decode shares. */
struct run {
    const struct pt_cpu_trace *t;
    const struct pt_config *config;
    struct pt_image *image;
    const struct pt_sink *sink;
    struct diag *d;
    bool blocks;
    uint64_t tsc;       /* time of the last timing update */
    uint64_t ip;        /* the last instruction decoded */
    uint64_t delivered; /* instructions, blocks and events handed to the sink */
    /* Where the decoder last failed with pte_nomap: the IP it could not read. */
    bool has_unmapped;
    uint64_t unmapped;
    uint64_t reported; /* the position the sink was last told of */
};

/* Tells the sink where the decoder stands, where it moved since the sink was last told:
 * most blocks come from TNT bits read before. */
static inline int report_position(struct run *r, uint64_t offset)
{
    if (!r->sink->position || offset == r->reported)
        return 0;
    r->reported = offset;
    return r->sink->position(r->sink->ctx, offset, false);
}

/* The instruction or block decoder over one stretch [base, end) of the file. */
struct loop_watch;

struct decoder {
    struct run *r;
    struct pt_insn_decoder *insn;
    struct pt_block_decoder *blk;
    uint64_t base, end;
    struct loop_watch *watch;
};

static int dec_sync(struct decoder *x)
{
    return x->r->blocks ? pt_blk_sync_forward(x->blk) : pt_insn_sync_forward(x->insn);
}

static uint64_t dec_offset(const struct decoder *x)
{
    uint64_t off = 0;
    if (x->r->blocks)
        pt_blk_get_offset(x->blk, &off);
    else
        pt_insn_get_offset(x->insn, &off);
    return x->base + off;
}

static uint64_t dec_sync_offset(const struct decoder *x)
{
    uint64_t off = 0;
    if (x->r->blocks)
        pt_blk_get_sync_offset(x->blk, &off);
    else
        pt_insn_get_sync_offset(x->insn, &off);
    return x->base + off;
}

static void loop_watch_reset(struct loop_watch *w, uint64_t offset);

/* Hands pending events on. Returns libipt's status, or a sink's stop value in *stop. */
static int drain_events(struct decoder *x, int status, int *stop)
{
    struct run *r = x->r;
    while (status & pts_event_pending) {
        struct pt_event ev;
        status = r->blocks ? pt_blk_event(x->blk, &ev, sizeof ev)
                           : pt_insn_event(x->insn, &ev, sizeof ev);
        if (status < 0)
            return status;
        r->tsc = ev.tsc;
        r->delivered++;
        uint64_t offset = dec_offset(x);
        loop_watch_reset(x->watch, offset); /* an event read from the trace */
        if ((*stop = report_position(r, offset)))
            return status;
        if (r->sink->event && (*stop = r->sink->event(r->sink->ctx, &ev)))
            return status;
    }
    return status;
}

/* A run of instructions that read no trace is a function of the IP alone, so coming back
 * to an IP within one means a loop of direct branches, which libipt would decode for ever:
 * what ended it (an interrupt's FUP, a TIP.PGD) is in packets it never reaches. Linux perf's
 * decoder guards the same way. The run's IPs go into a set, found again at their first
 * repeat, so the loop is shown once; a run too long for the set falls back to Brent's cycle
 * detection, which still ends within twice the run. An IP is an instruction's, or a block's
 * last instruction's (a block ends at every jump, and at every call unless blocks run
 * through calls: libipt then ends one after 65535 instructions, so a loop of calls shows in
 * the blocks' last IPs too). */
#define LOOP_SET_SLOTS 1024u /* a power of two */
struct loop_watch {
    uint64_t offset;     /* the decoder's position in the trace when the run began */
    uint64_t first;      /* the run's first IP, kept out of the set until a second comes */
    uint32_t generation; /* slots of older runs do not count */
    uint32_t in_set;
    bool has_first;
    struct {
        uint64_t ip;
        uint32_t generation;
    } set[LOOP_SET_SLOTS];
    uint64_t mark, power, steps; /* Brent's tortoise, once the set is full */
};

/* Called for nearly every block: Brent's state is set only when the set fills (most runs
 * are a few blocks and never get there). */
static void loop_watch_reset(struct loop_watch *w, uint64_t offset)
{
    w->offset = offset;
    w->has_first = false;
}

static bool loop_watch_insert(struct loop_watch *w, uint64_t ip)
{
    if (w->in_set < LOOP_SET_SLOTS / 4 * 3) {
        uint32_t k = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 40) & (LOOP_SET_SLOTS - 1);
        for (;; k = (k + 1) & (LOOP_SET_SLOTS - 1)) {
            if (w->set[k].generation != w->generation) {
                w->set[k].ip = ip;
                w->set[k].generation = w->generation;
                if (++w->in_set == LOOP_SET_SLOTS / 4 * 3) { /* full: Brent's from here */
                    w->mark = UINT64_MAX;
                    w->power = 1;
                    w->steps = 0;
                }
                return false;
            }
            if (w->set[k].ip == ip)
                return true;
        }
    }
    if (ip == w->mark)
        return true;
    if (++w->steps == w->power) {
        w->mark = ip;
        w->power *= 2;
        w->steps = 0;
    }
    return false;
}

/* Most runs are one block (a direct call, then a block that reads trace): the set is
 * started only for a run's second IP. */
static bool loop_watch_add(struct loop_watch *w, uint64_t ip)
{
    if (!w->has_first) {
        w->has_first = true;
        w->first = ip;
        w->generation++;
        w->in_set = 0;
        return false;
    }
    if (w->in_set == 0)
        loop_watch_insert(w, w->first); /* into an empty set: never a repeat */
    return loop_watch_insert(w, ip);
}

/* Called for every block: the common case (the decoder read trace) takes no call. */
static inline bool loop_watch_step(struct loop_watch *w, uint64_t offset, uint64_t ip,
                                   bool no_trace)
{
    if (!no_trace || offset != w->offset) {
        loop_watch_reset(w, offset);
        return false;
    }
    return loop_watch_add(w, ip);
}

/* An instruction (a block's last) whose successor the image alone decides when it is a
 * direct branch: it reads no TNT bit and no TIP. libipt's classes do not tell a direct call
 * or jump from an indirect one, but an indirect one moves the decoder in the trace. */
static bool needs_no_trace(enum pt_insn_class iclass)
{
    return iclass == ptic_other || iclass == ptic_call || iclass == ptic_jump;
}

/* One instruction or block, handed on unless it closes a loop (*looped). The decoder may
 * fail after producing one; it counts. */
static int dec_next(struct decoder *x, struct loop_watch *watch, int *stop, bool *looped)
{
    struct run *r = x->r;
    int status;
    if (r->blocks) {
        struct pt_block block;
        block.ninsn = 0;
        status = pt_blk_next(x->blk, &block, sizeof block);
        /* A block never crosses a section, so an address outside the image is where a
         * block starts: libipt leaves it in the empty block. */
        if (status == -pte_nomap && block.ninsn == 0) {
            r->has_unmapped = true;
            r->unmapped = block.ip;
        }
        if (block.ninsn > 0) {
            uint64_t offset = dec_offset(x);
            if ((*looped =
                     loop_watch_step(watch, offset, block.end_ip, needs_no_trace(block.iclass))))
                return status;
            r->ip = block.end_ip;
            r->delivered++;
            if ((*stop = report_position(r, offset)))
                return status;
            if (r->sink->block)
                *stop = r->sink->block(r->sink->ctx, &block, r->tsc);
        }
    } else {
        struct pt_insn insn;
        insn.iclass = ptic_error;
        status = pt_insn_next(x->insn, &insn, sizeof insn);
        /* libipt leaves the IP it could not read in the failed instruction. */
        if (status == -pte_nomap) {
            r->has_unmapped = true;
            r->unmapped = insn.ip;
        }
        if (insn.iclass != ptic_error) {
            uint64_t offset = dec_offset(x);
            if ((*looped = loop_watch_step(watch, offset, insn.ip, needs_no_trace(insn.iclass))))
                return status;
            r->ip = insn.ip;
            r->delivered++;
            if ((*stop = report_position(r, offset)))
                return status;
            if (r->sink->insn)
                *stop = r->sink->insn(r->sink->ctx, &insn, r->tsc);
        }
    }
    return status;
}

static int emit_gap(struct run *r, struct pt_gap *gap)
{
    return r->sink->gap ? r->sink->gap(r->sink->ctx, gap) : 0;
}

static int decode_stretch(struct run *r, uint64_t begin, uint64_t end, bool prefix);

static const uint8_t psb_bytes[16] = {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
                                      0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82};

/* The first PSB in [from, end) of the file, or end. */
static uint64_t psb_after(const struct pt_cpu_trace *t, uint64_t from, uint64_t end)
{
    for (uint64_t p = from; p + sizeof psb_bytes <= end; p++)
        if (memcmp(t->data + p, psb_bytes, sizeof psb_bytes) == 0)
            return p;
    return end;
}

/* Where libipt's synchronisation on the PSB at psb failed: the first packet from there
 * that the packet decoder cannot read (its error in *errcode), else the decoder's own
 * position, which a failed synchronisation leaves where the search began. */
static uint64_t sync_failure(const struct decoder *x, uint64_t psb, int *errcode)
{
    struct pt_config config = *x->r->config;
    config.begin = x->r->t->data + x->base;
    config.end = x->r->t->data + x->end;
    struct pt_packet_decoder *pkt = pt_pkt_alloc_decoder(&config);
    uint64_t at = dec_offset(x), off;
    if (at < psb)
        at = psb;
    if (pkt && pt_pkt_sync_set(pkt, psb - x->base) == 0) {
        struct pt_packet packet;
        int rc;
        while ((rc = pt_pkt_next(pkt, &packet, sizeof packet)) >= 0)
            ;
        if (rc != -pte_eos && pt_pkt_get_offset(pkt, &off) == 0) {
            at = x->base + off;
            *errcode = rc;
        }
    }
    pt_pkt_free_decoder(pkt);
    return at;
}

/* Follows the trace from PSB to PSB. Decoding stops at an error, which becomes a gap, and
 * resumes at the next PSB: sync_forward searches past the last PSB, so every round makes
 * progress. libipt reads ahead past the PSB+ and the event after it, so a bad packet soon
 * after a PSB fails the first event before anything is decoded; the trace between that
 * PSB and the bad packet is then decoded on its own, where it ends cleanly before the bad
 * packet. A prefix stretch is such a piece: it reports no gap of its own for where it
 * ends. (A bad packet that fails the synchronisation itself leaves nothing before it to
 * decode: a PSB+ alone.) */
static int decode_segment(struct decoder *x, bool prefix)
{
    struct run *r = x->r;
    struct pt_gap pending = {0};
    bool have_pending = false, first = true;
    uint64_t last_fail = UINT64_MAX, search = x->base;
    int stop = 0;
    for (;;) {
        int status = dec_sync(x);
        if (status < 0) {
            if (status == -pte_eos)
                break;
            uint64_t psb = psb_after(r->t, search, x->end);
            uint64_t at = sync_failure(x, psb, &status);
            if (!have_pending) {
                pending = (struct pt_gap){.kind = PT_GAP_DECODE,
                                          .offset = at,
                                          .errcode = status,
                                          .ip = r->ip,
                                          .tsc = r->tsc};
                have_pending = true;
            }
            /* The next search starts past this PSB, unless libipt stands still. */
            if (at == last_fail || psb == x->end || prefix)
                break;
            last_fail = at;
            search = psb + 1;
            continue;
        }
        uint64_t sync = dec_sync_offset(x), delivered = r->delivered;
        search = sync + 1;
        r->reported = sync;
        if (r->sink->position && (stop = r->sink->position(r->sink->ctx, sync, true)))
            return stop;
        if (have_pending) {
            pending.resynced = true;
            pending.resync_offset = sync;
            have_pending = false;
            if ((stop = emit_gap(r, &pending)))
                return stop;
        } else if (first && sync > x->base) {
            struct pt_gap g = {.kind = PT_GAP_NO_SYNC,
                               .offset = x->base,
                               .tsc = r->tsc,
                               .resynced = true,
                               .resync_offset = sync};
            if ((stop = emit_gap(r, &g)))
                return stop;
        }
        first = false;
        loop_watch_reset(x->watch, dec_offset(x));
        bool looping = false;
        for (;;) {
            status = drain_events(x, status, &stop);
            if (stop)
                return stop;
            if (status < 0)
                break;
            /* The end of the trace: what the CPU did after its last packet is unknown,
             * even the instructions that would need no trace (an interrupt or the end
             * of tracing would have come first). */
            if (status & pts_eos) {
                /* The end of the file, not of a piece before lost or bad bytes. */
                if (!(status & pts_ip_suppressed) && !prefix && x->end == r->t->size &&
                    r->sink->end && (stop = r->sink->end(r->sink->ctx, r->tsc)))
                    return stop;
                status = -pte_eos;
                break;
            }
            status = dec_next(x, x->watch, &stop, &looping);
            if (stop)
                return stop;
            if (status < 0 || looping)
                break;
        }
        if (status == -pte_eos)
            break;
        uint64_t at = dec_offset(x);
        if (!prefix && r->delivered == delivered && sync < at &&
            (stop = decode_stretch(r, sync, at, true)))
            return stop;
        pending = (struct pt_gap){.kind = looping ? PT_GAP_LOOP : PT_GAP_DECODE,
                                  .offset = at,
                                  .errcode = looping ? 0 : status,
                                  .ip = r->ip,
                                  .tsc = r->tsc};
        if (!looping && status == -pte_nomap && r->has_unmapped) {
            pending.has_unmapped = true;
            pending.unmapped = r->unmapped;
        }
        r->has_unmapped = false;
        have_pending = true;
    }
    if (prefix)
        return 0;
    if (have_pending)
        return emit_gap(r, &pending);
    /* A stretch with no PSB at all cannot be decoded; one whose PSBs lead nowhere (no IP
     * after them) holds nothing to decode, as for libipt. */
    if (first && psb_after(r->t, x->base, x->end) == x->end) {
        struct pt_gap g = {.kind = PT_GAP_NO_SYNC, .offset = x->base, .tsc = r->tsc};
        return emit_gap(r, &g);
    }
    return 0;
}

static int decode_stretch(struct run *r, uint64_t begin, uint64_t end, bool prefix)
{
    struct pt_config config = *r->config;
    struct decoder x = {.r = r, .base = begin, .end = end, .watch = calloc(1, sizeof *x.watch)};
    config.begin = r->t->data + begin;
    config.end = r->t->data + end;
    if (r->blocks) {
        /* The flags are a union per decoder. A block ends at every jump: libipt's block
         * decoder follows direct jumps while filling its cache and recurses without end on
         * a loop of them (a stack overflow). And at every call, unless the sink follows
         * blocks through calls. */
        memset(&config.flags, 0, sizeof config.flags);
        config.flags.variant.block.enable_tick_events = 1;
        config.flags.variant.block.end_on_call = !r->sink->through_calls;
        config.flags.variant.block.end_on_jump = 1;
    }
    int err;
    if (!x.watch) {
        err = -pte_nomem;
    } else if (r->blocks) {
        x.blk = pt_blk_alloc_decoder(&config);
        err = x.blk ? pt_blk_set_image(x.blk, r->image) : -pte_nomem;
    } else {
        x.insn = pt_insn_alloc_decoder(&config);
        err = x.insn ? pt_insn_set_image(x.insn, r->image) : -pte_nomem;
    }
    int rc = err < 0 ? diag_fail(r->d, DIAG_LIBRARY, "libipt cannot decode CPU %" PRIu32 ": %s",
                                 r->t->cpu, pt_errstr(pt_errcode(err)))
             : r->sink->stretch ? r->sink->stretch(r->sink->ctx, begin, end)
                                : 0;
    if (!rc)
        rc = decode_segment(&x, prefix);
    pt_blk_free_decoder(x.blk);
    pt_insn_free_decoder(x.insn);
    free(x.watch);
    return rc;
}

/* Every stretch of r's trace between the places the target lost trace, and those gaps. */
static int decode_all(struct run *r)
{
    const struct pt_cpu_trace *t = r->t;
    uint64_t begin = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i <= t->info->num_lost; i++) {
        bool last = i == t->info->num_lost;
        uint64_t end = last ? t->size : t->info->lost[i].offset;
        if (end > t->size)
            end = t->size;
        if (begin < end)
            rc = decode_stretch(r, begin, end, false);
        if (!rc && !last && t->info->lost[i].offset <= t->size) {
            struct pt_gap g = {.kind = PT_GAP_LOST,
                               .offset = t->info->lost[i].offset,
                               .tsc = r->tsc,
                               .lost_bytes = t->info->lost[i].bytes};
            rc = emit_gap(r, &g);
        }
        begin = end;
    }
    if (!rc && t->size < t->info->bytes) {
        struct pt_gap g = {.kind = PT_GAP_TRUNCATED,
                           .offset = t->size,
                           .tsc = r->tsc,
                           .lost_bytes = t->info->bytes - t->size};
        rc = emit_gap(r, &g);
    }
    return rc;
}

/* libipt's block decoder calls itself once for every direct call it follows within a block
 * (pt_blk_proceed_no_event_cached), about 210 bytes a call: a block of 65535 instructions
 * that are all direct calls (a loop of them, tests/pt/traces/callloop.ptt) goes some 14 MB
 * deep, past a default 8 MB stack. Where blocks run through calls the decode runs on a
 * thread of its own whose stack has room for that, while the caller waits. */
#define THROUGH_CALLS_STACK (64u << 20)

struct decode_job {
    struct run *r;
    int rc;
};

static void *decode_job(void *arg)
{
    struct decode_job *j = arg;
    j->rc = decode_all(j->r);
    return NULL;
}

int pt_decode(const struct pt_cpu_trace *t, const struct pt_config *config, struct pt_image *image,
              bool blocks, const struct pt_sink *sink, struct diag *d)
{
    struct run r = {
        .t = t, .config = config, .image = image, .sink = sink, .d = d, .blocks = blocks};
    if (!blocks || !sink->through_calls)
        return decode_all(&r);
    struct decode_job job = {.r = &r};
    pthread_attr_t attr;
    pthread_t thread;
    int err = pthread_attr_init(&attr);
    if (!err) {
        err = pthread_attr_setstacksize(&attr, THROUGH_CALLS_STACK);
        if (!err)
            err = pthread_create(&thread, &attr, decode_job, &job);
        pthread_attr_destroy(&attr);
    }
    if (err)
        return diag_fail(d, DIAG_LIBRARY, "cannot start the decode of CPU %" PRIu32 ": %s", t->cpu,
                         strerror(err));
    pthread_join(thread, NULL);
    return job.rc;
}
