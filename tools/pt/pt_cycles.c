#include "pt_cycles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs: stretches of the trace the counter walks itself instead of its query decoder
 * (docs/pt.md, "How time and cycles are counted"). In a cycle-accurate trace most packets
 * are CYC and TNT packets, and libipt's query decoder costs about as much a packet as the
 * block decoder does a block. Where libipt's clock only adds CYC values (the copy, after
 * a CBR packet since the last PSB) and no event is waiting for a later packet, the
 * copy's clock at a TNT packet is the query decoder's clock before it plus the CYC
 * values since, by libipt's arithmetic (pt_time_update_cyc with a ratio of one). So the
 * query decoder skips such runs (RUN_SKIP packets in its copy) and the counter reads them
 * from the trace, adding their cycles to the query decoder's clock (struct counter). */
struct cyc_run {
    uint64_t begin, end; /* in the file: PAD, CYC, TNT and (PAD in the copy) timing packets */
};

struct cyc_runs {
    struct cyc_run *at;
    size_t num, cap;
};

enum run_kind { RUN_NONE, RUN_PAD, RUN_TSC, RUN_MTC, RUN_TNT, RUN_CYC };

/* A run in the query decoder's copy: packets of this opcode, which libipt does not know (so
 * it asks skip_run), of the size in their second byte, then a PAD byte if one is left. */
#define RUN_SKIP 0x05

/* Writes the run [begin, end) of counted as RUN_SKIP packets. */
static void run_write_skip(uint8_t *counted, const struct cyc_run *r)
{
    uint8_t *at = counted + r->begin;
    for (uint64_t left = r->end - r->begin; left;) {
        uint8_t n = left > 255 ? 255 : (uint8_t)left;
        memset(at, 0, n);
        if (n >= 2) {
            at[0] = RUN_SKIP;
            at[1] = n;
        }
        at += n;
        left -= n;
    }
}

/* The size and kind of the packet at p if it is one of those most of a trace is made of
 * and a run may hold (PAD, TSC, MTC, TNT-8, TNT-64, CYC), else 0 (another packet, or one
 * libipt would not read); *cyc the CYC packet's cycles. Opcodes, sizes and checks as
 * libipt's packet decoder has them (pt_packet.c, pt_decoder_function.c): scan_stretch
 * reads these packets with this, the others with libipt, and the counter walks runs with
 * it. */
static inline int run_packet(const uint8_t *p, const uint8_t *end, uint64_t *cyc,
                             enum run_kind *kind)
{
    *cyc = 0;
    *kind = RUN_PAD;
    ptrdiff_t left = end - p;
    if (left < 1)
        return 0;
    uint8_t opc = p[0];
    if ((opc & 0x01) == 0) {
        if (opc == 0x00)
            return 1;
        if (opc != 0x02) { /* TNT-8 */
            *kind = RUN_TNT;
            return 1;
        }
        /* TNT-64 (02 A3), whose six bytes hold a stop bit. */
        if (left < 8 || p[1] != 0xa3 || !(p[2] | p[3] | p[4] | p[5] | p[6] | p[7]))
            return 0;
        *kind = RUN_TNT;
        return 8;
    }
    if ((opc & 0x03) == 0x03) {
        /* CYC: five bits of payload, then seven a byte while bit 0 says more follow. */
        uint64_t value = opc >> 3;
        const uint8_t *q = p + 1;
        for (unsigned shl = 5, more = opc & 0x04; more; shl += 7) {
            if (q >= end || shl + 7 > 64)
                return 0;
            more = *q & 0x01;
            value |= (uint64_t)(*q++ >> 1) << shl;
        }
        *cyc = value;
        *kind = RUN_CYC;
        return (int)(q - p);
    }
    if (opc == 0x19) { /* TSC */
        *kind = RUN_TSC;
        return left >= 8 ? 8 : 0;
    }
    if (opc == 0x59) { /* MTC */
        *kind = RUN_MTC;
        return left >= 2 ? 2 : 0;
    }
    return 0;
}

/* Where scan_stretch stands as to runs. An event libipt's query decoder made at one
 * packet and gives at a later one has the time of the first: no run may lie between them
 * (the counter adds a run's cycles to events given after it), so the scan follows which
 * events may be waiting: for a TIP packet (after FUP, MODE.Exec, PIP, VMCS, OVF) and for
 * a FUP packet (after MODE.TSX, EXSTOP, MWAIT, PTW, OVF), as pt_query_decoder.c binds them
 * (evb_tip, evb_fup; those of PSB+ wait for its PSBEND). */
struct run_scan {
    bool in_psb;
    bool cbr;         /* a CBR packet since the last PSB: libipt's clock adds CYC values */
    bool tip_pending; /* an event may wait for a TIP packet */
    bool fup_pending; /* or for a FUP packet */
    bool broken;      /* the packet decoder failed: no more runs in the stretch */
    bool open, counts;
    uint64_t begin;
};

/* Ends the run open at [s->begin, end), keeping it if it holds a CYC or TNT packet. */
static void run_close(struct run_scan *s, struct cyc_runs *runs, uint64_t end)
{
    if (s->open && s->counts && runs->num == runs->cap) {
        size_t cap = runs->cap ? 2 * runs->cap : 64;
        struct cyc_run *at = realloc(runs->at, cap * sizeof *at);
        /* Out of memory: the run stays in the copy, for the query decoder. */
        if (at) {
            runs->at = at;
            runs->cap = cap;
        }
    }
    if (s->open && s->counts && runs->num < runs->cap)
        runs->at[runs->num++] = (struct cyc_run){s->begin, end};
    s->open = s->counts = false;
}

/* A packet run_packet read, of that kind, at offset off in the file. */
static inline void run_scan_simple(struct run_scan *s, struct cyc_runs *runs, enum run_kind kind,
                                   uint64_t off)
{
    if (s->in_psb || !s->cbr || s->tip_pending || s->fup_pending || s->broken) {
        if (s->open)
            run_close(s, runs, off);
        return;
    }
    if (!s->open) {
        s->open = true;
        s->begin = off;
    }
    if (kind == RUN_TNT || kind == RUN_CYC)
        s->counts = true;
}

/* Any other packet, p at offset off in the file: it ends the run, and may leave events
 * waiting (struct run_scan). Unsure is waiting. */
static void run_scan_other(struct run_scan *s, struct cyc_runs *runs, const struct pt_packet *p,
                           uint64_t off)
{
    run_close(s, runs, off);
    if (p->type == ppt_cbr) { /* in PSB+ (its event waits for the PSBEND) or given at once */
        s->cbr = true;
        return;
    }
    if (s->in_psb && p->type != ppt_psbend)
        return; /* PSB+: its events wait for the PSBEND, which gives them all */
    switch (p->type) {
    case ppt_psb:
        s->in_psb = true;
        s->cbr = false;
        break;
    case ppt_psbend:
        s->in_psb = false;
        break;
    case ppt_tip:
    case ppt_tip_pge:
    case ppt_tip_pgd:
        s->tip_pending = false;
        break;
    case ppt_fup:
        /* It gives the events waiting for it, or starts an asynchronous branch. */
        s->fup_pending = false;
        s->tip_pending = true;
        break;
    case ppt_mode:
        if (p->payload.mode.leaf == pt_mol_exec)
            s->tip_pending = true;
        else
            s->fup_pending = true;
        break;
    case ppt_pip:
    case ppt_vmcs:
        s->tip_pending = true;
        break;
    case ppt_exstop:
    case ppt_mwait:
    case ppt_ptw:
        s->fup_pending = true;
        break;
    case ppt_pad:
    case ppt_tnt_8:
    case ppt_tnt_64:
    case ppt_cyc:
    case ppt_tsc:
    case ppt_tma:
    case ppt_mtc:
    case ppt_stop:
    case ppt_mnt:
    case ppt_pwre:
    case ppt_pwrx:
        break; /* no event, or one given at once */
    default:
        s->tip_pending = s->fup_pending = true;
        break;
    }
}

/* One packet's part in the timing counts and the copy (at: the packet in the copy, or
 * NULL): PAD (0x00) may stand anywhere, PSB+ included; a CBR packet is 02 03 RATIO 00. */
static inline void scan_count(struct pt_timing *timing, enum pt_packet_type type, uint64_t cyc,
                              uint8_t *at, int size, bool one_bit_tnt)
{
    switch (type) {
    case ppt_cyc:
        timing->cyc_packets++;
        timing->cyc_cycles += cyc;
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
        return;
    if (type == ppt_tsc || type == ppt_mtc || type == ppt_tma)
        memset(at, 0, (size_t)size);
    else if (type == ppt_cbr)
        at[2] = 1;
    else if (one_bit_tnt && size == 1 && type == ppt_tnt_8)
        at[0] = 0x04; /* a TNT-8 of one bit */
    else if (one_bit_tnt && (type == ppt_tnt_8 || type == ppt_tnt_64))
        memcpy(at, "\x04\0\0\0\0\0\0\0", (size_t)size); /* a TNT-8 of one bit, PAD */
}

static const enum pt_packet_type run_kind_types[] = {
    [RUN_NONE] = ppt_invalid, [RUN_PAD] = ppt_pad,   [RUN_TSC] = ppt_tsc,
    [RUN_MTC] = ppt_mtc,      [RUN_TNT] = ppt_tnt_8, [RUN_CYC] = ppt_cyc,
};

/* One stretch [begin, end) of the file, from PSB to PSB, packet by packet as libipt's
 * packet decoder reads it from every PSB it synchronises on. With runs, also its runs. */
static void scan_stretch(const struct pt_cpu_trace *t, const struct pt_config *config,
                         uint64_t begin, uint64_t end, struct pt_timing *timing, uint8_t *counted,
                         bool one_bit_tnt, struct cyc_runs *runs)
{
    struct pt_config c = *config;
    c.begin = t->data + begin;
    c.end = t->data + end;
    /* pkt synchronises; one reads the packets run_packet does not. */
    struct pt_packet_decoder *pkt = pt_pkt_alloc_decoder(&c);
    struct pt_packet_decoder *one = pt_pkt_alloc_decoder(&c);
    if (!pkt || !one) {
        pt_pkt_free_decoder(pkt);
        pt_pkt_free_decoder(one);
        return;
    }
    uint64_t last_sync = 0;
    bool synced = false;
    size_t first_run = runs ? runs->num : 0;
    struct run_scan rs = {0};
    /* libipt's query decoder may read a 2-byte CYC packet before an OVF as part of the OVF
     * (erratum SKD007), which the packet decoder does not: no runs then. */
    bool skd007 = false;
    const uint8_t *data = t->data + begin, *data_end = t->data + end;
    while (pt_pkt_sync_forward(pkt) >= 0) {
        uint64_t sync;
        /* Each search starts past the last PSB; never go round again for safety's sake. */
        if (pt_pkt_get_sync_offset(pkt, &sync) < 0 || (synced && sync <= last_sync))
            break;
        /* After a packet the decoder could not read, the query decoder's state is not
         * known: runs end there. */
        rs.broken = synced;
        last_sync = sync;
        synced = true;
        /* Each packet starts where the one before ended. */
        uint64_t off = sync, last_psb = sync;
        for (;;) {
            uint64_t cyc;
            enum run_kind kind;
            uint8_t *at = counted ? counted + begin + off : NULL;
            int size = run_packet(data + off, data_end, &cyc, &kind);
            if (size > 0) {
                if (runs)
                    run_scan_simple(&rs, runs, kind, begin + off);
                if (kind == RUN_CYC && size == 2 && data + off + 2 < data_end &&
                    data[off + 2] == 0xf3)
                    skd007 |= config->errata.skd007;
                scan_count(timing, run_kind_types[kind], cyc, at, size, one_bit_tnt);
                off += (uint64_t)size;
                continue;
            }
            struct pt_packet p;
            if (pt_pkt_sync_set(one, off) < 0 || (size = pt_pkt_next(one, &p, sizeof p)) < 0)
                break;
            if (runs)
                run_scan_other(&rs, runs, &p, begin + off);
            if (p.type == ppt_psb)
                last_psb = off;
            scan_count(timing, p.type, p.type == ppt_cyc ? p.payload.cyc.value : 0, at, size,
                       one_bit_tnt);
            off += (uint64_t)size;
        }
        if (runs)
            run_close(&rs, runs, begin + off);
        /* pkt goes on from where reading stopped, as if it had read every packet since
         * it synchronised (its next search for a PSB starts there): from the last PSB. */
        if (pt_pkt_sync_set(pkt, last_psb) < 0)
            break;
        for (uint64_t at = last_psb; at < off;) {
            struct pt_packet p;
            int size = pt_pkt_next(pkt, &p, sizeof p);
            if (size < 0)
                break;
            at += (uint64_t)size;
        }
    }
    pt_pkt_free_decoder(pkt);
    pt_pkt_free_decoder(one);
    if (!runs)
        return;
    if (skd007)
        runs->num = first_run;
    for (size_t i = first_run; i < runs->num; i++)
        run_write_skip(counted, &runs->at[i]);
}

/* pt_timing_scan, and with runs (and counted, one_bit_tnt) the runs of the trace, in
 * order, RUN_SKIP packets in counted. */
static void timing_scan(const struct pt_cpu_trace *t, const struct pt_config *config,
                        struct pt_timing *timing, uint8_t *counted, bool one_bit_tnt,
                        struct cyc_runs *runs)
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
            scan_stretch(t, config, begin, end, timing, counted, one_bit_tnt, runs);
        begin = end;
    }
}

void pt_timing_scan(const struct pt_cpu_trace *t, const struct pt_config *config,
                    struct pt_timing *timing, uint8_t *counted, bool one_bit_tnt)
{
    timing_scan(t, config, timing, counted, one_bit_tnt, NULL);
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
    GAVE_UP_RUN,
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
    [GAVE_UP_RUN] = "a run read otherwise than the scan read it",
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
    uint64_t pos;       /* the copy's query decoder's position in the file */
    int status;         /* and its last status */
    uint64_t time;      /* and its time (pt_qry_time) */
    uint32_t lost_cyc;  /* and its count of CYC packets it could not use */
    /* The runs (cyc_runs), skipped by q: pos, status and time above are those of a
     * query decoder that reads them, q's plus what the counter read of them. */
    const uint8_t *data; /* the trace */
    const struct cyc_run *runs;
    size_t num_runs;
    size_t run;       /* the first run not read to its end */
    uint64_t run_at;  /* where reading it goes on */
    bool run_tnt;     /* a TNT packet of it at run_at is next, before q's next packet */
    uint64_t qpos;    /* q's own position */
    int qstatus;      /* and status */
    uint64_t qtime;   /* and time */
    uint64_t removed; /* cycles of the CYC packets in runs read since q synchronised */
    uint64_t clock;   /* the copy's decode's clock: the time of its last event or tick */
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
    /* Something moved since the last block (a step, an event, a gap, a stretch): the next
     * block is checked in full (count_block); after a block with nothing new since, only
     * a tick it left pending can matter. */
    bool dirty;
};

static void give_up(struct counter *k, enum counter_give_up why)
{
    if (!k->given_up)
        k->why = why;
    k->given_up = true;
    pt_flow_follow_span(&k->cf, NULL); /* its numbers no longer count */
}

/* libipt's callback for packets it does not know, in q's copy: the RUN_SKIP packets of a
 * run (scan_stretch), and nothing else. */
static int skip_run(struct pt_packet_unknown *unknown, const struct pt_config *config,
                    const uint8_t *pos, void *context)
{
    const struct counter *k = context;
    (void)unknown;
    if (config->end - pos < 2 || pos[0] != RUN_SKIP || pos[1] < 2)
        return -pte_bad_opc;
    /* The run holding it: runs are in order. */
    uint64_t off = (uint64_t)(pos - k->counted);
    size_t lo = 0, hi = k->num_runs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->runs[mid].end <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == k->num_runs || k->runs[lo].begin > off || k->runs[lo].end - off < pos[1])
        return -pte_bad_opc;
    return pos[1];
}

/* Reads on through the runs q skipped (those that begin before its
 * position), adding their cycles, to the next TNT packet in them: the next branch is
 * there, else at q's position. */
static void run_advance(struct counter *k)
{
    for (; k->run < k->num_runs && k->runs[k->run].begin < k->qpos; k->run++) {
        const struct cyc_run *r = &k->runs[k->run];
        if (k->run_at < r->begin)
            k->run_at = r->begin;
        while (k->run_at < r->end) {
            uint64_t cyc;
            enum run_kind kind;
            int size = run_packet(k->data + k->run_at, k->data + r->end, &cyc, &kind);
            if (size <= 0) {
                give_up(k, GAVE_UP_RUN);
                return;
            }
            if (kind == RUN_TNT) {
                k->run_tnt = true;
                k->pos = k->run_at;
                k->status = 0; /* TNT packets follow: no event is pending */
                return;
            }
            k->removed += cyc;
            k->run_at += (uint64_t)size;
        }
    }
    k->run_tnt = false;
    k->pos = k->qpos;
    k->status = k->qstatus;
}

/* The branch of a TNT packet of a run: libipt's time at it is q's time plus the cycles of
 * the runs read since q synchronised (CYC values all, by the runs' making). */
static void run_step(struct counter *k)
{
    uint64_t cyc;
    enum run_kind kind;
    uint64_t time = k->qtime + k->removed;
    k->run_at +=
        (uint64_t)run_packet(k->data + k->run_at, k->data + k->runs[k->run].end, &cyc, &kind);
    run_advance(k);
    if (k->moved_branch)
        k->moved_early = true;
    if (time != k->time)
        k->moved_branch = true;
    k->time = time;
}

/* One query of q: the next event where one is pending, else a branch. */
static void counter_step(struct counter *k)
{
    if (k->run_tnt) {
        run_step(k);
        return;
    }
    bool event = k->status & pts_event_pending;
    int status;
    if (event) {
        if (k->num_events == COUNTER_EVENTS) {
            give_up(k, GAVE_UP_EVENTS_FULL);
            return;
        }
        status = pt_qry_event(k->q, &k->events[k->num_events], sizeof k->events[0]);
        if (status >= 0) {
            /* Its time is libipt's when it read the packet that made it: no run lies
             * between that packet and this one, which delivers it (scan_stretch). */
            k->events[k->num_events].tsc += k->removed;
            k->num_events++;
        }
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
    k->status = k->qstatus = status;
    /* A TNT bit read before: libipt's time stays that of the packet that brought it. */
    if (!event && k->base + off == k->pos)
        return;
    int rc = pt_qry_time(k->q, &time, &lost_mtc, &lost_cyc);
    if (rc < 0 && rc != -pte_no_time) {
        give_up(k, GAVE_UP_NO_TIME);
        return;
    }
    k->lost_cyc = lost_cyc;
    k->qtime = time;
    time += k->removed;
    k->qpos = k->base + off;
    run_advance(k);
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
    k->dirty = true;
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
    k->dirty = true;
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
        k->status = k->qstatus = pt_qry_sync_set(k->q, &ip, offset - k->base);
        k->time = k->qtime = k->removed = 0;
        k->lost_cyc = 0;
        k->num_events = 0;
        item_done(k);
        uint64_t off;
        if (k->status < 0 || pt_qry_get_offset(k->q, &off) < 0) {
            give_up(k, GAVE_UP_SYNC_FAILED);
            return rc;
        }
        /* Runs after the PSB+ that q read past; its first query is the next step. */
        while (k->run < k->num_runs && k->runs[k->run].begin < offset)
            k->run++;
        k->run_at = 0;
        k->qpos = k->base + off;
        run_advance(k);
        k->pos = offset;
        return rc;
    }
    while (!k->given_up && k->pos < offset)
        counter_step(k);
    if (k->pos != offset)
        give_up(k, GAVE_UP_POSITION_MISSED);
    return rc;
}

static void count_block(struct counter *k)
{
    /* The copy's clock moved before this block (its decode ticks at the block's first
     * branch, unless it is on its way to an event it read: libipt makes no tick then),
     * at a branch within it, or at its last branch but no tick follows. */
    if ((k->time_before != k->clock && !k->events_before) || k->moved_early || k->tick_pending) {
        give_up(k, GAVE_UP_CLOCK_IN_BLOCK);
        return;
    }
    k->tick_pending = k->moved_branch;
    k->tick_time = k->time;
    k->tick_lost_cyc = k->lost_cyc;
}

/* cf shares f's blocks (pt_flow_follow_span) at the copy's clock (k->clock): where that
 * moved other than at an event, it moves for cf before the block gets to f. */
static int counter_block(void *ctx, const struct pt_block *b, uint64_t tsc)
{
    struct counter *k = ctx;
    if (!k->dirty) {
        /* No step and no event since the last block, which passed count_block: the clocks
         * and the state item_done left are as they were, so only its tick matters. */
        int rc = k->flow_sink.block(k->f, b, tsc);
        if (!rc && k->tick_pending && !k->given_up)
            give_up(k, GAVE_UP_CLOCK_IN_BLOCK);
        return rc;
    }
    k->dirty = false;
    if (!k->given_up && (k->clock != k->cf.last_tsc || !k->cf.have_tsc))
        pt_flow_time_to(&k->cf, k->clock);
    int rc = k->flow_sink.block(k->f, b, tsc);
    if (!rc && !k->given_up)
        count_block(k);
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

/* The copy's event goes first: f's span is then still that of the blocks before it, and
 * cf shares it where both clocks moved (pt_flow_follow_span). */
static int counter_event(void *ctx, const struct pt_event *ev)
{
    struct counter *k = ctx;
    k->dirty = true;
    int rc = k->given_up ? 0 : count_event(k, ev);
    if (!rc)
        rc = k->flow_sink.event(k->f, ev);
    item_done(k);
    return rc;
}

static int counter_gap(void *ctx, const struct pt_gap *gap)
{
    struct counter *k = ctx;
    k->dirty = true;
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
    cf.cycles_elsewhere = true;
    cf.through_calls = f->through_calls;
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
    struct cyc_runs runs = {0};
    if (count_cycles)
        timing_scan(t, config, &f->timing, counted, !copy_only,
                    counted && !copy_only ? &runs : NULL);
    struct counter k = {.f = f,
                        .counted = counted,
                        .config = *config,
                        .data = t->data,
                        .runs = runs.at,
                        .num_runs = runs.num,
                        .dirty = true};
    k.config.nom_freq = 1;
    memset(&k.config.flags, 0, sizeof k.config.flags);
    k.config.decode.callback = skip_run;
    k.config.decode.context = &k;
    bool counting = counted && f->timing.cyc_packets && !copy_only;
    struct pt_sink sink;
    pt_flow_sink(f, &sink);
    if (counting) {
        if (pt_flow_init(&k.cf, f->code, f->cpu, 1)) {
            free(counted);
            return DIAG_NOMEM;
        }
        k.cf.closed.drop = true;
        k.cf.time_only = k.cf.cycles_elsewhere = true;
        pt_flow_follow_span(&k.cf, f);
        /* f's cycles are counted, in the decode or by a second one. */
        f->cycles_elsewhere = true;
        pt_flow_sink(&k.cf, &k.counted_sink);
        k.flow_sink = sink;
        sink = (struct pt_sink){.insn = sink.insn,
                                .block = counter_block,
                                .event = counter_event,
                                .gap = counter_gap,
                                .end = counter_end,
                                .stretch = counter_stretch,
                                .position = counter_position,
                                .ctx = &k,
                                .through_calls = sink.through_calls};
    }
    int rc = pt_decode(t, config, image, true, &sink, d);
    pt_qry_free_decoder(k.q);
    if (counting) {
        pt_flow_follow_span(&k.cf, NULL);
        if (!rc && k.cf.span_failed)
            rc = DIAG_NOMEM;
    }
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
    free(runs.at);
    free(counted);
    if (!rc)
        mark_functions(f);
    return rc;
}

/* For tests and benchmarks: ACART_PT_PATHS=off has blocks end at every call, as they did
 * before the flow followed blocks' paths (pt_path.h); ACART_PT_PATHS=report says on
 * standard error which way a decode went. */
static bool paths_mode(const char *mode)
{
    const char *m = getenv("ACART_PT_PATHS");
    return m && strcmp(m, mode) == 0;
}

/* Decodes on an image cut where blocks ran on before it is cut everywhere, where no block
 * can: each decode finds every such place its blocks show, so one is the rule. */
#define MAX_TARGETED_CUTS 4

int pt_flow_decode(struct pt_flow *f, const struct pt_cpu_trace *t, const struct pt_config *config,
                   struct pt_code *code, bool count_cycles, struct diag *d)
{
    /* A path that cannot be read means a decode more, and a consumer of closed calls
     * (pt flamegraph) cannot be told to start over: its blocks end at calls. */
    f->through_calls = !paths_mode("off") && !f->closed.fn;
    for (int tries = 0;; tries++) {
        int rc = decode_once(f, t, config, code->image, count_cycles, d);
        if (!rc && paths_mode("report"))
            fprintf(stderr, "acart: blocks %s\n",
                    f->through_calls ? "ran through calls" : "ended at calls");
        if (rc != PT_FLOW_CROSSED && rc != PT_PATH_UNKNOWN)
            return rc;
        bool through_calls = f->through_calls && rc != PT_PATH_UNKNOWN;
        /* The trace is decoded again on the image cut where blocks ran on (a block
         * decoder cannot go back), or with blocks that end at calls where a block's path
         * could not be followed. Such places are rare (code running into the next symbol,
         * code no instruction decoder takes, a loop of direct calls), so this costs a
         * decode more where a trace has them, not one a call. */
        if (rc == PT_PATH_UNKNOWN)
            rc = 0;
        else
            rc = tries < MAX_TARGETED_CUTS && !f->crossed_overflow
                     ? pt_code_cut(code, f->crossed, f->num_crossed, d)
                     : pt_code_cut_everywhere(code, d);
        struct pt_closed_calls closed = f->closed;
        uint32_t cpu = f->cpu, nom_freq = f->nom_freq;
        pt_flow_free(f);
        if (!rc && (rc = pt_flow_init(f, code, cpu, nom_freq)) != 0)
            rc = DIAG_NOMEM;
        f->closed = closed;
        f->through_calls = through_calls;
        if (rc)
            return rc;
    }
}
