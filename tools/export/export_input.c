#include "export_input.h"

#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "profile_open.h"
#include "progress.h"

int export_input_open(struct export_input *in, const char *source, const char *elf, int flags,
                      const char *what, struct diag *d)
{
    memset(in, 0, sizeof *in);
    in->source = source;
    in->elf = elf;
    int rc = profile_open(source, &in->p, d);
    if (rc)
        return rc;
    if (in->p.session.num_events == 0)
        return diag_fail(d, DIAG_INPUT, "%s: the collection lists no events", source);
    if (elf && (rc = cli_open_symbols(&in->p, elf, &in->sym, d)))
        return rc;
    if (!(flags & EXPORT_INPUT_STACKS))
        return 0;
    struct progress pr;
    progress_attach(&pr, &in->p, what);
    rc = sample_stacks_collect(&in->ss, &in->p, (flags & EXPORT_INPUT_BY_CONTEXT) != 0, d);
    progress_done(&pr);
    if (!rc)
        profile_check_counts(&in->p, what);
    return rc;
}

void export_input_close(struct export_input *in)
{
    sample_stacks_free(&in->ss);
    symbols_close(in->sym);
    in->sym = NULL;
    profile_close(&in->p);
}

int export_input_event(const struct export_input *in, const char *name, uint32_t *index,
                       struct diag *d)
{
    if (!name) {
        *index = in->p.session.events[0].index;
        return 0;
    }
    const struct session_event *ev = cli_find_event(&in->p.session, name);
    if (!ev)
        return diag_fail(d, DIAG_USAGE, "%s: no event %s", in->source, name);
    *index = ev->index;
    return 0;
}

int export_input_args(int argc, char **argv, const char *command, const char *usage,
                      const char **source, const char **output, const char **elf)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"elf", required_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    *output = *elf = NULL;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:e:h", options, NULL)) != -1) {
        if (c == 'o')
            *output = optarg;
        else if (c == 'e')
            *elf = optarg;
        else if (c == 'h')
            return cli_help(usage);
        else
            return cli_usage_error(command, usage, "unknown option or missing argument: %s",
                                   argv[optind - 1]);
    }
    if (optind + 1 != argc)
        return cli_usage_error(command, usage, "expected one collection folder or tb5 file");
    if (!*output)
        return cli_usage_error(command, usage, "-o FILE is required");
    *source = argv[optind];
    return -1;
}
