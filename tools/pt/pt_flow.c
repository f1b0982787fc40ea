#include "pt_flow.h"

#include "array_grow.h"

#include <stdlib.h>
#include <string.h>

static int grow(void **items, size_t *cap, size_t n, size_t size)
{
    return array_grow(items, cap, n, size, 64);
}

int pt_flow_init(struct pt_flow *f, const struct pt_code *code, uint32_t cpu, uint32_t nom_freq)
{
    memset(f, 0, sizeof *f);
    f->code = code;
    f->cpu = cpu;
    f->nom_freq = nom_freq;
    f->next = NEXT_NEW;
    f->functions = calloc(code->num_names, sizeof *f->functions);
    f->open_calls = calloc(code->num_names ? code->num_names : 1, sizeof *f->open_calls);
    return f->functions && f->open_calls ? 0 : DIAG_NOMEM;
}

void pt_flow_free(struct pt_flow *f)
{
    free(f->calls);
    free(f->stack);
    free(f->functions);
    free(f->open_calls);
    free(f->gaps);
    free(f->gap_insns);
    free(f->span_names);
    free(f->span_counts);
    free(f->crossed);
    free(f->paths);
    free(f->segs.at);
    memset(f, 0, sizeof *f);
}

/* Called for every block: the common cases (the function of one of the last few entries,
 * room for one more) take no call. A span holds each function about once, however often
 * calls go back and forth in it, so sharing its ticks divides once a function. Entries a
 * following flow has taken (before span_taken) stay as they are; one it took part of may
 * grow, as its part counts only what it took. */
#define SPAN_MERGE_WINDOW 4
static inline int span_add(struct pt_flow *f, uint32_t name, uint64_t n)
{
    f->span_insns += n;
    size_t len = f->span_len;
    size_t low = len > SPAN_MERGE_WINDOW ? len - SPAN_MERGE_WINDOW : 0;
    if (low < f->span_taken)
        low = f->span_taken;
    for (size_t i = len; i > low; i--) {
        if (f->span_names[i - 1] == name) {
            f->span_counts[i - 1] += n;
            return 0;
        }
    }
    if (len == f->span_cap) {
        size_t cap = f->span_cap;
        if (grow((void **)&f->span_names, &cap, len, sizeof *f->span_names) ||
            grow((void **)&f->span_counts, &f->span_cap, len, sizeof *f->span_counts))
            return DIAG_NOMEM;
    }
    f->span_names[len] = name;
    f->span_counts[len] = n;
    f->span_len = len + 1;
    return 0;
}

/* A flow that shares the blocks of another (span_from, pt_flow_follow_span) on its own
 * clock: its span is its own entries, then those of the other's span it has not taken yet
 * (after entry span_taken, of which span_taken_part instructions are taken). Most often
 * both clocks move at the same blocks: it then shares the other's span itself, and no
 * block is counted twice. */

/* The entries of from's span that to has not taken, onto to's own. */
static int span_take_rest(struct pt_flow *to, struct pt_flow *from)
{
    size_t len = from->span_len;
    for (size_t i = from->span_taken; i < len; i++) {
        uint64_t n = from->span_counts[i] - (i == from->span_taken ? from->span_taken_part : 0);
        if (n && span_add(to, from->span_names[i], n)) {
            to->span_failed = true;
            return DIAG_NOMEM;
        }
    }
    from->span_taken = len ? len - 1 : 0;
    from->span_taken_part = len ? from->span_counts[len - 1] : 0;
    return 0;
}

/* The span ends (shared or dropped): a flow that follows it takes what it has not. */
static void span_clear(struct pt_flow *f)
{
    if (f->span_to)
        span_take_rest(f->span_to, f);
    if (f->span_from) {
        struct pt_flow *from = f->span_from;
        size_t len = from->span_len;
        from->span_taken = len ? len - 1 : 0;
        from->span_taken_part = len ? from->span_counts[len - 1] : 0;
    }
    f->span_len = 0;
    f->span_insns = 0;
    f->span_taken = 0;
    f->span_taken_part = 0;
}

/* Shares ticks among the entries names[0..len) of n instructions (counts). */
static void share_entries(struct pt_flow *f, uint64_t ticks, const uint32_t *names,
                          const uint64_t *counts, size_t len, uint64_t n)
{
    if (f->cycles_elsewhere) {
        for (size_t i = 0; i < len; i++)
            f->functions[names[i]].self_ticks += (double)ticks * (double)counts[i] / (double)n;
        return;
    }
    bool ratio_known = f->cbr && f->nom_freq;
    double ratio = ratio_known ? (double)f->cbr / f->nom_freq : 0.0;
    for (size_t i = 0; i < len; i++) {
        struct pt_function_stats *s = &f->functions[names[i]];
        double t = (double)ticks * (double)counts[i] / (double)n;
        s->self_ticks += t;
        s->self_cycles += t * ratio;
        if (!ratio_known)
            s->cycles_unknown = true;
    }
}

/* The ticks since the last timing update belong to the instructions run since then; they
 * are shared among those instructions' functions by instruction count. Cycles estimated
 * from them need the core:bus ratio; without it they are unknown, never guessed. */
static void share_span(struct pt_flow *f, uint64_t ticks)
{
    struct pt_flow *from = f->span_from;
    if (from && !f->span_len && !from->span_taken && !from->span_taken_part) {
        /* Its span is the other's. */
        if (!from->span_insns)
            return;
        f->timed = true;
        f->shared_ticks += ticks;
        share_entries(f, ticks, from->span_names, from->span_counts, from->span_len,
                      from->span_insns);
        span_clear(f);
        return;
    }
    if (from && span_take_rest(f, from))
        return;
    if (!f->span_insns)
        return;
    f->timed = true;
    f->shared_ticks += ticks;
    share_entries(f, ticks, f->span_names, f->span_counts, f->span_len, f->span_insns);
    span_clear(f);
}

/* Time moves on. Time that passes with no instruction traced (before the first one, while
 * tracing is off, across a gap) is nobody's: the span is dropped and time starts afresh. */
static void time_update(struct pt_flow *f, uint64_t tsc)
{
    if (!f->have_tsc) {
        f->first_tsc = tsc;
        f->have_tsc = true;
    } else if (tsc > f->last_tsc) {
        share_span(f, tsc - f->last_tsc);
    } else if (tsc < f->last_tsc) {
        /* libipt's estimate stepped back at a new TSC or MTC: the span's time is unknown. */
        span_clear(f);
    }
    f->last_tsc = tsc;
}

static void drop_span(struct pt_flow *f)
{
    span_clear(f);
}

void pt_flow_follow_span(struct pt_flow *f, struct pt_flow *from)
{
    if (f->span_from)
        f->span_from->span_to = NULL;
    f->span_from = from;
    if (from) {
        from->span_to = f;
        from->span_taken = from->span_len;
        from->span_taken_part = 0;
    }
}

void pt_flow_time_to(struct pt_flow *f, uint64_t tsc)
{
    if (tsc != f->last_tsc || !f->have_tsc)
        time_update(f, tsc);
}

/* open_call and close_top are inlined (GCC kept them calls): in call-heavy code one of
 * them runs nearly every block, and the calls with their saved registers were about a
 * twelfth of the flow's instructions there. */
static inline __attribute__((always_inline)) int open_call(struct pt_flow *f, uint32_t name,
                                                           bool interrupt)
{
    if (grow((void **)&f->calls, &f->calls_cap, f->num_calls, sizeof *f->calls) ||
        grow((void **)&f->stack, &f->stack_cap, f->depth, sizeof *f->stack))
        return DIAG_NOMEM;
    struct pt_call *c = &f->calls[f->num_calls];
    memset(c, 0, sizeof *c);
    c->parent = f->depth ? f->stack[f->depth - 1] : PT_FLOW_NONE;
    c->name = name;
    c->depth = (uint32_t)f->depth;
    c->interrupt = interrupt;
    c->start_tsc = f->last_tsc;
    c->first_insn = f->insns;
    f->stack[f->depth++] = (uint32_t)f->num_calls++;
    f->calls_entered++;
    f->functions[name].calls++;
    f->open_calls[name]++;
    return 0;
}

static inline __attribute__((always_inline)) void close_top(struct pt_flow *f, enum pt_call_end end)
{
    uint32_t at = f->stack[--f->depth];
    struct pt_call *c = &f->calls[at];
    c->end = end;
    c->end_tsc = f->last_tsc;
    c->insns = f->insns - c->first_insn;
    /* A recursive function's inner calls are inside its outermost one already. */
    if (--f->open_calls[c->name] == 0) {
        f->functions[c->name].incl_insns += c->insns;
        f->functions[c->name].incl_ticks += c->end_tsc - c->start_tsc;
    }
    if (f->closed.fn)
        f->closed.fn(f->closed.ctx, f, at);
    /* Every call after it is a callee, closed already; every open call comes before it. */
    if (f->closed.drop || (f->closed.drop_deeper && c->depth > f->closed.max_depth))
        f->num_calls = at;
}

static void close_all(struct pt_flow *f, enum pt_call_end end)
{
    while (f->depth)
        close_top(f, end);
}

/* n instructions of one function (name), run one after the other, the last of class
 * iclass; those before it neither call nor return. An instruction, or a block of libipt's
 * block decoder: pt_code cuts the image where names change and a block never crosses a
 * section, and a block ends at every call and return, or runs through direct calls and
 * comes here a segment of its path at a time (pt_path.h), so a block is such a run and
 * the flow follows blocks exactly as it would their instructions one by one. Inlined into
 * on_block and on_insn (which GCC does not do by itself): it runs for every block, and the
 * call and its saved registers were a sixth of its cost. */
static inline __attribute__((always_inline)) int
on_run(struct pt_flow *f, uint32_t name, uint64_t n, enum pt_insn_class iclass, uint64_t tsc)
{
    /* Most blocks run with no new time since the block before. */
    if (tsc != f->last_tsc || !f->have_tsc)
        time_update(f, tsc);
    if (f->time_only)
        return span_add(f, name, n);
    int rc = 0;
    if (f->next == NEXT_NEW || !f->depth) {
        close_all(f, PT_END_DISABLED);
        rc = open_call(f, name, false);
    } else if (f->next == NEXT_CALL || f->next == NEXT_INTERRUPT) {
        rc = open_call(f, name, f->next == NEXT_INTERRUPT);
    } else {
        if (f->next == NEXT_RETURN)
            close_top(f, PT_END_RETURN);
        /* Returned above the first call the trace saw, or went on in another function
         * without a call (a tail call, or code running into the next symbol). */
        if (!f->depth) {
            rc = open_call(f, name, false);
        } else if (f->calls[f->stack[f->depth - 1]].name != name) {
            bool interrupt = f->calls[f->stack[f->depth - 1]].interrupt;
            close_top(f, PT_END_RETURN);
            rc = open_call(f, name, interrupt);
        }
    }
    if (rc || (rc = span_add(f, name, n)))
        return rc;
    f->insns += n;
    f->calls[f->stack[f->depth - 1]].self_insns += n;
    f->functions[name].self_insns += n;
    /* A table, not a switch: the class changes block by block, and the switch's chain of
     * compares cost more than the lookup. Classes past the table (libipt's later ones)
     * are NEXT_SAME, as every class it does not name. */
    static const unsigned char next_after[] = {
        [ptic_call] = NEXT_CALL,         [ptic_far_call] = NEXT_CALL, [ptic_return] = NEXT_RETURN,
        [ptic_far_return] = NEXT_RETURN, [ptic_ptwrite] = NEXT_SAME,
    };
    f->next = (unsigned)iclass < sizeof next_after ? next_after[iclass] : NEXT_SAME;
    return 0;
}

static int on_insn(void *ctx, const struct pt_insn *insn, uint64_t tsc)
{
    struct pt_flow *f = ctx;
    return on_run(f, pt_code_name_at(f->code, insn->ip), 1, insn->iclass, tsc);
}

static int note_crossed(struct pt_flow *f, size_t region)
{
    for (size_t i = 0; i < f->num_crossed; i++)
        if (f->crossed[i] == region)
            return 0;
    if (f->num_crossed == PT_FLOW_MAX_CROSSED) {
        f->crossed_overflow = true;
        return 0;
    }
    if (grow((void **)&f->crossed, &f->crossed_cap, f->num_crossed, sizeof *f->crossed))
        return DIAG_NOMEM;
    f->crossed[f->num_crossed++] = region;
    return 0;
}

/* A block whose section lies in one region is named by the section. Otherwise it is named
 * by the region of its first instruction, which must hold its last one too: where not,
 * the block ran on into other code and how many of its instructions ran where is not
 * known, so the place is noted (f->crossed) for the trace to be decoded again on an
 * image cut there. */
static int name_block(struct pt_flow *f, const struct pt_block *b, uint32_t *name)
{
    const struct pt_code *c = f->code;
    if (b->isid > 0 && (size_t)b->isid < c->num_isids && c->isid_names[b->isid]) {
        *name = c->isid_names[b->isid] - 1;
    } else {
        size_t r = pt_code_region(c, b->ip);
        *name = c->region_names[r];
        if (b->end_ip < pt_code_region_start(c, r) || b->end_ip > pt_code_region_last(c, r)) {
            int rc = note_crossed(f, r);
            return rc ? rc : note_crossed(f, pt_code_region(c, b->end_ip));
        }
    }
    struct pt_flow_known_block *k = &f->known[(b->ip ^ (b->ip >> 12)) & (PT_FLOW_KNOWN_BLOCKS - 1)];
    *k = (struct pt_flow_known_block){
        .ip = b->ip, .end_ip = b->end_ip, .ninsn = b->ninsn, .name = *name};
    return 0;
}

/* The entry of the block (ip, end_ip, ninsn) in the table of paths, or the empty one
 * where it goes. */
static struct pt_flow_known_block *path_slot(struct pt_flow *f, uint64_t ip, uint64_t end_ip,
                                             uint32_t ninsn)
{
    size_t mask = f->paths_cap - 1;
    uint64_t key = ip ^ (end_ip << 7) ^ ninsn;
    for (size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;; i = (i + 1) & mask) {
        struct pt_flow_known_block *e = &f->paths[i];
        if (!e->ninsn || (e->ip == ip && e->end_ip == end_ip && e->ninsn == ninsn))
            return e;
    }
}

static int grow_paths(struct pt_flow *f)
{
    size_t cap = f->paths_cap ? 2 * f->paths_cap : 1024;
    struct pt_flow_known_block *old = f->paths;
    size_t old_cap = f->paths_cap;
    f->paths = calloc(cap, sizeof *f->paths);
    if (!f->paths) {
        f->paths = old;
        return DIAG_NOMEM;
    }
    f->paths_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].ninsn)
            *path_slot(f, old[i].ip, old[i].end_ip, old[i].ninsn) = old[i];
    free(old);
    return 0;
}

/* Block b's path (pt_path.h) into k: from the table of paths, or read from the code. */
static int know_path(struct pt_flow *f, const struct pt_block *b, struct pt_flow_known_block *k)
{
    if (2 * (f->num_paths + 1) > f->paths_cap) {
        int rc = grow_paths(f);
        if (rc)
            return rc;
    }
    struct pt_flow_known_block *e = path_slot(f, b->ip, b->end_ip, b->ninsn);
    if (!e->ninsn) {
        size_t first = f->segs.num;
        int rc = pt_path_walk(f->code, b, &f->segs);
        if (rc)
            return rc;
        *e = (struct pt_flow_known_block){.ip = b->ip, .end_ip = b->end_ip, .ninsn = b->ninsn};
        if (f->segs.num - first == 1) { /* most blocks: no call, one region */
            e->name = f->segs.at[first].name;
            f->segs.num = first;
        } else {
            e->seg_first = (uint32_t)first;
            e->seg_count = (uint32_t)(f->segs.num - first);
        }
        f->num_paths++;
    }
    *k = *e;
    return 0;
}

static int on_block(void *ctx, const struct pt_block *b, uint64_t tsc)
{
    struct pt_flow *f = ctx;
    /* Calls and returns need the last instruction's class, which a block from libipt's
     * block cache may lack (an IRET, a SYSCALL: pt_code_block_class); time does not. */
    enum pt_insn_class iclass = f->time_only ? b->iclass : pt_code_block_class(f->code, b);
    struct pt_flow_known_block *k = &f->known[(b->ip ^ (b->ip >> 12)) & (PT_FLOW_KNOWN_BLOCKS - 1)];
    struct pt_flow_known_block named;
    if (k->ip != b->ip || k->end_ip != b->end_ip || k->ninsn != b->ninsn) {
        int rc;
        if (f->through_calls) {
            rc = know_path(f, b, k);
        } else {
            /* A block that ran into other code is not remembered. */
            named = (struct pt_flow_known_block){0};
            rc = name_block(f, b, &named.name);
            k = &named;
        }
        if (rc)
            return rc;
    }
    /* A block through direct calls runs its segments as blocks that end at each call. One
     * call of on_run, inlined: it is most of the flow's work. */
    const struct pt_path_segment *s = k->seg_count ? &f->segs.at[k->seg_first] : NULL;
    const struct pt_path_segment *last = s ? s + k->seg_count - 1 : NULL;
    for (;;) {
        enum pt_insn_class c = s == last ? iclass : s->call ? ptic_call : ptic_other;
        int rc = on_run(f, s ? s->name : k->name, s ? s->ninsn : b->ninsn, c, tsc);
        if (rc || s == last)
            return rc;
        s++;
    }
}

/* libipt's counts of timing packets it could not use restart where it recovers (lost_mtc
 * at a TSC packet, lost_cyc at a TSC or MTC packet): a count lower than the last one seen
 * is new losses since then. */
static void count_lost(uint64_t *total, uint32_t *seen, uint32_t now)
{
    *total += now >= *seen ? now - *seen : now;
    *seen = now;
}

static int on_event(void *ctx, const struct pt_event *ev)
{
    struct pt_flow *f = ctx;
    count_lost(&f->lost_cyc, &f->seen_lost_cyc, ev->lost_cyc);
    count_lost(&f->lost_mtc, &f->seen_lost_mtc, ev->lost_mtc);
    switch (ev->type) {
    case ptev_enabled:
        if (!f->have_tsc)
            time_update(f, ev->tsc);
        if (ev->variant.enabled.resumed) {
            /* Back where it stopped (a system call left the traced code): the same call. */
            f->next = NEXT_SAME;
        } else {
            /* Somewhere else: what ran in between is unknown, the open calls end where
             * tracing stopped. */
            if (f->disabled)
                f->last_tsc = f->disabled_tsc;
            close_all(f, PT_END_DISABLED);
            f->next = NEXT_NEW;
        }
        f->disabled = false;
        f->last_tsc = ev->tsc;
        return 0;
    case ptev_disabled:
    case ptev_async_disabled:
    case ptev_stop:
        time_update(f, ev->tsc);
        drop_span(f);
        f->disabled = true;
        f->disabled_tsc = ev->tsc;
        return 0;
    case ptev_overflow:
        drop_span(f);
        close_all(f, PT_END_OVERFLOW);
        f->last_tsc = ev->tsc;
        f->next = NEXT_NEW;
        return 0;
    case ptev_async_branch:
        time_update(f, ev->tsc);
        f->next = NEXT_INTERRUPT;
        return 0;
    case ptev_cbr:
        time_update(f, ev->tsc);
        f->cbr = ev->variant.cbr.ratio;
        return 0;
    default:
        time_update(f, ev->tsc);
        return 0;
    }
}

static int on_gap(void *ctx, const struct pt_gap *gap)
{
    struct pt_flow *f = ctx;
    size_t cap = f->gaps_cap;
    if (grow((void **)&f->gap_insns, &cap, f->num_gaps, sizeof *f->gap_insns) ||
        grow((void **)&f->gaps, &f->gaps_cap, f->num_gaps, sizeof *f->gaps))
        return DIAG_NOMEM;
    f->gap_insns[f->num_gaps] = f->insns;
    f->gaps[f->num_gaps++] = *gap;
    drop_span(f);
    close_all(f, PT_END_GAP);
    f->next = NEXT_NEW;
    return 0;
}

void pt_flow_sink(struct pt_flow *f, struct pt_sink *sink)
{
    memset(sink, 0, sizeof *sink);
    sink->insn = on_insn;
    sink->block = on_block;
    sink->event = on_event;
    sink->gap = on_gap;
    sink->through_calls = f->through_calls;
    sink->ctx = f;
}

void pt_flow_finish(struct pt_flow *f)
{
    if (f->disabled)
        f->last_tsc = f->disabled_tsc;
    close_all(f, f->disabled ? PT_END_DISABLED : PT_END_OPEN);
}
