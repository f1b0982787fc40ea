#include "pt_decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"

int pt_trace_load(const char *dir, const struct session *s, uint32_t cpu, struct pt_cpu_trace *t,
                  struct diag *d)
{
    char name[32];
    memset(t, 0, sizeof *t);
    t->cpu = cpu;
    t->info = &s->pt->per_cpu[cpu];
    snprintf(name, sizeof name, "pt-cpu%" PRIu32 ".bin", cpu);
    char *path = file_join(dir, name);
    if (!path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    char *data;
    int rc = file_read_all(path, &data, &t->size, d);
    free(path);
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
    config->cpu.vendor = pcv_intel;
    config->cpu.family = (uint16_t)s->cpu_family;
    config->cpu.model = (uint8_t)s->cpu_model;
    config->cpu.stepping = (uint8_t)s->cpu_stepping;
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
        if (gap->ip && n >= 0 && (size_t)n < size)
            n += snprintf(buf + n, size - (size_t)n, " after ip 0x%" PRIx64, gap->ip);
        break;
    case PT_GAP_NO_SYNC:
        n = snprintf(buf, size, "gap at offset 0x%" PRIx64 ": no PSB to synchronise on",
                     gap->offset);
        break;
    case PT_GAP_LOST:
        n = snprintf(buf, size,
                     "gap at offset 0x%" PRIx64 ": the target lost %" PRIu64 " bytes of trace here",
                     gap->offset, gap->lost_bytes);
        break;
    case PT_GAP_TRUNCATED:
        n = snprintf(buf, size,
                     "gap at offset 0x%" PRIx64 ": the file ends %" PRIu64
                     " bytes short of what the target sent",
                     gap->offset, gap->lost_bytes);
        break;
    }
    if ((gap->kind == PT_GAP_DECODE || gap->kind == PT_GAP_NO_SYNC) && n >= 0 && (size_t)n < size) {
        if (gap->resynced)
            snprintf(buf + n, size - (size_t)n, ", resynchronised at the PSB at 0x%" PRIx64,
                     gap->resync_offset);
        else
            snprintf(buf + n, size - (size_t)n, ", no PSB after it");
    }
}

/* The instruction and block decoders behind one decode loop. */
struct decoder {
    bool blocks;
    struct pt_insn_decoder *insn;
    struct pt_block_decoder *blk;
    uint64_t base; /* file offset of the segment's first byte */
    uint64_t tsc;  /* time of the last timing update */
    uint64_t ip;   /* the last instruction decoded */
    const struct pt_sink *sink;
};

static int dec_sync(struct decoder *x)
{
    return x->blocks ? pt_blk_sync_forward(x->blk) : pt_insn_sync_forward(x->insn);
}

static uint64_t dec_offset(const struct decoder *x)
{
    uint64_t off = 0;
    if (x->blocks)
        pt_blk_get_offset(x->blk, &off);
    else
        pt_insn_get_offset(x->insn, &off);
    return x->base + off;
}

static uint64_t dec_sync_offset(const struct decoder *x)
{
    uint64_t off = 0;
    if (x->blocks)
        pt_blk_get_sync_offset(x->blk, &off);
    else
        pt_insn_get_sync_offset(x->insn, &off);
    return x->base + off;
}

/* Hands pending events on. Returns libipt's status, or a sink's stop value in *stop. */
static int drain_events(struct decoder *x, int status, int *stop)
{
    while (status & pts_event_pending) {
        struct pt_event ev;
        status = x->blocks ? pt_blk_event(x->blk, &ev, sizeof ev)
                           : pt_insn_event(x->insn, &ev, sizeof ev);
        if (status < 0)
            return status;
        x->tsc = ev.tsc;
        if (x->sink->event && (*stop = x->sink->event(x->sink->ctx, &ev)))
            return status;
    }
    return status;
}

/* One instruction or block. The decoder may fail after producing one; it counts. */
static int dec_next(struct decoder *x, int *stop)
{
    int status;
    if (x->blocks) {
        struct pt_block block;
        block.ninsn = 0;
        status = pt_blk_next(x->blk, &block, sizeof block);
        if (block.ninsn > 0) {
            x->ip = block.end_ip;
            if (x->sink->block)
                *stop = x->sink->block(x->sink->ctx, &block, x->tsc);
        }
    } else {
        struct pt_insn insn;
        insn.iclass = ptic_error;
        status = pt_insn_next(x->insn, &insn, sizeof insn);
        if (insn.iclass != ptic_error) {
            x->ip = insn.ip;
            if (x->sink->insn)
                *stop = x->sink->insn(x->sink->ctx, &insn, x->tsc);
        }
    }
    return status;
}

static int emit_gap(struct decoder *x, struct pt_gap *gap)
{
    return x->sink->gap ? x->sink->gap(x->sink->ctx, gap) : 0;
}

/* Decodes one stretch of trace with no loss inside. The decoder is synchronised; decoding
 * stops at an error, which becomes a gap, and resumes at the next PSB; sync_forward always
 * searches past the last PSB, so every round makes progress. */
static int decode_segment(struct decoder *x, uint64_t size)
{
    struct pt_gap pending = {0};
    bool have_pending = false, first = true;
    uint64_t last_fail = UINT64_MAX;
    int stop = 0;
    for (;;) {
        int status = dec_sync(x);
        if (status < 0) {
            if (status == -pte_eos)
                break;
            /* A PSB+ libipt cannot read: try the next one, unless the search stands still. */
            uint64_t at = dec_offset(x);
            if (!have_pending) {
                pending = (struct pt_gap){.kind = PT_GAP_DECODE,
                                          .offset = at,
                                          .errcode = status,
                                          .ip = x->ip,
                                          .tsc = x->tsc};
                have_pending = true;
            }
            if (at == last_fail)
                break;
            last_fail = at;
            continue;
        }
        uint64_t sync = dec_sync_offset(x);
        if (have_pending) {
            pending.resynced = true;
            pending.resync_offset = sync;
            have_pending = false;
            if ((stop = emit_gap(x, &pending)))
                return stop;
        } else if (first && sync > x->base) {
            struct pt_gap g = {.kind = PT_GAP_NO_SYNC,
                               .offset = x->base,
                               .tsc = x->tsc,
                               .resynced = true,
                               .resync_offset = sync};
            if ((stop = emit_gap(x, &g)))
                return stop;
        }
        first = false;
        for (;;) {
            status = drain_events(x, status, &stop);
            if (stop)
                return stop;
            if (status < 0)
                break;
            if (status & pts_eos) {
                status = -pte_eos;
                break;
            }
            status = dec_next(x, &stop);
            if (stop)
                return stop;
            if (status < 0)
                break;
        }
        if (status == -pte_eos)
            break;
        pending = (struct pt_gap){.kind = PT_GAP_DECODE,
                                  .offset = dec_offset(x),
                                  .errcode = status,
                                  .ip = x->ip,
                                  .tsc = x->tsc};
        have_pending = true;
    }
    if (have_pending)
        return emit_gap(x, &pending);
    if (first && size > 0) {
        struct pt_gap g = {.kind = PT_GAP_NO_SYNC, .offset = x->base, .tsc = x->tsc};
        return emit_gap(x, &g);
    }
    return 0;
}

static int decode_range(struct decoder *x, const struct pt_cpu_trace *t,
                        const struct pt_config *base_config, struct pt_image *image, uint64_t begin,
                        uint64_t end, struct diag *d)
{
    struct pt_config config = *base_config;
    /* libipt wants a buffer even for nothing. */
    static uint8_t empty[1];
    config.begin = t->size ? t->data + begin : empty;
    config.end = t->size ? t->data + end : empty;
    x->base = begin;
    x->insn = NULL;
    x->blk = NULL;
    int err;
    if (x->blocks) {
        x->blk = pt_blk_alloc_decoder(&config);
        err = x->blk ? pt_blk_set_image(x->blk, image) : -pte_nomem;
    } else {
        x->insn = pt_insn_alloc_decoder(&config);
        err = x->insn ? pt_insn_set_image(x->insn, image) : -pte_nomem;
    }
    int rc = err < 0 ? diag_fail(d, DIAG_LIBRARY, "libipt cannot decode CPU %" PRIu32 ": %s",
                                 t->cpu, pt_errstr(pt_errcode(err)))
                     : decode_segment(x, end - begin);
    pt_blk_free_decoder(x->blk);
    pt_insn_free_decoder(x->insn);
    return rc;
}

int pt_decode(const struct pt_cpu_trace *t, const struct pt_config *config, struct pt_image *image,
              bool blocks, const struct pt_sink *sink, struct diag *d)
{
    struct decoder x = {.blocks = blocks, .sink = sink};
    uint64_t begin = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i <= t->info->num_lost; i++) {
        bool last = i == t->info->num_lost;
        uint64_t end = last ? t->size : t->info->lost[i].offset;
        if (end > t->size)
            end = t->size;
        if (begin < end)
            rc = decode_range(&x, t, config, image, begin, end, d);
        if (!rc && !last && t->info->lost[i].offset <= t->size) {
            struct pt_gap g = {.kind = PT_GAP_LOST,
                               .offset = t->info->lost[i].offset,
                               .tsc = x.tsc,
                               .lost_bytes = t->info->lost[i].bytes};
            rc = emit_gap(&x, &g);
        }
        begin = end;
    }
    if (!rc && t->size < t->info->bytes) {
        struct pt_gap g = {.kind = PT_GAP_TRUNCATED,
                           .offset = t->size,
                           .tsc = x.tsc,
                           .lost_bytes = t->info->bytes - t->size};
        rc = emit_gap(&x, &g);
    }
    return rc;
}
