/* acart flamegraph (DIR|FILE.tb5) --elf IMAGE -o OUT.svg */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "flame.h"
#include "progress.h"
#include "symbols.h"
#include "tally.h"

static const char usage[] =
    "usage: acart flamegraph (DIR|FILE.tb5) --elf IMAGE -o OUT.svg [--event EVENT]\n"
    "\n"
    "Draws the samples of one event as a flame graph: a self-contained SVG that any\n"
    "browser shows, with each frame's name and samples in its tooltip. Samples carry no\n"
    "call stacks, so each one stands on its function, then the functions inlined\n"
    "there, then its source line (from IMAGE's DWARF). Code outside IMAGE stands on\n"
    "its module's name, or [unknown].\n"
    "\n"
    "  -e, --elf IMAGE     ELF image of the target's code (required)\n"
    "  -o, --output FILE   the SVG file to write (required)\n"
    "  -E, --event EVENT   the event to draw (name or index; default the first)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

struct flamegraph {
    struct profile p;
    struct symbols *sym;
    struct tally tally; /* samples of the chosen event per address */
    uint32_t event;
    struct flame flame;
};

#define STOP_NO_MEMORY 1

static int count_samples(const struct sample *batch, size_t n, void *ctx)
{
    struct flamegraph *g = ctx;
    for (size_t i = 0; i < n; i++)
        if (batch[i].event == g->event && tally_add(&g->tally, batch[i].ip, 0, 1) != 0)
            return STOP_NO_MEMORY;
    return 0;
}

/* The stack of one address: function, inlined functions, source line. */
static int add_address(struct flamegraph *g, uint64_t ip, uint64_t count)
{
    struct flame_frame stack[SYMBOLS_MAX_FRAMES + 1];
    size_t depth = 0;
    struct code_location loc;
    if (!symbols_lookup(g->sym, ip, &loc)) {
        char outside[300];
        cli_outside_name(&g->p, ip, outside, sizeof outside);
        stack[depth++] = (struct flame_frame){outside, FRAME_OTHER};
        return flame_add(&g->flame, stack, depth, count);
    }
    const char *function = loc.symbol;
    if (!function && loc.num_frames)
        function = loc.frames[0].function;
    stack[depth++] = (struct flame_frame){function ? function : "[no symbol]", FRAME_FUNCTION};
    for (size_t i = 1; i < loc.num_frames; i++)
        stack[depth++] = (struct flame_frame){
            loc.frames[i].function ? loc.frames[i].function : "[inlined]", FRAME_INLINED};
    if (loc.num_frames == 0 || !loc.frames[loc.num_frames - 1].file)
        return flame_add(&g->flame, stack, depth, count);
    const struct code_frame *inner = &loc.frames[loc.num_frames - 1];
    char line[1100];
    snprintf(line, sizeof line, "%s:%d", inner->file, inner->line);
    stack[depth++] = (struct flame_frame){line, FRAME_LINE};
    return flame_add(&g->flame, stack, depth, count);
}

static int write_svg(struct flamegraph *g, const char *elf, const char *output, struct diag *d)
{
    const struct session_event *ev = session_event(&g->p.session, g->event);
    char title[300], subtitle[1200];
    snprintf(title, sizeof title, "%s on %s", ev->name, g->p.session.hostname);
    snprintf(subtitle, sizeof subtitle, "%" PRIu64 " samples of %s, image %s",
             flame_total(&g->flame), g->p.source, elf);
    FILE *out = fopen(output, "w");
    if (!out)
        return diag_fail(d, DIAG_OUTPUT, "%s: %s", output, strerror(errno));
    int failed = flame_write_svg(&g->flame, title, subtitle, out);
    if (fclose(out) != 0 || failed)
        return diag_fail(d, DIAG_OUTPUT, "%s: write error", output);
    return 0;
}

static int run(struct flamegraph *g, const char *source, const char *elf, const char *event,
               const char *output, struct diag *d)
{
    int rc = profile_open(source, &g->p, d);
    if (rc)
        return rc;
    if (event) {
        const struct session_event *ev = cli_find_event(&g->p.session, event);
        if (!ev)
            return diag_fail(d, DIAG_USAGE, "%s: no event %s", source, event);
        g->event = ev->index;
    }
    if ((rc = cli_open_symbols(&g->p, elf, &g->sym, d)))
        return rc;
    if (tally_init(&g->tally, 1) != 0 || flame_init(&g->flame) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct progress pr;
    progress_attach(&pr, &g->p, "flamegraph");
    rc = profile_scan(&g->p, count_samples, g, d);
    progress_done(&pr);
    if (rc == STOP_NO_MEMORY)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (rc)
        return rc;
    for (size_t slot = 0; slot < g->tally.capacity; slot++)
        if (g->tally.occupied[slot] &&
            add_address(g, g->tally.keys[slot], tally_counts(&g->tally, slot)[0]) != 0)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
    return write_svg(g, elf, output, d);
}

int cmd_flamegraph(int argc, char **argv)
{
    static const struct option options[] = {
        {"elf", required_argument, NULL, 'e'},
        {"output", required_argument, NULL, 'o'},
        {"event", required_argument, NULL, 'E'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *elf = NULL, *output = NULL, *event = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "e:o:E:h", options, NULL)) != -1) {
        switch (c) {
        case 'e':
            elf = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'E':
            event = optarg;
            break;
        case 'h':
            return cli_help(usage);
        default:
            return cli_usage_error("flamegraph", usage, "unknown option or missing argument: %s",
                                   argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("flamegraph", usage, "expected one collection folder or tb5 file");
    if (!elf || !output)
        return cli_usage_error("flamegraph", usage, "--elf IMAGE and -o OUT.svg are required");

    struct flamegraph g;
    memset(&g, 0, sizeof g);
    struct diag d = {0};
    int rc = run(&g, argv[optind], elf, event, output, &d);
    flame_free(&g.flame);
    tally_free(&g.tally);
    symbols_close(g.sym);
    profile_close(&g.p);
    return rc ? diag_report("flamegraph", &d) : ACART_EXIT_OK;
}
