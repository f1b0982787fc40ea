/* IPROBE sample-buffer records on a timeline: instants for PCs, counter tracks for counts. */
#include "ipr_timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"

struct ipr_point {
    uint64_t tsc, ip, count, order;
    uint32_t cpu, counter, file;
    uint8_t has_ip, has_count;
};

struct reader {
    struct ipr_timeline *t;
    uint32_t file;
    /* Per CPU, the last time stamp of the file, to extend 4-byte ones (a TSC item outside
     * qdatcol holds the low half) forward across their wraps. */
    uint64_t *last_tsc;
    size_t num_cpus;
};

#define STOP_NO_MEMORY 1

static int add_point(struct ipr_timeline *t, const struct ipr_point *p)
{
    if (t->num_points == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        struct ipr_point *grown = realloc(t->points, cap * sizeof *grown);
        if (!grown)
            return STOP_NO_MEMORY;
        t->points = grown;
        t->cap = cap;
    }
    t->points[t->num_points] = *p;
    t->points[t->num_points].order = t->num_points;
    t->num_points++;
    return 0;
}

static int on_sbuffer(void *ctx, const struct acart_ipr_sbuffer *b, const uint8_t *records)
{
    struct reader *r = ctx;
    struct ipr_timeline *t = r->t;
    for (uint32_t at = 0; b->record_bytes && at + b->record_bytes <= b->used;
         at += b->record_bytes) {
        const uint8_t *rec = records + at;
        if (!(b->datcol & IPR_ITEM_TSC)) {
            t->timeless++;
            continue;
        }
        struct ipr_point p = {
            .ip = ipr_file_item(rec, b->datcol, b->qdatcol, IPR_ITEM_PC),
            .count = ipr_file_item(rec, b->datcol, b->qdatcol, IPR_ITEM_COUNT),
            .cpu = (b->datcol & IPR_ITEM_CPU)
                       ? (uint32_t)ipr_file_item(rec, b->datcol, b->qdatcol, IPR_ITEM_CPU)
                       : b->cpu,
            .counter = (uint32_t)ipr_file_item(rec, b->datcol, b->qdatcol, IPR_ITEM_COUNTER),
            .file = r->file,
            .has_ip = (b->datcol & IPR_ITEM_PC) != 0,
            .has_count = (b->datcol & IPR_ITEM_COUNT) != 0,
        };
        if (!p.has_ip && !p.has_count)
            continue; /* a time and nothing to show at it */
        if (p.cpu >= r->num_cpus) {
            size_t n = (size_t)p.cpu + 1;
            uint64_t *grown = realloc(r->last_tsc, n * sizeof *grown);
            if (!grown)
                return STOP_NO_MEMORY;
            memset(grown + r->num_cpus, 0, (n - r->num_cpus) * sizeof *grown);
            r->last_tsc = grown;
            r->num_cpus = n;
        }
        p.tsc = ipr_file_item(rec, b->datcol, b->qdatcol, IPR_ITEM_TSC);
        if (!(b->qdatcol & IPR_ITEM_TSC)) {
            uint64_t last = r->last_tsc[p.cpu];
            p.tsc |= last & ~(uint64_t)UINT32_MAX;
            if (p.tsc < last)
                p.tsc += (uint64_t)1 << 32;
        }
        r->last_tsc[p.cpu] = p.tsc;
        if (add_point(t, &p))
            return STOP_NO_MEMORY;
        t->num_samples++;
        if (p.tsc < t->first_tsc)
            t->first_tsc = p.tsc;
    }
    return 0;
}

static int by_cpu_time(const void *a, const void *b)
{
    const struct ipr_point *x = a, *y = b;
    if (x->cpu != y->cpu)
        return x->cpu < y->cpu ? -1 : 1;
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int ipr_timeline_open(struct ipr_timeline *t, const char *dir, struct diag *d)
{
    static const struct ipr_file_visitor visit = {.sbuffer = on_sbuffer};
    memset(t, 0, sizeof *t);
    t->first_tsc = UINT64_MAX;
    char **paths;
    int rc = ipr_file_list(dir, &paths, &t->num_files, d);
    if (rc || !t->num_files)
        return rc;
    t->counter_names = calloc(t->num_files * ACART_IPR_MAX_COUNTERS, sizeof *t->counter_names);
    if (!t->counter_names)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; !rc && i < t->num_files; i++) {
        struct ipr_file f;
        if ((rc = ipr_file_open(&f, paths[i], d)))
            break;
        if (!t->tsc_hz)
            t->tsc_hz = f.header.tsc_hz;
        for (uint32_t c = 0; c < ACART_IPR_MAX_COUNTERS; c++)
            ipr_file_counter_name(&f, c, t->counter_names[i * ACART_IPR_MAX_COUNTERS + c],
                                  IPR_FILE_NAME_SIZE);
        struct reader r = {t, (uint32_t)i, NULL, 0};
        rc = ipr_file_scan(&f, &visit, &r, d);
        free(r.last_tsc);
        if (rc == STOP_NO_MEMORY)
            rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        ipr_file_close(&f);
    }
    ipr_file_free_paths(paths, t->num_files);
    if (rc)
        ipr_timeline_close(t);
    else if (t->num_points)
        qsort(t->points, t->num_points, sizeof *t->points, by_cpu_time);
    return rc;
}

void ipr_timeline_close(struct ipr_timeline *t)
{
    free(t->points);
    free(t->counter_names);
    memset(t, 0, sizeof *t);
}

void ipr_timeline_write(const struct ipr_timeline *t, FILE *out, bool first, int pid,
                        uint64_t base_tsc, double us_per_tick, struct symbols *sym)
{
    if (!t->num_points)
        return;
    fprintf(out,
            "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":"
            "\"IPROBE\"}}",
            first ? "" : ",\n", pid);
    for (size_t i = 0; i < t->num_points; i++) {
        const struct ipr_point *p = &t->points[i];
        if (i == 0 || p->cpu != t->points[i - 1].cpu)
            fprintf(out,
                    ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%" PRIu32
                    ",\"args\":{\"name\":\"cpu %" PRIu32 "\"}}",
                    pid, p->cpu, p->cpu);
        double ts = p->tsc < base_tsc ? 0.0 : (double)(p->tsc - base_tsc) * us_per_tick;
        const char *name = t->counter_names[(size_t)p->file * ACART_IPR_MAX_COUNTERS +
                                            (p->counter < ACART_IPR_MAX_COUNTERS ? p->counter : 0)];
        if (p->has_ip) {
            struct code_location loc;
            char where[32];
            const char *fn = NULL;
            if (sym && symbols_lookup(sym, p->ip, &loc) == 1 && loc.symbol)
                fn = loc.symbol;
            snprintf(where, sizeof where, "0x%" PRIx64, p->ip);
            fputs(",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"iprobe\",\"name\":", out);
            json_put_string(fn ? fn : where, out);
            fprintf(out, ",\"pid\":%d,\"tid\":%" PRIu32 ",\"ts\":%.3f,\"args\":{\"ip\":\"%s\"}}",
                    pid, p->cpu, ts, where);
        }
        if (p->has_count) {
            char track[IPR_FILE_NAME_SIZE + 16];
            snprintf(track, sizeof track, "cpu%" PRIu32 " %s", p->cpu, name);
            fputs(",\n{\"ph\":\"C\",\"name\":", out);
            json_put_string(track, out);
            fprintf(out, ",\"pid\":%d,\"ts\":%.3f,\"args\":{\"count\":%" PRIu64 "}}", pid, ts,
                    p->count);
        }
    }
}
