/* acart export folded (DIR|FILE.tb5) -o OUT.folded: folded stacks, one line per distinct
 * stack, "root;...;leaf COUNT", the input of Brendan Gregg's flamegraph.pl, speedscope,
 * inferno and most flame-graph tools. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "code_names.h"
#include "commands.h"
#include "export_input.h"
#include "out_file.h"
#include "acart_wire.h"

static const char usage[] =
    "usage: acart export folded (DIR|FILE.tb5) -o OUT.folded [--elf IMAGE] [--event EVENT]\n"
    "\n"
    "Writes the samples of one event as folded stacks: one line per distinct stack,\n"
    "its frames from the root to the leaf separated by ';', a space and its samples\n"
    "(\"board_main;run_hotspot;acart_demo_hotspot 1234\"), sorted by stack. The frames\n"
    "are those of acart flamegraph: a sample taken in an interrupt handler stands on the\n"
    "handler's name, then its callers outermost first (acart collect --callstack), then\n"
    "the function it was taken in; a function inlined where a frame is follows it with\n"
    "the suffix _[i] (as stackcollapse-perf.pl --inline writes it). Functions are named\n"
    "as acart report names them: code outside IMAGE is [module] or [unknown]. ';' in a\n"
    "name becomes ':', control characters become '?'.\n"
    "\n"
    "  -o, --output FILE   the file to write (required)\n"
    "  -e, --elf IMAGE     ELF image of the target's code\n"
    "  -E, --event EVENT   the event (name or index; default the first)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

struct line {
    char *stack;
    uint64_t count;
};

struct folded {
    struct export_input in;
    char *text; /* one stack being built */
    size_t len, cap;
    struct line *lines;
    size_t num_lines, lines_cap;
};

static int append(struct folded *f, const char *frame, const char *suffix)
{
    size_t need = f->len + strlen(frame) + strlen(suffix) + 2;
    if (need > f->cap) {
        size_t cap = f->cap ? f->cap : 256;
        while (cap < need)
            cap *= 2;
        char *grown = realloc(f->text, cap);
        if (!grown)
            return -1;
        f->text = grown;
        f->cap = cap;
    }
    if (f->len)
        f->text[f->len++] = ';';
    /* ';' separates frames and the last space the count; lines end at a newline. */
    for (const char *c = frame; *c; c++)
        f->text[f->len++] = *c == ';' ? ':' : (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
    for (const char *c = suffix; *c; c++)
        f->text[f->len++] = *c;
    f->text[f->len] = '\0';
    return 0;
}

/* The frames of the code at place: its function, then the functions inlined there. */
static int append_code(struct folded *f, uint64_t place)
{
    struct code_location loc;
    char outside[CODE_NAMES_OUTSIDE_SIZE];
    const char *function =
        code_names_function(f->in.sym, code_place(&f->in.ss.places, place), &loc, outside);
    if (append(f, function, "") != 0)
        return -1;
    for (size_t i = 1; i < loc.num_frames; i++)
        if (append(f, loc.frames[i].function ? loc.frames[i].function : "[inlined]", "_[i]") != 0)
            return -1;
    return 0;
}

static int add_line(struct folded *f, uint64_t count)
{
    if (f->num_lines == f->lines_cap) {
        size_t cap = f->lines_cap ? 2 * f->lines_cap : 256;
        struct line *grown = realloc(f->lines, cap * sizeof *grown);
        if (!grown)
            return -1;
        f->lines = grown;
        f->lines_cap = cap;
    }
    if (!(f->lines[f->num_lines].stack = strdup(f->text)))
        return -1;
    f->lines[f->num_lines++].count = count;
    return 0;
}

static int compare_lines(const void *a, const void *b)
{
    return strcmp(((const struct line *)a)->stack, ((const struct line *)b)->stack);
}

static int build(struct folded *f, uint32_t event)
{
    const struct sample_stacks *ss = &f->in.ss;
    for (size_t i = 0; i < sample_stacks_count(ss); i++) {
        size_t depth;
        const struct sample_context *ctx;
        const uint64_t *counts;
        const uint64_t *stack = sample_stacks_get(ss, i, &depth, &ctx, &counts);
        if (!counts[event])
            continue;
        f->len = 0;
        if (ctx && ctx->pid == ACART_IRQ_PID) {
            char irq[128];
            sample_stacks_task_name(&f->in.p.session, ctx->pid, ctx->tid, irq, sizeof irq);
            if (append(f, irq, "") != 0)
                return -1;
        }
        for (size_t k = depth; k-- > 0;)
            if (append_code(f, stack[k]) != 0)
                return -1;
        if (add_line(f, counts[event]) != 0)
            return -1;
    }
    /* Different places (addresses of one function) give the same names: one line each. */
    qsort(f->lines, f->num_lines, sizeof *f->lines, compare_lines);
    size_t out = 0;
    for (size_t i = 0; i < f->num_lines; i++) {
        if (out && strcmp(f->lines[out - 1].stack, f->lines[i].stack) == 0) {
            f->lines[out - 1].count += f->lines[i].count;
            free(f->lines[i].stack);
        } else {
            f->lines[out++] = f->lines[i];
        }
    }
    f->num_lines = out;
    return 0;
}

static int run(struct folded *f, const char *source, const char *elf, const char *event_name,
               const char *output, struct diag *d)
{
    uint32_t event;
    int rc = export_input_open(&f->in, source, elf, EXPORT_INPUT_STACKS | EXPORT_INPUT_BY_CONTEXT,
                               "export folded", d);
    if (rc || (rc = export_input_event(&f->in, event_name, &event, d)))
        return rc;
    if (build(f, event) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct out_file o;
    if ((rc = out_file_open(&o, output, d)))
        return rc;
    for (size_t i = 0; i < f->num_lines; i++)
        fprintf(o.f, "%s %" PRIu64 "\n", f->lines[i].stack, f->lines[i].count);
    return out_file_commit(&o, d);
}

int export_folded(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"elf", required_argument, NULL, 'e'},
        {"event", required_argument, NULL, 'E'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *elf = NULL, *output = NULL, *event = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:e:E:h", options, NULL)) != -1) {
        if (c == 'o')
            output = optarg;
        else if (c == 'e')
            elf = optarg;
        else if (c == 'E')
            event = optarg;
        else if (c == 'h')
            return cli_help(usage);
        else
            return cli_usage_error("export folded", usage, "unknown option or missing argument: %s",
                                   argv[optind - 1]);
    }
    if (optind + 1 != argc)
        return cli_usage_error("export folded", usage,
                               "expected one collection folder or tb5 file");
    if (!output)
        return cli_usage_error("export folded", usage, "-o FILE is required");
    struct folded f;
    memset(&f, 0, sizeof f);
    struct diag d = {0};
    int rc = run(&f, argv[optind], elf, event, output, &d);
    for (size_t i = 0; i < f.num_lines; i++)
        free(f.lines[i].stack);
    free(f.lines);
    free(f.text);
    export_input_close(&f.in);
    return rc ? diag_report("export folded", &d) : ACART_EXIT_OK;
}
