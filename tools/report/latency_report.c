/* acart report --latency (see latency_report.h). Each sample with memory information is
 * one load whose latency was above the event's threshold: the histogram counts loads,
 * not events (multiply by the sample-after value for an estimate of all of them). */
#include "latency_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pmu_models.h"
#include "profile_open.h"
#include "progress.h"
#include "text_escape.h"

/* Data source encodings (bits 3:0) of load-latency records, named after the meaning
 * Linux's arch/x86/events/intel/ds.c gives them: pebs_data_source[] for Sandy Bridge to
 * Broadwell, with the entries intel_pmu_pebs_data_source_nhm and _skl change. Skylake's
 * 0x8/0x9 are L4 on client parts and persistent memory on servers (Linux's pmem_or_l4). */
static const char *const dse_snb[16] = {
    "L3 miss, source unknown",
    "L1 hit",
    "fill buffer hit",
    "L2 hit",
    "L3 hit, no snoop",
    "L3 hit, snoop miss",
    "L3 hit, snoop hit",
    "L3 hit, snoop HITM",
    "remote cache, snoop hit",
    "remote cache, snoop HITM",
    "local DRAM, shared",
    "remote DRAM, shared",
    "local DRAM, exclusive",
    "remote DRAM, exclusive",
    "I/O",
    "uncached",
};

const char *latency_source_name(unsigned table, uint64_t data_source)
{
    unsigned e = (unsigned)(data_source & 0xf);
    switch (table) {
    case PMU_DSE_NHM:
        if (e >= 0x5 && e <= 0x7)
            return e == 0x5 ? "L3 hit, snoop hit" : "L3 hit, snoop HITM";
        return dse_snb[e];
    case PMU_DSE_SKL:
        switch (e) {
        case 0x8:
            return "L4 or PMEM hit, snoop hit";
        case 0x9:
            return "remote L4 or PMEM hit, snoop hit";
        case 0xb:
            return "remote DRAM";
        case 0xc:
            return "remote cache, forwarded";
        case 0xd:
            return "remote cache, snoop HITM";
        default:
            return dse_snb[e];
        }
    case PMU_DSE_SNB:
        return dse_snb[e];
    default:
        return NULL;
    }
}

unsigned latency_bucket(uint64_t cycles)
{
    unsigned b = 0;
    for (uint64_t edge = 8; b < LATENCY_BUCKETS - 1 && cycles >= edge; edge *= 2)
        b++;
    return b;
}

/* Data sources: bit 4 of the record's encoding is an STLB miss, bit 5 a locked access. */
#define DSE_STLB_MISS 0x10u

struct source_row {
    uint64_t loads, cycles, stlb_misses;
    uint64_t buckets[LATENCY_BUCKETS];
};

struct code_row {
    uint64_t ip;
    uint64_t loads, cycles, max;
    int used;
    char *label; /* after the scan */
};

struct latency {
    struct profile *p;
    uint64_t samples, loads;
    struct source_row sources[16];
    struct code_row *table; /* by IP, open addressing, size a power of two */
    size_t size, used;
};

#define STOP_NO_MEMORY 1

static size_t slot_of(const struct latency *l, uint64_t ip)
{
    uint64_t h = ip * 0x9e3779b97f4a7c15ull;
    return (size_t)(h ^ (h >> 29)) & (l->size - 1);
}

static int grow(struct latency *l)
{
    size_t size = l->size ? 2 * l->size : 1024;
    struct code_row *t = calloc(size, sizeof *t);
    if (!t)
        return -1;
    struct latency old = *l;
    l->table = t;
    l->size = size;
    for (size_t i = 0; i < old.size; i++) {
        if (!old.table[i].used)
            continue;
        size_t s = slot_of(l, old.table[i].ip);
        while (l->table[s].used)
            s = (s + 1) & (size - 1);
        l->table[s] = old.table[i];
    }
    free(old.table);
    return 0;
}

static struct code_row *row_of(struct latency *l, uint64_t ip)
{
    if (2 * (l->used + 1) > l->size && grow(l) != 0)
        return NULL;
    size_t s = slot_of(l, ip);
    while (l->table[s].used && l->table[s].ip != ip)
        s = (s + 1) & (l->size - 1);
    if (!l->table[s].used) {
        l->table[s].used = 1;
        l->table[s].ip = ip;
        l->used++;
    }
    return &l->table[s];
}

static int count_loads(const struct sample *batch, size_t n, void *ctx)
{
    struct latency *l = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &batch[i];
        l->samples++;
        if (!s->has_memory)
            continue;
        struct source_row *src = &l->sources[s->data_source & 0xf];
        struct code_row *code = row_of(l, s->ip);
        if (!code)
            return STOP_NO_MEMORY;
        l->loads++;
        src->loads++;
        src->cycles += s->latency;
        src->stlb_misses += (s->data_source & DSE_STLB_MISS) != 0;
        src->buckets[latency_bucket(s->latency)]++;
        code->loads++;
        code->cycles += s->latency;
        if (s->latency > code->max)
            code->max = s->latency;
    }
    return 0;
}

/* The function holding ip through the image, else its module and the address. */
static char *label_of(struct latency *l, struct symbols *sym, uint64_t ip)
{
    const struct module_info *m = profile_module_at(l->p, ip, 0, 0);
    struct code_location loc;
    char raw[512], out[1024];
    if (sym && cli_image_holds(sym, m) && symbols_lookup(sym, ip, &loc) && loc.symbol) {
        snprintf(raw, sizeof raw, "%s", loc.symbol);
    } else {
        char name[256];
        cli_outside_name(m, name, sizeof name);
        snprintf(raw, sizeof raw, "%s 0x%" PRIx64, name, ip);
    }
    text_escape_terminal(out, sizeof out, raw);
    return strdup(out);
}

static int by_label(const void *a, const void *b)
{
    return strcmp(((const struct code_row *)a)->label, ((const struct code_row *)b)->label);
}

static int by_loads(const void *a, const void *b)
{
    const struct code_row *x = a, *y = b;
    if (x->loads != y->loads)
        return x->loads < y->loads ? 1 : -1;
    return strcmp(x->label, y->label);
}

static const char *const bucket_names[LATENCY_BUCKETS] = {"<8",   "<16",  "<32",   "<64",   "<128",
                                                          "<256", "<512", "<1024", ">=1024"};

static void print_sources(const struct latency *l, unsigned table)
{
    printf("%8s %7s %8s %6s", "Loads", "Share", "Avg lat", "STLB");
    for (unsigned b = 0; b < LATENCY_BUCKETS; b++)
        printf(" %6s", bucket_names[b]);
    printf("  %s\n", "Data source");
    for (unsigned e = 0; e < 16; e++) {
        const struct source_row *r = &l->sources[e];
        if (!r->loads)
            continue;
        char unknown[32];
        const char *name = latency_source_name(table, e);
        if (!name) {
            snprintf(unknown, sizeof unknown, "encoding 0x%x", e);
            name = unknown;
        }
        /* Nehalem and Westmere record no TLB information there (Linux: pebs_no_tlb). */
        char stlb[16] = "-";
        if (table != PMU_DSE_NHM)
            snprintf(stlb, sizeof stlb, "%.1f%%",
                     100.0 * (double)r->stlb_misses / (double)r->loads);
        printf("%8" PRIu64 " %6.2f%% %8.1f %6s", r->loads,
               100.0 * (double)r->loads / (double)l->loads, (double)r->cycles / (double)r->loads,
               stlb);
        for (unsigned b = 0; b < LATENCY_BUCKETS; b++)
            printf(" %6" PRIu64, r->buckets[b]);
        printf("  %s\n", name);
    }
}

/* Rows by function: the per-IP rows named, then merged where the names agree. */
static int print_functions(struct latency *l, struct symbols *sym, uint64_t top, struct diag *d)
{
    struct code_row *rows = malloc((l->used ? l->used : 1) * sizeof *rows);
    if (!rows)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    size_t n = 0;
    int oom = 0;
    for (size_t i = 0; i < l->size; i++) {
        if (!l->table[i].used)
            continue;
        rows[n] = l->table[i];
        rows[n].label = label_of(l, sym, rows[n].ip);
        oom |= !rows[n++].label;
    }
    size_t m = 0;
    if (!oom) {
        qsort(rows, n, sizeof *rows, by_label);
        for (size_t i = 0; i < n; i++) {
            if (m && strcmp(rows[m - 1].label, rows[i].label) == 0) {
                rows[m - 1].loads += rows[i].loads;
                rows[m - 1].cycles += rows[i].cycles;
                if (rows[i].max > rows[m - 1].max)
                    rows[m - 1].max = rows[i].max;
                free(rows[i].label);
            } else {
                rows[m++] = rows[i];
            }
        }
        qsort(rows, m, sizeof *rows, by_loads);
        printf("\n%8s %7s %8s %8s  %s\n", "Loads", "Share", "Avg lat", "Max lat", "Function");
        size_t shown = top && top < m ? (size_t)top : m;
        for (size_t i = 0; i < shown; i++)
            printf("%8" PRIu64 " %6.2f%% %8.1f %8" PRIu64 "  %s\n", rows[i].loads,
                   100.0 * (double)rows[i].loads / (double)l->loads,
                   (double)rows[i].cycles / (double)rows[i].loads, rows[i].max, rows[i].label);
        if (shown < m)
            printf("%8s %7s %8s %8s  (%zu more functions)\n", "", "", "", "", m - shown);
    } else {
        m = n;
    }
    for (size_t i = 0; i < m; i++)
        free(rows[i].label);
    free(rows);
    return oom ? diag_fail(d, DIAG_NOMEM, "out of memory") : 0;
}

int latency_report(struct profile *p, struct symbols *sym, uint64_t top, struct diag *d)
{
    int described = 0;
    for (size_t i = 0; i < p->session.num_descriptors; i++)
        described |= p->session.descriptors[i].latency_size != 0;
    if (!described)
        return diag_fail(d, DIAG_USAGE,
                         "%s: --latency needs load-latency samples (acart collect --event "
                         "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_32:precise, for example)",
                         p->source);
    struct latency l = {.p = p};
    struct progress pr;
    progress_attach(&pr, p, "report");
    int rc = profile_scan(p, count_loads, &l, d);
    progress_done(&pr);
    if (rc == STOP_NO_MEMORY)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    if (!rc) {
        profile_check_counts(p, "report");
        const struct pmu_model *row = pmu_model_lookup(p->session.cpu_family, p->session.cpu_model);
        unsigned table = row ? row->pebs_dse : PMU_DSE_NONE;
        printf("Load latency: %" PRIu64 " of %" PRIu64
               " samples measured a load; latency in core cycles; data sources as %s "
               "encodes them%s\n",
               l.loads, l.samples, row ? row->uarch : "an unknown model",
               table == PMU_DSE_NONE ? " (not decoded: no table for this model)" : "");
        if (l.loads) {
            print_sources(&l, table);
            rc = print_functions(&l, sym, top, d);
        }
    }
    free(l.table);
    if (rc)
        return rc;
    return fflush(stdout) == 0 ? 0 : diag_fail(d, DIAG_OUTPUT, "standard output: write error");
}
