/* acart tb5 print|dump|rewrite: the TBRW guide's example programs (chapter 2). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "tb5_tools.h"

static const char tb5_usage[] =
    "usage: acart tb5 print FILE.tb5 [--max N]\n"
    "       acart tb5 dump FILE.tb5 DUMP\n"
    "       acart tb5 rewrite DUMP FILE.tb5\n"
    "\n"
    "  print     prints every section of FILE.tb5 (samples with module, process and\n"
    "            thread; an unbound stream is bound in memory, the file is not changed)\n"
    "  dump      writes every section of FILE.tb5 to DUMP, each stream's records to\n"
    "            DUMP.stream<N>.dat\n"
    "  rewrite   creates FILE.tb5 from such a dump, through the TBRW write API\n"
    "\n"
    "  -n, --max N   print: at most N records per stream (default all)\n"
    "  -h, --help    show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 the tb5 library failed (message says why).\n";

static int tb5_failed(const char *what, const char *path, int code)
{
    fprintf(stderr, "acart tb5 %s: %s: %s\n", what, path, tb5_strerror((TBRW_U32)code));
    return ACART_EXIT_INPUT;
}

static int tb5_print_cmd(int argc, char **argv)
{
    static const struct option options[] = {
        {"max", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    uint64_t max = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "n:h", options, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cli_parse_uint(optarg, UINT64_MAX, &max) != 0)
                return cli_usage_error("tb5 print", tb5_usage, "--max: not a number: %s", optarg);
            break;
        case 'h':
            return cli_help(tb5_usage);
        default:
            return cli_usage_error("tb5 print", tb5_usage, "unknown option or missing argument: %s",
                                   argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("tb5 print", tb5_usage, "expected one tb5 file");
    int rc = tb5_print(stdout, argv[optind], max);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "acart tb5 print: standard output: write error\n");
        return ACART_EXIT_OUTPUT;
    }
    return rc ? tb5_failed("print", argv[optind], rc) : ACART_EXIT_OK;
}

/* dump and rewrite: two paths, no options besides --help. The tb5 library reports one
 * code for either path, so the message names both. */
static int tb5_two_paths(int argc, char **argv, const char *what,
                         int (*tool)(const char *, const char *))
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return cli_help(tb5_usage);
    if (argc != 3)
        return cli_usage_error(what, tb5_usage, "expected two paths");
    int rc = tool(argv[1], argv[2]);
    if (!rc)
        return ACART_EXIT_OK;
    fprintf(stderr, "acart %s: %s -> %s: %s\n", what, argv[1], argv[2], tb5_strerror((TBRW_U32)rc));
    return ACART_EXIT_INPUT;
}

int cmd_tb5(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("tb5", tb5_usage, "expected print, dump or rewrite");
    const char *sub = argv[1];
    if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0)
        return cli_help(tb5_usage);
    if (strcmp(sub, "print") == 0)
        return tb5_print_cmd(argc - 1, argv + 1);
    if (strcmp(sub, "dump") == 0)
        return tb5_two_paths(argc - 1, argv + 1, "tb5 dump", tb5_dump);
    if (strcmp(sub, "rewrite") == 0)
        return tb5_two_paths(argc - 1, argv + 1, "tb5 rewrite", tb5_rewrite);
    return cli_usage_error("tb5", tb5_usage, "unknown tb5 command %s", sub);
}
