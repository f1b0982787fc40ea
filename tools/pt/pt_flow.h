/* From one CPU's decoded instructions to calls and functions: a shadow call stack follows
 * calls, returns, interrupts and their returns, and records every call with its time and
 * instructions; each function gets its exact instruction counts and the time between the
 * trace's timing updates, and its core cycles (pt_cycles.h). `acart pt calls`, `pt
 * functions`, `pt flamegraph` and `export chrome` all read this.
 *
 * What the trace cannot tell is marked, not guessed: where decoding stopped (a gap, an
 * overflow, tracing disabled and enabled somewhere else) every open call ends and the
 * next instruction starts a new outermost call; a call whose return precedes the trace
 * is an outermost call that ends with that return. */
#ifndef ACART_TOOLS_PT_FLOW_H
#define ACART_TOOLS_PT_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_code.h"
#include "pt_decode.h"
#include "pt_path.h"

#define PT_FLOW_NONE UINT32_MAX

/* Distinct regions a flow notes at most before it gives up on cutting the image there
 * (crossed_overflow): then it is cut everywhere. */
#define PT_FLOW_MAX_CROSSED 1024

/* Blocks pt_flow remembers the names of (a power of two). */
#define PT_FLOW_KNOWN_BLOCKS 256

enum pt_call_end {
    PT_END_OPEN,     /* still running when the trace ended */
    PT_END_RETURN,   /* returned (or tail-called into another function) */
    PT_END_GAP,      /* decoding stopped: a gap in the trace */
    PT_END_OVERFLOW, /* the CPU's trace overflowed */
    PT_END_DISABLED, /* tracing was disabled and resumed elsewhere */
};

/* One execution of a function, from entry (or the trace's first sight of it) to return. */
struct pt_call {
    uint32_t parent; /* index of the calling call, or PT_FLOW_NONE */
    uint32_t name;   /* pt_code name id */
    uint32_t depth;  /* 0 for an outermost call */
    bool interrupt;  /* entered asynchronously (an interrupt or exception) */
    enum pt_call_end end;
    uint64_t start_tsc, end_tsc;
    uint64_t first_insn; /* instruction number of its first instruction */
    uint64_t insns;      /* instructions, its callees' included */
    uint64_t self_insns; /* instructions in the function itself */
};

struct pt_function_stats {
    uint64_t self_insns, incl_insns, calls;
    double self_ticks;  /* TSC ticks */
    double self_cycles; /* core cycles */
    uint64_t incl_ticks;
    /* What the numbers are worth (set by pt_flow_decode for functions that ran): */
    bool time_unknown;     /* the clock never moved while its CPU ran instructions */
    bool cycles_estimated; /* from time at the core:bus ratio, not counted from CYC */
    bool cycles_unknown;   /* estimated, but with no time or at no known ratio */
};

/* The timing packets of one CPU's trace, as libipt's packet decoder reads them from every
 * PSB (pt_timing_scan). */
struct pt_timing {
    uint64_t cyc_packets, cyc_cycles; /* CYC packets and the core cycles they count */
    uint64_t tsc_packets, mtc_packets, cbr_packets;
};

struct pt_flow;

/* What a flow does with each call as it closes. */
struct pt_closed_calls {
    /* No record of a closed call is kept (`pt functions`, `pt flamegraph`, the cycle
     * count's second decode): memory follows the depth of the call stack, not the number
     * of calls in the trace (about 95 MB a MiB of trace). */
    bool drop;
    /* Called before the call is dropped: its callers are the open calls, all before it in
     * calls[]. */
    void (*fn)(void *ctx, const struct pt_flow *f, uint32_t call);
    void *ctx;
    /* Only calls at most max_depth deep are kept (`pt calls --max-depth`): the others
     * are dropped as they close, as with drop. */
    bool drop_deeper;
    uint32_t max_depth;
};

struct pt_flow {
    const struct pt_code *code;
    uint32_t cpu;
    struct pt_closed_calls closed;
    /* Only time shared among functions is followed, no call (the decode that counts
     * cycles, pt_cycles.h): instructions, calls and stacks are left alone. */
    bool time_only;
    /* Its functions' self_cycles come from elsewhere (pt_cycles.h: CYC packets, or none
     * for a time-only flow): time is not turned into cycles. */
    bool cycles_elsewhere;
    uint32_t nom_freq;     /* MSR_PLATFORM_INFO's ratio: TSC ticks to core cycles with the CBR */
    struct pt_call *calls; /* in order of entry: depth-first order of the call tree */
    size_t num_calls, calls_cap;
    size_t calls_entered; /* calls, the dropped ones included */
    uint32_t *stack;      /* indices of the open calls, outermost first */
    size_t depth, stack_cap;
    struct pt_function_stats *functions; /* by name id */
    struct pt_gap *gaps;
    uint64_t *gap_insns; /* instructions decoded before each gap */
    size_t num_gaps, gaps_cap;
    uint64_t insns; /* instructions so far */
    uint64_t first_tsc, last_tsc;
    bool have_tsc;
    uint32_t cbr; /* core:bus ratio of the last CBR packet; 0 before one */
    bool timed;   /* time moved while instructions ran */
    /* Ticks shared among functions. On the clock of CYC packets (pt_cycles.h): cycles. */
    uint64_t shared_ticks;
    /* Timing packets libipt could not use for time: lost_cyc (CYC before it knew the
     * core:bus ratio) and lost_mtc, summed over the counts its events carry, which restart
     * where it recovers (so at least these many). */
    uint64_t lost_cyc, lost_mtc;
    uint32_t seen_lost_cyc, seen_lost_mtc;
    /* The trace's timing packets (pt_flow_decode), read where cycles are counted or time
     * is not known (timed false), the only places they explain anything. */
    struct pt_timing timing;
    bool cycles_counted;     /* self_cycles are CYC packets' cycles (pt_flow_decode) */
    uint64_t counted_cycles; /* then: those of them given to functions */
    uint64_t uncounted_cyc;  /* and CYC packets it could not count (no CBR before them) */
    /* Instructions since the last timing update, by function, to share its ticks. */
    uint32_t *span_names;
    uint64_t *span_counts;
    size_t span_len, span_cap;
    uint64_t span_insns;
    /* pt_flow_follow_span: the flow whose span this one's continues, and the one that
     * follows this one's (with how much of this span it took: entries before span_taken
     * whole, and span_taken_part instructions of that one). */
    struct pt_flow *span_from, *span_to;
    size_t span_taken;
    uint64_t span_taken_part;
    bool span_failed; /* out of memory taking another's span */
    /* What the last instruction tells about the next one. */
    enum { NEXT_SAME, NEXT_CALL, NEXT_RETURN, NEXT_INTERRUPT, NEXT_NEW } next;
    uint64_t disabled_tsc;
    bool disabled;
    /* Blocks run on through direct calls (pt_path.h): on_block follows each one's path,
     * which pt_flow_decode asks of pt_decode unless a path could not be followed. */
    bool through_calls;
    /* The names of blocks seen before, by where they start and end and their length: code
     * runs the same blocks again and again, and a block that matches one here lies in one
     * region (pt_code_region) with this name, or runs through the path of segments
     * segs.at[seg_first..seg_first + seg_count), so it needs no lookup. Direct-mapped; an
     * entry of no instructions is empty. */
    struct pt_flow_known_block {
        uint64_t ip, end_ip;
        uint32_t ninsn;
        uint32_t name;
        uint32_t seg_first, seg_count; /* seg_count 0: one segment, name */
    } known[PT_FLOW_KNOWN_BLOCKS];
    /* Every block whose path was followed, as in known: an open-addressing table of
     * paths_cap (a power of two) entries, so that a path is read once however many blocks
     * take turns in one entry of known. */
    struct pt_flow_known_block *paths;
    size_t paths_cap, num_paths;
    struct pt_path_segments segs;
    /* Open calls by name id: a call that closes is its function's outermost open one when
     * its count falls to 0 (a recursive function's inner calls count once). */
    uint32_t *open_calls;
    /* Where blocks ran from one region of the code into another (pt_code.h): the regions
     * of such a block's first and last instruction, each once. Such a block counts in the
     * region it began in, so these counts are not exact: the decode goes on only to find
     * every such place, and the image must be cut at these regions' edges and the trace
     * decoded again (pt_flow_decode). */
    size_t *crossed;
    size_t num_crossed, crossed_cap;
    bool crossed_overflow; /* more than PT_FLOW_MAX_CROSSED of them */
};

int pt_flow_init(struct pt_flow *f, const struct pt_code *code, uint32_t cpu, uint32_t nom_freq);
void pt_flow_free(struct pt_flow *f);

/* A sink for pt_decode (instructions, events, gaps) with f as its context. */
void pt_flow_sink(struct pt_flow *f, struct pt_sink *sink);

/* From now on the time-only flow f (time_only) shares the instructions of from's blocks,
 * as if they went to f too, on its own clock (pt functions' count of cycles: the same
 * blocks on the clock of CYC packets); NULL: no longer. from must outlive it. Where f's
 * clock moves at the same blocks as from's, f shares from's span itself, before from does
 * (so f's events go first); otherwise from hands f what f has not taken before it ends
 * its span. Out of memory: f->span_failed. */
void pt_flow_follow_span(struct pt_flow *f, struct pt_flow *from);

/* For a time-only flow: the clock moves to tsc (as an event with that time would move
 * it). */
void pt_flow_time_to(struct pt_flow *f, uint64_t tsc);

/* Ends the calls still open at the end of the trace. */
void pt_flow_finish(struct pt_flow *f);

#endif
