#include "pt_cycles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One stretch [begin, end) of the file, from PSB to PSB. */
static void scan_stretch(const struct pt_cpu_trace *t, const struct pt_config *config,
                         uint64_t begin, uint64_t end, struct pt_timing *timing, uint8_t *counted,
                         bool one_bit_tnt)
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
        /* Each packet starts where the one before ended. */
        for (uint64_t off = sync;;) {
            struct pt_packet p;
            int size = pt_pkt_next(pkt, &p, sizeof p);
            if (size < 0)
                break;
            uint8_t *at = counted ? counted + begin + off : NULL;
            off += (uint64_t)size;
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
            else if (one_bit_tnt && (p.type == ppt_tnt_8 || p.type == ppt_tnt_64))
                memcpy(at, "\x04\0\0\0\0\0\0\0", p.size); /* a TNT-8 of one bit, PAD */
        }
    }
    pt_pkt_free_decoder(pkt);
}

void pt_timing_scan(const struct pt_cpu_trace *t, const struct pt_config *config,
                    struct pt_timing *timing, uint8_t *counted, bool one_bit_tnt)
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
            scan_stretch(t, config, begin, end, timing, counted, one_bit_tnt);
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

/* Counting cycles within the one decode (docs/pt.md, "How time and cycles are counted").
 *
 * What the decode of the counted copy (pt_cycles.h) would give differs from the decode of
 * the trace only in its clock: the same packets decide the same blocks and events, and
 * libipt's block decoder reads them in the same order. Its clock is libipt's time at the
 * last TNT, TIP or event packet the decoder read, and its block decoder ends a block with
 * a tick event wherever a branch read a packet that moved it. So the copy is read beside
 * the decode by a query decoder of its own (q), moved packet by packet to where the block
 * decoder stands after each block and event (pt_sink.position): q's time is then the
 * copy's clock, exactly, libipt's own arithmetic. The copy's ticks must fall where the
 * decode's blocks end, since blocks cannot be cut here: where the copy's clock moves at a
 * branch that is not the last one read before the decode's own tick (a CYC packet that
 * moves libipt's TSC estimate by less than a tick, or by nothing before it knows the
 * core:bus ratio), or where anything else does not line up (an error, a lost CYC packet,
 * events that differ), the counter gives up and the copy is decoded after all. */
#define COUNTER_EVENTS 16

/* Why the counter gave up (the second decode then counts), as ACART_PT_COUNTED=report
 * prints it. */
enum counter_give_up {
    GAVE_UP_NOT,
    GAVE_UP_EVENTS_FULL,
    GAVE_UP_QUERY_FAILED,
    GAVE_UP_NO_TIME,
    GAVE_UP_STRETCH_AGAIN,
    GAVE_UP_NO_DECODER,
    GAVE_UP_RESYNC,
    GAVE_UP_SYNC_FAILED,
    GAVE_UP_POSITION_MISSED,
    GAVE_UP_CLOCK_IN_BLOCK,
    GAVE_UP_CLOCK_BEFORE_EVENT,
    GAVE_UP_TICK_MISSING,
    GAVE_UP_EVENT_MISMATCH,
    GAVE_UP_GAP,
};

static const char *const give_up_reasons[] = {
    [GAVE_UP_NOT] = "counted in the decode",
    [GAVE_UP_EVENTS_FULL] = "more events pending than it keeps",
    [GAVE_UP_QUERY_FAILED] = "a query failed",
    [GAVE_UP_NO_TIME] = "libipt had no time",
    [GAVE_UP_STRETCH_AGAIN] = "a stretch decoded again, or a tick left pending",
    [GAVE_UP_NO_DECODER] = "no query decoder",
    [GAVE_UP_RESYNC] = "synchronised again after an error",
    [GAVE_UP_SYNC_FAILED] = "synchronisation failed",
    [GAVE_UP_POSITION_MISSED] = "could not stand where the decode stands",
    [GAVE_UP_CLOCK_IN_BLOCK] = "the copy's clock moved where the decode has no block end",
    [GAVE_UP_CLOCK_BEFORE_EVENT] = "the copy's clock moved at a branch before an event",
    [GAVE_UP_TICK_MISSING] = "a tick the decode did not make",
    [GAVE_UP_EVENT_MISMATCH] = "the copy's events differ",
    [GAVE_UP_GAP] = "a gap in the decode",
};

struct counter {
    struct pt_flow *f;
    struct pt_sink flow_sink; /* f's, which the counter's sink wraps */
    struct pt_flow cf;        /* time-only, on the copy's clock */
    struct pt_sink counted_sink;
    const uint8_t *counted;  /* the copy */
    struct pt_config config; /* for it */
    struct pt_query_decoder *q;
    uint64_t base, end; /* q's stretch of the file */
    uint64_t pos;       /* q's position in the file */
    int status;         /* q's last status */
    uint64_t time;      /* q's time (pt_qry_time) */
    uint32_t lost_cyc;  /* and its count of CYC packets it could not use */
    uint64_t clock;     /* the copy's decode's clock: the time of its last event or tick */
    bool synced;
    /* What q's steps to the current item did to its time: */
    uint64_t time_before;
    size_t events_before; /* read by q and not handed on, at the item's start */
    bool moved_branch;    /* a branch read a packet that moved it */
    bool moved_early;     /* and another branch read a packet after that one */
    /* The last block's last branch moved the time to tick_time: the decode must tick next. */
    bool tick_pending;
    uint64_t tick_time;
    uint32_t tick_lost_cyc;
    struct pt_event events[COUNTER_EVENTS]; /* read by q, not handed on yet */
    size_t num_events;
    bool given_up;
    enum counter_give_up why;
};

static void give_up(struct counter *k, enum counter_give_up why)
{
    if (!k->given_up)
        k->why = why;
    k->given_up = true;
}

/* One query of q: the next event where one is pending, else a branch. */
static void counter_step(struct counter *k)
{
    bool event = k->status & pts_event_pending;
    int status;
    if (event) {
        if (k->num_events == COUNTER_EVENTS) {
            give_up(k, GAVE_UP_EVENTS_FULL);
            return;
        }
        status = pt_qry_event(k->q, &k->events[k->num_events], sizeof k->events[0]);
        if (status >= 0)
            k->num_events++;
    } else {
        int taken;
        uint64_t ip;
        status = pt_qry_cond_branch(k->q, &taken);
        if (status == -pte_bad_query)
            status = pt_qry_indirect_branch(k->q, &ip);
    }
    uint64_t off, time;
    uint32_t lost_mtc, lost_cyc;
    if (status < 0 || pt_qry_get_offset(k->q, &off) < 0) {
        give_up(k, GAVE_UP_QUERY_FAILED);
        return;
    }
    k->status = status;
    /* A TNT bit read before: libipt's time stays that of the packet that brought it. */
    if (!event && k->base + off == k->pos)
        return;
    int rc = pt_qry_time(k->q, &time, &lost_mtc, &lost_cyc);
    if (rc < 0 && rc != -pte_no_time) {
        give_up(k, GAVE_UP_NO_TIME);
        return;
    }
    k->lost_cyc = lost_cyc;
    k->pos = k->base + off;
    if (!event) {
        if (k->moved_branch)
            k->moved_early = true;
        if (time != k->time)
            k->moved_branch = true;
    }
    k->time = time;
}

static int counter_stretch(void *ctx, uint64_t begin, uint64_t end)
{
    struct counter *k = ctx;
    int rc = k->flow_sink.stretch ? k->flow_sink.stretch(k->f, begin, end) : 0;
    pt_qry_free_decoder(k->q);
    k->q = NULL;
    k->synced = false;
    /* A piece of the stretch decoded again (after an error) or a new stretch while the
     * copy's clock moved at a branch with no tick after it. */
    if (begin < k->end || k->tick_pending)
        give_up(k, GAVE_UP_STRETCH_AGAIN);
    if (k->given_up)
        return rc;
    k->config.begin = (uint8_t *)k->counted + begin;
    k->config.end = (uint8_t *)k->counted + end;
    k->q = pt_qry_alloc_decoder(&k->config);
    k->base = begin;
    k->end = end;
    if (!k->q)
        give_up(k, GAVE_UP_NO_DECODER);
    return rc;
}

/* Where the next item starts (pt_decode reports positions only where they move). */
static void item_done(struct counter *k)
{
    k->time_before = k->time;
    k->events_before = k->num_events;
    k->moved_branch = k->moved_early = false;
}

static int counter_position(void *ctx, uint64_t offset, bool synced)
{
    struct counter *k = ctx;
    int rc = k->flow_sink.position ? k->flow_sink.position(k->f, offset, synced) : 0;
    if (k->given_up)
        return rc;
    if (synced) {
        uint64_t ip;
        /* Synchronised again: after an error. */
        if (k->synced || offset < k->base) {
            give_up(k, GAVE_UP_RESYNC);
            return rc;
        }
        k->synced = true;
        k->status = pt_qry_sync_set(k->q, &ip, offset - k->base);
        k->pos = offset;
        k->time = 0;
        k->lost_cyc = 0;
        k->num_events = 0;
        item_done(k);
        if (k->status < 0)
            give_up(k, GAVE_UP_SYNC_FAILED);
        return rc;
    }
    while (!k->given_up && k->pos < offset)
        counter_step(k);
    if (k->pos != offset)
        give_up(k, GAVE_UP_POSITION_MISSED);
    return rc;
}

static int count_block(struct counter *k, const struct pt_block *b)
{
    /* The copy's clock moved before this block (its decode ticks at the block's first
     * branch, unless it is on its way to an event it read: libipt makes no tick then),
     * at a branch within it, or at its last branch but no tick follows. */
    if ((k->time_before != k->clock && !k->events_before) || k->moved_early || k->tick_pending) {
        give_up(k, GAVE_UP_CLOCK_IN_BLOCK);
        return 0;
    }
    k->tick_pending = k->moved_branch;
    k->tick_time = k->time;
    k->tick_lost_cyc = k->lost_cyc;
    return pt_flow_time_run(&k->cf, k->f->last_name, b->ninsn, k->clock);
}

static int counter_block(void *ctx, const struct pt_block *b, uint64_t tsc)
{
    struct counter *k = ctx;
    int rc = k->flow_sink.block(k->f, b, tsc);
    if (!rc && !k->given_up)
        rc = count_block(k, b);
    item_done(k);
    return rc;
}

static int count_event(struct counter *k, const struct pt_event *ev)
{
    if (k->moved_branch) {
        give_up(k, GAVE_UP_CLOCK_BEFORE_EVENT);
        return 0;
    }
    if (ev->type == ptev_tick) {
        if (!k->tick_pending)
            return 0; /* libipt's TSC estimate moved, the copy's clock did not */
        k->tick_pending = false;
        k->clock = k->tick_time;
        struct pt_event tick = {.type = ptev_tick, .tsc = k->clock, .lost_cyc = k->tick_lost_cyc};
        return k->counted_sink.event(&k->cf, &tick);
    }
    if (k->tick_pending) {
        give_up(k, GAVE_UP_TICK_MISSING);
        return 0;
    }
    if (!k->num_events && (k->status & pts_event_pending))
        counter_step(k);
    if (!k->num_events || k->events[0].type != ev->type) {
        give_up(k, GAVE_UP_EVENT_MISMATCH);
        return 0;
    }
    struct pt_event counted = k->events[0];
    memmove(&k->events[0], &k->events[1], --k->num_events * sizeof k->events[0]);
    k->clock = counted.tsc;
    return k->counted_sink.event(&k->cf, &counted);
}

static int counter_event(void *ctx, const struct pt_event *ev)
{
    struct counter *k = ctx;
    int rc = k->flow_sink.event(k->f, ev);
    if (!rc && !k->given_up)
        rc = count_event(k, ev);
    item_done(k);
    return rc;
}

static int counter_gap(void *ctx, const struct pt_gap *gap)
{
    struct counter *k = ctx;
    int rc = k->flow_sink.gap(k->f, gap);
    if (rc || k->given_up)
        return rc;
    /* Bytes the decode never reached are the same in the copy; a decode that failed
     * may not have failed there in the copy. */
    if (gap->kind == PT_GAP_DECODE || gap->kind == PT_GAP_LOOP || k->tick_pending) {
        give_up(k, GAVE_UP_GAP);
        return 0;
    }
    return k->counted_sink.gap(&k->cf, gap);
}

static int counter_end(void *ctx, uint64_t tsc)
{
    struct counter *k = ctx;
    return k->flow_sink.end ? k->flow_sink.end(k->f, tsc) : 0;
}

/* Sets f's cycles from a time-only flow on the copy's clock. */
static void take_cycles(struct pt_flow *f, const struct pt_flow *cf)
{
    for (size_t i = 0; i < f->code->num_names; i++)
        f->functions[i].self_cycles = cf->functions[i].self_ticks;
    f->cycles_counted = true;
    f->counted_cycles = cf->shared_ticks;
    f->uncounted_cyc = cf->lost_cyc;
}

/* Decodes the copy (ct) into a time-only flow for f's cycles: 0, a diag code or
 * PT_FLOW_CROSSED. */
static int decode_counted(struct pt_flow *f, const struct pt_cpu_trace *ct,
                          const struct pt_config *cc, struct pt_image *image, struct diag *d)
{
    struct pt_flow cf;
    struct pt_sink sink;
    int rc = pt_flow_init(&cf, f->code, f->cpu, 1);
    cf.closed.drop = true;
    cf.time_only = true; /* only its functions' shares of time are read */
    if (!rc) {
        pt_flow_sink(&cf, &sink);
        rc = pt_decode(ct, cc, image, true, &sink, d);
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
        take_cycles(f, &cf);
    }
    pt_flow_free(&cf);
    return rc;
}

/* Whether the counter gave up, for tests and benchmarks: ACART_PT_COUNTED=report prints
 * it; ACART_PT_COUNTED=copy decodes the copy always, as before the counter. */
static const char *counted_mode(void)
{
    const char *m = getenv("ACART_PT_COUNTED");
    return m ? m : "";
}

/* One try at decoding t into f (and at counting its cycles): 0, a diag code, or
 * PT_FLOW_CROSSED. */
static int decode_once(struct pt_flow *f, const struct pt_cpu_trace *t,
                       const struct pt_config *config, struct pt_image *image, bool count_cycles,
                       struct diag *d)
{
    uint8_t *counted = count_cycles && t->size ? malloc(t->size) : NULL;
    if (count_cycles && t->size && !counted)
        return DIAG_NOMEM;
    /* The scan is a pass over every packet: skipped where nothing reads it. The copy
     * for the counter's query decoder has TNT packets of one bit, so that it reads each
     * with one query (it does not follow the code, so the bits do not matter); a copy to
     * decode needs the trace's bits. */
    bool copy_only = strcmp(counted_mode(), "copy") == 0;
    if (count_cycles)
        pt_timing_scan(t, config, &f->timing, counted, !copy_only);
    struct counter k = {.f = f, .counted = counted, .config = *config};
    k.config.nom_freq = 1;
    memset(&k.config.flags, 0, sizeof k.config.flags);
    bool counting = counted && f->timing.cyc_packets && !copy_only;
    struct pt_sink sink;
    pt_flow_sink(f, &sink);
    if (counting) {
        if (pt_flow_init(&k.cf, f->code, f->cpu, 1)) {
            free(counted);
            return DIAG_NOMEM;
        }
        k.cf.closed.drop = true;
        k.cf.time_only = true;
        pt_flow_sink(&k.cf, &k.counted_sink);
        k.flow_sink = sink;
        sink = (struct pt_sink){.insn = sink.insn,
                                .block = counter_block,
                                .event = counter_event,
                                .gap = counter_gap,
                                .end = counter_end,
                                .stretch = counter_stretch,
                                .position = counter_position,
                                .ctx = &k};
    }
    int rc = pt_decode(t, config, image, true, &sink, d);
    pt_qry_free_decoder(k.q);
    if (counting && k.tick_pending)
        k.given_up = true;
    if (!rc && crossed(f))
        rc = PT_FLOW_CROSSED;
    if (!rc) {
        pt_flow_finish(f);
        if (!count_cycles && !f->timed)
            pt_timing_scan(t, config, &f->timing, NULL, false);
    }
    if (!rc && counting && strcmp(counted_mode(), "report") == 0)
        fprintf(stderr, "acart: cycles %s%s\n", k.given_up ? "counted by a second decode: " : "",
                give_up_reasons[k.why]);
    if (!rc && counting && !k.given_up) {
        pt_flow_finish(&k.cf);
        take_cycles(f, &k.cf);
    } else if (!rc && counted && f->timing.cyc_packets) {
        struct pt_cpu_trace ct = *t;
        struct pt_config cc = *config;
        ct.data = counted;
        cc.nom_freq = 1;
        if (counting)
            pt_timing_scan(t, config, &f->timing, counted, false);
        rc = decode_counted(f, &ct, &cc, image, d);
    }
    if (counting)
        pt_flow_free(&k.cf);
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
