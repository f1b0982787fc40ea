/* acart export csv (DIR|FILE.tb5) -o OUTDIR: VTune external-data CSV files. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "counts.h"
#include "counts_report.h"
#include "file_util.h"
#include "profile_open.h"
#include "progress.h"
#include "uncore_data.h"
#include "vtune_csv.h"

static const char export_usage[] =
    "usage: acart export csv (DIR|FILE.tb5) -o OUTDIR [options]\n"
    "       acart export pprof|perf|folded|perfetto (DIR|FILE.tb5) -o FILE [options]\n"
    "       acart export chrome DIR --elf IMAGE -o OUT.json [options]\n"
    "\n"
    "Formats: csv (VTune's CSV for external data), pprof (gzipped profile.proto for\n"
    "go tool pprof, Pyroscope, Parca), perf (a perf.data file for perf report, perf\n"
    "script, hotspot), folded (folded stacks for flame-graph tools), perfetto (a\n"
    "timeline per CPU as Chrome trace-event JSON for ui.perfetto.dev), chrome (Chrome\n"
    "trace-event JSON of an Intel PT collection). Run `acart export FORMAT --help` for\n"
    "details.\n";

static const char csv_usage[] =
    "usage: acart export csv (DIR|FILE.tb5) -o OUTDIR [--hostname NAME]\n"
    "\n"
    "Writes the collection as VTune external-data CSV files into OUTDIR (created if\n"
    "needed), for importing into a VTune result of the same target:\n"
    "  tasks-hostname-NAME.csv            interval table: when each task ran on a CPU\n"
    "                                     (name,start_tsc.RDTSC,end_tsc,pid,tid)\n"
    "  counters-cpuN-hostname-NAME.csv    discrete table per CPU N: each event's\n"
    "                                     cumulative count at every sample\n"
    "                                     (tsc.RDTSC,EVENT_cpuN.COUNT,...); of a\n"
    "                                     counting collection (collect --count), at\n"
    "                                     the end of every interval\n"
    "  latency-cpuN-hostname-NAME.csv     discrete table per CPU N with load-latency\n"
    "                                     samples (acart collect --event\n"
    "                                     MEM_TRANS_RETIRED.LOAD_LATENCY_*:precise): each\n"
    "                                     load's latency in cycles at its TSC\n"
    "  uncore-hostname-NAME.csv           discrete table, when the collection has uncore\n"
    "                                     counts (acart collect --uncore): each uncore\n"
    "                                     event's count since START at every read\n"
    "                                     (tsc.RDTSC,EVENT.COUNT,...)\n"
    "A task's interval runs from its first sample in a run of consecutive samples on\n"
    "one CPU to the next run's first sample (its last sample, at the end).\n"
    "\n"
    "  -o, --output OUTDIR   folder for the CSV files (required)\n"
    "  -H, --hostname NAME   target name in the file names (default: the session's)\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write OUTDIR.\n";

struct cpu_state {
    bool running;       /* a task run is open */
    uint32_t pid, tid;  /* its task */
    uint64_t run_start; /* TSC of its first sample */
    uint64_t last_tsc;  /* TSC of the CPU's latest sample */
    uint64_t *counts;   /* cumulative event counts */
    struct vtune_table counters;
    struct vtune_table latency; /* load-latency samples' latencies, opened at the first */
};

struct export
{
    struct profile p;
    const char *outdir, *hostname;
    struct vtune_table tasks;
    struct cpu_state *cpus;
    struct diag *d;
    uint16_t backwards_cpu;    /* a CPU whose TSC went backwards */
    uint64_t backwards_tsc[2]; /* previous, offending TSC */
};

#define STOP_WRITE_FAILED 1
#define STOP_NO_MEMORY    2
#define STOP_BACKWARDS    3

static void task_name(const struct export *x, uint32_t pid, uint32_t tid, char *buf, size_t size)
{
    const char *name = session_task_name(&x->p.session, pid, tid);
    if (name)
        snprintf(buf, size, "%s", name);
    else
        snprintf(buf, size, "task %" PRIu32, tid);
}

static int end_run(struct export *x, struct cpu_state *c, uint64_t end_tsc)
{
    char name[256];
    task_name(x, c->pid, c->tid, name, sizeof name);
    return vtune_interval(&x->tasks, name, c->run_start, end_tsc, c->pid, c->tid);
}

static int open_counters(struct export *x, uint16_t cpu, struct cpu_state *c)
{
    const struct session *s = &x->p.session;
    char what[32], **names = calloc(s->num_events, sizeof *names);
    int rc = names ? 0 : STOP_NO_MEMORY;
    c->counts = calloc(s->num_events, sizeof *c->counts);
    if (!c->counts)
        rc = STOP_NO_MEMORY;
    for (size_t e = 0; !rc && e < s->num_events; e++) {
        size_t n = strlen(s->events[e].name) + 16;
        names[e] = malloc(n);
        if (!names[e])
            rc = STOP_NO_MEMORY;
        else
            snprintf(names[e], n, "%s_cpu%u", s->events[e].name, cpu);
    }
    snprintf(what, sizeof what, "counters-cpu%u", cpu);
    char *path = rc ? NULL : vtune_csv_path(x->outdir, what, x->hostname);
    if (!rc && !path)
        rc = STOP_NO_MEMORY;
    if (!rc && vtune_counters_open(&c->counters, path, (const char *const *)names, s->num_events,
                                   x->d) != 0)
        rc = STOP_WRITE_FAILED;
    free(path);
    for (size_t e = 0; names && e < s->num_events; e++)
        free(names[e]);
    free(names);
    return rc;
}

/* The CPU's load latencies over time: a discrete table with one column. */
static int latency_row(struct export *x, uint16_t cpu, struct cpu_state *c, const struct sample *s)
{
    if (!c->latency.f) {
        char what[32], column[32];
        const char *names[1] = {column};
        snprintf(what, sizeof what, "latency-cpu%u", cpu);
        snprintf(column, sizeof column, "LOAD_LATENCY_cpu%u", cpu);
        char *path = vtune_csv_path(x->outdir, what, x->hostname);
        if (!path)
            return STOP_NO_MEMORY;
        int rc = vtune_counters_open(&c->latency, path, names, 1, x->d);
        free(path);
        if (rc)
            return STOP_WRITE_FAILED;
    }
    if (vtune_counter_row(&c->latency, s->tsc, &s->latency) != 0) {
        diag_fail(x->d, DIAG_OUTPUT, "%s: write error", c->latency.path);
        return STOP_WRITE_FAILED;
    }
    return 0;
}

static int export_sample(struct export *x, const struct sample *s)
{
    struct cpu_state *c = &x->cpus[s->cpu];
    int rc;
    if (!c->counts && (rc = open_counters(x, s->cpu, c)))
        return rc;
    if (c->running && s->tsc < c->last_tsc) {
        x->backwards_cpu = s->cpu;
        x->backwards_tsc[0] = c->last_tsc;
        x->backwards_tsc[1] = s->tsc;
        return STOP_BACKWARDS;
    }
    if (!c->running || s->pid != c->pid || s->tid != c->tid) {
        /* The CPU switched tasks somewhere between the two samples; the earlier task's
         * interval ends where the next one's starts, so a CPU's intervals tile its time. */
        if (c->running && end_run(x, c, s->tsc) != 0) {
            diag_fail(x->d, DIAG_OUTPUT, "%s: write error", x->tasks.path);
            return STOP_WRITE_FAILED;
        }
        c->running = true;
        c->pid = s->pid;
        c->tid = s->tid;
        c->run_start = s->tsc;
    }
    c->last_tsc = s->tsc;
    c->counts[s->event] += x->p.session.events[s->event].sample_after;
    if (vtune_counter_row(&c->counters, s->tsc, c->counts) != 0) {
        diag_fail(x->d, DIAG_OUTPUT, "%s: write error", c->counters.path);
        return STOP_WRITE_FAILED;
    }
    return s->has_memory ? latency_row(x, s->cpu, c, s) : 0;
}

static int export_batch(const struct sample *batch, size_t n, void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        int rc = export_sample(ctx, &batch[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int finish(struct export *x, struct diag *d)
{
    int rc = 0;
    for (uint32_t cpu = 0; cpu < x->p.session.num_cpus; cpu++) {
        struct cpu_state *c = &x->cpus[cpu];
        if (c->running && end_run(x, c, c->last_tsc) != 0 && !rc)
            rc = diag_fail(d, DIAG_OUTPUT, "%s: write error", x->tasks.path);
        if (c->counters.f && vtune_table_close(&c->counters, d) && !rc)
            rc = d->code;
        if (c->latency.f && vtune_table_close(&c->latency, d) && !rc)
            rc = d->code;
    }
    return rc;
}

/* A collection folder's uncore counts, when it has any (a tb5 file carries none). */
static int export_uncore(const struct export *x, const char *source, struct diag *d)
{
    struct stat st;
    struct uncore_data u;
    if (stat(source, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    int rc = uncore_data_load(source, &u, d);
    if (rc)
        return rc == 1 ? 0 : rc;
    rc = uncore_data_export_csv(&u, x->outdir, x->hostname, d);
    uncore_data_free(&u);
    return rc;
}

static int run(struct export *x, const char *source, struct diag *d)
{
    x->d = d;
    int rc = profile_open(source, &x->p, d);
    if (rc)
        return rc;
    if (!x->hostname)
        x->hostname = x->p.session.hostname;
    if ((rc = file_make_dir(x->outdir, d)))
        return rc;
    x->cpus = calloc(x->p.session.num_cpus, sizeof *x->cpus);
    char *path = vtune_csv_path(x->outdir, "tasks", x->hostname);
    if (!x->cpus || !path) {
        free(path);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    rc = vtune_intervals_open(&x->tasks, path, d);
    free(path);
    if (rc)
        return rc;
    struct progress pr;
    progress_attach(&pr, &x->p, "export");
    rc = profile_scan(&x->p, export_batch, x, d);
    progress_done(&pr);
    switch (rc) {
    case STOP_NO_MEMORY:
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    case STOP_WRITE_FAILED:
        return d->code; /* the message names the file */
    case STOP_BACKWARDS:
        return diag_fail(d, DIAG_INPUT,
                         "%s: CPU %u: sample TSC %" PRIu64 " follows %" PRIu64
                         ": a CPU's samples must be in time order",
                         source, x->backwards_cpu, x->backwards_tsc[1], x->backwards_tsc[0]);
    default:
        break;
    }
    if (rc || (rc = finish(x, d)) || (rc = vtune_table_close(&x->tasks, d)))
        return rc;
    if (x->p.session.count_interval_ms && x->p.kind == PROFILE_COLLECTION) {
        struct counts_table t;
        char *counts = file_join(source, COUNTS_FILE);
        rc = counts ? counts_read(counts, &t, d) : diag_fail(d, DIAG_NOMEM, "out of memory");
        free(counts);
        if (!rc) {
            rc = counts_export_csv(&t, x->p.session.num_cpus, x->outdir, x->hostname, d);
            counts_free(&t);
        }
        if (rc)
            return rc;
    }
    return export_uncore(x, source, d);
}

static int export_csv(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"hostname", required_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct export x;
    memset(&x, 0, sizeof x);
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:H:h", options, NULL)) != -1) {
        switch (c) {
        case 'o':
            x.outdir = optarg;
            break;
        case 'H':
            x.hostname = optarg;
            if (!optarg[0] || strchr(optarg, '/'))
                return cli_usage_error("export csv", csv_usage, "--hostname: not a host name");
            break;
        case 'h':
            return cli_help(csv_usage);
        default:
            return cli_usage_error("export csv", csv_usage,
                                   "unknown option or missing argument: %s", argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("export csv", csv_usage,
                               "expected one collection folder or tb5 file");
    if (!x.outdir)
        return cli_usage_error("export csv", csv_usage, "missing -o OUTDIR");

    struct diag d = {0};
    int rc = run(&x, argv[optind], &d);
    if (x.tasks.f) {
        struct diag ignored;
        vtune_table_close(&x.tasks, &ignored);
    }
    for (uint32_t cpu = 0; x.cpus && cpu < x.p.session.num_cpus; cpu++) {
        struct diag ignored;
        vtune_table_close(&x.cpus[cpu].counters, &ignored);
        vtune_table_close(&x.cpus[cpu].latency, &ignored);
        free(x.cpus[cpu].counts);
    }
    free(x.cpus);
    profile_close(&x.p);
    return rc ? diag_report("export csv", &d) : ACART_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("export", export_usage, "expected a format");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
        return cli_help(export_usage);
    if (strcmp(argv[1], "csv") == 0)
        return export_csv(argc - 1, argv + 1);
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } formats[] = {
        {"chrome", export_chrome}, {"pprof", export_pprof},       {"perf", export_perf},
        {"folded", export_folded}, {"perfetto", export_perfetto},
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(argv[1], formats[i].name) == 0)
            return formats[i].run(argc - 1, argv + 1);
    return cli_usage_error("export", export_usage, "unknown format %s", argv[1]);
}
