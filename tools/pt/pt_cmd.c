/* acart pt trace|calls|functions|flamegraph (DIR|TRACE) --elf IMAGE: Intel PT decoded with
 * libipt (docs/pt.md); `pt packets` is pt_packets.c. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "flame.h"
#include "pt_args.h"
#include "pt_input.h"
#include "pt_packets.h"
#include "text_escape.h"

static const char pt_usage[] =
    "usage: acart pt (trace|calls|functions|flamegraph) (DIR|TRACE) --elf IMAGE [options]\n"
    "       acart pt packets (DIR|TRACE) [options]\n"
    "\n"
    "Decodes the Intel PT trace of a collection (acart collect --pt), or a raw trace file,\n"
    "with libipt:\n"
    "  trace        every instruction (or block) with its time stamp, and the trace's events\n"
    "  calls        the call tree of each CPU as an indented timeline, time per call\n"
    "  functions    exact instruction counts and core cycles per function\n"
    "  flamegraph   the functions' instructions as an SVG flame graph\n"
    "  packets      every packet: offset, type, payload, as Intel's ptdump prints them\n"
    "Run `acart pt COMMAND --help` for details.\n";

static const char trace_usage[] =
    "usage: acart pt trace (DIR|TRACE) --elf IMAGE [--cpu N] [--blocks]\n"
    "\n"
    "Prints each CPU's trace in execution order: every instruction as\n"
    "  TSC  ADDRESS  FUNCTION+OFFSET  BYTES\n"
    "(TSC: libipt's time at the last timing packet before it), or with --blocks every\n"
    "run of instructions libipt decodes without trace as\n"
    "  TSC  FIRST..LAST  N insns  FUNCTION\n"
    "and the trace's events in brackets: [TSC  enabled], [TSC  disabled], interrupts,\n"
    "overflows, execution modes. Where decoding fails, a gap line names the offset in\n"
    "the trace file and libipt's error (pte_*), and decoding resumes at the next PSB.\n"
    "\n"
    "  -b, --blocks          blocks instead of single instructions\n";

static const char calls_usage[] =
    "usage: acart pt calls (DIR|TRACE) --elf IMAGE [--cpu N] [--max-depth D]\n"
    "\n"
    "Prints each CPU's calls as an indented timeline, one line per call in the order they\n"
    "began: start (microseconds after the CPU's first time stamp), duration ('-' where the\n"
    "trace gives no time), instructions (callees included) and the function, indented by\n"
    "call depth. A call that did not end in a return says how it ended: (gap),\n"
    "(overflow), (tracing off) or (running at end). Gaps in the trace appear where they\n"
    "happened.\n"
    "\n"
    "  -d, --max-depth D     calls no deeper than D (0: outermost only)\n";

static const char functions_usage[] =
    "usage: acart pt functions (DIR|TRACE) --elf IMAGE [--cpu N] [--top N]\n"
    "\n"
    "Prints per function, of every CPU or of --cpu N: instructions executed in it (exact,\n"
    "from the trace), their share, instructions with its callees, calls, core cycles in it,\n"
    "and microseconds in it and with its callees. Time comes from the trace's timing\n"
    "packets (TSC, MTC, CYC): the time between two updates goes to the instructions run\n"
    "in between. Cycles are the counts of the CYC packets (cycle-accurate traces), each\n"
    "going to the instructions run since the update before it, shared by instruction\n"
    "count where those ran in several functions; without CYC packets, ~N: time at the\n"
    "core:bus ratio of the CBR packets, an estimate. '-': not known (a warning says why).\n"
    "\n"
    "  -t, --top N           the N functions with the most instructions (default 20, 0 all)\n";

static const char flamegraph_usage[] =
    "usage: acart pt flamegraph (DIR|TRACE) --elf IMAGE -o OUT.svg [--cpu N]\n"
    "\n"
    "Draws the traced instructions as a flame graph: each function's own instructions\n"
    "stand on the calls that led to them (from the trace's call tree), one tower per CPU.\n"
    "A self-contained SVG; tooltips give each frame's instructions.\n"
    "\n"
    "  -o, --output FILE     the SVG file to write (required)\n";

static void put_name(const struct pt_code *code, uint32_t id, FILE *out)
{
    text_fput_terminal(pt_code_name(code, id), out);
}

/* pt trace */

struct trace_out {
    const struct pt_input *in;
    FILE *out;
};

/* ", ip: ADDRESS" unless the event's address is suppressed. */
static void print_ip(const struct pt_event *ev, const char *what, uint64_t ip, FILE *out)
{
    if (!ev->ip_suppressed)
        fprintf(out, ", %s: %016" PRIx64, what, ip);
}

/* As Intel's ptxed prints events with --event:ip --event:time. */
static void print_event(const struct pt_event *ev, FILE *out)
{
    static const char *const modes[] = {"unknown", "16-bit", "32-bit", "64-bit"};
    fprintf(out, "[%016" PRIx64 "  ", ev->tsc);
    switch (ev->type) {
    case ptev_enabled:
        fputs(ev->variant.enabled.resumed ? "resumed" : "enabled", out);
        print_ip(ev, "ip", ev->variant.enabled.ip, out);
        break;
    case ptev_disabled:
        fputs("disabled", out);
        print_ip(ev, "ip", ev->variant.disabled.ip, out);
        break;
    case ptev_async_disabled:
        fprintf(out, "disabled, at: %016" PRIx64, ev->variant.async_disabled.at);
        print_ip(ev, "ip", ev->variant.async_disabled.ip, out);
        break;
    case ptev_async_branch:
        fprintf(out, "interrupt, from: %016" PRIx64, ev->variant.async_branch.from);
        print_ip(ev, "to", ev->variant.async_branch.to, out);
        break;
    case ptev_paging:
        fprintf(out, "paging, cr3: %016" PRIx64 "%s", ev->variant.paging.cr3,
                ev->variant.paging.non_root ? ", nr" : "");
        break;
    case ptev_async_paging:
        fprintf(out, "paging, cr3: %016" PRIx64 "%s", ev->variant.async_paging.cr3,
                ev->variant.async_paging.non_root ? ", nr" : "");
        print_ip(ev, "ip", ev->variant.async_paging.ip, out);
        break;
    case ptev_overflow:
        fputs("overflow", out);
        print_ip(ev, "ip", ev->variant.overflow.ip, out);
        break;
    case ptev_exec_mode:
        fprintf(out, "exec mode: %s", modes[ev->variant.exec_mode.mode & 3]);
        print_ip(ev, "ip", ev->variant.exec_mode.ip, out);
        break;
    case ptev_tsx:
        fputs(ev->variant.tsx.aborted       ? "aborted"
              : ev->variant.tsx.speculative ? "begin transaction"
                                            : "committed",
              out);
        print_ip(ev, "ip", ev->variant.tsx.ip, out);
        break;
    case ptev_stop:
        fputs("stopped", out);
        break;
    case ptev_vmcs:
        fprintf(out, "vmcs, base: %016" PRIx64, ev->variant.vmcs.base);
        break;
    case ptev_async_vmcs:
        fprintf(out, "vmcs, base: %016" PRIx64, ev->variant.async_vmcs.base);
        print_ip(ev, "ip", ev->variant.async_vmcs.ip, out);
        break;
    case ptev_exstop:
        fputs("exstop", out);
        print_ip(ev, "ip", ev->variant.exstop.ip, out);
        break;
    case ptev_mwait:
        fprintf(out, "mwait %" PRIx32 " %" PRIx32, ev->variant.mwait.hints, ev->variant.mwait.ext);
        print_ip(ev, "ip", ev->variant.mwait.ip, out);
        break;
    case ptev_pwre:
        fprintf(out, "pwre c%u.%u%s", (ev->variant.pwre.state + 1u) & 0xf,
                (ev->variant.pwre.sub_state + 1u) & 0xf, ev->variant.pwre.hw ? " hw" : "");
        break;
    case ptev_pwrx:
        fprintf(out, "pwrx %sc%u (c%u)",
                ev->variant.pwrx.interrupt    ? "int: "
                : ev->variant.pwrx.store      ? "st: "
                : ev->variant.pwrx.autonomous ? "hw: "
                                              : "",
                (ev->variant.pwrx.last + 1u) & 0xf, (ev->variant.pwrx.deepest + 1u) & 0xf);
        break;
    case ptev_ptwrite:
        fprintf(out, "ptwrite: %" PRIx64, ev->variant.ptwrite.payload);
        print_ip(ev, "ip", ev->variant.ptwrite.ip, out);
        break;
    case ptev_cbr:
        fprintf(out, "cbr: %x", (unsigned)ev->variant.cbr.ratio);
        break;
    case ptev_mnt:
        fprintf(out, "mnt: %" PRIx64, ev->variant.mnt.payload);
        break;
    default:
        fprintf(out, "event %d", (int)ev->type);
        break;
    }
    fputs("]\n", out);
}

static int trace_event(void *ctx, const struct pt_event *ev)
{
    struct trace_out *t = ctx;
    /* Tick events only move the clock (ptxed too shows them only when asked). */
    if (ev->type != ptev_tick && !ev->status_update)
        print_event(ev, t->out);
    return 0;
}

static void print_place(const struct pt_code *code, uint64_t ip, FILE *out)
{
    put_name(code, pt_code_name_at(code, ip), out);
    uint64_t start = pt_code_function_start(code, ip);
    if (start != ip)
        fprintf(out, "+0x%" PRIx64, ip - start);
}

static int trace_insn(void *ctx, const struct pt_insn *insn, uint64_t tsc)
{
    struct trace_out *t = ctx;
    fprintf(t->out, "%016" PRIx64 "  %016" PRIx64 "  ", tsc, insn->ip);
    print_place(&t->in->code, insn->ip, t->out);
    fputs(" ", t->out);
    for (uint8_t i = 0; i < insn->size; i++)
        fprintf(t->out, " %02x", insn->raw[i]);
    fputc('\n', t->out);
    return 0;
}

static int trace_block(void *ctx, const struct pt_block *b, uint64_t tsc)
{
    struct trace_out *t = ctx;
    fprintf(t->out, "%016" PRIx64 "  %016" PRIx64 "..%016" PRIx64 "  %u insns  ", tsc, b->ip,
            b->end_ip, (unsigned)b->ninsn);
    print_place(&t->in->code, b->ip, t->out);
    fputc('\n', t->out);
    return 0;
}

static int trace_gap(void *ctx, const struct pt_gap *gap)
{
    struct trace_out *t = ctx;
    char what[512];
    pt_gap_describe(gap, what, sizeof what);
    fprintf(t->out, "[%s]\n", what);
    return 0;
}

static int trace_end(void *ctx, uint64_t tsc)
{
    struct trace_out *t = ctx;
    fprintf(t->out, "[%016" PRIx64 "  end of trace]\n", tsc);
    return 0;
}

static int pt_trace(int argc, char **argv)
{
    struct pt_args a;
    struct pt_input in;
    int rc = pt_args_parse(argc, argv, "pt trace", trace_usage, true, &a);
    if (rc < 0)
        rc = pt_args_open(&in, &a, "pt trace");
    if (rc >= 0) {
        pt_args_free(&a);
        return rc;
    }
    struct trace_out t = {&in, stdout};
    struct pt_sink sink = {.insn = trace_insn,
                           .block = trace_block,
                           .event = trace_event,
                           .gap = trace_gap,
                           .end = trace_end,
                           .ctx = &t};
    struct diag d = {0};
    rc = ACART_EXIT_OK;
    for (uint32_t cpu = pt_args_first_cpu(&a);
         cpu < pt_args_end_cpu(&a, &in) && rc == ACART_EXIT_OK; cpu++) {
        printf("cpu %" PRIu32 "\n", cpu);
        if (pt_input_decode(&in, "pt trace", cpu, a.blocks, &sink, &d) != 0)
            rc = diag_report("pt trace", &d);
    }
    if (rc == ACART_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "acart pt trace: cannot write the output\n");
        rc = ACART_EXIT_OUTPUT;
    }
    pt_input_close(&in);
    pt_args_free(&a);
    return rc;
}

/* pt calls */

static const char *end_note(const struct pt_call *c)
{
    switch (c->end) {
    case PT_END_GAP:
        return "  (gap)";
    case PT_END_OVERFLOW:
        return "  (overflow)";
    case PT_END_DISABLED:
        return "  (tracing off)";
    case PT_END_OPEN:
        return "  (running at end)";
    default:
        return "";
    }
}

static void print_gap_line(const struct pt_gap *gap, FILE *out)
{
    char what[512];
    pt_gap_describe(gap, what, sizeof what);
    fprintf(out, "%14s  %12s  %10s  [%s]\n", "", "", "", what);
}

static void print_calls(const struct pt_input *in, const struct pt_flow *f, uint64_t max_depth,
                        FILE *out)
{
    /* Where the clock never moved while instructions ran, times are not known: "-", not 0. */
    char traced[48] = "no time";
    if (f->timed)
        snprintf(traced, sizeof traced, "%.3f us traced",
                 pt_input_us(in, (double)(f->last_tsc - f->first_tsc)));
    fprintf(out, "cpu %" PRIu32 ": %" PRIu64 " instructions in %zu calls, %zu gaps, %s\n", f->cpu,
            f->insns, f->calls_entered, f->num_gaps, traced);
    fprintf(out, "%14s  %12s  %10s  %s\n", "start us", "duration us", "insns", "call");
    size_t g = 0;
    for (size_t i = 0; i < f->num_calls; i++) {
        const struct pt_call *c = &f->calls[i];
        while (g < f->num_gaps && f->gap_insns[g] <= c->first_insn)
            print_gap_line(&f->gaps[g++], out);
        if (c->depth > max_depth)
            continue;
        char start[32] = "-", duration[32] = "-";
        if (f->timed) {
            snprintf(start, sizeof start, "%.3f",
                     pt_input_us(in, (double)(c->start_tsc - f->first_tsc)));
            snprintf(duration, sizeof duration, "%.3f",
                     pt_input_us(in, (double)(c->end_tsc - c->start_tsc)));
        }
        fprintf(out, "%14s  %12s  %10" PRIu64 "  %*s%s", start, duration, c->insns,
                (int)(2 * c->depth), "", c->interrupt ? "[interrupt] " : "");
        put_name(&in->code, c->name, out);
        fprintf(out, "%s\n", end_note(c));
    }
    while (g < f->num_gaps)
        print_gap_line(&f->gaps[g++], out);
}

static int pt_calls(int argc, char **argv)
{
    struct pt_args a;
    struct pt_input in;
    int rc = pt_args_parse(argc, argv, "pt calls", calls_usage, true, &a);
    if (rc < 0)
        rc = pt_args_open(&in, &a, "pt calls");
    if (rc >= 0) {
        pt_args_free(&a);
        return rc;
    }
    struct diag d = {0};
    rc = ACART_EXIT_OK;
    for (uint32_t cpu = pt_args_first_cpu(&a);
         cpu < pt_args_end_cpu(&a, &in) && rc == ACART_EXIT_OK; cpu++) {
        struct pt_flow f;
        /* The calls it does not print need no record: memory and time follow the calls
         * printed. */
        const struct pt_flow_options keep_calls = {
            .name = "pt calls",
            .closed = {.drop_deeper = true,
                       .max_depth = a.max_depth > UINT32_MAX ? UINT32_MAX : (uint32_t)a.max_depth}};
        if (pt_input_flow(&in, cpu, &keep_calls, &f, &d) != 0) {
            rc = diag_report("pt calls", &d);
        } else {
            print_calls(&in, &f, a.max_depth, stdout);
            pt_input_warn_timing("pt calls", &in, &f, false);
        }
        pt_flow_free(&f);
    }
    if (rc == ACART_EXIT_OK && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "acart pt calls: cannot write the output\n");
        rc = ACART_EXIT_OUTPUT;
    }
    pt_input_close(&in);
    pt_args_free(&a);
    return rc;
}

/* pt functions */

struct function_row {
    uint32_t name;
    struct pt_function_stats s;
};

static int compare_rows(const void *a, const void *b)
{
    const struct function_row *x = a, *y = b;
    if (x->s.self_insns != y->s.self_insns)
        return x->s.self_insns > y->s.self_insns ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* What the CPUs of a `pt functions` table say of their cycles, for its first line. */
struct cycle_totals {
    uint64_t in_cyc, given; /* cycles CYC packets count, and those given to functions */
    bool counted, estimated;
};

/* A cycles cell: counted from CYC packets, "~" estimated from time, "-" not known. */
static void cycles_cell(const struct pt_function_stats *s, char *buf, size_t size)
{
    if (s->cycles_unknown)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%s%.0f", s->cycles_estimated ? "~" : "", s->self_cycles);
}

static void us_cell(const struct pt_input *in, const struct pt_function_stats *s, double ticks,
                    char *buf, size_t size)
{
    if (s->time_unknown)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f", pt_input_us(in, ticks));
}

static void print_functions(const struct pt_input *in, struct function_row *rows, size_t n,
                            uint64_t total, size_t gaps, const struct cycle_totals *cycles,
                            uint64_t top, FILE *out)
{
    qsort(rows, n, sizeof *rows, compare_rows);
    fprintf(out, "%" PRIu64 " instructions, %zu gaps", total, gaps);
    if (cycles->counted)
        fprintf(out, "; %" PRIu64 " core cycles in CYC packets, %" PRIu64 " of them in functions",
                cycles->in_cyc, cycles->given);
    if (cycles->estimated)
        fprintf(out, "; cycles marked ~ are estimated from time (no CYC packets)");
    fputc('\n', out);
    fprintf(out, "%12s  %6s  %12s  %8s  %14s  %12s  %12s  %s\n", "Insns", "%", "Incl insns",
            "Calls", "Cycles", "Self us", "Incl us", "Function");
    uint64_t shown = 0;
    for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
        const struct pt_function_stats *s = &rows[i].s;
        char cyc[32], self_us[32], incl_us[32];
        cycles_cell(s, cyc, sizeof cyc);
        us_cell(in, s, s->self_ticks, self_us, sizeof self_us);
        us_cell(in, s, (double)s->incl_ticks, incl_us, sizeof incl_us);
        shown += s->self_insns;
        fprintf(out, "%12" PRIu64 "  %5.1f%%  %12" PRIu64 "  %8" PRIu64 "  %14s  %12s  %12s  ",
                s->self_insns, total ? 100.0 * (double)s->self_insns / (double)total : 0.0,
                s->incl_insns, s->calls, cyc, self_us, incl_us);
        put_name(&in->code, rows[i].name, out);
        fputc('\n', out);
    }
    if (top && n > top)
        fprintf(out, "%12" PRIu64 "  %5.1f%%  (%zu more functions)\n", total - shown,
                total ? 100.0 * (double)(total - shown) / (double)total : 0.0, n - (size_t)top);
}

static int pt_functions(int argc, char **argv)
{
    struct pt_args a;
    struct pt_input in;
    int rc = pt_args_parse(argc, argv, "pt functions", functions_usage, true, &a);
    if (rc < 0)
        rc = pt_args_open(&in, &a, "pt functions");
    if (rc >= 0) {
        pt_args_free(&a);
        return rc;
    }
    struct diag d = {0};
    size_t num_names = in.code.num_names, gaps = 0;
    uint64_t total = 0;
    struct cycle_totals cycles = {0};
    struct function_row *rows = calloc(num_names, sizeof *rows);
    rc = rows ? ACART_EXIT_OK : ACART_EXIT_FAILURE;
    for (uint32_t cpu = pt_args_first_cpu(&a);
         cpu < pt_args_end_cpu(&a, &in) && rc == ACART_EXIT_OK; cpu++) {
        struct pt_flow f;
        const struct pt_flow_options functions_only = {
            .name = "pt functions", .count_cycles = true, .closed = {.drop = true}};
        if (pt_input_flow(&in, cpu, &functions_only, &f, &d) != 0) {
            rc = diag_report("pt functions", &d);
        } else {
            for (size_t i = 0; i < num_names; i++) {
                struct pt_function_stats *r = &rows[i].s;
                const struct pt_function_stats *s = &f.functions[i];
                rows[i].name = (uint32_t)i;
                r->self_insns += s->self_insns;
                r->incl_insns += s->incl_insns;
                r->calls += s->calls;
                r->self_ticks += s->self_ticks;
                r->self_cycles += s->self_cycles;
                r->incl_ticks += s->incl_ticks;
                r->time_unknown |= s->time_unknown;
                r->cycles_estimated |= s->cycles_estimated;
                r->cycles_unknown |= s->cycles_unknown;
            }
            total += f.insns;
            gaps += f.num_gaps;
            if (f.insns && f.cycles_counted) {
                cycles.counted = true;
                cycles.in_cyc += f.timing.cyc_cycles;
                cycles.given += f.counted_cycles;
            } else if (f.insns && f.timed) {
                cycles.estimated = true;
            }
            pt_input_warn_timing("pt functions", &in, &f, true);
        }
        pt_flow_free(&f);
    }
    if (rc == ACART_EXIT_OK) {
        size_t n = 0;
        for (size_t i = 0; i < num_names; i++)
            if (rows[i].s.self_insns || rows[i].s.calls)
                rows[n++] = rows[i];
        print_functions(&in, rows, n, total, gaps, &cycles, a.top, stdout);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "acart pt functions: cannot write the output\n");
            rc = ACART_EXIT_OUTPUT;
        }
    }
    free(rows);
    pt_input_close(&in);
    pt_args_free(&a);
    return rc;
}

/* pt flamegraph */

/* A flame graph grown from calls as they close, so no record of a closed call is kept. */
struct flame_feed {
    struct flame *flame;
    const struct pt_input *in;
    const char *cpu_name; /* the root frame, or NULL */
    struct flame_frame *stack;
    size_t cap;
    bool failed;
};

static void add_closed_call(void *ctx, const struct pt_flow *f, uint32_t call)
{
    struct flame_feed *feed = ctx;
    const struct pt_call *c = &f->calls[call];
    if (feed->failed || !c->self_insns)
        return;
    size_t depth = c->depth + 1 + (feed->cpu_name ? 1 : 0);
    if (depth > feed->cap) {
        struct flame_frame *p = realloc(feed->stack, 2 * depth * sizeof *p);
        if (!p) {
            feed->failed = true;
            return;
        }
        feed->stack = p;
        feed->cap = 2 * depth;
    }
    size_t k = depth;
    for (uint32_t at = call; at != PT_FLOW_NONE; at = f->calls[at].parent) {
        const char *name = pt_code_name(&feed->in->code, f->calls[at].name);
        feed->stack[--k] =
            (struct flame_frame){name, name[0] == '[' ? FRAME_OTHER : FRAME_FUNCTION};
    }
    if (feed->cpu_name)
        feed->stack[0] = (struct flame_frame){feed->cpu_name, FRAME_OTHER};
    if (flame_add(feed->flame, feed->stack, depth, c->self_insns) != 0)
        feed->failed = true;
}

static int pt_flamegraph(int argc, char **argv)
{
    struct pt_args a;
    struct pt_input in;
    int rc = pt_args_parse(argc, argv, "pt flamegraph", flamegraph_usage, true, &a);
    if (rc < 0 && !a.output)
        rc = cli_usage_error("pt flamegraph", flamegraph_usage, "-o OUT.svg is required");
    if (rc < 0)
        rc = pt_args_open(&in, &a, "pt flamegraph");
    if (rc >= 0) {
        pt_args_free(&a);
        return rc;
    }
    struct flame flame;
    struct diag d = {0};
    size_t gaps = 0;
    rc = flame_init(&flame) == 0 ? ACART_EXIT_OK : ACART_EXIT_FAILURE;
    flame.unit = "instructions";
    bool cpu_root = a.cpu < 0 && in.p.session.num_cpus > 1;
    struct flame_feed feed = {.flame = &flame, .in = &in};
    const struct pt_flow_options grow_flame = {
        .name = "pt flamegraph", .closed = {.drop = true, .fn = add_closed_call, .ctx = &feed}};
    for (uint32_t cpu = pt_args_first_cpu(&a);
         cpu < pt_args_end_cpu(&a, &in) && rc == ACART_EXIT_OK; cpu++) {
        struct pt_flow f;
        char cpu_name[32];
        snprintf(cpu_name, sizeof cpu_name, "cpu %" PRIu32, cpu);
        feed.cpu_name = cpu_root ? cpu_name : NULL;
        if (pt_input_flow(&in, cpu, &grow_flame, &f, &d) != 0) {
            rc = diag_report("pt flamegraph", &d);
        } else if (feed.failed) {
            fprintf(stderr, "acart pt flamegraph: out of memory\n");
            rc = ACART_EXIT_FAILURE;
        }
        gaps += f.num_gaps;
        pt_flow_free(&f);
    }
    free(feed.stack);
    if (rc == ACART_EXIT_OK) {
        char title[300], subtitle[1200];
        snprintf(title, sizeof title, "Intel PT instructions on %s", in.p.session.hostname);
        snprintf(subtitle, sizeof subtitle, "%" PRIu64 " instructions of %s, %zu gaps, image %s",
                 flame_total(&flame), a.input, gaps, a.sources[0].path);
        FILE *out = fopen(a.output, "w");
        int failed = !out || flame_write_svg(&flame, title, subtitle, out) != 0;
        if (out && fclose(out) != 0)
            failed = 1;
        if (failed) {
            fprintf(stderr, "acart pt flamegraph: %s: cannot write\n", a.output);
            remove(a.output);
            rc = ACART_EXIT_OUTPUT;
        }
    }
    flame_free(&flame);
    pt_input_close(&in);
    pt_args_free(&a);
    return rc;
}

int cmd_pt(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("pt", pt_usage, "expected a command");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
        return cli_help(pt_usage);
    if (strcmp(argv[1], "trace") == 0)
        return pt_trace(argc - 1, argv + 1);
    if (strcmp(argv[1], "calls") == 0)
        return pt_calls(argc - 1, argv + 1);
    if (strcmp(argv[1], "functions") == 0)
        return pt_functions(argc - 1, argv + 1);
    if (strcmp(argv[1], "flamegraph") == 0)
        return pt_flamegraph(argc - 1, argv + 1);
    if (strcmp(argv[1], "packets") == 0)
        return pt_packets(argc - 1, argv + 1);
    return cli_usage_error("pt", pt_usage, "unknown command %s", argv[1]);
}
