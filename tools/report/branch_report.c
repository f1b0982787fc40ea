/* acart report --by branch (see branch_report.h). Every LBR entry of every sample counts
 * once for its edge (from, to): a branch stays in the stack for several samples, so the
 * counts weigh edges by how often they were among the last branches before a sample, as
 * perf's branch-stack reports do. */
#include "branch_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile_open.h"
#include "progress.h"
#include "text_escape.h"

struct edge {
    uint64_t from, to;
    uint64_t count, mispredicted, with_cycles, cycles;
    int used;
};

struct branches {
    struct profile *p;
    struct edge *table; /* open addressing, size a power of two */
    size_t size, used;
    uint64_t samples, with_lbr, entries;
    int has_flags; /* the format records mispredicts */
};

#define STOP_NO_MEMORY 1

static size_t slot_of(const struct branches *b, uint64_t from, uint64_t to)
{
    uint64_t h = (from * 0x9e3779b97f4a7c15ull) ^ (to * 0xc2b2ae3d27d4eb4full);
    return (size_t)(h ^ (h >> 29)) & (b->size - 1);
}

static int grow(struct branches *b)
{
    size_t size = b->size ? 2 * b->size : 1024;
    struct edge *t = calloc(size, sizeof *t);
    if (!t)
        return -1;
    struct branches old = *b;
    b->table = t;
    b->size = size;
    for (size_t i = 0; i < old.size; i++) {
        if (!old.table[i].used)
            continue;
        size_t s = slot_of(b, old.table[i].from, old.table[i].to);
        while (b->table[s].used)
            s = (s + 1) & (size - 1);
        b->table[s] = old.table[i];
    }
    free(old.table);
    return 0;
}

static struct edge *edge_of(struct branches *b, uint64_t from, uint64_t to)
{
    if (2 * (b->used + 1) > b->size && grow(b) != 0)
        return NULL;
    size_t s = slot_of(b, from, to);
    while (b->table[s].used && (b->table[s].from != from || b->table[s].to != to))
        s = (s + 1) & (b->size - 1);
    if (!b->table[s].used) {
        b->table[s].used = 1;
        b->table[s].from = from;
        b->table[s].to = to;
        b->used++;
    }
    return &b->table[s];
}

static int count_branches(const struct sample *batch, size_t n, void *ctx)
{
    struct branches *b = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &batch[i];
        b->samples++;
        b->with_lbr += s->num_branches != 0;
        for (uint32_t k = 0; k < s->num_branches; k++) {
            const struct lbr_entry *e = &s->branches[k];
            struct edge *g = edge_of(b, e->from, e->to);
            if (!g)
                return STOP_NO_MEMORY;
            g->count++;
            g->mispredicted += (e->flags & LBR_FLAG_MISPRED) != 0;
            if (e->flags & LBR_FLAG_CYCLES) {
                g->with_cycles++;
                g->cycles += e->cycles;
            }
            b->entries++;
        }
    }
    return 0;
}

static int by_count(const void *a, const void *c)
{
    const struct edge *x = a, *y = c;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

/* "function+0xOFF" through the image, else the module's name and the address. */
static void place(struct branches *b, struct symbols *sym, uint64_t addr, char *buf, size_t size)
{
    const struct module_info *m = profile_module_at(b->p, addr, 0, 0);
    struct code_location loc;
    char raw[512];
    if (sym && cli_image_holds(sym, m) && symbols_lookup(sym, addr, &loc) && loc.symbol) {
        snprintf(raw, sizeof raw, "%s+0x%" PRIx64, loc.symbol, loc.symbol_offset);
    } else {
        char name[256];
        cli_outside_name(m, name, sizeof name);
        snprintf(raw, sizeof raw, "%s 0x%" PRIx64, name, addr);
    }
    text_escape_terminal(buf, size, raw);
}

static const char *format_name(const struct lbr_caps *c)
{
    static const char *const names[] = {"32-bit FROM/TO",
                                        "linear addresses",
                                        "effective addresses",
                                        "with mispredict flag",
                                        "with mispredict and TSX flags",
                                        "LBR_INFO: mispredict, TSX, cycles",
                                        "mispredict flag, cycles in TO",
                                        "LBR_INFO: mispredict, TSX, cycles"};
    if (c->arch)
        return "architectural: mispredict, cycles";
    return c->format < sizeof names / sizeof names[0] ? names[c->format] : "?";
}

int branch_report(struct profile *p, struct symbols *sym, uint64_t top, struct diag *d)
{
    if (!p->session.lbr)
        return diag_fail(d, DIAG_USAGE,
                         "%s: --by branch needs LBR stacks in the samples (acart collect --lbr)",
                         p->source);
    struct branches b = {.p = p};
    const struct lbr_caps *c = &p->lbr;
    b.has_flags = c->format >= LBR_FORMAT_EIP_FLAGS;
    struct progress pr;
    progress_attach(&pr, p, "report");
    int rc = profile_scan(p, count_branches, &b, d);
    progress_done(&pr);
    if (rc == STOP_NO_MEMORY)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    if (rc) {
        free(b.table);
        return rc;
    }
    profile_check_counts(p, "report");
    struct edge *edges = malloc((b.used ? b.used : 1) * sizeof *edges);
    if (!edges) {
        free(b.table);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < b.size; i++)
        if (b.table[i].used)
            edges[n++] = b.table[i];
    free(b.table);
    qsort(edges, n, sizeof *edges, by_count);

    printf("LBR: format %u (%s), %u entries%s; %" PRIu64 " of %" PRIu64
           " samples carry branches, %" PRIu64 " branch records, %zu edges\n",
           (unsigned)c->format, format_name(c), (unsigned)c->depth,
           p->session.lbr->call_stack ? ", call-stack mode" : "", b.with_lbr, b.samples, b.entries,
           n);
    printf("%10s %7s %9s %10s  %s\n", "Branches", "Share", "Mispred", "Avg cycles", "From -> To");
    size_t shown = top && top < n ? (size_t)top : n;
    for (size_t i = 0; i < shown; i++) {
        const struct edge *e = &edges[i];
        char from[600], to[600], mis[16] = "-", cyc[24] = "-";
        place(&b, sym, e->from, from, sizeof from);
        place(&b, sym, e->to, to, sizeof to);
        if (b.has_flags)
            snprintf(mis, sizeof mis, "%.1f%%", 100.0 * (double)e->mispredicted / (double)e->count);
        if (e->with_cycles)
            snprintf(cyc, sizeof cyc, "%.1f", (double)e->cycles / (double)e->with_cycles);
        printf("%10" PRIu64 " %6.2f%% %9s %10s  %s -> %s\n", e->count,
               100.0 * (double)e->count / (double)(b.entries ? b.entries : 1), mis, cyc, from, to);
    }
    if (shown < n)
        printf("%10s %7s %9s %10s  (%zu more edges)\n", "", "", "", "", n - shown);
    free(edges);
    return fflush(stdout) == 0 ? 0 : diag_fail(d, DIAG_OUTPUT, "standard output: write error");
}
