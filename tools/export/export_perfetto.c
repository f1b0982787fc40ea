/* acart export perfetto (DIR|FILE.tb5) -o OUT.json: a timeline per CPU as JSON in the
 * Chrome trace-event format ("Trace Event Format", the JSON that Perfetto's UI and
 * trace_processor import, https://perfetto.dev/docs/getting-started/other-formats):
 * which task or interrupt handler ran when, the samples as instants, the event counts as
 * counter tracks. Code is named as acart report names it (code_names.h). */
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
#include "json_write.h"
#include "out_file.h"
#include "profile_open.h"

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
    "interval's end. Times are microseconds from the first sample's TSC (otherData\n"
    "has tsc_hz and base_tsc). The collection holds no task-switch records, so the\n"
    "slices show what the samples saw, to the sampling interval.\n"
    "\n"
    "  -o, --output FILE   the file to write (required)\n"
    "  -e, --elf IMAGE     ELF image of the target's code (names the samples' functions)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

/* The timeline's process: one "thread" per CPU. */
#define TIMELINE_PID 1

struct point {
    uint64_t tsc, place;
    uint64_t order; /* the sample's position in the scan, to keep equal TSCs in order */
    uint32_t pid, tid;
    uint16_t cpu;
    uint8_t event;
};

struct perfetto {
    struct export_input in;
    struct code_places places;
    struct point *points;
    size_t num_points, cap;
    FILE *out;
    uint64_t base_tsc;
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

static int write_json(struct perfetto *x, const struct counts_table *counts, const char *output,
                      struct diag *d)
{
    const struct session *s = &x->in.p.session;
    uint64_t *running = calloc(SESSION_MAX_EVENTS, sizeof *running);
    if (!running)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct out_file o;
    int rc = out_file_open(&o, output, d);
    if (rc) {
        free(running);
        return rc;
    }
    x->out = o.f;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"acart export perfetto\","
          "\"collection\":",
          x->out);
    json_put_string(x->in.source, x->out);
    fprintf(x->out, ",\"tsc_hz\":%" PRIu64 ",\"base_tsc\":%" PRIu64 "},\n\"traceEvents\":[\n",
            s->tsc_hz, x->base_tsc);
    fprintf(x->out,
            "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":", TIMELINE_PID);
    json_put_string(s->hostname, x->out);
    fputs("}}", x->out);
    for (size_t i = 0; i < x->num_points;) {
        size_t j = i;
        while (j < x->num_points && x->points[j].cpu == x->points[i].cpu)
            j++;
        write_cpu(x, i, j, running);
        i = j;
    }
    if (counts)
        write_counts(x, counts);
    fputs("\n]}\n", x->out);
    free(running);
    return out_file_commit(&o, d);
}

static int run(struct perfetto *x, const char *source, const char *elf, const char *output,
               struct diag *d)
{
    int rc = export_input_open(&x->in, source, elf, 0, "export perfetto", d);
    if (rc)
        return rc;
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
    struct counts_table t, *counts = NULL;
    if (s->count_interval_ms && x->in.p.kind == PROFILE_COLLECTION) {
        char *path = file_join(source, COUNTS_FILE);
        rc = path ? counts_read(path, &t, d) : diag_fail(d, DIAG_NOMEM, "out of memory");
        free(path);
        if (rc)
            return rc;
        counts = &t;
    }
    x->base_tsc = UINT64_MAX;
    for (size_t i = 0; i < x->num_points; i++)
        if (x->points[i].tsc < x->base_tsc)
            x->base_tsc = x->points[i].tsc;
    for (size_t r = 0; counts && r < counts->num_rows; r++)
        if (counts->rows[r].tsc - counts->rows[r].delta < x->base_tsc)
            x->base_tsc = counts->rows[r].tsc - counts->rows[r].delta;
    if (x->base_tsc == UINT64_MAX)
        x->base_tsc = 0;
    x->us_per_tick = s->tsc_hz ? 1e6 / (double)s->tsc_hz : 1e-3;
    rc = write_json(x, counts, output, d);
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
    export_input_close(&x.in);
    return rc ? diag_report("export perfetto", &d) : ACART_EXIT_OK;
}
