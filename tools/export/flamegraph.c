/* acart flamegraph (DIR|FILE.tb5) --elf IMAGE -o OUT.svg */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "code_names.h"
#include "code_places.h"
#include "commands.h"
#include "acart_wire.h"
#include "flame.h"
#include "profile_open.h"
#include "progress.h"
#include "stack_tally.h"
#include "symbols.h"

static const char usage[] =
    "usage: acart flamegraph (DIR|FILE.tb5) --elf IMAGE -o OUT.svg [--event EVENT]\n"
    "\n"
    "Draws the samples of one event as a flame graph: a self-contained SVG that any\n"
    "browser shows, with each frame's name and samples in its tooltip. When the samples\n"
    "carry call stacks (acart collect --callstack), each one stands on its callers,\n"
    "outermost first, then the function it was taken in; each caller and the sampled\n"
    "function show the functions inlined there above them. Without call stacks each\n"
    "sample stands on its function, the functions inlined there, then its source line\n"
    "(from IMAGE's DWARF). Code outside IMAGE is named by its module, or [unknown].\n"
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
    struct code_places places;
    uint64_t *stack;           /* one sample's stack of places */
    struct stack_tally stacks; /* samples of the chosen event per stack of places */
    uint32_t event;
    uint64_t with_callers; /* of those, samples whose call stack is not empty */
    struct flame flame;
    /* Scratch for one stack: its frames, and a name for each address outside the image. */
    struct flame_frame *frames;
    char (*outside)[CODE_NAMES_OUTSIDE_SIZE];
};

#define STOP_NO_MEMORY 1

/* The outermost entry of a sample taken inside an interrupt handler: its tid (the vector),
 * tagged so no code address can be mistaken for it; drawn as the handler's own root. */
#define IRQ_ROOT (1ull << 63)

static int count_samples(const struct sample *batch, size_t n, void *ctx)
{
    struct flamegraph *g = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &batch[i];
        if (s->event != g->event)
            continue;
        size_t depth = (size_t)s->num_callers + 1;
        if (code_places_stack(&g->places, s, g->stack) != 0)
            return STOP_NO_MEMORY;
        if (s->pid == ACART_IRQ_PID)
            g->stack[depth++] = IRQ_ROOT | s->tid;
        if (stack_tally_add(&g->stacks, g->stack, depth, 0, 1) != 0)
            return STOP_NO_MEMORY;
        g->with_callers += batch[i].num_callers != 0;
    }
    return 0;
}

/* Appends the frames of the code at a place to out: its function, then the functions
 * inlined there, outermost first; code the image does not name is one frame named in
 * outside. loc is the lookup, num_frames 0 when outside. Returns the frames appended. */
static size_t code_frames(struct flamegraph *g, uint64_t place, struct code_location *loc,
                          char *outside, struct flame_frame *out)
{
    const char *function = code_names_function(g->sym, code_place(&g->places, place), loc, outside);
    if (function == outside) {
        out[0] = (struct flame_frame){outside, FRAME_OTHER};
        return 1;
    }
    size_t n = 0;
    out[n++] = (struct flame_frame){function, FRAME_FUNCTION};
    for (size_t i = 1; i < loc->num_frames; i++)
        out[n++] = (struct flame_frame){
            loc->frames[i].function ? loc->frames[i].function : "[inlined]", FRAME_INLINED};
    return n;
}

/* One stack of the tally: with call stacks, the callers outermost first and then the
 * sampled function; without, the sampled function and its source line. */
static int add_stack(struct flamegraph *g, const uint64_t *places, size_t depth, uint64_t count)
{
    struct code_location loc;
    size_t n = 0;
    // cppcheck-suppress variableScope ; frames[0] points at it until flame_add copies it
    char irq[80];
    if (depth > 1 && (places[depth - 1] & IRQ_ROOT)) {
        uint32_t tid = (uint32_t)places[depth - 1];
        const char *name = session_task_name(&g->p.session, ACART_IRQ_PID, tid);
        if (name)
            snprintf(irq, sizeof irq, "%s", name);
        else
            snprintf(irq, sizeof irq, "[irq 0x%02x]", (unsigned)(tid & 0xff));
        g->frames[n++] = (struct flame_frame){irq, FRAME_OTHER};
        depth--;
    }
    for (size_t k = depth; k-- > 1;)
        n += code_frames(g, places[k], &loc, g->outside[k], &g->frames[n]);
    n += code_frames(g, places[0], &loc, g->outside[0], &g->frames[n]);
    if (g->p.callstack_depth || !loc.num_frames || !loc.frames[loc.num_frames - 1].file)
        return flame_add(&g->flame, g->frames, n, count);
    const struct code_frame *inner = &loc.frames[loc.num_frames - 1];
    char line[1100];
    snprintf(line, sizeof line, "%s:%d", inner->file, inner->line);
    g->frames[n++] = (struct flame_frame){line, FRAME_LINE};
    return flame_add(&g->flame, g->frames, n, count);
}

static int write_svg(struct flamegraph *g, const char *elf, const char *output, struct diag *d)
{
    const struct session_event *ev = session_event(&g->p.session, g->event);
    char title[300], subtitle[1200], stacks[64] = " (no call stacks)";
    if (g->p.callstack_depth)
        snprintf(stacks, sizeof stacks, " (%" PRIu64 " with call stacks)", g->with_callers);
    snprintf(title, sizeof title, "%s on %s", ev->name, g->p.session.hostname);
    snprintf(subtitle, sizeof subtitle, "%" PRIu64 " samples of %s%s, image %s",
             flame_total(&g->flame), g->p.source, stacks, elf);
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
    size_t addresses = (size_t)g->p.callstack_depth + 1;
    g->frames = calloc(addresses * SYMBOLS_MAX_FRAMES + 2, sizeof *g->frames);
    g->outside = calloc(addresses, sizeof *g->outside);
    g->stack = calloc(addresses + 1, sizeof *g->stack); /* + an interrupt root */
    if (!g->frames || !g->outside || !g->stack || code_places_init(&g->places, &g->p) != 0 ||
        stack_tally_init(&g->stacks, 1) != 0 || flame_init(&g->flame) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct progress pr;
    progress_attach(&pr, &g->p, "flamegraph");
    rc = profile_scan(&g->p, count_samples, g, d);
    progress_done(&pr);
    if (rc == STOP_NO_MEMORY)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (rc)
        return rc;
    if (g->p.callstack_depth && g->stacks.num_stacks && !g->with_callers)
        fprintf(stderr,
                "acart flamegraph: warning: %s: the records have room for call stacks but "
                "every one is empty (does the target fill them in?): each sample stands on "
                "its own function\n",
                source);
    for (size_t i = 0; i < g->stacks.num_stacks; i++) {
        size_t depth;
        const uint64_t *stack = stack_tally_stack(&g->stacks, i, &depth);
        if (add_stack(g, stack, depth, stack_tally_counts(&g->stacks, i)[0]) != 0)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
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
    stack_tally_free(&g.stacks);
    free(g.frames);
    free(g.outside);
    free(g.stack);
    code_places_free(&g.places);
    symbols_close(g.sym);
    profile_close(&g.p);
    return rc ? diag_report("flamegraph", &d) : ACART_EXIT_OK;
}
