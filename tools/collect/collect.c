/* acart collect: one sampling collection from a SEP (protocol v6) target into a folder.
 *
 * The command plays VTune's SEP host: handshake, data connections, the set-up requests
 * in SEP's order, START, the wait, STOP, the drain of every data channel to end of file,
 * then the target's own counts and TERMINATE. It writes the channels' bytes as received
 * (cpu<N>.bin, module.bin) and session.json, and succeeds only when every CPU channel
 * delivered exactly the records the target says it sent. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "collect_data.h"
#include "collect_ecb.h"
#include "collect_layout.h"
#include "collect_lbr.h"
#include "collect_link.h"
#include "collect_net.h"
#include "collect_pt.h"
#include "collect_events.h"
#include "collect_sysinfo.h"
#include "collect_uncore.h"
#include "commands.h"
#include "counts.h"
#include "file_util.h"
#include "session.h"
#include "text_escape.h"
#include "uncore_data.h"

static const char usage[] =
    "usage: acart collect --target HOST[:PORT] --duration S -o DIR\n"
    "                     [--event NAME[:sa=N][:precise][,NAME...]]... [--mux MS]\n"
    "                     [--metrics tma1] [--count NAME[,NAME...] [--interval MS]]\n"
    "                     [--callstack[=DEPTH]] [--lbr[=call-stack]]\n"
    "                     [--transfer delayed|immediate] [--timeout S]\n"
    "                     [--pt [--pt-snapshot [--pt-freeze-after S]]\n"
    "                      [--pt-filter SYMBOL|MODULE|START-END]...\n"
    "                      [--pt-cyc] [--pt-no-tsc] [--pt-no-mtc] [--pt-cpl os|user|all]\n"
    "                      [--elf IMAGE]]\n"
    "                     [--uncore EVENT[:cbo=N][,EVENT...] [--uncore-interval MS]]\n"
    "\n"
    "Records one sampling collection from a target running the acart agent (or any SEP\n"
    "protocol 6 target) into the folder DIR: cpu<N>.bin and module.bin (the data channels'\n"
    "bytes as received) and session.json.\n"
    "\n"
    "  --target HOST[:PORT]  the target's agent; PORT defaults to 9321, IPv6 as [ADDR]:PORT.\n"
    "                        A target that is not listening yet is retried for 10 s\n"
    "  --duration S          seconds to sample (decimals allowed); Ctrl-C stops early\n"
    "  -o, --output DIR      the collection folder, created if missing; files are replaced\n"
    "  --event NAME[:sa=N][:precise][,NAME...]  events to sample, each every N events\n"
    "                        (up to 3 on fixed and 4 on general counters). On any target:\n"
    "                          CPU_CLK_UNHALTED.REF_TSC  (the default; N 2200000)\n"
    "                          CPU_CLK_UNHALTED.THREAD   (N 2000003)\n"
    "                          INST_RETIRED.ANY          (N 2000003)\n"
    "                        with a PMU, any event of Intel's perfmon tables for the\n"
    "                        target's CPU model (N defaults to perfmon's); :precise\n"
    "                        samples a PEBS-capable event with PEBS\n"
    "  --mux MS              more events than counters: pack them in order into groups\n"
    "                        (up to 8, 32 events in all) that take turns on the counters\n"
    "                        of every CPU, MS milliseconds each; report scales each\n"
    "                        group's counts by the time it counted (needs a PMU)\n"
    "  --count NAME[,NAME...]  counting mode (VTune's EMON): no samples; every MS the\n"
    "                        target's counts of each event on each CPU, written to\n"
    "                        counts.csv (report --counts, export csv); more events than\n"
    "                        counters take turns of one interval each. Needs a PMU; not\n"
    "                        with --event, --metrics, --mux, --callstack or --pt\n"
    "  --interval MS         counting mode's interval, 1 to 60000 ms (default 100)\n"
    "  --metrics tma1        sample the events of top-down level 1 (Skylake-class CPUs):\n"
    "                        acart report --metrics shows them; not with --event\n"
    "  --callstack[=DEPTH]   ask the target for each sample's call stack: up to DEPTH\n"
    "                        return addresses of the interrupted code's callers (1 to 64,\n"
    "                        default 16); flamegraph and report --by caller use them\n"
    "  --lbr[=call-stack]    each sample also carries the CPU's LBR stack (its last taken\n"
    "                        branches, with mispredicts and cycles where the CPU records\n"
    "                        them): report --by branch. =call-stack records only calls\n"
    "                        and returns, so the stack is the chain of callers: report\n"
    "                        --by caller and flamegraph use it (Haswell and later)\n"
    "  --transfer MODE       delayed or immediate: fail unless the target runs that mode\n"
    "                        (the target chooses; by default any is fine)\n"
    "  --timeout S           longest wait for any reply or data from the target (default 30)\n"
    "  --pt                  also record Intel PT: every branch each CPU takes, into\n"
    "                        pt-cpu<N>.bin, with the decoder's sideband in session.json\n"
    "                        (docs/pt.md); fails when the target's CPU has no Intel PT\n"
    "  --pt-snapshot         keep only the last trace before a freeze (the flight recorder:\n"
    "                        the firmware's aca_trace_freeze(), an exception, the host's\n"
    "                        --pt-freeze-after, or the end);\n"
    "                        the collection ends early when the target freezes\n"
    "  --pt-freeze-after S   with --pt-snapshot: the host freezes the trace S seconds after\n"
    "                        the start (before --duration ends), then fetches it\n"
    "  --pt-filter WHAT      trace only a function (looked up in --elf IMAGE), a module the\n"
    "                        target reports, or START-END (addresses, END included); up to\n"
    "                        as many as the CPU has address ranges\n"
    "  --pt-cyc              cycle-accurate: CYC packets, for exact cycles per function\n"
    "  --pt-no-tsc, --pt-no-mtc  leave out TSC or MTC timing packets\n"
    "  --pt-cpl WHICH        trace os (CPL 0), user or all code (default all)\n"
    "  --elf IMAGE           the image --pt-filter SYMBOL names a function of\n"
    "  --uncore EVENTS       also count uncore events, read by the target every\n"
    "                        --uncore-interval MS (default 100) into uncore.bin and\n"
    "                        uncore.json (acart report --uncore, export csv): on\n"
    "                        Skylake-class client CPUs UNC_CLOCK.SOCKET,\n"
    "                        UNC_ARB_TRK_REQUESTS.ALL, UNC_ARB_COH_TRK_REQUESTS.ALL,\n"
    "                        UNC_CBO_CACHE_LOOKUP.ANY_MESI, UNC_CBO_XSNP_RESPONSE.MISS_XCORE\n"
    "                        (:cbo=N: on CBo N, default 0), UNC_IMC_DRAM_DATA_READS,\n"
    "                        UNC_IMC_DRAM_DATA_WRITES; on Goldmont(-Plus) SoCs\n"
    "                        UNC_IMC_DRAM_RW_SLICE0, UNC_IMC_DRAM_RW_SLICE1. Fails when the\n"
    "                        target has no uncore (QEMU)\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0 every record arrived and the counts match what the target reports,\n"
    "2 usage error, 4 cannot write DIR, 5 target unreachable, failed, or counts differ.\n";

#define CONNECT_WINDOW_S  10.0
#define DEFAULT_TIMEOUT_S 30.0
#define MAX_SECONDS       (7.0 * 24 * 3600)
/* What SEP tells INIT_PMU: room for 7 counters of 8 bytes per CPU. */
#define INIT_PMU_COUNTERS_PER_CPU 7
_Static_assert(COLLECT_CALLSTACK_MAX_DEPTH <= SESSION_MAX_CALLSTACK_DEPTH,
               "session.json must hold the call stacks collect asks for");
/* Any sane target's system configuration or task list fits in far less. */
#define MAX_SYS_CONFIG (64u << 20)
#define MAX_TASKS      (1u << 20)
/* How many CPUs the summary line names one by one. */
#define SUMMARY_CPUS 16

struct options {
    const char *target, *output;
    double duration_s, timeout_s;
    int transfer; /* -1: whichever the target runs, else enum session_transfer */
    struct collect_event_spec specs[COLLECT_MAX_EVENTS]; /* as given */
    size_t num_specs;
    struct collect_events resolved; /* for the target's CPU (resolve_events) */
    const char *metrics;            /* --metrics: a metric set whose events to sample */
    struct collect_event events[COLLECT_MAX_EVENTS];
    size_t num_events;
    uint32_t mux_ms; /* --mux: each group's turn; 0: one group */
    int count;       /* --count: counting mode */
    int event_given; /* --event */
    uint32_t interval_ms;
    uint32_t callstack_depth; /* return addresses per sample; 0: no call stacks */
    int lbr;                  /* --lbr: 0 none, 1 every branch, 2 call-stack mode */
    struct collect_pt_options pt;
    struct collect_uncore uncore; /* --uncore */
};

struct collection {
    struct options opt;
    struct collect_layout layout;
    struct collect_link link;
    uint32_t num_cpus;
    enum session_transfer transfer;
    struct sysinfo sys;
    struct link_data *data; /* until the reader takes them */
    struct data_reader reader;
    struct session_task *tasks;
    size_t num_tasks;
    time_t started_wall;
    double started, stopped;
    uint64_t num_samples;              /* GET_NUM_SAMPLES */
    struct sep_sample_drop_info drops; /* GET_SAMPLE_DROP_INFO */
    struct acart_drop_reasons reasons; /* ACART_OP_GET_DROP_REASONS, if the target has it */
    int have_reasons;
    struct acart_group_times group_times; /* ACART_OP_GET_GROUP_TIMES, with --mux */
    struct counts_table counts;           /* --count: the reads */
    struct collect_pt pt;                 /* --pt */
    int pt_freeze_sent;                   /* --pt-freeze-after: PT_FREEZE went out */
    struct collect_lbr lbr;               /* --lbr */
    struct session_lbr session_lbr;
};

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ---- options ---------------------------------------------------------------------- */

static int parse_seconds(const char *s, double min_exclusive, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!s[0] || *end || errno || !isfinite(v) || v <= min_exclusive || v > MAX_SECONDS)
        return -1;
    *out = v;
    return 0;
}

/* Returns 0, or the exit status of a usage error. */
static int parse_event(struct options *o, const char *arg)
{
    char err[256];
    if (collect_events_parse(arg, o->specs, &o->num_specs, COLLECT_MAX_EVENTS, err, sizeof err))
        return cli_usage_error("collect", usage, "%s", err);
    return 0;
}

/* Long options without a letter of their own. */
enum { OPT_UNCORE_INTERVAL = 0x100, OPT_PT_FREEZE_AFTER };

/* Returns -1 when the options are good, else the exit status to end with. */
static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option options[] = {
        {"target", required_argument, NULL, 't'},
        {"duration", required_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'},
        {"event", required_argument, NULL, 'e'},
        {"metrics", required_argument, NULL, 'm'},
        {"mux", required_argument, NULL, 'u'},
        {"count", required_argument, NULL, 'n'},
        {"interval", required_argument, NULL, 'I'},
        {"transfer", required_argument, NULL, 'x'},
        {"timeout", required_argument, NULL, 'T'},
        {"callstack", optional_argument, NULL, 'c'},
        {"lbr", optional_argument, NULL, 'l'},
        {"pt", no_argument, NULL, 'P'},
        {"pt-snapshot", no_argument, NULL, 'S'},
        {"pt-freeze-after", required_argument, NULL, OPT_PT_FREEZE_AFTER},
        {"pt-filter", required_argument, NULL, 'F'},
        {"pt-cyc", no_argument, NULL, 'C'},
        {"pt-no-tsc", no_argument, NULL, 'N'},
        {"pt-no-mtc", no_argument, NULL, 'M'},
        {"pt-cpl", required_argument, NULL, 'L'},
        {"elf", required_argument, NULL, 'E'},
        {"uncore", required_argument, NULL, 'U'},
        {"uncore-interval", required_argument, NULL, OPT_UNCORE_INTERVAL},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    struct diag ud = {0};
    uint64_t interval;
    memset(o, 0, sizeof *o);
    o->uncore.interval_ms = COLLECT_UNCORE_INTERVAL_MS;
    o->duration_s = -1;
    o->timeout_s = DEFAULT_TIMEOUT_S;
    o->transfer = -1;
    while ((c = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
        switch (c) {
        case 't':
            o->target = optarg;
            break;
        case 'd':
            if (parse_seconds(optarg, 0, &o->duration_s))
                return cli_usage_error("collect", usage,
                                       "--duration %s: expected a positive number of seconds",
                                       optarg);
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'c': {
            uint64_t depth = COLLECT_CALLSTACK_DEFAULT_DEPTH;
            if (optarg &&
                (cli_parse_uint(optarg, COLLECT_CALLSTACK_MAX_DEPTH, &depth) != 0 || depth == 0))
                return cli_usage_error("collect", usage,
                                       "--callstack=%s: expected a depth from 1 to %d", optarg,
                                       COLLECT_CALLSTACK_MAX_DEPTH);
            o->callstack_depth = (uint32_t)depth;
            break;
        }
        case 'l':
            if (optarg && strcmp(optarg, "call-stack") != 0)
                return cli_usage_error("collect", usage,
                                       "--lbr=%s: expected --lbr or --lbr=call-stack", optarg);
            o->lbr = optarg ? 2 : 1;
            break;
        case 'e':
            if ((rc = parse_event(o, optarg)) != 0)
                return rc;
            o->event_given = 1;
            break;
        case 'n': {
            size_t first = o->num_specs;
            if ((rc = parse_event(o, optarg)) != 0)
                return rc;
            for (size_t i = first; i < o->num_specs; i++)
                if (o->specs[i].sample_after || o->specs[i].precise)
                    return cli_usage_error("collect", usage,
                                           "--count %s: counting takes event names only (no "
                                           ":sa or :precise)",
                                           o->specs[i].name);
            o->count = 1;
            break;
        }
        case 'I': {
            uint64_t ms;
            if (cli_parse_uint(optarg, 60000, &ms) != 0 || ms == 0)
                return cli_usage_error("collect", usage,
                                       "--interval %s: expected milliseconds, 1 to 60000", optarg);
            o->interval_ms = (uint32_t)ms;
            break;
        }
        case 'm':
            o->metrics = optarg;
            break;
        case 'u': {
            uint64_t ms;
            if (cli_parse_uint(optarg, 60000, &ms) != 0 || ms == 0)
                return cli_usage_error("collect", usage,
                                       "--mux %s: expected each group's turn in milliseconds, 1 "
                                       "to 60000",
                                       optarg);
            o->mux_ms = (uint32_t)ms;
            break;
        }
        case 'x':
            if (strcmp(optarg, "delayed") == 0)
                o->transfer = SESSION_TRANSFER_DELAYED;
            else if (strcmp(optarg, "immediate") == 0)
                o->transfer = SESSION_TRANSFER_IMMEDIATE;
            else
                return cli_usage_error("collect", usage,
                                       "--transfer %s: expected delayed or immediate", optarg);
            break;
        case 'T':
            if (parse_seconds(optarg, 0, &o->timeout_s))
                return cli_usage_error("collect", usage,
                                       "--timeout %s: expected a positive number of seconds",
                                       optarg);
            break;
        case 'P':
            o->pt.enabled = 1;
            break;
        case 'S':
            o->pt.snapshot = 1;
            break;
        case OPT_PT_FREEZE_AFTER:
            if (parse_seconds(optarg, 0, &o->pt.freeze_after))
                return cli_usage_error("collect", usage,
                                       "--pt-freeze-after %s: expected a positive number of "
                                       "seconds",
                                       optarg);
            break;
        case 'F':
            if (collect_pt_add_filter(&o->pt, optarg))
                return cli_usage_error("collect", usage, "at most %d --pt-filter ranges",
                                       ACART_PT_MAX_RANGES);
            break;
        case 'C':
            o->pt.cyc = 1;
            break;
        case 'N':
            o->pt.no_tsc = 1;
            break;
        case 'M':
            o->pt.no_mtc = 1;
            break;
        case 'L':
            if (strcmp(optarg, "os") == 0)
                o->pt.cpl = ACART_PT_OS;
            else if (strcmp(optarg, "user") == 0)
                o->pt.cpl = ACART_PT_USER;
            else if (strcmp(optarg, "all") == 0)
                o->pt.cpl = ACART_PT_OS | ACART_PT_USER;
            else
                return cli_usage_error("collect", usage, "--pt-cpl %s: expected os, user or all",
                                       optarg);
            break;
        case 'E':
            o->pt.elf = optarg;
            break;
        case 'U':
            if (collect_uncore_parse(optarg, &o->uncore, &ud))
                return cli_usage_error("collect", usage, "%s", ud.msg);
            break;
        case OPT_UNCORE_INTERVAL:
            if (cli_parse_uint(optarg, UINT16_MAX, &interval) || interval == 0)
                return cli_usage_error("collect", usage,
                                       "--uncore-interval: milliseconds from 1 to 65535, not %s",
                                       optarg);
            o->uncore.interval_ms = (uint32_t)interval;
            break;
        case 'h':
            return cli_help(usage);
        default:
            return cli_usage_error("collect", usage, "unknown option");
        }
    }
    if (!o->pt.enabled && (o->pt.snapshot || o->pt.num_filters || o->pt.cyc || o->pt.no_tsc ||
                           o->pt.no_mtc || o->pt.cpl || o->pt.elf || o->pt.freeze_after))
        return cli_usage_error("collect", usage, "the --pt-* options and --elf need --pt");
    if (o->pt.freeze_after && !o->pt.snapshot)
        return cli_usage_error("collect", usage,
                               "--pt-freeze-after freezes a snapshot: it needs --pt-snapshot");
    if (optind != argc)
        return cli_usage_error("collect", usage, "unexpected argument %s", argv[optind]);
    if (!o->target)
        return cli_usage_error("collect", usage, "missing --target HOST[:PORT]");
    if (o->duration_s < 0)
        return cli_usage_error("collect", usage, "missing --duration S");
    if (o->pt.freeze_after && o->pt.freeze_after >= o->duration_s)
        return cli_usage_error("collect", usage,
                               "--pt-freeze-after %g: the collection ends first (--duration %g)",
                               o->pt.freeze_after, o->duration_s);
    if (!o->output)
        return cli_usage_error("collect", usage, "missing -o DIR");
    if (o->interval_ms && !o->count)
        return cli_usage_error("collect", usage, "--interval is counting mode's: it needs --count");
    if (o->count &&
        (o->event_given || o->metrics || o->mux_ms || o->callstack_depth || o->pt.enabled))
        return cli_usage_error("collect", usage,
                               "--count collects counts, not samples: not with --event, "
                               "--metrics, --mux, --callstack or --pt");
    if (o->count && !o->interval_ms)
        o->interval_ms = 100;
    if (o->metrics && o->num_specs)
        return cli_usage_error("collect", usage, "--metrics picks the events: not with --event");
    if (o->num_specs == 0 && !o->metrics) {
        snprintf(o->specs[0].name, sizeof o->specs[0].name, "%s", collect_event_default()->name);
        o->num_specs = 1;
    }
    return -1;
}

/* ---- the status line ---------------------------------------------------------------- */

/* One line on stderr, rewritten in place, only when stderr is a terminal. */
struct status_line {
    int enabled, shown;
};

static void status_show(struct status_line *sl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void status_show(struct status_line *sl, const char *fmt, ...)
{
    if (!sl->enabled)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputc('\r', stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\033[K", stderr);
    fflush(stderr);
    va_end(ap);
    sl->shown = 1;
}

static void status_clear(struct status_line *sl)
{
    if (sl->shown)
        fputs("\r\033[K", stderr);
    sl->shown = 0;
}

static void bar(char *buf, size_t width, double fraction)
{
    size_t full = (size_t)(fraction * (double)width);
    for (size_t i = 0; i < width; i++)
        buf[i] = i < full ? '#' : '.';
    buf[width] = '\0';
}

/* ---- the requests ------------------------------------------------------------------- */

static int request(struct collection *c, uint32_t op, const void *in, size_t in_len, void *out,
                   size_t want, struct diag *d)
{
    return link_request(&c->link, op, in, in_len, out, want, want, NULL, d);
}

static int request_u32(struct collection *c, uint32_t op, uint32_t value, struct diag *d)
{
    return request(c, op, &value, sizeof value, NULL, 0, d);
}

static int query_u32(struct collection *c, uint32_t op, uint32_t *value, struct diag *d)
{
    return request(c, op, NULL, 0, value, sizeof *value, d);
}

static int system_configuration(struct collection *c, struct diag *d)
{
    uint32_t size;
    int rc = query_u32(c, SEP_OP_COLLECT_SYS_CONFIG, &size, d);
    if (rc)
        return rc;
    if (size == 0)
        return sysinfo_flat(c->num_cpus, &c->sys, d);
    if (size > MAX_SYS_CONFIG)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "COLLECT_SYS_CONFIG: a system configuration of %" PRIu32 " bytes", size);
    void *blob = malloc(size);
    if (!blob)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    rc = request(c, SEP_OP_GET_SYS_CONFIG, NULL, 0, blob, size, d);
    if (!rc)
        rc = sysinfo_parse(blob, size, c->num_cpus, &c->sys, d);
    free(blob);
    return rc;
}

/* SEP asks all of these before it configures anything, and a target may rely on that
 * order; of the answers, only the system configuration and NUM_CORES matter here. */
static int target_description(struct collection *c, struct diag *d)
{
    struct sep_drv_version version;
    struct sep_drv_setup_info setup;
    uint32_t cores;
    uint64_t tsc;
    struct sep_platform_info *platform = malloc(sizeof *platform);
    int rc;
    if (!platform)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if ((rc = request_u32(c, SEP_OP_SET_OSID, 0, d)) ||
        (rc = request(c, SEP_OP_VERSION, NULL, 0, &version, sizeof version, d)) ||
        (rc = request(c, SEP_OP_GET_DRV_SETUP_INFO, NULL, 0, &setup, sizeof setup, d)) ||
        (rc = system_configuration(c, d)) ||
        (rc = request(c, SEP_OP_GET_PLATFORM_INFO, NULL, 0, platform, sizeof *platform, d)) ||
        (rc = query_u32(c, SEP_OP_NUM_CORES, &cores, d)) ||
        (rc = request(c, SEP_OP_GET_NORMALIZED_TSC, NULL, 0, &tsc, sizeof tsc, d))) {
        free(platform);
        return rc;
    }
    free(platform);
    if (cores != c->num_cpus)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "NUM_CORES says %" PRIu32 " CPUs, the handshake %" PRIu32, cores,
                         c->num_cpus);
    return 0;
}

/* The events by name, for the CPU the target reports (its status, system configuration
 * and whether its VERSION says it samples on a timer). */
static int resolve_events(struct collection *c, struct diag *d)
{
    const struct sep_target_status *st = &c->link.status;
    char version[sizeof st->os_info.version + 1];
    memcpy(version, st->os_info.version, sizeof st->os_info.version);
    version[sizeof st->os_info.version] = 0;
    struct collect_target_cpu cpu = {st->hardware_info.family, st->hardware_info.model,
                                     !strstr(version, "time-based"),
                                     c->sys.num_cpus ? c->sys.cpus[0].gp_counters : 0};
    int rc = c->opt.metrics
                 ? collect_events_metrics(c->opt.metrics, &cpu, c->opt.specs, &c->opt.num_specs, d)
                 : 0;
    /* Counting mode without a PMU: INIT_DRIVER is the target's to refuse, with its reason
     * on its console (configure_driver). */
    if (!rc && c->opt.count && !cpu.pmu)
        return 0;
    if (!rc && c->opt.mux_ms && !cpu.pmu)
        rc = diag_fail(d, COLLECT_DIAG_TARGET,
                       "--mux: the target has no usable PMU and samples on a timer (QEMU "
                       "without a virtual PMU, most VMs): there are no counters to take turns on");
    if (!rc)
        rc =
            c->opt.mux_ms || c->opt.count
                ? collect_events_resolve_groups(c->opt.specs, c->opt.num_specs, &cpu,
                                                &c->opt.resolved, d)
                : collect_events_resolve(c->opt.specs, c->opt.num_specs, &cpu, &c->opt.resolved, d);
    if (rc)
        return rc;
    memcpy(c->opt.events, c->opt.resolved.events, sizeof c->opt.events);
    c->opt.num_events = c->opt.resolved.num_events;
    /* Precise load-latency events: room in every record for the load's memory
     * information (docs/sep-protocol.md 6.4), which `report --latency` reads. */
    int latency = 0;
    for (size_t i = 0; !c->opt.count && i < c->opt.num_events; i++) {
        const struct collect_event_def *def = c->opt.events[i].def;
        if (def->extra_msr != COLLECT_ECB_MSR_PEBS_LD_LAT)
            continue;
        /* Without PEBS the load-latency facility stays off and the event counts nothing
         * (IA32_PEBS_ENABLE's LL_EN bit goes with the counter's PEBS bit). */
        if (!def->precise)
            return diag_fail(d, DIAG_USAGE,
                             "--event %s: a load-latency event samples only through PEBS: "
                             "add :precise",
                             def->name);
        latency = 1;
    }
    if (latency)
        collect_layout_add_latency(&c->layout);
    return 0;
}

/* --lbr: the registers to ask for, from the target's model, IA32_PERF_CAPABILITIES and
 * CPUID (collect_lbr.h), and room for them in every record. */
static int plan_lbr(struct collection *c, struct diag *d)
{
    if (!c->opt.lbr)
        return 0;
    const struct sep_target_status *st = &c->link.status;
    uint64_t *caps = calloc(c->num_cpus, sizeof *caps);
    if (!caps)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc = request(c, SEP_OP_GET_PERF_CAPAB, NULL, 0, caps, c->num_cpus * sizeof *caps, d);
    struct collect_lbr_cpu cpu = {
        st->hardware_info.family, st->hardware_info.model, caps[0], 0, 0, 0};
    free(caps);
    if (rc)
        return rc;
    if (c->sys.num_cpus) {
        cpu.cpuid7_edx = c->sys.cpus[0].cpuid7_edx;
        cpu.cpuid1c_eax = c->sys.cpus[0].cpuid1c_eax;
        cpu.cpuid1c_ebx = c->sys.cpus[0].cpuid1c_ebx;
    }
    if ((rc = collect_lbr_plan(&cpu, c->opt.lbr == 2, &c->lbr, d)))
        return rc;
    collect_layout_add_lbr(&c->layout, c->lbr.num_regs);
    collect_lbr_session(&c->lbr, c->layout.lbr_offset, &c->session_lbr);
    return 0;
}

/* The target's VERSION string says it samples on a timer: it has no usable PMU. */
static int target_samples_on_timer(const struct collection *c)
{
    const struct sep_target_status *st = &c->link.status;
    char version[sizeof st->os_info.version + 1];
    memcpy(version, st->os_info.version, sizeof st->os_info.version);
    version[sizeof st->os_info.version] = 0;
    return strstr(version, "time-based") != NULL;
}

static int configure_driver(struct collection *c, struct diag *d)
{
    uint32_t busy;
    struct sep_drv_config cfg;
    int rc = query_u32(c, SEP_OP_RESERVE, &busy, d);
    if (rc)
        return rc;
    struct acart_extensions ext = {0};
    struct diag ignored = {0}; /* a target without the extension answers 159: just "busy" */
    if (busy &&
        link_request(&c->link, ACART_OP_EXTENSIONS, NULL, 0, &ext, sizeof ext, sizeof ext, NULL,
                     &ignored) == 0 &&
        ext.pmu_owner == ACART_PMU_IPROBE)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "RESERVE: the target is busy: a program on the target owns the "
                         "counters through IPROBE (IprAllocate) until it calls IprDeallocate");
    if (busy)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "RESERVE: the target is busy: a collection is already running");
    memset(&cfg, 0, sizeof cfg);
    cfg.size = sizeof cfg;
    cfg.version = 1;
    cfg.num_events = (uint32_t)c->opt.num_events;
    cfg.p_state_trigger_index = -1;
    cfg.unc_timer_interval = (uint16_t)c->opt.uncore.interval_ms;
    if (c->opt.count)
        cfg.collection_config = SEP_DRV_CFG_COUNTING_MODE | SEP_DRV_CFG_PER_CPU_TSC;
    rc = request(c, SEP_OP_INIT_DRIVER, &cfg, sizeof cfg, NULL, 0, d);
    if (rc && c->opt.count) {
        char why[sizeof d->msg];
        snprintf(why, sizeof why, "%s", d->msg);
        return diag_fail(d, COLLECT_DIAG_TARGET, "counting mode: the target refused it (%s)%s", why,
                         target_samples_on_timer(c)
                             ? ": it has no usable PMU and samples on a timer (QEMU without a "
                               "virtual PMU, most VMs), and counting reads the PMU's counters"
                             : "");
    }
    if (rc)
        return rc;
    if (c->opt.count && !c->opt.num_events)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "counting mode: the target has no usable PMU and samples on a timer, "
                         "yet accepted counting mode: nothing to count");

    struct sep_cpu_topology *topo = calloc(c->num_cpus, sizeof *topo);
    if (!topo)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    sysinfo_topology(&c->sys, topo);
    rc = request(c, SEP_OP_SET_CPU_TOPOLOGY, topo, c->num_cpus * sizeof *topo, NULL, 0, d);
    free(topo);
    return rc;
}

/* --pt: the negotiation, PT_CONFIG, the PT channel (in the data array's last place) and
 * the pt-cpu<N>.bin files; before INIT_PMU, as the target needs. */
static int configure_pt(struct collection *c, struct diag *d)
{
    if (!c->opt.pt.enabled)
        return 0;
    c->pt.opt = c->opt.pt;
    int rc = collect_pt_configure(&c->pt, &c->link, c->num_cpus, d);
    if (!rc)
        rc = collect_pt_open_channel(&c->link, &c->data[c->num_cpus + SEP_NONCORE_DATA_CONNECTIONS],
                                     d);
    if (!rc)
        rc = collect_pt_open_files(&c->pt, c->opt.output, d);
    return rc;
}

/* One EM_CONFIG_NEXT: group g's ECB. */
static int send_group(struct collection *c, uint32_t g, struct diag *d)
{
    const struct collect_events *r = &c->opt.resolved;
    size_t first = r->group_start[g], n = r->group_start[g + 1] - first;
    static uint8_t ecb[COLLECT_ECB_SIZE];
    int len = c->opt.count ? collect_ecb_build_counts(c->opt.events + first, n, g, (uint32_t)first,
                                                      ecb, sizeof ecb)
                           : collect_ecb_build_group(c->opt.events + first, n, g, (uint32_t)first,
                                                     ecb, sizeof ecb);
    if (len < 0)
        return diag_fail(d, DIAG_USAGE, "%s", collect_ecb_strerror(len));
    if (c->opt.lbr)
        collect_ecb_ask_lbr(ecb, collect_lbr_select(&c->lbr));
    /* The reply, when the target sends one, says which register it refused. */
    struct sep_ioctl_status verdict;
    size_t got = 0;
    memset(&verdict, 0, sizeof verdict);
    int rc = link_request(&c->link, SEP_OP_EM_CONFIG_NEXT, ecb, (size_t)len, &verdict,
                          sizeof verdict, 0, &got, d);
    if (rc)
        return rc;
    if (got == sizeof verdict && verdict.drv_status != 0)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "EM_CONFIG_NEXT: the target refused register 0x%" PRIx64
                         ": status %" PRIu32 " (%s)",
                         (uint64_t)verdict.reg_key1, verdict.drv_status,
                         link_status_name((int32_t)verdict.drv_status));
    return 0;
}

static int configure_events(struct collection *c, struct diag *d)
{
    /* One descriptor per group: a sample's descriptor_id is its group (collect_ecb.h). */
    uint32_t groups = (uint32_t)c->opt.resolved.num_groups;
    struct sep_event_desc desc;
    collect_layout_descriptor(&c->layout, &desc);
    int rc = request_u32(c, SEP_OP_NUM_DESCRIPTOR, groups, d);
    for (uint32_t g = 0; !rc && g < groups; g++)
        rc = request(c, SEP_OP_DESC_NEXT, &desc, sizeof desc, NULL, 0, d);
    if (rc)
        return rc;

    struct sep_dev_config *dev = malloc(sizeof *dev);
    if (!dev)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    collect_layout_device(&c->layout, (uint32_t)c->opt.num_events, dev);
    rc = request(c, SEP_OP_INIT, dev, sizeof *dev, NULL, 0, d);
    free(dev);
    if (rc)
        return rc;
    if (c->opt.lbr) {
        uint8_t info[sizeof(struct sep_lbr_info) + sizeof c->lbr.regs];
        size_t len = collect_lbr_payload(&c->lbr, info, sizeof info);
        if ((rc = request(c, SEP_OP_LBR_INFO, info, len, NULL, 0, d)))
            return rc;
    }

    struct sep_event_config ev;
    collect_layout_event_config(&c->layout, &ev);
    if (groups > 1 && !c->opt.count) {
        ev.num_groups = groups;
        ev.em_mode = SEP_EM_TIMER_BASED;
        ev.em_factor = (int32_t)c->opt.mux_ms;
    }
    if (c->opt.count)
        ev.num_groups = groups; /* turns on READ_SWITCH_GROUP: em_mode stays disabled */
    if ((rc = request(c, SEP_OP_EM_GROUPS, &ev, sizeof ev, NULL, 0, d)))
        return rc;
    for (uint32_t g = 0; !rc && g < groups; g++)
        rc = send_group(c, g, d);
    return rc ? rc : request_u32(c, SEP_OP_SET_DEVICE_NUM_UNITS, 1, d);
}

/* --uncore: the names for the target's CPU, then the uncore device. A target whose status
 * says it has no uncore is asked all the same, so that its refusal (and its reason, on
 * its console) is what the user sees. */
static int configure_uncore(struct collection *c, struct diag *d)
{
    if (!c->opt.uncore.num_events)
        return 0;
    const struct sep_target_status *st = &c->link.status;
    if (st->collect_switch.bits & SEP_SWITCH_UNCORE_SUPPORTED) {
        int rc = collect_uncore_resolve(&c->opt.uncore, st->hardware_info.family,
                                        st->hardware_info.model, d);
        if (rc)
            return rc;
    }
    return collect_uncore_configure(&c->opt.uncore, &c->link, d);
}

static int read_tasks(struct collection *c, struct diag *d)
{
    uint32_t n;
    int rc = query_u32(c, SEP_OP_GET_THREAD_COUNT, &n, d);
    if (rc || n == 0)
        return rc;
    if (n > MAX_TASKS)
        return diag_fail(d, COLLECT_DIAG_TARGET, "GET_THREAD_COUNT: %" PRIu32 " tasks", n);
    struct sep_task_info *info = calloc(n, sizeof *info);
    c->tasks = calloc(n, sizeof *c->tasks);
    size_t got = 0;
    if (!info || !c->tasks)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    else
        rc = link_request(&c->link, SEP_OP_GET_THREAD_INFO, NULL, 0, info, n * sizeof *info, 0,
                          &got, d);
    for (size_t i = 0; !rc && i < got / sizeof *info; i++) {
        static const struct sep_task_info none;
        /* The target pads its reply with empty entries when tasks ended in between. */
        if (memcmp(&info[i], &none, sizeof none) == 0)
            continue;
        struct session_task *t = &c->tasks[c->num_tasks];
        t->pid = (uint32_t)info[i].address_space_id;
        t->tid = (uint32_t)info[i].id;
        t->name = strndup(info[i].name, sizeof info[i].name);
        if (!t->name)
            rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        else
            c->num_tasks++;
    }
    free(info);
    return rc;
}

static int init_pmu(struct collection *c, struct diag *d)
{
    uint32_t per_cpu = c->opt.count ? (uint32_t)c->opt.num_events : INIT_PMU_COUNTERS_PER_CPU;
    uint32_t bytes = c->num_cpus * per_cpu * (uint32_t)sizeof(uint64_t);
    return request_u32(c, SEP_OP_INIT_PMU, bytes, d);
}

/* ---- the collection ------------------------------------------------------------------ */

static int connect_target(struct collection *c, struct diag *d)
{
    int rc = link_open(&c->link, CONNECT_WINDOW_S, c->opt.timeout_s, d);
    if (rc)
        return rc;
    const struct sep_target_status *st = &c->link.status;
    c->num_cpus = st->hardware_info.num_cpus;
    c->transfer = (st->collect_switch.bits & SEP_SWITCH_DATA_TRANSFER_MODE)
                      ? SESSION_TRANSFER_DELAYED
                      : SESSION_TRANSFER_IMMEDIATE;
    static const char *const mode[] = {"delayed", "immediate"};
    if (c->opt.transfer >= 0 && c->opt.transfer != (int)c->transfer)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--transfer %s: %s:%s runs %s transfer. The target chooses the mode "
                         "(the qemu-pc board runs immediate transfer when its kernel command "
                         "line has transfer=immediate, else delayed)",
                         mode[c->opt.transfer], c->link.host, c->link.port, mode[c->transfer]);
    size_t n = c->num_cpus + SEP_NONCORE_DATA_CONNECTIONS;
    c->data = calloc(n + 1, sizeof *c->data); /* and the PT channel's place */
    if (!c->data)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    c->data[n].fd = -1;
    rc = link_open_data(&c->link, c->data, n, d);
    if (rc) {
        free(c->data);
        c->data = NULL;
    }
    return rc;
}

/* Nothing unsolicited comes on the control connection: anything readable there during
 * the collection means the target went away. */
static int control_lost(struct collection *c)
{
    char byte;
    struct pollfd p = {c->link.control, POLLIN, 0};
    return poll(&p, 1, 0) > 0 && recv(c->link.control, &byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

/* The freezes' names, by ACART_PT_FREEZE_*. */
static const char *const freeze_names[] = {"the host", "aca_trace_freeze", "an exception"};

/* Snapshot mode ends when the target freezes its trace: there is nothing more to wait
 * for. Polled four times a second, and at once after --pt-freeze-after's PT_FREEZE. */
static int snapshot_frozen(struct collection *c, double now, double *next, int *frozen,
                           struct diag *d)
{
    *frozen = 0;
    if (!c->opt.pt.enabled || !c->opt.pt.snapshot)
        return 0;
    if (c->opt.pt.freeze_after && !c->pt_freeze_sent &&
        now >= c->started + c->opt.pt.freeze_after) {
        fprintf(stderr,
                "acart collect: freezing the target's trace after %.1f s (--pt-freeze-after)\n",
                now - c->started);
        int rc = collect_pt_freeze(&c->link, d);
        if (rc)
            return rc;
        c->pt_freeze_sent = 1;
        *next = now;
    }
    if (now < *next)
        return 0;
    *next = now + 0.25;
    int rc = collect_pt_poll_frozen(&c->pt, &c->link, frozen, d);
    if (!rc && *frozen)
        fprintf(stderr,
                "acart collect: the target froze its trace (%s, code %" PRIu32 ", on cpu %" PRIu32
                ") after %.1f s: stopping the collection\n",
                c->pt.status.freeze_reason < 3 ? freeze_names[c->pt.status.freeze_reason] : "?",
                c->pt.status.freeze_code, c->pt.status.freeze_cpu, now - c->started);
    return rc;
}

/* One read of the counters (READ_AND_RESET, or READ_SWITCH_GROUP when groups take turns):
 * a row per CPU for the interval that ended. */
static int read_counts(struct collection *c, struct diag *d)
{
    const struct collect_events *r = &c->opt.resolved;
    size_t n = c->num_cpus, e = c->opt.num_events;
    size_t bytes = 8 * (n + n * e);
    uint64_t *reply = calloc(n + n * e, sizeof *reply);
    uint64_t *values = calloc(e ? e : 1, sizeof *values);
    int rc = reply && values ? 0 : diag_fail(d, DIAG_NOMEM, "out of memory");
    uint32_t op = r->num_groups > 1 ? SEP_OP_READ_SWITCH_GROUP : SEP_OP_READ_AND_RESET;
    uint32_t read = c->counts.num_rows ? c->counts.rows[c->counts.num_rows - 1].interval + 1 : 0;
    uint32_t group =
        (uint32_t)(read % r->num_groups); /* The target's TSC as the read goes out: where the
                                           * interval ends (the reply has only deltas, which leave
                                           * out the time each read takes). */
    uint64_t now = 0;
    if (!rc)
        rc = request(c, SEP_OP_GET_NORMALIZED_TSC, NULL, 0, &now, sizeof now, d);
    if (!rc)
        rc = request(c, op, NULL, 0, reply, bytes, d);
    for (size_t cpu = 0; !rc && cpu < n; cpu++) {
        for (size_t i = 0; i < e; i++)
            values[i] = i >= r->group_start[group] && i < r->group_start[group + 1]
                            ? reply[n + cpu * e + i]
                            : COUNTS_NOT_COUNTED;
        struct counts_row row = {read, (uint32_t)cpu, group, now, reply[cpu], values};
        rc = counts_add(&c->counts, &row, d);
    }
    free(reply);
    free(values);
    return rc;
}

/* Ctrl-C ends the duration early (the collection then stops as usual); *old is the
 * handler to put back. */
static void catch_interrupt(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, old);
}

/* Counting mode: a read every interval until the duration is over, and one at the end. */
static int count_duration(struct collection *c, struct status_line *sl, struct diag *d)
{
    struct sigaction old;
    catch_interrupt(&old);
    int rc = 0;
    double end = c->started + c->opt.duration_s, step = c->opt.interval_ms / 1000.0;
    double next = c->started + step;
    for (double now = net_now(); !rc && now < end; now = net_now()) {
        if (interrupted || control_lost(c))
            break;
        if (now >= next) {
            rc = read_counts(c, d);
            next += step;
            if (next <= now)
                next = now + step;
            continue;
        }
        char b[31];
        bar(b, sizeof b - 1, (now - c->started) / c->opt.duration_s);
        status_show(sl, "counting [%s] %.1f/%.1f s, %zu reads", b, now - c->started,
                    c->opt.duration_s, c->counts.num_rows / (c->num_cpus ? c->num_cpus : 1));
        double wait = (next < end ? next : end) - now;
        poll(NULL, 0, wait < 0.1 ? (int)ceil(wait * 1000) : 100);
    }
    sigaction(SIGINT, &old, NULL);
    status_clear(sl);
    if (!rc && !control_lost(c))
        rc = read_counts(c, d); /* the last interval, up to STOP */
    return rc;
}

static int wait_duration(struct collection *c, struct status_line *sl, struct diag *d)
{
    double next_poll = 0;
    int frozen = 0, rc = 0;
    struct sigaction old;
    catch_interrupt(&old);
    double end = c->started + c->opt.duration_s;
    for (double now = net_now(); now < end; now = net_now()) {
        if (interrupted || atomic_load(&c->reader.failed) || control_lost(c) ||
            (rc = snapshot_frozen(c, now, &next_poll, &frozen, d)) != 0 || frozen)
            break;
        char b[31];
        bar(b, sizeof b - 1, (now - c->started) / c->opt.duration_s);
        status_show(sl, "collecting [%s] %.1f/%.1f s, %" PRIu64 " samples received", b,
                    now - c->started, c->opt.duration_s, (uint64_t)atomic_load(&c->reader.samples));
        double left = end - now;
        poll(NULL, 0, left < 0.1 ? (int)ceil(left * 1000) : 100);
    }
    sigaction(SIGINT, &old, NULL);
    status_clear(sl);
    if (interrupted)
        fprintf(stderr, "acart collect: interrupted: stopping the collection after %.1f s\n",
                net_now() - c->started);
    return rc;
}

/* After STOP the target sends what it holds and closes every data channel. */
/* What a target can still send after STOP is bounded by its memory: a 32-bit board holds
 * less than 4 GiB of samples, and its module and uncore records are a small fraction of
 * that. A target that goes on past either is broken or hostile, and must not keep the
 * host draining for ever. */
#define DRAIN_MAX_BYTES     (4ull << 30)
#define DRAIN_MAX_NONSAMPLE (256ull << 20)

static int drain(struct collection *c, struct status_line *sl, struct diag *d)
{
    const uint64_t at_stop = atomic_load(&c->reader.bytes);
    const uint64_t pt_at_stop = atomic_load(&c->reader.pt_bytes);
    uint64_t last_bytes = at_stop + pt_at_stop;
    /* After STOP a target sends at most its trace memory (in chunks), twice over for a
     * ring that was being drained. */
    const uint64_t pt_max = 2ull * c->pt.info.memory_bytes + (64ull << 20);
    double last_change = net_now();
    while (atomic_load(&c->reader.open) > 0 && !atomic_load(&c->reader.failed)) {
        uint64_t pt_bytes = atomic_load(&c->reader.pt_bytes);
        if (pt_bytes - pt_at_stop > pt_max)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "after STOP the target sent %" PRIu64 " bytes of Intel PT trace and "
                             "is still sending: more than its %" PRIu32 " bytes of trace memory; "
                             "giving up",
                             pt_bytes - pt_at_stop, c->pt.info.memory_bytes);
        uint64_t bytes = atomic_load(&c->reader.bytes);
        uint64_t sample_bytes = (uint64_t)atomic_load(&c->reader.samples) * c->layout.sample_size;
        if (bytes - at_stop > DRAIN_MAX_BYTES ||
            (bytes > sample_bytes && bytes - sample_bytes > DRAIN_MAX_NONSAMPLE))
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "after STOP the target sent %" PRIu64 " bytes (%" PRIu64
                             " of them not sample records) and is still sending: more than a "
                             "target can hold; giving up",
                             bytes - at_stop, bytes > sample_bytes ? bytes - sample_bytes : 0);
        double now = net_now();
        if (bytes + pt_bytes != last_bytes) {
            last_bytes = bytes + pt_bytes;
            last_change = now;
        } else if (now - last_change > c->opt.timeout_s) {
            status_clear(sl);
            char list[256] = "";
            size_t len = 0;
            for (size_t i = 0; i < c->reader.n && len + 16 < sizeof list; i++) {
                const struct data_channel *ch = &c->reader.ch[i];
                if (ch->eof)
                    continue;
                if (ch->link.type == SEP_DATA_CPU)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%sCPU %u",
                                            len ? ", " : "", ch->link.id);
                else
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                            ch->link.type == SEP_DATA_MODULE ? "module"
                                            : ch->link.type == ACART_DATA_PT ? "Intel PT"
                                                                             : "uncore");
            }
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "after STOP no data arrived for %.0f s and %d data channels are "
                             "still open (%s): see --timeout",
                             c->opt.timeout_s, atomic_load(&c->reader.open), list);
        }
        status_show(sl, "receiving: %.1f MB, %" PRIu64 " samples, %d of %zu channels open",
                    (double)bytes / 1e6, (uint64_t)atomic_load(&c->reader.samples),
                    atomic_load(&c->reader.open), c->reader.n);
        poll(NULL, 0, 100);
    }
    status_clear(sl);
    data_reader_join(&c->reader);
    return data_reader_finish(&c->reader, d);
}

static int run(struct collection *c, struct diag *d)
{
    struct status_line sl = {isatty(STDERR_FILENO), 0};
    uint32_t sizes[COLLECT_MAX_GROUPS];
    uint32_t groups = (uint32_t)c->opt.resolved.num_groups;
    for (uint32_t g = 0; g < groups; g++)
        sizes[g] = c->layout.sample_size;
    size_t n = c->num_cpus + SEP_NONCORE_DATA_CONNECTIONS + (c->opt.pt.enabled ? 1 : 0);
    int rc = data_reader_init(&c->reader, c->data, n, c->opt.output, sizes, groups,
                              (uint32_t)c->opt.num_events, d);
    free(c->data); /* the reader owns the connections now */
    c->data = NULL;
    if (c->opt.pt.enabled)
        data_reader_set_pt(&c->reader, &c->pt);
    if (!rc && c->opt.count) {
        const char *names[COLLECT_MAX_EVENTS];
        for (size_t i = 0; i < c->opt.num_events; i++)
            names[i] = c->opt.events[i].def->name;
        rc = counts_init(&c->counts, names, c->opt.num_events, d);
    }
    if (rc || (rc = data_reader_start(&c->reader, d)) ||
        (rc = request(c, SEP_OP_START, NULL, 0, NULL, 0, d)))
        return rc;
    c->started = net_now();
    c->started_wall = time(NULL);
    if ((rc = c->opt.count ? count_duration(c, &sl, d) : wait_duration(c, &sl, d)))
        return rc;
    if (atomic_load(&c->reader.failed)) {
        data_reader_join(&c->reader);
        return data_reader_finish(&c->reader, d);
    }
    if (control_lost(c))
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "%s:%s closed the control connection during the collection", c->link.host,
                         c->link.port);
    if ((rc = request(c, SEP_OP_STOP, NULL, 0, NULL, 0, d)))
        return rc;
    c->stopped = net_now();
    return drain(c, &sl, d);
}

/* The reasons behind the drop counts (an acart extension): a target without it answers
 * DRIVER_COMM_FAILED and the session has counts only. Per CPU they must add up to what
 * GET_SAMPLE_DROP_INFO said. */
static int drop_reasons(struct collection *c, struct diag *d)
{
    size_t got = 0;
    int rc = link_request(&c->link, ACART_OP_GET_DROP_REASONS, NULL, 0, &c->reasons,
                          sizeof c->reasons, offsetof(struct acart_drop_reasons, cpu), &got, d);
    if (rc && c->link.last_status == SEP_STATUS_DRIVER_COMM_FAILED) {
        d->code = 0;
        d->msg[0] = 0;
        return 0;
    }
    if (rc)
        return rc;
    if (c->reasons.size > ACART_MAX_DROP_REASON_CPUS ||
        got < offsetof(struct acart_drop_reasons, cpu) + c->reasons.size * sizeof c->reasons.cpu[0])
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_DROP_REASONS: %zu bytes for %" PRIu32 " entries", got,
                         c->reasons.size);
    c->have_reasons = 1;
    return 0;
}

/* How long each group counted on each CPU: what report scales multiplexed counts by. */
static int group_times(struct collection *c, struct diag *d)
{
    if (c->opt.resolved.num_groups < 2)
        return 0;
    size_t got = 0;
    int rc = link_request(&c->link, ACART_OP_GET_GROUP_TIMES, NULL, 0, &c->group_times,
                          sizeof c->group_times, offsetof(struct acart_group_times, cpu), &got, d);
    if (rc)
        return rc;
    const struct acart_group_times *t = &c->group_times;
    if (t->num_cpus != c->num_cpus || t->num_groups != c->opt.resolved.num_groups ||
        got < offsetof(struct acart_group_times, cpu) + t->num_cpus * sizeof t->cpu[0])
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_GROUP_TIMES: %zu bytes for %" PRIu32 " CPUs and %" PRIu32
                         " groups, expected %" PRIu32 " CPUs and %zu groups",
                         got, t->num_cpus, t->num_groups, c->num_cpus, c->opt.resolved.num_groups);
    return 0;
}

static const struct acart_drop_reasons_cpu *reasons_entry(const struct collection *c, uint32_t cpu);

/* GET_INTERVAL_COUNTS (sampling on a PMU): the interrupts each event took on each CPU.
 * Every one went into the CPU's ring, delivered or dropped there for lack of room, so per
 * CPU they add up to delivered + ring_full of GET_DROP_REASONS. A target without either
 * (the reference keeps the counts only in continuous profiling) is not checked. */
static int interval_counts(struct collection *c, struct diag *d)
{
    size_t n = c->num_cpus, e = c->opt.num_events;
    if (c->opt.count || !c->have_reasons || !e || target_samples_on_timer(c))
        return 0;
    uint64_t *counts = calloc(n * e, sizeof *counts);
    if (!counts)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc = request(c, SEP_OP_GET_INTERVAL_COUNTS, NULL, 0, counts, n * e * sizeof *counts, d);
    if (rc && (c->link.last_status == SEP_STATUS_DRIVER_COMM_FAILED ||
               c->link.last_status == SEP_STATUS_INVALID_STATE_TRANS)) {
        d->code = 0;
        d->msg[0] = 0;
        rc = 0;
    } else {
        for (uint32_t cpu = 0; !rc && cpu < n; cpu++) {
            const struct acart_drop_reasons_cpu *r = reasons_entry(c, cpu);
            uint64_t sum = 0;
            for (size_t i = 0; i < e; i++)
                sum += counts[cpu * e + i];
            if (r && sum != (uint64_t)r->delivered + r->ring_full)
                rc = diag_fail(d, COLLECT_DIAG_TARGET,
                               "GET_INTERVAL_COUNTS: CPU %" PRIu32 "'s events took %" PRIu64
                               " interrupts, GET_DROP_REASONS says %" PRIu32
                               " samples delivered and %" PRIu32 " dropped for room",
                               cpu, sum, r->delivered, r->ring_full);
        }
    }
    free(counts);
    return rc;
}

static int results(struct collection *c, struct diag *d)
{
    int64_t *skew = calloc(c->num_cpus, sizeof *skew);
    if (!skew)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc;
    if (!(rc = request(c, SEP_OP_GET_NUM_SAMPLES, NULL, 0, &c->num_samples, sizeof c->num_samples,
                       d)) &&
        !(rc = request(c, SEP_OP_GET_SAMPLE_DROP_INFO, NULL, 0, &c->drops, sizeof c->drops, d)) &&
        !(rc = drop_reasons(c, d)) && !(rc = group_times(c, d)) && !(rc = interval_counts(c, d)) &&
        !(rc = request(c, SEP_OP_TSC_SKEW_INFO, NULL, 0, skew, c->num_cpus * sizeof *skew, d)) &&
        !(rc = c->opt.pt.enabled ? collect_pt_results(&c->pt, &c->link, d) : 0))
        rc = request(c, SEP_OP_TERMINATE, NULL, 0, NULL, 0, d);
    free(skew);
    if (!rc && c->drops.size > SEP_MAX_SAMPLE_DROP_NODES)
        rc = diag_fail(d, COLLECT_DIAG_TARGET, "GET_SAMPLE_DROP_INFO: %" PRIu32 " entries of %d",
                       c->drops.size, SEP_MAX_SAMPLE_DROP_NODES);
    return rc;
}

/* ---- session.json and the checks ---------------------------------------------------- */

/* The GET_DROP_REASONS entry of a CPU, or NULL. */
static const struct acart_drop_reasons_cpu *reasons_entry(const struct collection *c, uint32_t cpu)
{
    for (uint32_t i = 0; i < c->reasons.size; i++)
        if (c->reasons.cpu[i].cpu_id == cpu)
            return &c->reasons.cpu[i];
    return NULL;
}

/* What an entry's reasons add up to: the CPU's dropped samples (stuck_resets counts resets,
 * not samples). */
static uint64_t reasons_dropped(const struct acart_drop_reasons_cpu *e)
{
    return (uint64_t)e->ring_full + e->no_counter + e->malformed + e->collision + e->stuck;
}

/* The reasons the target gave for a CPU's `dropped` samples, into out[kind][cpu]. */
static int reasons_of(const struct collection *c, uint32_t cpu, uint32_t dropped, uint64_t **out,
                      struct diag *d)
{
    const struct acart_drop_reasons_cpu *e = reasons_entry(c, cpu);
    if (!e)
        return diag_fail(d, COLLECT_DIAG_TARGET, "GET_DROP_REASONS: no entry for CPU %" PRIu32,
                         cpu);
    const uint64_t v[SESSION_DROP_KINDS] = {e->ring_full, e->no_counter, e->malformed,
                                            e->collision, e->stuck,      e->stuck_resets};
    for (int k = 0; k < SESSION_DROP_KINDS; k++)
        out[k][cpu] = v[k];
    uint64_t sum = reasons_dropped(e);
    if (sum != dropped)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_DROP_REASONS: CPU %" PRIu32 "'s reasons add up to %" PRIu64
                         ", GET_SAMPLE_DROP_INFO says %" PRIu32 " dropped",
                         cpu, sum, dropped);
    return 0;
}

/* What the target says a CPU delivered and dropped: GET_SAMPLE_DROP_INFO, which holds 20
 * CPUs, or past those acart's GET_DROP_REASONS where it gives `delivered`; 0 if neither
 * mentions the CPU. */
static int drop_entry(const struct collection *c, uint32_t cpu, struct sep_sample_drop *out)
{
    for (uint32_t i = 0; i < c->drops.size; i++) {
        if (c->drops.drop_info[i].os_id == 0 && c->drops.drop_info[i].cpu_id == cpu) {
            *out = c->drops.drop_info[i];
            return 1;
        }
    }
    const struct acart_drop_reasons_cpu *e =
        c->have_reasons && (c->reasons.flags & ACART_DROP_REASONS_DELIVERED) ? reasons_entry(c, cpu)
                                                                             : NULL;
    if (!e)
        return 0;
    uint64_t dropped = reasons_dropped(e);
    *out = (struct sep_sample_drop){0, cpu, e->delivered,
                                    dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped};
    return 1;
}

static char *dup_field(const char *s, size_t max, int *oom)
{
    char *r = strndup(s, max);
    if (!r)
        *oom = 1;
    return r;
}

static int write_session(struct collection *c, struct diag *d)
{
    const struct sep_target_status *st = &c->link.status;
    struct session s;
    struct session_descriptor desc = {0,
                                      c->layout.sample_size,
                                      c->layout.callstack_offset,
                                      c->layout.callstack_size,
                                      c->layout.latency_offset,
                                      c->layout.latency_size};
    size_t groups = c->opt.resolved.num_groups;
    char address[sizeof c->link.address + 24], started[32];
    int oom = 0;

    memset(&s, 0, sizeof s);
    snprintf(address, sizeof address, strchr(c->link.address, ':') ? "[%s]:%s" : "%s:%s",
             c->link.address, c->link.port);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&c->started_wall));
    s.hostname = dup_field(c->link.host, sizeof c->link.host, &oom);
    s.address = dup_field(address, sizeof address, &oom);
    s.os_sysname = dup_field(st->os_info.sysname, SEP_OSINFO_LEN, &oom);
    s.os_release = dup_field(st->os_info.release, SEP_OSINFO_LEN, &oom);
    s.os_version = dup_field(st->os_info.version, SEP_OSINFO_LEN, &oom);
    s.tsc_hz = st->hardware_info.tsc_freq;
    s.num_cpus = c->num_cpus;
    s.cpu_vendor = c->sys.vendor[0] ? dup_field(c->sys.vendor, sizeof c->sys.vendor, &oom) : NULL;
    s.cpu_family = st->hardware_info.family;
    s.cpu_model = st->hardware_info.model;
    s.cpu_stepping = st->hardware_info.stepping;
    s.topology = calloc(c->num_cpus, sizeof *s.topology);
    s.num_topology = c->num_cpus;
    s.transfer = c->transfer;
    s.started_utc = dup_field(started, sizeof started, &oom);
    s.duration_s = c->stopped - c->started;
    s.descriptors = calloc(groups, sizeof desc);
    s.num_descriptors = groups;
    s.events = calloc(c->opt.num_events, sizeof *s.events);
    s.num_events = c->opt.num_events;
    s.samples_total = c->num_samples;
    s.samples_per_cpu = calloc(c->num_cpus, sizeof *s.samples_per_cpu);
    s.dropped_per_cpu = calloc(c->num_cpus, sizeof *s.dropped_per_cpu);
    for (int k = 0; c->have_reasons && k < SESSION_DROP_KINDS; k++)
        if (!(s.drop_reasons[k] = calloc(c->num_cpus, sizeof *s.drop_reasons[k])))
            oom = 1;
    s.tasks = c->tasks; /* handed over: session_free frees them */
    s.num_tasks = c->num_tasks;
    c->tasks = NULL;
    c->num_tasks = 0;
    if (c->opt.pt.enabled && !(s.pt = collect_pt_session(&c->pt)))
        oom = 1;
    if (c->opt.lbr && (s.lbr = malloc(sizeof *s.lbr)) != NULL)
        *s.lbr = c->session_lbr; /* session_free frees it */
    else if (c->opt.lbr)
        oom = 1;
    if (!s.topology || !s.descriptors || !s.events || !s.samples_per_cpu || !s.dropped_per_cpu)
        oom = 1;
    int rc = 0;
    for (uint32_t i = 0; !oom && i < c->num_cpus; i++) {
        const struct sysinfo_cpu *sc = &c->sys.cpus[i];
        struct session_cpu t = {i, sc->apic_id, sc->package, sc->core, sc->thread};
        struct sep_sample_drop e;
        s.topology[i] = t;
        if (drop_entry(c, i, &e)) {
            s.samples_per_cpu[i] = e.sampled;
            s.dropped_per_cpu[i] = e.dropped;
            if (c->have_reasons && (rc = reasons_of(c, i, e.dropped, s.drop_reasons, d)))
                break;
        } else {
            s.samples_per_cpu[i] = c->reader.ch[i].scan.records;
        }
    }
    for (size_t g = 0; !oom && g < groups; g++) {
        s.descriptors[g] = desc;
        s.descriptors[g].id = (uint32_t)g;
    }
    if (groups > 1 && !c->opt.count && !oom) {
        s.num_groups = (uint32_t)groups;
        s.mux_ms = c->opt.mux_ms;
        s.group_enabled = calloc(c->num_cpus, sizeof *s.group_enabled);
        s.group_running = calloc((size_t)c->num_cpus * groups, sizeof *s.group_running);
        if (!s.group_enabled || !s.group_running)
            oom = 1;
        for (uint32_t i = 0; !oom && i < c->num_cpus; i++) {
            s.group_enabled[i] = c->group_times.cpu[i].enabled;
            for (size_t g = 0; g < groups; g++)
                s.group_running[i * groups + g] = c->group_times.cpu[i].running[g];
        }
    }
    if (c->opt.count) {
        s.count_interval_ms = c->opt.interval_ms;
        s.count_groups = (uint32_t)(groups ? groups : 1);
    }
    for (size_t i = 0; !oom && i < s.num_events; i++) {
        for (size_t g = 0; g < groups; g++)
            if (i >= c->opt.resolved.group_start[g])
                s.events[i].group = (uint32_t)g;
        s.events[i].index = (uint32_t)i;
        s.events[i].name = dup_field(c->opt.events[i].def->name, COLLECT_EVENT_NAME_MAX, &oom);
        s.events[i].sample_after = c->opt.events[i].sample_after;
    }
    if (rc) {
        /* reasons_of said why */
    } else if (oom) {
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    } else {
        char *path = file_join(c->opt.output, "session.json");
        rc = path ? session_write(&s, path, d) : diag_fail(d, DIAG_NOMEM, "out of memory");
        free(path);
        path = c->opt.count ? file_join(c->opt.output, COUNTS_FILE) : NULL;
        if (!rc && c->opt.count)
            rc = path ? counts_write(&c->counts, path, d)
                      : diag_fail(d, DIAG_NOMEM, "out of memory");
        free(path);
    }
    session_free(&s);
    return rc;
}

/* Every CPU channel must hold exactly what the target says it sent. */
static int check_counts(const struct collection *c, struct diag *d)
{
    uint64_t received = 0, reported = 0;
    uint32_t uncovered = 0;
    for (uint32_t i = 0; i < c->num_cpus; i++) {
        uint64_t got = c->reader.ch[i].scan.records;
        struct sep_sample_drop e;
        received += got;
        if (!drop_entry(c, i, &e)) {
            uncovered++;
            continue;
        }
        reported += e.sampled;
        if (got != e.sampled)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "CPU %" PRIu32 ": received %" PRIu64 " sample records, the target "
                             "reports %" PRIu32 " sent (GET_SAMPLE_DROP_INFO)",
                             i, got, e.sampled);
    }
    if (uncovered)
        fprintf(stderr,
                "acart collect: warning: GET_SAMPLE_DROP_INFO covers %" PRIu32 " of %" PRIu32
                " CPUs; the others are checked only in the total\n",
                c->num_cpus - uncovered, c->num_cpus);
    if (received != c->num_samples)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "received %" PRIu64 " sample records in all, the target reports %" PRIu64
                         " (GET_NUM_SAMPLES)",
                         received, c->num_samples);
    if (!uncovered && reported != c->num_samples)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "the target contradicts itself: %" PRIu64 " samples by "
                         "GET_SAMPLE_DROP_INFO, %" PRIu64 " by GET_NUM_SAMPLES",
                         reported, c->num_samples);
    return 0;
}

/* Time-based sampling ticks on every CPU at one rate. A CPU that took nothing while the
 * collection was long enough for 20 ticks has a sampling interrupt that never fires on the
 * target (a port whose timer does not deliver): that is a failed collection, not an empty
 * profile. PMU events may legitimately never occur, so only the time-based case is
 * checked. */
static int check_silent_cpus(const struct collection *c, struct diag *d)
{
    const struct sep_target_status *st = &c->link.status;
    char version[sizeof st->os_info.version + 1];
    memcpy(version, st->os_info.version, sizeof st->os_info.version);
    version[sizeof st->os_info.version] = 0;
    if (!strstr(version, "time-based") || c->opt.num_events == 0 ||
        c->opt.events[0].sample_after == 0)
        return 0;
    double ticks = (c->stopped - c->started) * (double)st->hardware_info.tsc_freq /
                   (double)c->opt.events[0].sample_after;
    if (ticks < 20)
        return 0;
    for (uint32_t i = 0; i < c->num_cpus; i++) {
        struct sep_sample_drop e;
        if (drop_entry(c, i, &e) && e.sampled == 0 && e.dropped == 0)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "CPU %" PRIu32 " took no sample in %.2f s of time-based sampling "
                             "(about %.0f expected): its sampling timer never fired on the "
                             "target (see the board's console; aca_selftest() checks the port)",
                             i, c->stopped - c->started, ticks);
    }
    return 0;
}

static void print_summary(const struct collection *c)
{
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < c->num_cpus; i++) {
        struct sep_sample_drop e;
        if (drop_entry(c, i, &e))
            dropped += e.dropped;
    }
    char stacks[48] = "";
    if (c->opt.callstack_depth)
        snprintf(stacks, sizeof stacks, ", call stacks up to %" PRIu32 " deep",
                 c->opt.callstack_depth);
    printf("%s: %" PRIu32 " CPUs, %.2f s, %s transfer%s: %" PRIu64 " samples (", c->opt.output,
           c->num_cpus, c->stopped - c->started,
           c->transfer == SESSION_TRANSFER_DELAYED ? "delayed" : "immediate", stacks,
           c->num_samples);
    for (uint32_t i = 0; i < c->num_cpus && i < SUMMARY_CPUS; i++)
        printf("%scpu%" PRIu32 " %" PRIu64, i ? ", " : "", i, c->reader.ch[i].scan.records);
    const struct data_channel *uncore = &c->reader.ch[c->num_cpus];
    const struct data_channel *module = &c->reader.ch[c->num_cpus + 1];
    printf("%s), %" PRIu64 " dropped, %" PRIu64 " module records\n",
           c->num_cpus > SUMMARY_CPUS ? ", ..." : "", dropped, module->scan.records);
    if (dropped)
        fprintf(stderr,
                "acart collect: warning: the target dropped %" PRIu64 " samples (its buffers "
                "were full): sample less often (--event NAME:sa=N) or use immediate transfer\n",
                dropped);
    if (c->opt.count)
        printf("counting: %zu events in %zu groups, %zu reads of %" PRIu32 " ms per CPU into "
               "%s\n",
               c->opt.num_events, c->opt.resolved.num_groups,
               c->counts.num_rows / (c->num_cpus ? c->num_cpus : 1), c->opt.interval_ms,
               COUNTS_FILE);
    if (c->opt.resolved.table[0])
        printf("events named from Intel %s for the target's CPU\n", c->opt.resolved.table);
    if (c->opt.pt.enabled)
        collect_pt_summary(&c->pt, stdout);
    if (uncore->bytes && !c->opt.uncore.num_events)
        fprintf(stderr,
                "acart collect: warning: the uncore channel sent %" PRIu64 " bytes unasked (kept "
                "in uncore.bin)\n",
                uncore->bytes);
    struct uncore_data u;
    struct diag ignored = {0};
    if (c->opt.uncore.num_events && uncore_data_load(c->opt.output, &u, &ignored) == 0) {
        printf("uncore: %zu reads every %" PRIu32 " ms:", u.num_reads, u.interval_ms);
        for (size_t e = 0; e < u.num_events; e++)
            printf("%s %s %" PRIu64, e ? "," : "", u.names[e],
                   u.num_reads ? u.counts[(u.num_reads - 1) * u.num_events + e] : 0);
        printf(" (acart report --uncore)\n");
        uncore_data_free(&u);
    }
}

/* --uncore: uncore.json beside uncore.bin, and every record of it whole and valid. */
static int write_uncore(struct collection *c, struct diag *d)
{
    if (!c->opt.uncore.num_events)
        return 0;
    struct uncore_data u;
    int rc = collect_uncore_write(&c->opt.uncore, c->opt.output,
                                  c->link.status.hardware_info.tsc_freq, d);
    if (!rc && !(rc = uncore_data_load(c->opt.output, &u, d)))
        uncore_data_free(&u);
    if (rc == DIAG_INPUT) { /* the target's records, not a file of the user's */
        d->code = COLLECT_DIAG_TARGET;
        return COLLECT_DIAG_TARGET;
    }
    return rc;
}

static int exit_status(const struct diag *d)
{
    fputs("acart collect: ", stderr);
    text_fput_terminal(d->msg[0] ? d->msg : diag_strerror(d->code), stderr); /* target text */
    fputc('\n', stderr);
    return d->code == COLLECT_DIAG_TARGET ? ACART_EXIT_TARGET : diag_exit_status(d->code);
}

int cmd_collect(int argc, char **argv)
{
    struct collection c;
    struct diag d = {0};
    memset(&c, 0, sizeof c);
    c.link.control = -1;
    int rc = parse_options(argc, argv, &c.opt);
    if (rc >= 0)
        return rc;
    if (link_parse_target(&c.link, c.opt.target, &d))
        return cli_usage_error("collect", usage, "%s", d.msg);
    collect_layout_init(&c.layout, c.opt.callstack_depth); /* the depth is checked already */
    if (file_make_dir(c.opt.output, &d))
        return exit_status(&d);

    int collected = 0;
    if (!(rc = connect_target(&c, &d)) && !(rc = target_description(&c, &d)) &&
        !(rc = resolve_events(&c, &d)) && !(rc = plan_lbr(&c, &d)) &&
        !(rc = configure_driver(&c, &d)) && !(rc = configure_pt(&c, &d)) &&
        !(rc = configure_events(&c, &d)) && !(rc = configure_uncore(&c, &d)) &&
        !(rc = read_tasks(&c, &d)) && !(rc = init_pmu(&c, &d)) && !(rc = run(&c, &d)) &&
        !(rc = results(&c, &d)) && !(rc = write_session(&c, &d)) && !(rc = write_uncore(&c, &d))) {
        collected = 1;
        if (!(rc = check_counts(&c, &d)))
            rc = check_silent_cpus(&c, &d);
    }
    link_close(&c.link);
    if (collected)
        print_summary(&c);
    if (c.data)
        for (size_t i = 0; i <= c.num_cpus + SEP_NONCORE_DATA_CONNECTIONS; i++)
            if (c.data[i].fd >= 0)
                close(c.data[i].fd);
    free(c.data);
    data_reader_free(&c.reader);
    sysinfo_free(&c.sys);
    collect_pt_free(&c.pt);
    counts_free(&c.counts);
    for (size_t i = 0; i < c.num_tasks; i++)
        free(c.tasks[i].name);
    free(c.tasks);
    return rc ? exit_status(&d) : ACART_EXIT_OK;
}
