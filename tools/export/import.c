/* acart import DIR -o FILE.tb5 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "profile_open.h"
#include "progress.h"
#include "tb5_write.h"

static const char usage[] =
    "usage: acart import DIR -o FILE.tb5\n"
    "\n"
    "Converts the collection folder DIR written by `acart collect` (session.json,\n"
    "module.bin, cpu<N>.bin) into a tb5 file with every section VTune needs, and binds\n"
    "its samples to modules, processes and threads.\n"
    "\n"
    "  -o, --output FILE   the tb5 file to create (replaced if it exists)\n"
    "  -q, --quiet         print nothing on success\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

int cmd_import(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL;
    int quiet = 0, c;
    while ((c = getopt_long(argc, argv, "o:qh", options, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'h':
            return cli_help(usage);
        default:
            return cli_usage_error("import", usage, "unknown option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("import", usage, "expected one collection folder");
    if (!output)
        return cli_usage_error("import", usage, "missing -o FILE.tb5");

    struct diag d = {0};
    struct profile p;
    if (profile_open(argv[optind], &p, &d))
        return diag_report("import", &d);
    if (p.kind != PROFILE_COLLECTION) {
        profile_close(&p);
        diag_fail(&d, DIAG_INPUT, "%s: not a collection folder", argv[optind]);
        return diag_report("import", &d);
    }
    struct progress pr;
    progress_attach(&pr, &p, "import");
    int rc = tb5_write_profile(&p, output, &d);
    if (!rc) {
        progress_note(&pr, "binding");
        if ((rc = tb5_bind(output, &d)))
            remove(output); /* nothing half done is left behind */
    }
    progress_done(&pr);
    if (!rc) {
        profile_check_counts(&p, "import");
        if (!quiet)
            printf("%s: %" PRIu64 " samples from %" PRIu32 " CPUs, %zu events, %zu modules -> "
                   "%s (bound)\n",
                   p.source, p.num_records, p.session.num_cpus, p.session.num_events, p.num_modules,
                   output);
    }
    profile_close(&p);
    return rc ? diag_report("import", &d) : ACART_EXIT_OK;
}
