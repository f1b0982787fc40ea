/* acart: the host tool for acart collections. `acart <command> ...` runs one subcommand
 * from the table below; every command has its own --help. */
#include <stdio.h>
#include <string.h>

#include "acart_version.h"
#include "commands.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
#ifdef ACART_HAVE_COLLECT
    {"collect", cmd_collect, "record a collection from a target into a folder"},
    {"fetch", cmd_fetch, "copy a target's IPROBE sample files into a folder"},
#endif
    {"import", cmd_import, "convert a collection folder into a bound tb5 file"},
    {"report", cmd_report, "samples by function, source line, task, CPU or module"},
    {"export", cmd_export, "export csv, pprof, perf, folded, perfetto, chrome"},
    {"flamegraph", cmd_flamegraph, "a flame graph as a self-contained SVG"},
    {"tb5", cmd_tb5, "print, dump or rewrite a tb5 file"},
    {"pt", cmd_pt, "Intel PT: trace, calls, functions, flamegraph (libipt)"},
    {"diff", cmd_diff, "compare two collections: changed shares, beyond sampling noise"},
};

#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fputs("usage: acart <command> [arguments]\n\ncommands:\n", out);
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fputs("\n`acart <command> --help` describes a command; `acart --version` names the\n"
          "version and the commit it was built from.\n"
          "Exit status: 0 success, 1 failure, 2 usage error, 3 bad input (also: diff of\n"
          "collections that cannot be compared), 4 cannot write output, 5 target\n"
          "unreachable or failed (collect), 6 a diff --fail-if threshold was crossed.\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return ACART_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return ACART_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("acart %s (commit %s)\n", ACART_VERSION, ACART_COMMIT);
        return ACART_EXIT_OK;
    }
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "acart: unknown command %s\n", argv[1]);
    usage(stderr);
    return ACART_EXIT_USAGE;
}
