/* acart export perfetto (DIR|FILE.tb5) -o OUT.json: a timeline per CPU as JSON in the
 * Chrome trace-event format ("Trace Event Format", the JSON that Perfetto's UI and
 * trace_processor import, https://perfetto.dev/docs/getting-started/other-formats):
 * which task or interrupt handler ran when, the samples as instants, the event counts as
 * counter tracks; beside them the Intel PT calls (pt_timeline.h) and the IPROBE sample
 * files (ipr_timeline.h) a folder holds. Code is named as acart report names it
 * (code_names.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "cli.h"
#include "code_names.h"
#include "commands.h"
#include "counts.h"
#include "export_input.h"
#include "file_util.h"
#include "ipr_file.h"
#include "ipr_timeline.h"
#include "json_write.h"
#include "out_file.h"
#include "profile_open.h"
#include "pt_timeline.h"
#include "task_switches.h"

static const char usage[] =
    "usage: acart export perfetto (DIR|FILE.tb5) -o OUT.json [--elf IMAGE]\n"
    "\n"
    "Writes a timeline of the collection as Chrome trace-event JSON, which\n"
    "ui.perfetto.dev and Perfetto's trace_processor open (and chrome://tracing):\n"
    "process 1 (\"HOST\") has a thread per CPU (tid = CPU) holding\n"
    "  - a slice (\"ph\":\"X\", cat \"task\" or \"irq\") per run of consecutive samples of\n"
    "    one task or interrupt handler on that CPU, from the run's first sample to the\n"
    "    next run's first (the CPU's last run ends at its last sample), named by the\n"
    "    task, with args pid, tid and samples (the run's samples);\n"
    "  - an instant (\"ph\":\"i\", cat \"sample\") per sample, named by its function, with\n"
    "    args event and ip;\n"
    "and a counter track (\"ph\":\"C\") per CPU and event, \"cpuN EVENT\": the event's\n"
    "count on that CPU so far (samples x sample-after value) at each sample, or for a\n"
    "counting collection (acart collect --count) its count in each interval at the\n"
    "interval's end. These slices show what the samples saw, to the sampling interval.\n"
    "\n"
    "A collection whose target's port reports its task switches (task-switches.csv,\n"
    "aca_task_switched) adds a thread per CPU, \"cpu N switches\" (tid = 1000 + CPU),\n"
    "with a slice (cat \"switch\") from each switch to the CPU's next, named by the task\n"
    "that became current, with args pid, tid and samples (the CPU's samples in it): when\n"
    "each task really ran. The last slice ends at the collection's last sample or switch; on a\n"
    "CPU whose switch log filled up it is left out, and an instant (cat \"switch\") says\n"
    "how many switches the target could not keep. A tb5 file holds no switches.\n"
    "\n"
    "A collection with Intel PT (acart collect --pt) and --elf adds process 2 (\"Intel\n"
    "PT\"), a thread per CPU with every call as a slice (cat \"call\" or \"interrupt\")\n"
    "nested by the call tree, as acart export chrome writes them, and gaps as instants.\n"
    "IPROBE sample files in DIR (acart fetch) add process 3 (\"IPROBE\"): a thread per\n"
    "CPU with an instant (cat \"iprobe\") per sample-buffer record with a PC, and a\n"
    "counter track per CPU and counter, \"cpuN COUNTER\", from the records that hold\n"
    "the counter's count (IPR_DATA_COUNT); records without IPR_DATA_TSC cannot be placed\n"
    "and are left out with a note. DIR may hold IPROBE files alone.\n"
    "\n"
    "Times are microseconds from the earliest TSC of all of these (otherData has tsc_hz\n"
    "and base_tsc).\n"
    "\n"
    "  -o, --output FILE   the file to write (required)\n"
    "  -e, --elf IMAGE     ELF image of the target's code (names the samples' functions;\n"
    "                      needed for the Intel PT calls)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

/* The timeline's processes, each with one "thread" per CPU. */
#define TIMELINE_PID 1
#define PT_PID       2
#define IPROBE_PID   3
/* The switch thread of CPU c in TIMELINE_PID, beside the CPU's sample thread (tid c). */
#define SWITCH_TID_BASE 1000u

struct point {
    uint64_t tsc, place;
    uint64_t order; /* the sample's position in the scan, to keep equal TSCs in order */
    uint32_t pid, tid;
    uint16_t cpu;
    uint8_t event;
};

struct perfetto {
    const char *source;
    bool have_samples; /* a collection or tb5 file, not only IPROBE files */
    struct export_input in;
    struct pt_input pt;
    bool pt_open;
    struct pt_flow *flows; /* per CPU, when the collection has Intel PT and --elf is given */
    uint32_t num_flows;
    struct task_switches switches; /* the port's, when the collection has them */
    struct ipr_timeline ipr;
    struct symbols *ipr_sym; /* the image for IPROBE samples when there is no collection */
    struct code_places places;
    struct point *points;
    size_t num_points, cap;
    FILE *out;
    uint64_t tsc_hz, base_tsc;
    uint64_t *running; /* per event, its count so far on the CPU being written */
    double us_per_tick;
    char **names; /* per place, its function */
};

#define STOP_NO_MEMORY 1

static int collect(const struct sample *batch, size_t n, void *ctx)
{
    struct perfetto *x = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &batch[i];
        if (x->num_points == x->cap) {
            size_t cap = x->cap ? 2 * x->cap : 4096;
            struct point *grown = realloc(x->points, cap * sizeof *grown);
            if (!grown)
                return STOP_NO_MEMORY;
            x->points = grown;
            x->cap = cap;
        }
        struct point *pt = &x->points[x->num_points];
        if (code_places_add(&x->places, s->ip, s, &pt->place) != 0)
            return STOP_NO_MEMORY;
        pt->tsc = s->tsc;
        pt->order = x->num_points++;
        pt->pid = s->pid;
        pt->tid = s->tid;
        pt->cpu = s->cpu;
        pt->event = s->event;
    }
    return 0;
}

static int by_cpu_time(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static double us(const struct perfetto *x, uint64_t tsc)
{
    return tsc < x->base_tsc ? 0.0 : (double)(tsc - x->base_tsc) * x->us_per_tick;
}

static void task_slice(struct perfetto *x, const struct point *first, uint64_t end, uint64_t n)
{
    char name[256];
    sample_stacks_task_name(&x->in.p.session, first->pid, first->tid, name, sizeof name);
    fprintf(x->out, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":",
            first->pid == ACART_IRQ_PID ? "irq" : "task");
    json_put_string(name, x->out);
    fprintf(x->out,
            ",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"pid\":%" PRIu32
            ",\"tid\":%" PRIu32 ",\"samples\":%" PRIu64 "}}",
            TIMELINE_PID, (unsigned)first->cpu, us(x, first->tsc), us(x, end) - us(x, first->tsc),
            first->pid, first->tid, n);
}

/* One CPU's samples [from, to): its thread, task slices, instants and counters. */
static void write_cpu(struct perfetto *x, size_t from, size_t to, uint64_t *counts)
{
    const struct session *s = &x->in.p.session;
    unsigned cpu = x->points[from].cpu;
    fprintf(x->out,
            ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,"
            "\"args\":{\"name\":\"cpu %u\"}}"
            ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%u,"
            "\"args\":{\"sort_index\":%u}}",
            TIMELINE_PID, cpu, cpu, TIMELINE_PID, cpu, cpu);
    size_t first = from; /* of the current run */
    for (size_t i = from; i <= to; i++) {
        if (i == to || x->points[i].pid != x->points[first].pid ||
            x->points[i].tid != x->points[first].tid) {
            uint64_t end = i < to ? x->points[i].tsc : x->points[to - 1].tsc;
            task_slice(x, &x->points[first], end, i - first);
            first = i;
        }
    }
    memset(counts, 0, SESSION_MAX_EVENTS * sizeof *counts);
    for (size_t i = from; i < to; i++) {
        const struct point *pt = &x->points[i];
        const struct session_event *ev = session_event(s, pt->event);
        fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"sample\",\"name\":", x->out);
        json_put_string(x->names[pt->place], x->out);
        fprintf(x->out, ",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"args\":{\"event\":", TIMELINE_PID,
                cpu, us(x, pt->tsc));
        json_put_string(ev ? ev->name : "?", x->out);
        fprintf(x->out, ",\"ip\":\"0x%" PRIx64 "\"}}", code_place(&x->places, pt->place)->address);
        if (!ev)
            continue;
        counts[pt->event] += ev->sample_after;
        char track[300];
        snprintf(track, sizeof track, "cpu%u %s", cpu, ev->name);
        fputs(",\n{\"ph\":\"C\",\"name\":", x->out);
        json_put_string(track, x->out);
        fprintf(x->out, ",\"pid\":%d,\"ts\":%.3f,\"args\":{\"count\":%" PRIu64 "}}", TIMELINE_PID,
                us(x, pt->tsc), counts[pt->event]);
    }
}

/* The samples of CPU `cpu` from TSC `from` up to `to` (the points are by CPU, then TSC);
 * *at moves past them. */
static uint64_t samples_until(const struct perfetto *x, uint32_t cpu, size_t *at, uint64_t to)
{
    uint64_t n = 0;
    while (*at < x->num_points &&
           (x->points[*at].cpu < cpu || (x->points[*at].cpu == cpu && x->points[*at].tsc < to))) {
        n += x->points[*at].cpu == cpu;
        (*at)++;
    }
    return n;
}

/* Each CPU's switch thread: a slice per switch, to the CPU's next one. */
static void write_switches(struct perfetto *x, uint64_t end_tsc)
{
    const struct session *s = &x->in.p.session;
    const struct task_switches *t = &x->switches;
    size_t at = 0;
    for (size_t k = 0; k < t->n; k++) {
        const struct task_switch *sw = &t->sw[k];
        uint32_t cpu = sw->cpu;
        if (k == 0 || t->sw[k - 1].cpu != cpu) {
            fprintf(x->out,
                    ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,"
                    "\"args\":{\"name\":\"cpu %" PRIu32 " switches\"}}"
                    ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%u,"
                    "\"args\":{\"sort_index\":%u}}",
                    TIMELINE_PID, SWITCH_TID_BASE + cpu, cpu, TIMELINE_PID, SWITCH_TID_BASE + cpu,
                    SWITCH_TID_BASE + cpu);
            samples_until(x, cpu, &at, sw->tsc); /* before the CPU's first switch */
        }
        int last = k + 1 == t->n || t->sw[k + 1].cpu != cpu;
        if (last && s->switches_lost[cpu]) {
            fprintf(x->out,
                    ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"switch\",\"name\":\"switch log full: "
                    "%" PRIu64 " switches not kept\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f}",
                    s->switches_lost[cpu], TIMELINE_PID, SWITCH_TID_BASE + cpu, us(x, sw->tsc));
            continue;
        }
        uint64_t end = last ? (end_tsc > sw->tsc ? end_tsc : sw->tsc) : t->sw[k + 1].tsc;
        uint64_t n = samples_until(x, cpu, &at, last ? UINT64_MAX : end);
        char name[256];
        sample_stacks_task_name(s, sw->pid, sw->tid, name, sizeof name);
        fputs(",\n{\"ph\":\"X\",\"cat\":\"switch\",\"name\":", x->out);
        json_put_string(name, x->out);
        fprintf(x->out,
                ",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"pid\":%" PRIu32
                ",\"tid\":%" PRIu32 ",\"samples\":%" PRIu64 "}}",
                TIMELINE_PID, SWITCH_TID_BASE + cpu, us(x, sw->tsc), us(x, end) - us(x, sw->tsc),
                sw->pid, sw->tid, n);
    }
}

static void write_counts(struct perfetto *x, const struct counts_table *t)
{
    for (size_t r = 0; r < t->num_rows; r++) {
        const struct counts_row *row = &t->rows[r];
        for (size_t e = 0; e < t->num_events; e++) {
            if (row->values[e] == COUNTS_NOT_COUNTED)
                continue;
            char name[300];
            snprintf(name, sizeof name, "cpu%" PRIu32 " %s", row->cpu, t->names[e]);
            fputs(",\n{\"ph\":\"C\",\"name\":", x->out);
            json_put_string(name, x->out);
            fprintf(x->out, ",\"pid\":%d,\"ts\":%.3f,\"args\":{\"count\":%" PRIu64 "}}",
                    TIMELINE_PID, us(x, row->tsc), row->values[e]);
        }
    }
}

static int name_places(struct perfetto *x)
{
    if (!(x->names = calloc(x->places.num_places + 1, sizeof *x->names)))
        return -1;
    for (size_t i = 0; i < x->places.num_places; i++) {
        struct code_location loc;
        char outside[CODE_NAMES_OUTSIDE_SIZE];
        const char *name = code_names_function(x->in.sym, code_place(&x->places, i), &loc, outside);
        if (!(x->names[i] = strdup(name)))
            return -1;
    }
    return 0;
}

/* Time 0: the earliest TSC of the samples, the counting intervals, the PT traces and the
 * IPROBE records. */
static uint64_t first_tsc(const struct perfetto *x, const struct counts_table *counts)
{
    uint64_t base = x->ipr.first_tsc;
    for (size_t i = 0; i < x->num_points; i++)
        if (x->points[i].tsc < base)
            base = x->points[i].tsc;
    for (size_t r = 0; counts && r < counts->num_rows; r++)
        if (counts->rows[r].tsc - counts->rows[r].delta < base)
            base = counts->rows[r].tsc - counts->rows[r].delta;
    for (uint32_t cpu = 0; cpu < x->num_flows; cpu++)
        if (x->flows[cpu].have_tsc && x->flows[cpu].first_tsc < base)
            base = x->flows[cpu].first_tsc;
    for (size_t k = 0; k < x->switches.n; k++)
        if (x->switches.sw[k].tsc < base)
            base = x->switches.sw[k].tsc;
    return base == UINT64_MAX ? 0 : base;
}

static void write_samples(struct perfetto *x, const struct counts_table *counts)
{
    uint64_t *running = x->running;
    fprintf(x->out, "\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":",
            TIMELINE_PID);
    json_put_string(x->in.p.session.hostname, x->out);
    fputs("}}", x->out);
    for (size_t i = 0; i < x->num_points;) {
        size_t j = i;
        while (j < x->num_points && x->points[j].cpu == x->points[i].cpu)
            j++;
        write_cpu(x, i, j, running);
        i = j;
    }
    /* A CPU's last switch lasts until the collection's last sign of life on any CPU. */
    uint64_t end_tsc = 0;
    for (size_t i = 0; i < x->num_points; i++)
        if (x->points[i].tsc > end_tsc)
            end_tsc = x->points[i].tsc;
    for (size_t k = 0; k < x->switches.n; k++)
        if (x->switches.sw[k].tsc > end_tsc)
            end_tsc = x->switches.sw[k].tsc;
    write_switches(x, end_tsc);
    if (counts)
        write_counts(x, counts);
}

static int write_json(struct perfetto *x, const struct counts_table *counts, const char *output,
                      struct diag *d)
{
    struct out_file o;
    int rc = out_file_open(&o, output, d);
    if (rc)
        return rc;
    x->out = o.f;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"acart export perfetto\","
          "\"collection\":",
          x->out);
    json_put_string(x->source, x->out);
    fprintf(x->out, ",\"tsc_hz\":%" PRIu64 ",\"base_tsc\":%" PRIu64, x->tsc_hz, x->base_tsc);
    if (x->ipr.timeless)
        fprintf(x->out, ",\"iprobe_records_without_time\":%" PRIu64, x->ipr.timeless);
    fputs("},\n\"traceEvents\":[", x->out);
    if (x->have_samples)
        write_samples(x, counts);
    if (x->num_flows) {
        fprintf(x->out,
                ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":"
                "\"Intel PT\"}}",
                PT_PID);
        struct pt_timeline t = {
            .in = &x->pt, .out = x->out, .pid = PT_PID, .base_tsc = x->base_tsc};
        for (uint32_t cpu = 0; cpu < x->num_flows; cpu++)
            pt_timeline_write_cpu(&t, &x->flows[cpu]);
    }
    ipr_timeline_write(&x->ipr, x->out, !x->have_samples, IPROBE_PID, x->base_tsc, x->us_per_tick,
                       x->have_samples ? x->in.sym : x->ipr_sym);
    fputs("\n]}\n", x->out);
    return out_file_commit(&o, d);
}

/* The collection's Intel PT calls, per CPU, when it has a trace and an image is given. */
static int decode_pt(struct perfetto *x, const char *source, const char *elf, struct diag *d)
{
    if (x->in.p.kind != PROFILE_COLLECTION || !x->in.p.session.pt)
        return 0;
    if (!elf) {
        fprintf(stderr,
                "acart export perfetto: %s holds an Intel PT trace: give --elf IMAGE "
                "for its calls\n",
                source);
        return 0;
    }
    int rc = pt_input_open(&x->pt, source, &elf, 1, d);
    if (rc)
        return rc;
    x->pt_open = true;
    uint32_t n = x->pt.p.session.num_cpus;
    if (!(x->flows = calloc(n ? n : 1, sizeof *x->flows)))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (; x->num_flows < n; x->num_flows++) {
        if ((rc = pt_input_flow(&x->pt, x->num_flows, NULL, &x->flows[x->num_flows], d)))
            return rc;
        pt_input_warn_timing("export perfetto", &x->pt, &x->flows[x->num_flows], false);
    }
    return 0;
}

static int read_samples(struct perfetto *x, const char *source, const char *elf,
                        struct counts_table *t, struct counts_table **counts, struct diag *d)
{
    int rc = export_input_open(&x->in, source, elf, 0, "export perfetto", d);
    if (rc)
        return rc;
    x->have_samples = true;
    const struct session *s = &x->in.p.session;
    if (code_places_init(&x->places, &x->in.p) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    rc = profile_scan(&x->in.p, collect, x, d);
    if (rc == STOP_NO_MEMORY || (!rc && name_places(x) != 0))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (rc)
        return rc;
    profile_check_counts(&x->in.p, "export perfetto");
    qsort(x->points, x->num_points, sizeof *x->points, by_cpu_time);
    if (s->count_interval_ms && x->in.p.kind == PROFILE_COLLECTION) {
        char *path = file_join(source, COUNTS_FILE);
        rc = path ? counts_read(path, t, d) : diag_fail(d, DIAG_NOMEM, "out of memory");
        free(path);
        if (rc)
            return rc;
        *counts = t;
    }
    if (x->in.p.kind == PROFILE_COLLECTION && (rc = task_switches_read(source, s, &x->switches, d)))
        return rc;
    x->tsc_hz = s->tsc_hz;
    return decode_pt(x, source, elf, d);
}

static int run(struct perfetto *x, const char *source, const char *elf, const char *output,
               struct diag *d)
{
    struct counts_table t, *counts = NULL;
    int rc = 0;
    x->source = source;
    if (ipr_file_folder(source)) {
        if (elf && (rc = cli_open_ipr_symbols(source, elf, &x->ipr_sym, d)))
            return rc;
    } else if ((rc = read_samples(x, source, elf, &t, &counts, d))) {
        goto done;
    }
    if (x->in.p.kind != PROFILE_TB5 && (rc = ipr_timeline_open(&x->ipr, source, d)))
        goto done;
    if (!x->have_samples && !x->ipr.num_samples) {
        rc = diag_fail(d, DIAG_INPUT,
                       "%s: its IPROBE sample files hold no sample-buffer records with a time "
                       "stamp (IPR_DATA_TSC) and a PC or count",
                       source);
        goto done;
    }
    if (x->ipr.timeless)
        fprintf(stderr,
                "acart export perfetto: %" PRIu64 " IPROBE records have no time stamp "
                "(IPR_DATA_TSC): left out\n",
                x->ipr.timeless);
    if (!x->tsc_hz)
        x->tsc_hz = x->ipr.tsc_hz;
    x->base_tsc = first_tsc(x, counts);
    x->us_per_tick = x->tsc_hz ? 1e6 / (double)x->tsc_hz : 1e-3;
    if (!(x->running = calloc(SESSION_MAX_EVENTS, sizeof *x->running)))
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    else
        rc = write_json(x, counts, output, d);
done:
    if (counts)
        counts_free(counts);
    return rc;
}

int export_perfetto(int argc, char **argv)
{
    const char *source, *output, *elf;
    int status = export_input_args(argc, argv, "export perfetto", usage, &source, &output, &elf);
    if (status >= 0)
        return status;
    struct perfetto x;
    memset(&x, 0, sizeof x);
    struct diag d = {0};
    int rc = run(&x, source, elf, output, &d);
    for (size_t i = 0; x.names && i < x.places.num_places; i++)
        free(x.names[i]);
    free(x.names);
    free(x.points);
    code_places_free(&x.places);
    for (uint32_t cpu = 0; cpu < x.num_flows; cpu++)
        pt_flow_free(&x.flows[cpu]);
    free(x.flows);
    if (x.pt_open)
        pt_input_close(&x.pt);
    ipr_timeline_close(&x.ipr);
    symbols_close(x.ipr_sym);
    free(x.running);
    task_switches_free(&x.switches);
    export_input_close(&x.in);
    return rc ? diag_report("export perfetto", &d) : ACART_EXIT_OK;
}
