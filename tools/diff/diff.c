/* acart diff BASE NEW: what changed between two collections, function by function (and
 * caller -> callee pair with call stacks), with whether each change is larger than
 * sampling noise (diff_stats.h), and thresholds that fail a CI job (diff_gate.h). */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "code_names.h"
#include "commands.h"
#include "diff_gate.h"
#include "diff_stats.h"
#include "export_input.h"
#include "text_escape.h"

static const char usage[] =
    "usage: acart diff BASE NEW [--elf IMAGE | --base-elf IMAGE --new-elf IMAGE]\n"
    "                  [--event EVENT] [--level PERCENT] [--top N] [--fail-if RULE]...\n"
    "\n"
    "Compares two collections (folders or tb5 files; of different lengths or sampling\n"
    "rates too): for each event, each function's share of the samples taken in it (as\n"
    "acart report counts them) in BASE and in NEW, the change in percentage points, its\n"
    "confidence interval (Newcombe's hybrid score interval for a difference of two\n"
    "binomial proportions) and '*' when the interval excludes 0, i.e. the change is\n"
    "larger than sampling noise at that level. With call stacks in both (acart collect\n"
    "--callstack), a second table does the same for each caller -> callee pair: the\n"
    "share of samples whose stack holds that call. Rows are sorted by significance:\n"
    "significant changes first, by how far their interval lies from 0, then the rest by\n"
    "the size of the change. The collections must have the same events, and the same\n"
    "image module where they name one; else the diff fails (exit 3).\n"
    "\n"
    "  -e, --elf IMAGE         ELF image of both collections' code\n"
    "      --base-elf IMAGE    ... of BASE's (two builds of a firmware: functions are\n"
    "      --new-elf IMAGE     ... of NEW's   matched by name)\n"
    "  -E, --event EVENT       only this event (name or index)\n"
    "  -l, --level PERCENT     confidence level of the intervals (default 99)\n"
    "  -n, --top N             rows per table (default 20, 0 = all)\n"
    "  -f, --fail-if RULE      exit 6 when a row crosses RULE (repeatable):\n"
    "                          [NAME:]grew>N     share grew by more than N points with\n"
    "                                            confidence (interval above N)\n"
    "                          [NAME:]shrank>N   share fell by more than N points\n"
    "                          [NAME:]changed>N  either; NAME: only the row NAME\n"
    "  -h, --help              show this help\n"
    "\n"
    "Exit status: 0 done, no rule crossed; 2 usage error; 3 bad input or collections that\n"
    "cannot be compared; 6 a --fail-if rule was crossed.\n";

enum row_kind { ROW_FUNCTION, ROW_CALL };

struct row {
    char *label;
    enum row_kind kind;
    uint64_t count[2];
    struct diff_change c;
};

struct side {
    struct export_input in;
    char **names; /* per code place: its function */
};

struct diff {
    struct side side[2];
    struct row *rows;
    size_t num_rows, cap;
    double z, level;
    struct diff_gate *gates;
    size_t num_gates;
    bool crossed;
};

static int add_row(struct diff *x, const char *label, enum row_kind kind, int side, uint64_t n)
{
    if (x->num_rows == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 256;
        struct row *grown = realloc(x->rows, cap * sizeof *grown);
        if (!grown)
            return -1;
        x->rows = grown;
        x->cap = cap;
    }
    struct row *r = &x->rows[x->num_rows];
    memset(r, 0, sizeof *r);
    if (!(r->label = strdup(label)))
        return -1;
    r->kind = kind;
    r->count[side] = n;
    x->num_rows++;
    return 0;
}

static int by_label(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    return strcmp(x->label, y->label);
}

static void merge_rows(struct diff *x)
{
    qsort(x->rows, x->num_rows, sizeof *x->rows, by_label);
    size_t out = 0;
    for (size_t i = 0; i < x->num_rows; i++) {
        if (out && by_label(&x->rows[out - 1], &x->rows[i]) == 0) {
            x->rows[out - 1].count[0] += x->rows[i].count[0];
            x->rows[out - 1].count[1] += x->rows[i].count[1];
            free(x->rows[i].label);
        } else {
            x->rows[out++] = x->rows[i];
        }
    }
    x->num_rows = out;
}

static int name_places(struct side *s)
{
    const struct code_places *cp = &s->in.ss.places;
    if (!(s->names = calloc(cp->num_places + 1, sizeof *s->names)))
        return -1;
    for (size_t i = 0; i < cp->num_places; i++) {
        struct code_location loc;
        char outside[CODE_NAMES_OUTSIDE_SIZE];
        if (!(s->names[i] =
                  strdup(code_names_function(s->in.sym, code_place(cp, i), &loc, outside))))
            return -1;
    }
    return 0;
}

/* Side i's rows of event index e: functions by self samples, call pairs once per stack. */
static int side_rows(struct diff *x, int i, uint32_t e, bool calls, uint64_t *total)
{
    const struct sample_stacks *ss = &x->side[i].in.ss;
    char **names = x->side[i].names;
    *total = 0;
    for (size_t k = 0; k < sample_stacks_count(ss); k++) {
        size_t depth;
        const struct sample_context *ctx;
        const uint64_t *counts;
        const uint64_t *stack = sample_stacks_get(ss, k, &depth, &ctx, &counts);
        uint64_t n = counts[e];
        if (!n)
            continue;
        *total += n;
        if (add_row(x, names[stack[0]], ROW_FUNCTION, i, n) != 0)
            return -1;
        for (size_t j = 0; calls && j + 1 < depth; j++) {
            char label[1024];
            snprintf(label, sizeof label, "%s -> %s", names[stack[j + 1]], names[stack[j]]);
            /* A pair twice on one stack (recursion) counts once for its samples. */
            bool again = false;
            for (size_t m = 0; m < j && !again; m++)
                again = strcmp(names[stack[m + 1]], names[stack[j + 1]]) == 0 &&
                        strcmp(names[stack[m]], names[stack[j]]) == 0;
            if (!again && add_row(x, label, ROW_CALL, i, n) != 0)
                return -1;
        }
    }
    return 0;
}

static double distance_from_zero(const struct diff_change *c)
{
    return c->low > 0 ? c->low : c->high < 0 ? -c->high : 0;
}

static int by_significance(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    if (x->c.significant != y->c.significant)
        return x->c.significant ? -1 : 1;
    double dx = distance_from_zero(&x->c), dy = distance_from_zero(&y->c);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    double ax = fabs(x->c.change), ay = fabs(y->c.change);
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return strcmp(x->label, y->label);
}

static void print_table(struct diff *x, enum row_kind kind, uint64_t top)
{
    printf("%8s %8s %8s  %-20s  %s\n", "Base %", "New %", "Change", "Interval (points)",
           kind == ROW_FUNCTION ? "Function (self samples)" : "Caller -> callee (samples)");
    size_t shown = 0, more = 0, more_significant = 0;
    for (size_t i = 0; i < x->num_rows; i++) {
        const struct row *r = &x->rows[i];
        if (r->kind != kind)
            continue;
        if (top && shown == top) {
            more++;
            more_significant += r->c.significant;
            continue;
        }
        char label[1100], interval[64];
        text_escape_terminal(label, sizeof label, r->label);
        snprintf(interval, sizeof interval, "[%+.2f, %+.2f]%s", 100 * r->c.low, 100 * r->c.high,
                 r->c.significant ? " *" : "");
        printf("%7.2f%% %7.2f%% %+8.2f  %-20s  %s\n", 100 * r->c.base, 100 * r->c.new_,
               100 * r->c.change, interval, label);
        shown++;
    }
    if (more)
        printf("(%zu more rows, %zu of them significant)\n", more, more_significant);
    else if (!shown)
        printf("(none)\n");
}

static void check_gates(struct diff *x, const char *event)
{
    for (size_t g = 0; g < x->num_gates; g++) {
        for (size_t i = 0; i < x->num_rows; i++) {
            const struct row *r = &x->rows[i];
            if (!diff_gate_crossed(&x->gates[g], r->label, &r->c))
                continue;
            char label[1100], name[256];
            text_escape_terminal(label, sizeof label, r->label);
            printf("fail-if %s: %s: %s changed %+.2f points (%g%% interval %+.2f to %+.2f)\n",
                   x->gates[g].text, text_term(name, sizeof name, event), label, 100 * r->c.change,
                   100 * x->level, 100 * r->c.low, 100 * r->c.high);
            x->crossed = true;
        }
    }
}

static void free_rows(struct diff *x)
{
    for (size_t i = 0; i < x->num_rows; i++)
        free(x->rows[i].label);
    x->num_rows = 0;
}

static int diff_event(struct diff *x, const char *name, uint64_t top, struct diag *d)
{
    uint32_t e[2];
    for (int i = 0; i < 2; i++) {
        const struct session_event *ev = cli_find_event(&x->side[i].in.p.session, name);
        e[i] = ev->index;
    }
    bool calls = x->side[0].in.ss.with_callers && x->side[1].in.ss.with_callers;
    uint64_t total[2];
    free_rows(x);
    if (side_rows(x, 0, e[0], calls, &total[0]) != 0 ||
        side_rows(x, 1, e[1], calls, &total[1]) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    char ename[256];
    printf("\nEvent %s: %" PRIu64 " samples in BASE, %" PRIu64 " in NEW\n",
           text_term(ename, sizeof ename, name), total[0], total[1]);
    if (!total[0] || !total[1]) {
        printf("no samples of this event in %s: nothing to compare\n", total[0]   ? "NEW"
                                                                       : total[1] ? "BASE"
                                                                                  : "either");
        return 0;
    }
    merge_rows(x);
    for (size_t i = 0; i < x->num_rows; i++) {
        struct row *r = &x->rows[i];
        diff_change(r->count[0], total[0], r->count[1], total[1], x->z, &r->c);
    }
    qsort(x->rows, x->num_rows, sizeof *x->rows, by_significance);
    print_table(x, ROW_FUNCTION, top);
    if (calls) {
        printf("\n");
        print_table(x, ROW_CALL, top);
    }
    check_gates(x, name);
    return 0;
}

/* The names of p's executable modules, joined, for the comparison of images. */
static void image_names(const struct profile *p, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < p->num_modules; i++) {
        const struct module_info *m = &p->modules[i];
        if (!m->exe || m->tsc || strstr(buf, m->name))
            continue;
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s", n ? ", " : "", m->name);
    }
}

static int check_compatible(struct diff *x, const char *const src[2], struct diag *d)
{
    const struct session *s[2] = {&x->side[0].in.p.session, &x->side[1].in.p.session};
    bool same = s[0]->num_events == s[1]->num_events;
    for (size_t i = 0; same && i < s[0]->num_events; i++)
        same = cli_find_event(s[1], s[0]->events[i].name) != NULL;
    if (!same) {
        char list[2][512];
        for (int k = 0; k < 2; k++) {
            list[k][0] = '\0';
            for (size_t i = 0; i < s[k]->num_events; i++) {
                size_t n = strlen(list[k]);
                snprintf(list[k] + n, sizeof list[k] - n, "%s%s", i ? ", " : "",
                         s[k]->events[i].name);
            }
        }
        return diag_fail(d, DIAG_INPUT,
                         "%s and %s sampled different events (%s; %s): diff compares "
                         "collections of the same events",
                         src[0], src[1], list[0], list[1]);
    }
    char images[2][512];
    image_names(&x->side[0].in.p, images[0], sizeof images[0]);
    image_names(&x->side[1].in.p, images[1], sizeof images[1]);
    if (images[0][0] && images[1][0] && strcmp(images[0], images[1]) != 0)
        return diag_fail(d, DIAG_INPUT,
                         "%s and %s ran different images (%s; %s): diff compares "
                         "collections of the same firmware image",
                         src[0], src[1], images[0], images[1]);
    return 0;
}

static int run(struct diff *x, const char *const src[2], const char *const elf[2],
               const char *event, uint64_t top, struct diag *d)
{
    for (int i = 0; i < 2; i++) {
        int rc = export_input_open(&x->side[i].in, src[i], elf[i], EXPORT_INPUT_STACKS, "diff", d);
        if (rc)
            return rc;
    }
    int rc = check_compatible(x, src, d);
    if (rc)
        return rc;
    if (event && !cli_find_event(&x->side[0].in.p.session, event))
        return diag_fail(d, DIAG_USAGE, "%s: no event %s", src[0], event);
    for (int i = 0; i < 2; i++)
        if (name_places(&x->side[i]) != 0)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
    char a[1024], b[1024];
    printf("Base: %s (%s)\nNew:  %s (%s)\n", text_term(a, sizeof a, src[0]),
           x->side[0].in.p.kind == PROFILE_TB5 ? "tb5 file" : "collection folder",
           text_term(b, sizeof b, src[1]),
           x->side[1].in.p.kind == PROFILE_TB5 ? "tb5 file" : "collection folder");
    printf("Intervals: %g%% confidence, Newcombe's hybrid score interval for a difference of "
           "two proportions; * marks a change larger than sampling noise\n",
           100 * x->level);
    const struct session *s = &x->side[0].in.p.session;
    for (size_t i = 0; i < s->num_events; i++) {
        if (event && cli_find_event(s, event) != &s->events[i])
            continue;
        if ((rc = diff_event(x, s->events[i].name, top, d)))
            return rc;
    }
    return fflush(stdout) == 0 ? 0 : diag_fail(d, DIAG_OUTPUT, "standard output: write error");
}

int cmd_diff(int argc, char **argv)
{
    static const struct option options[] = {
        {"elf", required_argument, NULL, 'e'},
        {"base-elf", required_argument, NULL, 'B'},
        {"new-elf", required_argument, NULL, 'N'},
        {"event", required_argument, NULL, 'E'},
        {"level", required_argument, NULL, 'l'},
        {"top", required_argument, NULL, 'n'},
        {"fail-if", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *elf[2] = {NULL, NULL}, *both = NULL, *event = NULL;
    uint64_t top = 20;
    struct diff x;
    memset(&x, 0, sizeof x);
    x.level = 0.99;
    x.gates = calloc((size_t)argc, sizeof *x.gates);
    struct diag d = {0};
    int c, rc = -1;
    if (!x.gates)
        return ACART_EXIT_FAILURE;
    opterr = 0;
    while (rc < 0 && (c = getopt_long(argc, argv, "e:E:l:n:f:h", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'e':
            both = optarg;
            break;
        case 'B':
            elf[0] = optarg;
            break;
        case 'N':
            elf[1] = optarg;
            break;
        case 'E':
            event = optarg;
            break;
        case 'l':
            x.level = strtod(optarg, &end) / 100;
            if (!*optarg || *end || !(x.level >= 0.5 && x.level < 1))
                rc = cli_usage_error("diff", usage,
                                     "--level: a percentage from 50 to below 100, "
                                     "not %s",
                                     optarg);
            break;
        case 'n':
            if (cli_parse_uint(optarg, UINT32_MAX, &top) != 0)
                rc = cli_usage_error("diff", usage, "--top: expected a number, not %s", optarg);
            break;
        case 'f':
            if (diff_gate_parse(optarg, &x.gates[x.num_gates], &d) != 0)
                rc = d.code == DIAG_USAGE ? cli_usage_error("diff", usage, "%s", d.msg)
                                          : diag_report("diff", &d);
            else
                x.num_gates++;
            break;
        case 'h':
            rc = cli_help(usage);
            break;
        default:
            rc = cli_usage_error("diff", usage, "unknown option or missing argument: %s",
                                 argv[optind - 1]);
            break;
        }
    }
    if (rc < 0 && optind + 2 != argc)
        rc = cli_usage_error("diff", usage,
                             "expected BASE and NEW (collection folders or tb5 "
                             "files)");
    if (rc < 0 && both && (elf[0] || elf[1]))
        rc = cli_usage_error("diff", usage, "--elf or --base-elf/--new-elf, not both");
    if (rc < 0 && !both && !elf[0] != !elf[1])
        rc = cli_usage_error("diff", usage, "--base-elf and --new-elf go together");
    if (rc < 0) {
        if (both)
            elf[0] = elf[1] = both;
        x.z = diff_z_for_level(x.level);
        const char *src[2] = {argv[optind], argv[optind + 1]};
        rc = run(&x, src, elf, event, top, &d) ? diag_report("diff", &d)
             : x.crossed                       ? ACART_EXIT_THRESHOLD
                                               : ACART_EXIT_OK;
    }
    free_rows(&x);
    free(x.rows);
    for (int i = 0; i < 2; i++) {
        for (size_t k = 0; x.side[i].names && k < x.side[i].in.ss.places.num_places; k++)
            free(x.side[i].names[k]);
        free(x.side[i].names);
        export_input_close(&x.side[i].in);
    }
    for (size_t g = 0; g < x.num_gates; g++)
        diff_gate_free(&x.gates[g]);
    free(x.gates);
    return rc;
}
