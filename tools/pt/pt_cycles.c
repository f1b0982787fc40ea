#include "pt_cycles.h"

#include <stdlib.h>
#include <string.h>

/* One stretch [begin, end) of the file, from PSB to PSB. */
static void scan_stretch(const struct pt_cpu_trace *t, const struct pt_config *config,
                         uint64_t begin, uint64_t end, struct pt_timing *timing, uint8_t *counted)
{
    struct pt_config c = *config;
    c.begin = t->data + begin;
    c.end = t->data + end;
    struct pt_packet_decoder *pkt = pt_pkt_alloc_decoder(&c);
    if (!pkt)
        return;
    uint64_t last_sync = 0;
    bool synced = false;
    while (pt_pkt_sync_forward(pkt) >= 0) {
        uint64_t sync;
        /* Each search starts past the last PSB; never go round again for safety's sake. */
        if (pt_pkt_get_sync_offset(pkt, &sync) < 0 || (synced && sync <= last_sync))
            break;
        last_sync = sync;
        synced = true;
        for (;;) {
            uint64_t off;
            struct pt_packet p;
            if (pt_pkt_get_offset(pkt, &off) < 0 || pt_pkt_next(pkt, &p, sizeof p) < 0)
                break;
            uint8_t *at = counted ? counted + begin + off : NULL;
            switch (p.type) {
            case ppt_cyc:
                timing->cyc_packets++;
                timing->cyc_cycles += p.payload.cyc.value;
                break;
            case ppt_tsc:
                timing->tsc_packets++;
                break;
            case ppt_mtc:
                timing->mtc_packets++;
                break;
            case ppt_cbr:
                timing->cbr_packets++;
                break;
            default:
                break;
            }
            if (!at)
                continue;
            /* PAD (0x00) may stand anywhere, PSB+ included. A CBR packet is 02 03 RATIO 00. */
            if (p.type == ppt_tsc || p.type == ppt_mtc || p.type == ppt_tma)
                memset(at, 0, p.size);
            else if (p.type == ppt_cbr)
                at[2] = 1;
        }
    }
    pt_pkt_free_decoder(pkt);
}

void pt_timing_scan(const struct pt_cpu_trace *t, const struct pt_config *config,
                    struct pt_timing *timing, uint8_t *counted)
{
    memset(timing, 0, sizeof *timing);
    if (counted)
        memcpy(counted, t->data, t->size);
    /* Cut where pt_decode cuts: at every place the target lost bytes. */
    uint64_t begin = 0;
    for (size_t i = 0; i <= t->info->num_lost; i++) {
        uint64_t end = i == t->info->num_lost ? t->size : t->info->lost[i].offset;
        if (end > t->size)
            end = t->size;
        if (begin < end)
            scan_stretch(t, config, begin, end, timing, counted);
        begin = end;
    }
}

/* Marks what f's functions' numbers are worth, now that the source of cycles is known. */
static void mark_functions(struct pt_flow *f)
{
    for (size_t i = 0; i < f->code->num_names; i++) {
        struct pt_function_stats *s = &f->functions[i];
        if (!s->self_insns)
            continue;
        s->time_unknown = !f->timed;
        s->cycles_estimated = !f->cycles_counted;
        /* Counted: none of its instructions ran where CYC packets could be counted, if
         * some could not. */
        if (f->cycles_counted)
            s->cycles_unknown = f->uncounted_cyc && s->self_cycles == 0;
        else if (!f->timed)
            s->cycles_unknown = true;
    }
}

/* decode_once's answer where a block ran through more than one region of the code (the
 * regions in f->crossed). Positive, unlike every diag code. */
#define PT_FLOW_CROSSED 1

static bool crossed(const struct pt_flow *f)
{
    return f->num_crossed || f->crossed_overflow;
}

/* One try at decoding t into f (and at counting its cycles): 0, a diag code, or
 * PT_FLOW_CROSSED. */
static int decode_once(struct pt_flow *f, const struct pt_cpu_trace *t,
                       const struct pt_config *config, struct pt_image *image, bool count_cycles,
                       struct diag *d)
{
    struct pt_sink sink;
    pt_flow_sink(f, &sink);
    int rc = pt_decode(t, config, image, true, &sink, d);
    if (!rc && crossed(f))
        return PT_FLOW_CROSSED;
    pt_flow_finish(f);
    uint8_t *counted = count_cycles && t->size ? malloc(t->size) : NULL;
    if (!rc && count_cycles && t->size && !counted)
        rc = DIAG_NOMEM;
    if (rc) {
        free(counted);
        return rc;
    }
    /* The scan is a pass over every packet: skipped where nothing reads it. */
    if (count_cycles || !f->timed)
        pt_timing_scan(t, config, &f->timing, counted);
    if (counted && f->timing.cyc_packets) {
        struct pt_cpu_trace ct = *t;
        struct pt_config cc = *config;
        struct pt_flow cf;
        ct.data = counted;
        cc.nom_freq = 1;
        rc = pt_flow_init(&cf, f->code, f->cpu, 1);
        cf.closed.drop = true;
        cf.time_only = true; /* only its functions' shares of time are read */
        if (!rc) {
            pt_flow_sink(&cf, &sink);
            rc = pt_decode(&ct, &cc, image, true, &sink, d);
            pt_flow_finish(&cf);
        }
        if (!rc && crossed(&cf)) {
            /* Its blocks end at other places (where cycles, not time, moved). */
            free(f->crossed);
            f->crossed = cf.crossed;
            f->num_crossed = cf.num_crossed;
            f->crossed_cap = cf.crossed_cap;
            f->crossed_overflow = cf.crossed_overflow;
            cf.crossed = NULL;
            rc = PT_FLOW_CROSSED;
        } else if (!rc) {
            for (size_t i = 0; i < f->code->num_names; i++)
                f->functions[i].self_cycles = cf.functions[i].self_ticks;
            f->cycles_counted = true;
            f->counted_cycles = cf.shared_ticks;
            f->uncounted_cyc = cf.lost_cyc;
        }
        pt_flow_free(&cf);
    }
    free(counted);
    if (!rc)
        mark_functions(f);
    return rc;
}

/* Decodes on an image cut where blocks ran on before it is cut everywhere, where no block
 * can: each decode finds every such place its blocks show, so one is the rule. */
#define MAX_TARGETED_CUTS 4

int pt_flow_decode(struct pt_flow *f, const struct pt_cpu_trace *t, const struct pt_config *config,
                   struct pt_code *code, bool count_cycles, struct diag *d)
{
    for (int tries = 0;; tries++) {
        int rc = decode_once(f, t, config, code->image, count_cycles, d);
        if (rc != PT_FLOW_CROSSED)
            return rc;
        /* The trace is decoded again on the image cut where blocks ran on: a block
         * decoder cannot go back. Such places are rare (code running into the next
         * symbol), so this costs a decode more where a trace has them, not one a call. */
        rc = tries < MAX_TARGETED_CUTS && !f->crossed_overflow
                 ? pt_code_cut(code, f->crossed, f->num_crossed, d)
                 : pt_code_cut_everywhere(code, d);
        struct pt_closed_calls closed = f->closed;
        uint32_t cpu = f->cpu, nom_freq = f->nom_freq;
        pt_flow_free(f);
        if (!rc && (rc = pt_flow_init(f, code, cpu, nom_freq)) != 0)
            rc = DIAG_NOMEM;
        f->closed = closed;
        if (rc)
            return rc;
    }
}
