/* acart report (DIR|FILE.tb5) [--elf IMAGE] [--by function|caller|line|task|cpu|module|branch]
 * [--top N] */
#define _GNU_SOURCE /* qsort_r */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "branch_report.h"
#include "counts_report.h"
#include "latency_report.h"
#include "cli.h"
#include "code_names.h"
#include "code_places.h"
#include "commands.h"
#include "ipr_file.h"
#include "ipr_report.h"
#include "counts.h"
#include "metrics.h"
#include "profile_open.h"
#include "progress.h"
#include "stack_tally.h"
#include "symbols.h"
#include "tally.h"
#include "uncore_data.h"
#include "text_escape.h"

static const char usage[] =
    "usage: acart report (DIR|FILE.tb5) [--elf IMAGE] [--by KEY] [--top N] [--event EVENT]\n"
    "                    [--metrics | --latency]\n"
    "       acart report DIR --counts\n"
    "       acart report DIR --uncore\n"
    "\n"
    "A folder of IPROBE sample files (acart fetch) is reported as its histograms by function\n"
    "and address bucket and its sample buffers by function.\n"
    "\n"
    "Counts samples of a collection folder or tb5 file by function, source line, task,\n"
    "CPU or module, per event: samples, percent of the event's samples, and event count\n"
    "(samples x sample-after value). Code is named through IMAGE (an ELF file with\n"
    "symbols, ideally with DWARF); code outside it is named by its module, else\n"
    "[unknown]. --by caller needs call stacks (acart collect --callstack): for each\n"
    "function, its inclusive samples (the function is anywhere on the sample's call\n"
    "stack, counted once per sample) and its self samples (the sample was taken in it);\n"
    "with acart collect --lbr=call-stack the LBR call stacks are the callers. --by branch\n"
    "needs LBR stacks (acart collect --lbr): the most frequent branch edges of all\n"
    "samples' stacks, with mispredict rate and average cycles where the CPU records them.\n"
    "--latency needs load-latency samples (acart collect --event\n"
    "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32:precise): a histogram of the loads' latencies\n"
    "per data source, decoded for the target's model, and the functions with the most\n"
    "loads and their average latency.\n"
    "\n"
    "  -e, --elf IMAGE     ELF image of the target's code\n"
    "  -b, --by KEY        function (default), caller, line, task, cpu, module or branch\n"
    "  -n, --top N         show the N largest rows per event (default 20, 0 = all)\n"
    "  -E, --event EVENT   only this event (name or index)\n"
    "  -m, --metrics       top-down level 1 per row and in all, from a collection of\n"
    "                      acart collect --metrics tma1, instead of the event tables\n"
    "  -L, --latency       memory latency of load-latency samples: histogram per data\n"
    "                      source, average latency per function\n"
    "  -C, --counts        a counting-mode collection (acart collect --count): each\n"
    "                      event's counts, rate and estimate, then the time series\n"
    "                      per read and CPU\n"
    "  -U, --uncore        the uncore counts of acart collect --uncore instead: each read's\n"
    "                      time, the counts in the interval before it, totals and rates\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input (collection, tb5 file or IMAGE).\n";

enum report_key { BY_FUNCTION, BY_CALLER, BY_LINE, BY_TASK, BY_CPU, BY_MODULE, BY_BRANCH };

static const struct {
    const char *name, *column;
} keys[] = {
    [BY_FUNCTION] = {"function", "Function"},
    [BY_CALLER] = {"caller", "Function"},
    [BY_LINE] = {"line", "Source line"},
    [BY_TASK] = {"task", "Task"},
    [BY_CPU] = {"cpu", "CPU"},
    [BY_MODULE] = {"module", "Module"},
    [BY_BRANCH] = {"branch", "Branch"},
};

struct row {
    char *label;
    uint64_t *counts; /* one per event; by caller, the inclusive samples */
    uint64_t *self;   /* by caller only: one per event, the samples taken in the function */
};

struct report {
    enum report_key by;
    int metrics; /* --metrics: top-down level 1 instead of the event tables */
    int latency; /* --latency: the memory latency report instead */
    struct profile *p;
    struct symbols *sym;
    struct code_places places; /* by function, line and caller: what the keys stand for */
    uint64_t *stack;           /* by caller: one sample's stack of places */
    struct tally tally;        /* by every key but caller */
    struct stack_tally stacks; /* by caller, stacks of places */
    uint64_t with_callers;     /* by caller: samples whose call stack is not empty */
    uint32_t deepest;          /* by caller: the most callers one sample has */
    struct row *rows;
    size_t num_rows, rows_cap;
};

#define STOP_NO_MEMORY 1

/* The sample's key: its task, CPU, module (index + 1, 0 for none) or code place. */
static int key_of(struct report *r, const struct sample *s, uint64_t *key)
{
    switch (r->by) {
    case BY_TASK:
        *key = (uint64_t)s->pid << 32 | s->tid;
        return 0;
    case BY_CPU:
        *key = s->cpu;
        return 0;
    case BY_MODULE: {
        const struct module_info *m = profile_module_at(r->p, s->ip, s->pid, s->tsc);
        *key = m ? (uint64_t)(m - r->p->modules) + 1 : 0;
        return 0;
    }
    default:
        return code_places_add(&r->places, s->ip, s, key);
    }
}

static int count_samples(const struct sample *batch, size_t n, void *ctx)
{
    struct report *r = ctx;
    for (size_t i = 0; i < n; i++) {
        uint64_t key;
        if (key_of(r, &batch[i], &key) != 0 || tally_add(&r->tally, key, batch[i].event, 1) != 0)
            return STOP_NO_MEMORY;
    }
    return 0;
}

static int count_stacks(const struct sample *batch, size_t n, void *ctx)
{
    struct report *r = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &batch[i];
        if (code_places_stack(&r->places, s, r->stack) != 0 ||
            stack_tally_add(&r->stacks, r->stack, (size_t)s->num_callers + 1, s->event, 1) != 0)
            return STOP_NO_MEMORY;
        r->with_callers += s->num_callers != 0;
        if (s->num_callers > r->deepest)
            r->deepest = s->num_callers;
    }
    return 0;
}

static void code_label(struct report *r, uint64_t place, char *buf, size_t size)
{
    struct code_location loc;
    char outside[CODE_NAMES_OUTSIDE_SIZE];
    const char *named = code_names_function(r->sym, code_place(&r->places, place), &loc, outside);
    if (named == outside || r->by == BY_FUNCTION || r->by == BY_CALLER) {
        snprintf(buf, size, "%s", named);
        return;
    }
    /* Source lines name the function only when the image does ("" / "?" otherwise). */
    const char *function = loc.symbol;
    if (!function && loc.num_frames)
        function = loc.frames[0].function;
    if (loc.num_frames == 0 || !loc.frames[loc.num_frames - 1].file) {
        snprintf(buf, size, "[no line information]  %s", function ? function : "");
        return;
    }
    const struct code_frame *inner = &loc.frames[loc.num_frames - 1];
    const char *inner_name = inner->function ? inner->function : "?";
    if (loc.num_frames > 1)
        snprintf(buf, size, "%s:%d  %s (inlined into %s)", inner->file, inner->line, inner_name,
                 function ? function : "?");
    else
        snprintf(buf, size, "%s:%d  %s", inner->file, inner->line, inner_name);
}

static void raw_label_of(struct report *r, uint64_t key, char *buf, size_t size)
{
    const struct session *s = &r->p->session;
    switch (r->by) {
    case BY_TASK: {
        uint32_t pid = (uint32_t)(key >> 32), tid = (uint32_t)key;
        const char *name = session_task_name(s, pid, tid);
        if (name)
            snprintf(buf, size, "%s (pid %" PRIu32 ", tid %" PRIu32 ")", name, pid, tid);
        else
            snprintf(buf, size, "pid %" PRIu32 ", tid %" PRIu32, pid, tid);
        break;
    }
    case BY_CPU:
        snprintf(buf, size, "cpu %" PRIu64, key);
        break;
    case BY_MODULE:
        snprintf(buf, size, "%s", key ? r->p->modules[key - 1].name : "[unknown]");
        break;
    default:
        code_label(r, key, buf, size);
        break;
    }
}

/* A row's label as the terminal shows it: task, module, symbol and file names come from
 * the target or from files, so they are escaped (the text acart adds is printable). */
static void label_of(struct report *r, uint64_t key, char *buf, size_t size)
{
    char raw[1024];
    raw_label_of(r, key, raw, sizeof raw);
    text_escape_terminal(buf, size, raw);
}

static int compare_labels(const void *a, const void *b)
{
    return strcmp(((const struct row *)a)->label, ((const struct row *)b)->label);
}

/* Appends a row; self may be NULL (not by caller). Returns 0 or -1 (no memory). */
static int add_row(struct report *r, const char *label, const uint64_t *counts,
                   const uint64_t *self, size_t nev)
{
    if (r->num_rows == r->rows_cap) {
        size_t cap = r->rows_cap ? r->rows_cap * 2 : 256;
        struct row *grown = realloc(r->rows, cap * sizeof *grown);
        if (!grown)
            return -1;
        r->rows = grown;
        r->rows_cap = cap;
    }
    struct row *row = &r->rows[r->num_rows];
    row->label = strdup(label);
    row->counts = malloc(nev * sizeof *row->counts);
    row->self = r->by == BY_CALLER ? calloc(nev, sizeof *row->self) : NULL;
    if (!row->label || !row->counts || (r->by == BY_CALLER && !row->self)) {
        free(row->label);
        free(row->counts);
        free(row->self);
        return -1;
    }
    memcpy(row->counts, counts, nev * sizeof *row->counts);
    if (self)
        memcpy(row->self, self, nev * sizeof *row->self);
    r->num_rows++;
    return 0;
}

/* Adds up the rows with the same label (several addresses, or stacks, share a function). */
static void merge_rows(struct report *r, size_t nev)
{
    qsort(r->rows, r->num_rows, sizeof *r->rows, compare_labels);
    size_t out = 0;
    for (size_t i = 0; i < r->num_rows; i++) {
        struct row *row = &r->rows[i];
        if (out && strcmp(r->rows[out - 1].label, row->label) == 0) {
            struct row *into = &r->rows[out - 1];
            for (size_t e = 0; e < nev; e++) {
                into->counts[e] += row->counts[e];
                if (into->self)
                    into->self[e] += row->self[e];
            }
            free(row->label);
            free(row->counts);
            free(row->self);
        } else {
            r->rows[out++] = *row;
        }
    }
    r->num_rows = out;
}

/* Rows from the tally, one per distinct label. */
static int build_rows(struct report *r, struct diag *d)
{
    size_t nev = r->tally.num_events;
    for (size_t slot = 0; slot < r->tally.capacity; slot++) {
        if (!r->tally.occupied[slot])
            continue;
        char label[1024];
        label_of(r, r->tally.keys[slot], label, sizeof label);
        if (add_row(r, label, tally_counts(&r->tally, slot), NULL, nev) != 0)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    merge_rows(r, nev);
    return 0;
}

/* Rows by caller: each distinct stack gives its samples once to every distinct function
 * on it (inclusive), and to the function it was taken in also as self samples. */
static int build_caller_rows(struct report *r, struct diag *d)
{
    size_t nev = r->stacks.num_events;
    char(*labels)[1024] = malloc(((size_t)r->p->callstack_depth + 1) * sizeof *labels);
    int rc = 0;
    if (!labels)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; !rc && i < r->stacks.num_stacks; i++) {
        size_t depth;
        const uint64_t *stack = stack_tally_stack(&r->stacks, i, &depth);
        const uint64_t *counts = stack_tally_counts(&r->stacks, i);
        for (size_t k = 0; !rc && k < depth; k++) {
            code_label(r, stack[k], labels[k], sizeof labels[k]);
            size_t seen = 0;
            while (seen < k && strcmp(labels[seen], labels[k]) != 0)
                seen++;
            if (seen < k)
                continue; /* recursion: the sample counts once for the function */
            if (add_row(r, labels[k], counts, k == 0 ? counts : NULL, nev) != 0)
                rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        }
    }
    free(labels);
    if (!rc)
        merge_rows(r, nev);
    return rc;
}

static int compare_counts(const void *a, const void *b, void *ctx)
{
    const struct row *x = a, *y = b;
    size_t e = *(const size_t *)ctx;
    uint64_t cx = x->counts[e], cy = y->counts[e];
    if (cx != cy)
        return cx > cy ? -1 : 1;
    if (x->self && x->self[e] != y->self[e])
        return x->self[e] > y->self[e] ? -1 : 1;
    return strcmp(x->label, y->label);
}

static double percent(uint64_t n, uint64_t total)
{
    return 100.0 * (double)n / (double)total;
}

/* A multiplexed event's group: how long it counted against how long its CPUs did, and
 * the count its samples stand for scaled by that (session_scaled_count). */
static void print_scaling(const struct report *r, const struct session_event *ev, uint64_t total)
{
    const struct session *s = &r->p->session;
    if (s->num_groups < 2)
        return;
    uint64_t running = 0, enabled = 0;
    double estimate = session_scaled_count(s, ev, total, &running, &enabled);
    double hz = s->tsc_hz ? (double)s->tsc_hz : 1.0;
    printf("Multiplexed: group %" PRIu32 " of %" PRIu32 " counted %.3f s of %.3f s enabled "
           "(all CPUs, %.1f%%): estimated count %.0f\n",
           ev->group, s->num_groups, (double)running / hz, (double)enabled / hz,
           enabled ? 100.0 * (double)running / (double)enabled : 0.0, estimate);
}

/* By caller: inclusive and self samples. Inclusive counts overlap (a sample counts for
 * every function on its stack), so the rows beyond --top are summed by self samples only. */
static void print_caller_event(struct report *r, const struct session_event *ev, uint64_t top)
{
    size_t e = ev->index;
    uint64_t total = 0;
    for (size_t i = 0; i < r->num_rows; i++)
        total += r->rows[i].self[e];
    char name[256];
    printf("\nEvent %s (index %" PRIu32 "), sample after %" PRIu64 ": %" PRIu64 " samples\n",
           text_term(name, sizeof name, ev->name), ev->index, ev->sample_after, total);
    print_scaling(r, ev, total);
    if (!total)
        return;
    qsort_r(r->rows, r->num_rows, sizeof *r->rows, compare_counts, &e);
    printf("%10s %8s %10s %8s  %s\n", "Inclusive", "%", "Self", "%", keys[r->by].column);
    uint64_t shown_self = 0;
    size_t i;
    for (i = 0; i < r->num_rows && (top == 0 || i < top); i++) {
        const struct row *row = &r->rows[i];
        if (!row->counts[e])
            break;
        printf("%10" PRIu64 " %7.2f%% %10" PRIu64 " %7.2f%%  %s\n", row->counts[e],
               percent(row->counts[e], total), row->self[e], percent(row->self[e], total),
               row->label);
        shown_self += row->self[e];
    }
    size_t more = 0;
    for (size_t j = i; j < r->num_rows; j++)
        more += r->rows[j].counts[e] != 0;
    if (more)
        printf("%10s %8s %10" PRIu64 " %7.2f%%  (%zu more %s)\n", "-", "-", total - shown_self,
               percent(total - shown_self, total), more, more == 1 ? "function" : "functions");
    printf("%10" PRIu64 " %7.2f%% %10" PRIu64 " %7.2f%%  Total\n", total, 100.0, total, 100.0);
}

static void print_event(struct report *r, const struct session_event *ev, uint64_t top)
{
    uint64_t total = 0;
    for (size_t i = 0; i < r->num_rows; i++)
        total += r->rows[i].counts[ev->index];
    char name[256];
    printf("\nEvent %s (index %" PRIu32 "), sample after %" PRIu64 ": %" PRIu64 " samples\n",
           text_term(name, sizeof name, ev->name), ev->index, ev->sample_after, total);
    print_scaling(r, ev, total);
    if (!total)
        return;
    size_t e = ev->index;
    qsort_r(r->rows, r->num_rows, sizeof *r->rows, compare_counts, &e);
    printf("%10s %8s %20s  %s\n", "Samples", "%", "Event count", keys[r->by].column);
    uint64_t shown = 0;
    size_t i;
    for (i = 0; i < r->num_rows && (top == 0 || i < top); i++) {
        uint64_t n = r->rows[i].counts[ev->index];
        if (!n)
            break;
        printf("%10" PRIu64 " %7.2f%% %20" PRIu64 "  %s\n", n, 100.0 * (double)n / (double)total,
               n * ev->sample_after, r->rows[i].label);
        shown += n;
    }
    size_t more = 0;
    for (size_t j = i; j < r->num_rows; j++)
        more += r->rows[j].counts[ev->index] != 0;
    if (more)
        printf("%10" PRIu64 " %7.2f%% %20" PRIu64 "  (%zu more %s)\n", total - shown,
               100.0 * (double)(total - shown) / (double)total, (total - shown) * ev->sample_after,
               more, more == 1 ? "row" : "rows");
    printf("%10" PRIu64 " %7.2f%% %20" PRIu64 "  Total\n", total, 100.0, total * ev->sample_after);
}

/* "Dropped: 3 buffer full, 1 PEBS collision" when the target said why (all kinds with a
 * non-zero count, PMU resets last, in parentheses). */
static void print_drop_reasons(const struct session *s)
{
    uint64_t total[SESSION_DROP_KINDS] = {0};
    int any = 0;
    if (!s->drop_reasons[0])
        return;
    for (int k = 0; k < SESSION_DROP_KINDS; k++) {
        for (uint32_t c = 0; c < s->num_cpus; c++)
            total[k] += s->drop_reasons[k][c];
        any |= total[k] != 0;
    }
    if (!any)
        return;
    const char *sep = "Dropped: ";
    for (int k = 0; k < SESSION_DROP_STUCK_RESETS; k++) {
        if (!total[k])
            continue;
        printf("%s%" PRIu64 " %s", sep, total[k], session_drop_names[k]);
        sep = ", ";
    }
    if (total[SESSION_DROP_STUCK_RESETS])
        printf("%s(%" PRIu64 " %s: sampling ended on those CPUs)", sep,
               total[SESSION_DROP_STUCK_RESETS], session_drop_names[SESSION_DROP_STUCK_RESETS]);
    printf("\n");
}

/* Never silent about throttling: each CPU whose PMI budget raised its periods, by how much
 * and from when, since its samples then stand for more events than the event's
 * sample-after (and the event counts below, samples x sample-after, are too low). */
static void print_budget(const struct session *s)
{
    const struct session_budget *b = s->budget;
    if (!b)
        return;
    for (uint32_t c = 0; c < s->num_cpus; c++) {
        uint64_t raises = b->per_cpu[SESSION_BUDGET_THROTTLES][c];
        uint64_t first = b->per_cpu[SESSION_BUDGET_FIRST_RAISE][c];
        if (!raises)
            continue;
        printf("Throttled: CPU %" PRIu32 " took its PMIs too often or too long (budget %" PRIu32
               " a second, %" PRIu32 "%% of the CPU): its periods doubled %" PRIu64
               " times, to %.0fx, from TSC %" PRIu64 " on; its event counts below are too low "
               "after that (%" PRIu64 " PMIs, the longest %.1f us)\n",
               c, b->max_rate_hz, b->cpu_percent, raises,
               (double)(1ull << (raises < 63 ? raises : 63)), first,
               b->per_cpu[SESSION_BUDGET_PMIS][c],
               s->tsc_hz
                   ? (double)b->per_cpu[SESSION_BUDGET_MAX_PMI_TSC][c] * 1e6 / (double)s->tsc_hz
                   : 0.0);
    }
}

static void print_header(const struct report *r, const char *elf)
{
    const struct session *s = &r->p->session;
    uint64_t dropped = 0;
    for (uint32_t c = 0; c < s->num_cpus; c++)
        dropped += s->dropped_per_cpu[c];
    char source[1024], host[256];
    printf("Source: %s (%s)\n", text_term(source, sizeof source, r->p->source),
           r->p->kind == PROFILE_COLLECTION ? "collection folder" : "tb5 file");
    printf("Target: %s, %" PRIu32 " CPUs, TSC %.3f MHz, %.3f s, %s transfer, %s\n",
           text_term(host, sizeof host, s->hostname), s->num_cpus, (double)s->tsc_hz / 1e6,
           s->duration_s, s->transfer == SESSION_TRANSFER_IMMEDIATE ? "immediate" : "delayed",
           profile_code_mode_name(profile_code_mode(r->p)));
    printf("Samples: %" PRIu64 " read, %" PRIu64 " dropped by the target\n", r->p->num_records,
           dropped);
    print_drop_reasons(s);
    print_budget(s);
    if (r->by == BY_FUNCTION || r->by == BY_CALLER || r->by == BY_LINE) {
        char image[1024];
        printf("Image: %s\n",
               elf ? text_term(image, sizeof image, elf) : "none (code is named by module)");
    }
    if (r->by != BY_CALLER)
        return;
    if (r->p->callstack_depth)
        printf("Call stacks: %" PRIu64 " of %" PRIu64 " samples have callers, up to %" PRIu32
               " deep\n",
               r->with_callers, r->p->num_records, r->deepest);
    else
        printf("Call stacks: none (%s): inclusive samples are the self samples\n",
               r->p->kind == PROFILE_TB5 ? "tb5 files do not keep them"
                                         : "collected without --callstack");
}

/* The events of top-down level 1, by enum metrics_tma1_event: their index in the session,
 * or a usage error naming the first that is missing. */
static int find_tma1_events(const struct session *s, const char *source, size_t *index,
                            struct diag *d)
{
    for (size_t m = 0; m < TMA1_EVENTS; m++) {
        size_t e;
        for (e = 0; e < s->num_events; e++)
            if (strcmp(s->events[e].name, metrics_tma1_names[m]) == 0)
                break;
        if (e == s->num_events)
            return diag_fail(d, DIAG_USAGE,
                             "%s: --metrics needs event %s (collect with --metrics tma1)", source,
                             metrics_tma1_names[m]);
        index[m] = e;
    }
    return 0;
}

/* The row's counts of the level-1 events: samples x sample-after value. */
static void tma1_counts(const struct report *r, const uint64_t *samples, const size_t *index,
                        double *counts)
{
    for (size_t m = 0; m < TMA1_EVENTS; m++)
        counts[m] = (double)samples[index[m]] * (double)r->p->session.events[index[m]].sample_after;
}

static void print_tma1_row(const double *counts, const char *label)
{
    struct metrics_tma1 t;
    if (metrics_tma1(counts, &t) != 0)
        return;
    printf("%16.0f %8.1f%% %8.1f%% %8.1f%% %8.1f%%  %s\n", counts[TMA1_CLOCKS], 100 * t.retiring,
           100 * t.bad_speculation, 100 * t.frontend, 100 * t.backend, label);
}

/* Rows by clockticks, largest first, each with its level-1 fractions, then the whole run.
 * A row's fractions come from the samples its events took there, so rows with few
 * samples of some event are rough. */
static void print_metrics(struct report *r, const size_t *index, uint64_t top)
{
    size_t clocks = index[TMA1_CLOCKS];
    uint64_t *total = calloc(r->p->session.num_events, sizeof *total);
    double counts[TMA1_EVENTS];
    if (!total)
        return;
    for (size_t i = 0; i < r->num_rows; i++)
        for (size_t e = 0; e < r->p->session.num_events; e++)
            total[e] += r->rows[i].counts[e];
    qsort_r(r->rows, r->num_rows, sizeof *r->rows, compare_counts, &clocks);
    printf("\nTop-down level 1 (tma1): shares of the issue slots (4 per clocktick), from "
           "event counts (samples x sample-after value)\n");
    printf("%16s %9s %9s %9s %9s  %s\n", "Clockticks", "Retiring", "Bad spec", "Frontend",
           "Backend", keys[r->by].column);
    size_t i;
    for (i = 0; i < r->num_rows && (top == 0 || i < top) && r->rows[i].counts[clocks]; i++) {
        tma1_counts(r, r->rows[i].counts, index, counts);
        print_tma1_row(counts, r->rows[i].label);
    }
    size_t more = 0;
    for (size_t j = i; j < r->num_rows; j++)
        more += r->rows[j].counts[clocks] != 0;
    if (more)
        printf("%16s %9s %9s %9s %9s  (%zu more %s)\n", "", "", "", "", "", more,
               more == 1 ? "row" : "rows");
    tma1_counts(r, total, index, counts);
    if (total[clocks])
        print_tma1_row(counts, "Total");
    else
        printf("no samples of %s: nothing to divide by\n", metrics_tma1_names[TMA1_CLOCKS]);
    free(total);
}

static int run(struct report *r, const char *source, const char *elf, const char *event_name,
               uint64_t top, struct diag *d)
{
    int rc = profile_open(source, r->p, d);
    if (rc)
        return rc;
    const struct session_event *only = NULL;
    if (event_name && !(only = cli_find_event(&r->p->session, event_name)))
        return diag_fail(d, DIAG_USAGE, "%s: no event %s", source, event_name);
    size_t tma1[TMA1_EVENTS];
    if (r->metrics && (rc = find_tma1_events(&r->p->session, source, tma1, d)))
        return rc;
    if (elf &&
        (r->by == BY_FUNCTION || r->by == BY_CALLER || r->by == BY_LINE || r->by == BY_BRANCH) &&
        (rc = cli_open_symbols(r->p, elf, &r->sym, d)))
        return rc;
    if (r->latency)
        return latency_report(r->p, r->sym, top, d);
    if (r->by == BY_BRANCH)
        return branch_report(r->p, r->sym, top, d);
    size_t nev = r->p->session.num_events;
    if (code_places_init(&r->places, r->p) != 0 ||
        !(r->stack = malloc(((size_t)r->p->callstack_depth + 1) * sizeof *r->stack)) ||
        (r->by == BY_CALLER ? stack_tally_init(&r->stacks, nev) : tally_init(&r->tally, nev)))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct progress pr;
    progress_attach(&pr, r->p, "report");
    rc = profile_scan(r->p, r->by == BY_CALLER ? count_stacks : count_samples, r, d);
    progress_done(&pr);
    if (rc == STOP_NO_MEMORY)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (rc || (rc = r->by == BY_CALLER ? build_caller_rows(r, d) : build_rows(r, d)))
        return rc;
    profile_check_counts(r->p, "report");
    print_header(r, elf);
    if (r->metrics) {
        print_metrics(r, tma1, top);
        nev = 0;
    }
    for (size_t e = 0; e < nev; e++) {
        if (only && only != &r->p->session.events[e])
            continue;
        if (r->by == BY_CALLER)
            print_caller_event(r, &r->p->session.events[e], top);
        else
            print_event(r, &r->p->session.events[e], top);
    }
    return fflush(stdout) == 0 ? 0 : diag_fail(d, DIAG_OUTPUT, "standard output: write error");
}

static int report_uncore(const char *dir)
{
    struct uncore_data u;
    struct diag d = {0};
    int rc = uncore_data_load(dir, &u, &d);
    if (rc == 1)
        rc = diag_fail(&d, DIAG_INPUT, "%s: no uncore counts (acart collect --uncore)", dir);
    if (rc)
        return diag_report("report", &d);
    uncore_data_report(&u, stdout);
    uncore_data_free(&u);
    return fflush(stdout) == 0 ? ACART_EXIT_OK : diag_report("report", &d);
}

int cmd_report(int argc, char **argv)
{
    static const struct option options[] = {
        {"elf", required_argument, NULL, 'e'}, {"by", required_argument, NULL, 'b'},
        {"top", required_argument, NULL, 'n'}, {"event", required_argument, NULL, 'E'},
        {"metrics", no_argument, NULL, 'm'},   {"counts", no_argument, NULL, 'C'},
        {"uncore", no_argument, NULL, 'U'},    {"latency", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
    };
    const char *elf = NULL, *event = NULL;
    uint64_t top = 20;
    enum report_key by = BY_FUNCTION;
    int c;
    opterr = 0;
    int metrics = 0, counts = 0, uncore = 0, latency = 0;
    while ((c = getopt_long(argc, argv, "e:b:n:E:mCULh", options, NULL)) != -1) {
        switch (c) {
        case 'e':
            elf = optarg;
            break;
        case 'b': {
            size_t k;
            for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (strcmp(optarg, keys[k].name) == 0)
                    break;
            if (k == sizeof keys / sizeof keys[0])
                return cli_usage_error("report", usage, "--by: unknown key %s", optarg);
            by = (enum report_key)k;
            break;
        }
        case 'n':
            if (cli_parse_uint(optarg, UINT32_MAX, &top) != 0)
                return cli_usage_error("report", usage, "--top: expected a number, not %s", optarg);
            break;
        case 'E':
            event = optarg;
            break;
        case 'm':
            metrics = 1;
            break;
        case 'C':
            counts = 1;
            break;
        case 'U':
            uncore = 1;
            break;
        case 'L':
            latency = 1;
            break;
        case 'h':
            return cli_help(usage);
        default:
            return cli_usage_error("report", usage, "unknown option or missing argument: %s",
                                   argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("report", usage, "expected one collection folder or tb5 file");
    if (metrics && (by == BY_CALLER || by == BY_BRANCH || event))
        return cli_usage_error("report", usage, "--metrics: not with --by caller or --event");
    if (latency && (metrics || counts || uncore || event || by != BY_FUNCTION))
        return cli_usage_error("report", usage,
                               "--latency: only with --elf and --top (it has its own rows)");
    if (counts) {
        if (metrics || uncore || event || elf || by != BY_FUNCTION)
            return cli_usage_error("report", usage, "--counts takes no other option");
        struct diag cd = {0};
        return counts_report(argv[optind], &cd) ? diag_report("report", &cd) : ACART_EXIT_OK;
    }
    if (uncore) {
        if (metrics || event || elf || by != BY_FUNCTION)
            return cli_usage_error("report", usage, "--uncore takes no other option");
        return report_uncore(argv[optind]);
    }
    if (ipr_file_folder(argv[optind])) /* a folder from `acart fetch` */
        return ipr_report(argv[optind], elf, top);

    struct profile p;
    struct report r = {.by = by, .p = &p, .metrics = metrics, .latency = latency};
    struct diag d = {0};
    memset(&p, 0, sizeof p);
    int rc = run(&r, argv[optind], elf, event, top, &d);
    for (size_t i = 0; i < r.num_rows; i++) {
        free(r.rows[i].label);
        free(r.rows[i].counts);
        free(r.rows[i].self);
    }
    free(r.rows);
    tally_free(&r.tally);
    stack_tally_free(&r.stacks);
    code_places_free(&r.places);
    free(r.stack);
    symbols_close(r.sym);
    profile_close(&p);
    return rc ? diag_report("report", &d) : ACART_EXIT_OK;
}
