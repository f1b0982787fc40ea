/* The IPROBE part of `acart report`: reads every sample file of a folder (ipr_file.h) and
 * prints, per file, each histogram
 * by function and by address bucket, mode histograms, and the samples of the sample
 * buffers by function. Code is named through the ELF image when one is given. */
#define _GNU_SOURCE
#include "ipr_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "cli.h"
#include "diag.h"
#include "file_util.h"
#include "ipr_file.h"
#include "symbols.h"

struct row {
    char *label;
    uint64_t count;
};

struct table {
    struct row *rows;
    size_t n, cap;
    uint64_t total;
};

static int add(struct table *t, const char *label, uint64_t count)
{
    t->total += count;
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->rows[i].label, label) == 0) {
            t->rows[i].count += count;
            return 0;
        }
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct row *r = realloc(t->rows, cap * sizeof *r);
        if (!r)
            return -1;
        t->rows = r;
        t->cap = cap;
    }
    t->rows[t->n].label = strdup(label);
    t->rows[t->n].count = count;
    return t->rows[t->n++].label ? 0 : -1;
}

static int by_count(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->label, y->label);
}

static void free_table(struct table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->rows[i].label);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

static void print_table(struct table *t, const char *column, uint64_t top)
{
    if (t->n) /* rows is NULL while empty (a buffer with no records) */
        qsort(t->rows, t->n, sizeof *t->rows, by_count);
    printf("  %-40s %10s %7s\n", column, "Samples", "%");
    for (size_t i = 0; i < t->n && (top == 0 || i < top); i++)
        printf("  %-40s %10" PRIu64 " %6.1f%%\n", t->rows[i].label, t->rows[i].count,
               t->total ? 100.0 * (double)t->rows[i].count / (double)t->total : 0.0);
    free_table(t);
}

static void function_of(struct symbols *sym, uint64_t address, char *out, size_t size)
{
    struct code_location loc;
    if (sym && symbols_lookup(sym, address, &loc) == 1 && loc.symbol)
        snprintf(out, size, "%s", loc.symbol);
    else
        snprintf(out, size, "[unknown]");
}

/* The function covering most of the bucket [start, start + size): a bucket need not begin
 * where a function does (buckets run from the histogram's base, functions are aligned as
 * the compiler chose), and naming it by its first byte would give a routine's samples to
 * the function before it. Probed at 16 evenly spaced addresses. */
static void bucket_function(struct symbols *sym, uint64_t start, uint64_t size, char *out,
                            size_t out_size)
{
    enum { PROBES = 16 };
    char names[PROBES][96];
    uint32_t votes[PROBES] = {0}, distinct = 0, best = 0;
    uint64_t step = size / PROBES ? size / PROBES : 1;
    for (uint64_t a = start; a < start + size && a - start < PROBES * step; a += step) {
        char fn[96];
        function_of(sym, a, fn, sizeof fn);
        uint32_t i = 0;
        while (i < distinct && strcmp(names[i], fn) != 0)
            i++;
        if (i == distinct)
            snprintf(names[distinct++], sizeof names[0], "%s", fn);
        if (++votes[i] > votes[best])
            best = i;
    }
    snprintf(out, out_size, "%s", distinct ? names[best] : "[unknown]");
}

static const char *const mode_names[] = {"kernel", "exec", "super", "user", "interrupt", "idle"};

static int report_hist(const struct acart_ipr_hist *h, const uint32_t *cells,
                       const struct ipr_file *f, struct symbols *sym, uint64_t top)
{
    struct table funcs = {0}, buckets = {0};
    char label[128];
    uint64_t total = 0;
    for (uint64_t b = 0; b < h->num_buckets; b++)
        for (uint32_t c = 0; c < h->num_counters; c++)
            total += cells[b * h->num_counters + c];
    if (h->type == 2) {
        printf("Mode histogram, cpu %" PRIu32 ": %" PRIu64 " samples:", h->cpu, total);
        for (uint32_t m = 0; m < h->num_buckets && m < 6; m++) {
            uint64_t n = 0;
            for (uint32_t c = 0; c < h->num_counters; c++)
                n += cells[m * h->num_counters + c];
            printf(" %s %" PRIu64, mode_names[m], n);
        }
        printf("\n\n");
        return 0;
    }
    printf("Address histogram, cpu %" PRIu32 ", index %" PRIu32 ": 0x%" PRIx64 "-0x%" PRIx64
           ", %" PRIu64 "-byte buckets, %" PRIu64 " samples\n",
           h->cpu, h->index, (uint64_t)h->begin, (uint64_t)h->end, (uint64_t)1 << h->gran, total);
    for (uint32_t c = 0; c < h->num_counters && c < ACART_IPR_MAX_COUNTERS; c++) {
        uint64_t n = 0;
        for (uint64_t b = 0; b < h->num_buckets; b++)
            n += cells[b * h->num_counters + c];
        if (n) {
            char name[64];
            ipr_file_counter_name(f, c, name, sizeof name);
            printf("  counter %" PRIu32 " (%s): %" PRIu64 " samples\n", c, name, n);
        }
    }
    for (uint64_t b = 0; b < h->num_buckets; b++) {
        uint64_t n = 0, start = h->begin + (b << h->gran);
        for (uint32_t c = 0; c < h->num_counters; c++)
            n += cells[b * h->num_counters + c];
        if (!n)
            continue;
        char fn[96];
        bucket_function(sym, start, (uint64_t)1 << h->gran, fn, sizeof fn);
        snprintf(label, sizeof label, "0x%" PRIx64 "-0x%" PRIx64 " %s", start,
                 start + ((uint64_t)1 << h->gran) - 1, fn);
        if (add(&funcs, fn, n) || add(&buckets, label, n)) {
            free_table(&funcs);
            free_table(&buckets);
            return -1;
        }
    }
    print_table(&funcs, "Function", top);
    print_table(&buckets, "Address range", top);
    printf("\n");
    return 0;
}

struct file_report {
    const struct ipr_file *f;
    struct symbols *sym;
    uint64_t top;
    struct table profile;
    uint64_t buffers, pcless, user_bytes;
    uint32_t pcless_datcol;
};

#define STOP_NO_MEMORY 1

static int on_user(void *ctx, const uint8_t *bytes, uint32_t n)
{
    (void)bytes;
    ((struct file_report *)ctx)->user_bytes += n;
    return 0;
}

static int on_hist(void *ctx, const struct acart_ipr_hist *h, const uint32_t *cells)
{
    struct file_report *r = ctx;
    return report_hist(h, cells, r->f, r->sym, r->top) ? STOP_NO_MEMORY : 0;
}

static int on_sbuffer(void *ctx, const struct acart_ipr_sbuffer *b, const uint8_t *records)
{
    struct file_report *r = ctx;
    if (b->record_bytes == 0 || !(b->datcol & IPR_ITEM_PC)) {
        r->pcless++;
        r->pcless_datcol |= b->datcol;
        return 0;
    }
    r->buffers++;
    for (uint32_t at = 0; at + b->record_bytes <= b->used; at += b->record_bytes) {
        char fn[96];
        function_of(r->sym, ipr_file_item(records + at, b->datcol, b->qdatcol, IPR_ITEM_PC), fn,
                    sizeof fn);
        if (add(&r->profile, fn, 1))
            return STOP_NO_MEMORY;
    }
    return 0;
}

static int report_file(const struct ipr_file *f, struct symbols *sym, uint64_t top)
{
    static const struct ipr_file_visitor visit = {on_user, on_hist, on_sbuffer};
    struct file_report r = {.f = f, .sym = sym, .top = top};
    struct diag d = {0};
    printf("IPROBE sample file %s: %" PRIu32 " counters, TSC %.3f GHz\n", f->path,
           f->header.num_counters, (double)f->header.tsc_hz / 1e9);
    for (uint32_t c = 0; c < f->header.num_counters; c++)
        if (f->header.counter_event[c] != 0xffffffffu) {
            char name[64];
            ipr_file_counter_name(f, c, name, sizeof name);
            printf("  counter %" PRIu32 ": event 0x%" PRIx32 " %s\n", c, f->header.counter_event[c],
                   name);
        }
    printf("\n");
    int rc = ipr_file_scan(f, &visit, &r, &d);
    if (rc == STOP_NO_MEMORY) {
        free_table(&r.profile);
        fprintf(stderr, "acart report: out of memory\n");
        return ACART_EXIT_FAILURE;
    }
    if (rc) {
        free_table(&r.profile);
        return diag_report("report", &d);
    }
    if (r.buffers) {
        printf("Sample buffers: %" PRIu64 " buffers, %" PRIu64 " samples\n", r.buffers,
               r.profile.total);
        print_table(&r.profile, "Function", top);
        printf("\n");
    }
    if (r.pcless)
        printf("%" PRIu64 " sample buffers collected no PC (data items 0x%" PRIx32
               "): they have no PCs to profile\n\n",
               r.pcless, r.pcless_datcol);
    if (r.user_bytes)
        printf("%" PRIu64 " bytes of the program's own data (IprWriteToSampleFile)\n\n",
               r.user_bytes);
    free_table(&r.profile); /* printed and emptied already, unless the file was damaged */
    return ACART_EXIT_OK;
}

int ipr_report(const char *dir, const char *elf, uint64_t top)
{
    struct symbols *sym = NULL;
    struct diag d = {0};
    char **paths;
    size_t n;
    if (elf && cli_open_ipr_symbols(dir, elf, &sym, &d) != 0)
        return diag_report("report", &d);
    if (ipr_file_list(dir, &paths, &n, &d) != 0) {
        symbols_close(sym);
        return diag_report("report", &d);
    }
    int rc = ACART_EXIT_OK;
    for (size_t i = 0; i < n && rc == ACART_EXIT_OK; i++) {
        struct ipr_file f;
        if (ipr_file_open(&f, paths[i], &d) != 0) {
            rc = diag_report("report", &d);
            break;
        }
        rc = report_file(&f, sym, top);
        ipr_file_close(&f);
    }
    ipr_file_free_paths(paths, n);
    symbols_close(sym);
    return rc;
}
