/* acart collect's command line (see collect_internal.h): the usage text and the options,
 * checked against each other before anything is sent to a target. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "collect_internal.h"

const char collect_usage[] =
    "usage: acart collect --target HOST[:PORT] --duration S -o DIR\n"
    "                     [--event NAME[:sa=N][:precise][,NAME...]]... [--mux MS]\n"
    "                     [--metrics tma1] [--count NAME[,NAME...] [--interval MS]]\n"
    "                     [--callstack[=DEPTH|dwarf[,BYTES]]] [--lbr[=call-stack]]\n"
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
    "                        default 16); flamegraph and report --by caller use them.\n"
    "                        The target follows frame pointers for it\n"
    "  --callstack=dwarf[,BYTES]  for code built without frame pointers: each sample\n"
    "                        carries the interrupted registers and BYTES of its stack\n"
    "                        (64 to 8192, a multiple of 8, default 2048), and the commands\n"
    "                        that read the collection unwind it with the image's CFI\n"
    "                        (.eh_frame, -fasynchronous-unwind-tables; docs/porting.md)\n"
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
    "2 usage error, 4 cannot write DIR, 5 target unreachable, failed, or counts differ,\n"
    "or the collection was cut: a data channel ended before the target confirmed it\n"
    "(the message names each such channel and what it holds; no session.json).\n";

#define DEFAULT_TIMEOUT_S 30.0
#define MAX_SECONDS       (7.0 * 24 * 3600)
_Static_assert(COLLECT_CALLSTACK_MAX_DEPTH <= SESSION_MAX_CALLSTACK_DEPTH,
               "session.json must hold the call stacks collect asks for");

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
static int parse_event(struct collect_options *o, const char *arg)
{
    char err[256];
    if (collect_events_parse(arg, o->specs, &o->num_specs, COLLECT_MAX_EVENTS, err, sizeof err))
        return cli_usage_error("collect", collect_usage, "%s", err);
    return 0;
}

/* Long options without a letter of their own. */
enum { OPT_UNCORE_INTERVAL = 0x100, OPT_PT_FREEZE_AFTER };

/* Returns -1 when the options are good, else the exit status to end with. */
int collect_parse_options(int argc, char **argv, struct collect_options *o)
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
                return cli_usage_error("collect", collect_usage,
                                       "--duration %s: expected a positive number of seconds",
                                       optarg);
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'c': {
            uint64_t depth = COLLECT_CALLSTACK_DEFAULT_DEPTH;
            if (optarg && strncmp(optarg, "dwarf", 5) == 0) {
                uint64_t bytes = COLLECT_STACK_COPY_DEFAULT;
                if ((optarg[5] && optarg[5] != ',') ||
                    (optarg[5] == ',' &&
                     (cli_parse_uint(optarg + 6, ACART_STACK_COPY_MAX, &bytes) != 0 || bytes < 64 ||
                      bytes % 8)))
                    return cli_usage_error("collect", collect_usage,
                                           "--callstack=%s: expected dwarf or dwarf,BYTES with "
                                           "BYTES from 64 to %u, a multiple of 8",
                                           optarg, (unsigned)ACART_STACK_COPY_MAX);
                o->stack_copy_bytes = (uint32_t)bytes;
                break;
            }
            if (optarg &&
                (cli_parse_uint(optarg, COLLECT_CALLSTACK_MAX_DEPTH, &depth) != 0 || depth == 0))
                return cli_usage_error("collect", collect_usage,
                                       "--callstack=%s: expected a depth from 1 to %d", optarg,
                                       COLLECT_CALLSTACK_MAX_DEPTH);
            o->callstack_depth = (uint32_t)depth;
            break;
        }
        case 'l':
            if (optarg && strcmp(optarg, "call-stack") != 0)
                return cli_usage_error("collect", collect_usage,
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
                    return cli_usage_error("collect", collect_usage,
                                           "--count %s: counting takes event names only (no "
                                           ":sa or :precise)",
                                           o->specs[i].name);
            o->count = 1;
            break;
        }
        case 'I': {
            uint64_t ms;
            if (cli_parse_uint(optarg, 60000, &ms) != 0 || ms == 0)
                return cli_usage_error("collect", collect_usage,
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
                return cli_usage_error("collect", collect_usage,
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
                return cli_usage_error("collect", collect_usage,
                                       "--transfer %s: expected delayed or immediate", optarg);
            break;
        case 'T':
            if (parse_seconds(optarg, 0, &o->timeout_s))
                return cli_usage_error("collect", collect_usage,
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
                return cli_usage_error("collect", collect_usage,
                                       "--pt-freeze-after %s: expected a positive number of "
                                       "seconds",
                                       optarg);
            break;
        case 'F':
            if (collect_pt_add_filter(&o->pt, optarg))
                return cli_usage_error("collect", collect_usage, "at most %d --pt-filter ranges",
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
                return cli_usage_error("collect", collect_usage,
                                       "--pt-cpl %s: expected os, user or all", optarg);
            break;
        case 'E':
            o->pt.elf = optarg;
            break;
        case 'U':
            if (collect_uncore_parse(optarg, &o->uncore, &ud))
                return cli_usage_error("collect", collect_usage, "%s", ud.msg);
            break;
        case OPT_UNCORE_INTERVAL:
            if (cli_parse_uint(optarg, UINT16_MAX, &interval) || interval == 0)
                return cli_usage_error("collect", collect_usage,
                                       "--uncore-interval: milliseconds from 1 to 65535, not %s",
                                       optarg);
            o->uncore.interval_ms = (uint32_t)interval;
            break;
        case 'h':
            return cli_help(collect_usage);
        default:
            return cli_usage_error("collect", collect_usage, "unknown option");
        }
    }
    if (!o->pt.enabled && (o->pt.snapshot || o->pt.num_filters || o->pt.cyc || o->pt.no_tsc ||
                           o->pt.no_mtc || o->pt.cpl || o->pt.elf || o->pt.freeze_after))
        return cli_usage_error("collect", collect_usage, "the --pt-* options and --elf need --pt");
    if (o->pt.freeze_after && !o->pt.snapshot)
        return cli_usage_error("collect", collect_usage,
                               "--pt-freeze-after freezes a snapshot: it needs --pt-snapshot");
    if (optind != argc)
        return cli_usage_error("collect", collect_usage, "unexpected argument %s", argv[optind]);
    if (!o->target)
        return cli_usage_error("collect", collect_usage, "missing --target HOST[:PORT]");
    if (o->duration_s < 0)
        return cli_usage_error("collect", collect_usage, "missing --duration S");
    if (o->pt.freeze_after && o->pt.freeze_after >= o->duration_s)
        return cli_usage_error("collect", collect_usage,
                               "--pt-freeze-after %g: the collection ends first (--duration %g)",
                               o->pt.freeze_after, o->duration_s);
    if (!o->output)
        return cli_usage_error("collect", collect_usage, "missing -o DIR");
    if (o->interval_ms && !o->count)
        return cli_usage_error("collect", collect_usage,
                               "--interval is counting mode's: it needs --count");
    if (o->count && (o->event_given || o->metrics || o->mux_ms || o->callstack_depth ||
                     o->stack_copy_bytes || o->pt.enabled))
        return cli_usage_error("collect", collect_usage,
                               "--count collects counts, not samples: not with --event, "
                               "--metrics, --mux, --callstack or --pt");
    if (o->count && !o->interval_ms)
        o->interval_ms = 100;
    if (o->metrics && o->num_specs)
        return cli_usage_error("collect", collect_usage,
                               "--metrics picks the events: not with --event");
    if (o->num_specs == 0 && !o->metrics) {
        snprintf(o->specs[0].name, sizeof o->specs[0].name, "%s", collect_event_default()->name);
        o->num_specs = 1;
    }
    return -1;
}
