/* acart export chrome DIR --elf IMAGE -o OUT.json: the Intel PT call tree of every CPU as
 * Chrome trace-event JSON (the format chrome://tracing and Perfetto open). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "json_write.h"
#include "pt_input.h"
#include "pt_timeline.h"

static const char chrome_usage[] =
    "usage: acart export chrome DIR --elf IMAGE [--elf MODULE]... -o OUT.json\n"
    "                           [--cpu N] [--clock tsc|insns]\n"
    "\n"
    "Writes the Intel PT trace of a collection (acart collect --pt) as Chrome trace-event\n"
    "JSON, which chrome://tracing and Perfetto open: one timeline per CPU (thread \"cpu N\"),\n"
    "every call a complete event (\"ph\": \"X\") named by its function, nested by the call\n"
    "tree, with its instructions in args; gaps in the trace are instant events.\n"
    "\n"
    "  -e, --elf IMAGE       an ELF image of the traced code (required; repeat for modules)\n"
    "  -o, --output FILE     the JSON file to write (required)\n"
    "  -c, --cpu N           only CPU N (default: every CPU)\n"
    "  -k, --clock CLOCK     tsc (default): microseconds from the trace's time stamps, from\n"
    "                        the earliest CPU's first; insns: one microsecond per\n"
    "                        instruction, for traces without timing packets\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

int export_chrome(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"elf", required_argument, NULL, 'e'}, {"output", required_argument, NULL, 'o'},
        {"cpu", required_argument, NULL, 'c'}, {"clock", required_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},      {NULL, 0, NULL, 0},
    };
    const char **elfs = calloc((size_t)argc, sizeof *elfs);
    size_t num_elfs = 0;
    const char *output = NULL;
    int64_t only = -1;
    bool by_insns = false;
    uint64_t v;
    int opt, rc = -1;
    if (!elfs)
        return ACART_EXIT_FAILURE;
    optind = 1;
    while (rc < 0 && (opt = getopt_long(argc, argv, "e:o:c:k:h", longopts, NULL)) != -1) {
        if (opt == 'e')
            elfs[num_elfs++] = optarg;
        else if (opt == 'o')
            output = optarg;
        else if (opt == 'c' && cli_parse_uint(optarg, UINT32_MAX, &v) == 0)
            only = (int64_t)v;
        else if (opt == 'k' && (strcmp(optarg, "tsc") == 0 || strcmp(optarg, "insns") == 0))
            by_insns = strcmp(optarg, "insns") == 0;
        else if (opt == 'h')
            rc = cli_help(chrome_usage);
        else
            rc = cli_usage_error("export chrome", chrome_usage, "bad option or argument");
    }
    if (rc < 0 && optind + 1 != argc)
        rc = cli_usage_error("export chrome", chrome_usage, "expected one collection folder");
    else if (rc < 0 && (!num_elfs || !output))
        rc = cli_usage_error("export chrome", chrome_usage, "--elf and -o are required");
    struct pt_input in;
    struct diag d = {0};
    if (rc < 0 && pt_input_open(&in, argv[optind], elfs, num_elfs, &d) != 0)
        rc = diag_report("export chrome", &d);
    if (rc >= 0) {
        free(elfs);
        return rc;
    }
    uint32_t cpus = in.p.session.num_cpus, from = 0, to = cpus;
    if (only >= 0 && (uint64_t)only >= cpus) {
        fprintf(stderr,
                "acart export chrome: --cpu %" PRId64 ": the collection has CPUs 0 to %" PRIu32
                "\n",
                only, cpus - 1);
        pt_input_close(&in);
        free(elfs);
        return ACART_EXIT_USAGE;
    }
    if (only >= 0) {
        from = (uint32_t)only;
        to = from + 1;
    }
    struct pt_flow *flows = calloc(to - from, sizeof *flows);
    rc = flows ? ACART_EXIT_OK : ACART_EXIT_FAILURE;
    struct pt_timeline c = {.in = &in, .by_insns = by_insns, .base_tsc = UINT64_MAX, .first = true};
    for (uint32_t cpu = from; cpu < to && rc == ACART_EXIT_OK; cpu++) {
        struct pt_flow *f = &flows[cpu - from];
        if (pt_input_flow(&in, cpu, NULL, f, &d) != 0) {
            rc = diag_report("export chrome", &d);
            continue;
        }
        if (f->have_tsc && f->first_tsc < c.base_tsc)
            c.base_tsc = f->first_tsc;
        if (!by_insns)
            pt_input_warn_timing("export chrome", &in, f, false);
    }
    if (c.base_tsc == UINT64_MAX)
        c.base_tsc = 0;
    if (rc == ACART_EXIT_OK) {
        c.out = fopen(output, "w");
        if (c.out) {
            fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"acart export chrome\","
                  "\"collection\":",
                  c.out);
            json_put_string(argv[optind], c.out);
            fprintf(c.out, ",\"clock\":\"%s\",\"tsc_hz\":%" PRIu64 ",\"base_tsc\":%" PRIu64 "},\n",
                    by_insns ? "insns" : "tsc", in.p.session.tsc_hz, c.base_tsc);
            fputs("\"traceEvents\":[", c.out);
            fputs("\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":", c.out);
            c.first = false;
            json_put_string(in.p.session.hostname, c.out);
            fputs("}}", c.out);
            for (uint32_t cpu = from; cpu < to; cpu++)
                pt_timeline_write_cpu(&c, &flows[cpu - from]);
            fputs("\n]}\n", c.out);
        }
        if (!c.out || ferror(c.out) || fclose(c.out) != 0) {
            fprintf(stderr, "acart export chrome: %s: cannot write\n", output);
            remove(output);
            rc = ACART_EXIT_OUTPUT;
        }
    }
    for (uint32_t cpu = from; flows && cpu < to; cpu++)
        pt_flow_free(&flows[cpu - from]);
    free(flows);
    pt_input_close(&in);
    free(elfs);
    return rc;
}
