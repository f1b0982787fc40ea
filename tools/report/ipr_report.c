/* The IPROBE part of `acart report`: reads every sample file of a folder (the format of
 * acart_wire.h: header, then 8-byte aligned records) and prints, per file, each histogram
 * by function and by address bucket, mode histograms, and the samples of the sample
 * buffers by function. Code is named through the ELF image when one is given. */
#define _GNU_SOURCE
#include "ipr_report.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acart_wire.h"
#include "diag.h"
#include "symbols.h"

/* A counter's name in the file header: NUL-padded, but not NUL-terminated when it fills
 * the field. */
#define NAME_LEN ((int)sizeof(((struct acart_ipr_file_header *)0)->counter_name[0]))

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
                       const struct acart_ipr_file_header *fh, struct symbols *sym, uint64_t top)
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
        if (n)
            printf("  counter %" PRIu32 " (%.*s): %" PRIu64 " samples\n", c,
                   fh->counter_name[c][0] ? NAME_LEN : 1,
                   fh->counter_name[c][0] ? fh->counter_name[c] : "?", n);
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

/* IPR_DATA_PC of ipr.h: the first data item of a sample record (acart_wire.h). */
#define ITEM_PC 1u

/* The bytes of one record holding the items of datcol (acart_wire.h). */
static uint64_t record_size(uint32_t datcol, uint32_t qdatcol)
{
    uint64_t n = 0;
    for (uint32_t b = 1; b != 0; b <<= 1)
        if (datcol & b)
            n += (qdatcol & b) ? 8 : 4;
    return n;
}

/* The value of item `bit` in a record, or 0 when the record does not hold it. */
static uint64_t item(const uint8_t *rec, uint32_t datcol, uint32_t qdatcol, uint32_t bit)
{
    uint32_t off = 0;
    for (uint32_t b = 1; b < bit; b <<= 1)
        if (datcol & b)
            off += (qdatcol & b) ? 8 : 4;
    if (!(datcol & bit))
        return 0;
    uint64_t v = 0;
    memcpy(&v, rec + off, (qdatcol & bit) ? 8 : 4);
    return v;
}

static int report_file(const char *path, const uint8_t *data, size_t size, struct symbols *sym,
                       uint64_t top)
{
    struct acart_ipr_file_header fh;
    struct table profile = {0};
    uint64_t buffers = 0, pcless = 0, user_bytes = 0;
    uint32_t pcless_datcol = 0;
    int rc = ACART_EXIT_OK;
    memcpy(&fh, data, sizeof fh);
    printf("IPROBE sample file %s: %" PRIu32 " counters, TSC %.3f GHz\n", path, fh.num_counters,
           (double)fh.tsc_hz / 1e9);
    for (uint32_t c = 0; c < fh.num_counters && c < ACART_IPR_MAX_COUNTERS; c++)
        if (fh.counter_event[c] != 0xffffffffu)
            printf("  counter %" PRIu32 ": event 0x%" PRIx32 " %.*s\n", c, fh.counter_event[c],
                   NAME_LEN, fh.counter_name[c]);
    printf("\n");
    size_t at = sizeof fh;
    while (at + sizeof(struct acart_ipr_record) <= size) {
        struct acart_ipr_record rec;
        memcpy(&rec, data + at, sizeof rec);
        const uint8_t *p = data + at + sizeof rec;
        if (rec.bytes > size - at - sizeof rec) {
            fprintf(stderr, "acart report: %s: a record at offset %zu runs past the end\n", path,
                    at);
            rc = ACART_EXIT_INPUT;
            goto done;
        }
        /* The next record's offset before anything below skips this one: a record this
         * report cannot use must still be stepped over, or the loop never ends. */
        at += (sizeof rec + rec.bytes + 7) & ~(size_t)7;
        if (rec.type == ACART_IPR_REC_USER) {
            user_bytes += rec.bytes;
        } else if (rec.type == ACART_IPR_REC_HIST && rec.bytes >= sizeof(struct acart_ipr_hist)) {
            struct acart_ipr_hist h;
            memcpy(&h, p, sizeof h);
            if (h.gran >= 64) {
                fprintf(stderr, "acart report: %s: a histogram's granularity is 2^%" PRIu32 "\n",
                        path, h.gran);
                rc = ACART_EXIT_INPUT;
                goto done;
            }
            if ((uint64_t)h.num_buckets * h.num_counters * 4 != rec.bytes - sizeof h) {
                fprintf(stderr, "acart report: %s: a histogram's size does not add up\n", path);
                rc = ACART_EXIT_INPUT;
                goto done;
            }
            if (report_hist(&h, (const uint32_t *)(p + sizeof h), &fh, sym, top)) {
                rc = ACART_EXIT_FAILURE;
                goto done;
            }
        } else if (rec.type == ACART_IPR_REC_SBUFFER &&
                   rec.bytes >= sizeof(struct acart_ipr_sbuffer)) {
            struct acart_ipr_sbuffer b;
            memcpy(&b, p, sizeof b);
            if (b.used > rec.bytes - sizeof b) {
                fprintf(stderr, "acart report: %s: a sample buffer's records run past it\n", path);
                rc = ACART_EXIT_INPUT;
                goto done;
            }
            if (b.used && b.record_bytes < record_size(b.datcol, b.qdatcol)) {
                fprintf(stderr,
                        "acart report: %s: a sample buffer's records are smaller than their "
                        "data items\n",
                        path);
                rc = ACART_EXIT_INPUT;
                goto done;
            }
            if (b.record_bytes == 0 || !(b.datcol & ITEM_PC)) {
                pcless++;
                pcless_datcol |= b.datcol;
                continue;
            }
            buffers++;
            for (uint32_t r = 0; r + b.record_bytes <= b.used; r += b.record_bytes) {
                char fn[96];
                function_of(sym, item(p + sizeof b + r, b.datcol, b.qdatcol, ITEM_PC), fn,
                            sizeof fn);
                if (add(&profile, fn, 1)) {
                    rc = ACART_EXIT_FAILURE;
                    goto done;
                }
            }
        }
    }
    if (buffers) {
        printf("Sample buffers: %" PRIu64 " buffers, %" PRIu64 " samples\n", buffers,
               profile.total);
        print_table(&profile, "Function", top);
        printf("\n");
    }
    if (pcless)
        printf("%" PRIu64 " sample buffers collected no PC (data items 0x%" PRIx32
               "): they have no PCs to profile\n\n",
               pcless, pcless_datcol);
    if (user_bytes)
        printf("%" PRIu64 " bytes of the program's own data (IprWriteToSampleFile)\n\n",
               user_bytes);
done:
    free_table(&profile); /* printed and emptied already, unless the file was damaged */
    return rc;
}

static int is_ipr_file(const char *path)
{
    char magic[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == sizeof magic && strcmp(magic, ACART_IPR_MAGIC) == 0;
}

static int filter_ipr(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

int ipr_report_applies(const char *path)
{
    struct stat st;
    char p[4096];
    struct dirent **names;
    int found = 0;
    snprintf(p, sizeof p, "%s/session.json", path);
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || stat(p, &st) == 0)
        return 0;
    int n = scandir(path, &names, filter_ipr, alphasort);
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", path, names[i]->d_name);
        found |= is_ipr_file(p);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    return found;
}

int ipr_report(const char *dir, const char *elf, uint64_t top)
{
    struct symbols *sym = NULL;
    struct diag d = {0};
    struct dirent **names;
    int rc = ACART_EXIT_OK;
    if (elf && symbols_open(elf, 0, &sym, &d) != 0)
        return diag_report("report", &d);
    int n = scandir(dir, &names, filter_ipr, alphasort);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (rc == ACART_EXIT_OK && is_ipr_file(path)) {
            FILE *f = fopen(path, "rb");
            uint8_t *data = NULL;
            long size = -1;
            if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
                fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)size + 1)) &&
                fread(data, 1, (size_t)size, f) == (size_t)size &&
                (size_t)size >= sizeof(struct acart_ipr_file_header))
                rc = report_file(path, data, (size_t)size, sym, top);
            else
                rc = ACART_EXIT_INPUT;
            if (rc == ACART_EXIT_INPUT)
                fprintf(stderr, "acart report: %s: cannot read it whole\n", path);
            free(data);
            if (f)
                fclose(f);
        }
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    symbols_close(sym);
    return rc;
}
