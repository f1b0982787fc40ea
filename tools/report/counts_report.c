/* report --counts and export csv for counting-mode collections (see counts.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts_report.h"
#include "file_util.h"
#include "session.h"
#include "text_escape.h"
#include "vtune_csv.h"

static int load(const char *dir, struct session *s, struct counts_table *t, struct diag *d)
{
    memset(t, 0, sizeof *t);
    char *path = file_join(dir, "session.json");
    if (!path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc = session_read(path, s, d);
    free(path);
    if (rc)
        return rc;
    if (!s->count_interval_ms) {
        session_free(s);
        return diag_fail(d, DIAG_USAGE,
                         "%s: not a counting-mode collection (acart collect --count): report "
                         "its samples without --counts",
                         dir);
    }
    path = file_join(dir, COUNTS_FILE);
    rc = path ? counts_read(path, t, d) : diag_fail(d, DIAG_NOMEM, "out of memory");
    free(path);
    if (!rc && t->num_events != s->num_events)
        rc = diag_fail(d, DIAG_INPUT, "%s: %zu events, session.json has %zu", COUNTS_FILE,
                       t->num_events, s->num_events);
    for (size_t i = 0; !rc && i < t->num_rows; i++)
        if (t->rows[i].cpu >= s->num_cpus)
            rc = diag_fail(d, DIAG_INPUT, "%s: a row of CPU %" PRIu32 " of %" PRIu32, COUNTS_FILE,
                           t->rows[i].cpu, s->num_cpus);
    if (rc) {
        session_free(s);
        counts_free(t); /* a table that read well but does not fit the session */
    }
    return rc;
}

int counts_report(const char *dir, struct diag *d)
{
    struct session s;
    struct counts_table t;
    int rc = load(dir, &s, &t, d);
    if (rc)
        return rc;
    size_t e = t.num_events;
    uint64_t *counted = calloc(e ? e : 1, sizeof *counted);
    uint64_t *ticks = calloc(e ? e : 1, sizeof *ticks);
    uint64_t *start = calloc(s.num_cpus, sizeof *start);
    uint64_t all_ticks = 0;
    if (!counted || !ticks || !start) {
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < t.num_rows; i++) {
        const struct counts_row *r = &t.rows[i];
        all_ticks += r->delta;
        if (!start[r->cpu])
            start[r->cpu] = r->tsc - r->delta;
        for (size_t k = 0; k < e; k++) {
            if (r->values[k] == COUNTS_NOT_COUNTED)
                continue;
            counted[k] += r->values[k];
            ticks[k] += r->delta;
        }
    }
    double hz = s.tsc_hz ? (double)s.tsc_hz : 1.0;
    size_t reads = t.num_rows ? t.rows[t.num_rows - 1].interval + 1 : 0;
    char name[256];
    printf("Counting: %zu events in %" PRIu32 " groups, %zu reads of %" PRIu32 " ms on %" PRIu32
           " CPUs, %.3f s counted (all CPUs)\n",
           e, s.count_groups, reads, s.count_interval_ms, s.num_cpus, (double)all_ticks / hz);
    printf("\n%16s %16s %16s %7s  %s\n", "Counted", "Per second", "Estimated", "Group", "Event");
    for (size_t k = 0; k < e; k++) {
        double secs = (double)ticks[k] / hz;
        double estimate = ticks[k] ? (double)counted[k] * (double)all_ticks / (double)ticks[k] : 0;
        printf("%16" PRIu64 " %16.0f %16.0f %7" PRIu32 "  e%zu %s\n", counted[k],
               secs > 0 ? (double)counted[k] / secs : 0.0, estimate, s.events[k].group, k,
               text_term(name, sizeof name, t.names[k]));
    }
    printf("(Per second: over the time its group counted; Estimated: scaled to all the time, "
           "when groups took turns)\n");
    printf("\n%6s %10s %4s", "Read", "Time s", "CPU");
    for (size_t k = 0; k < e; k++) {
        char head[24];
        snprintf(head, sizeof head, "e%zu", k);
        printf(" %14s", head);
    }
    printf("\n");
    for (size_t i = 0; i < t.num_rows; i++) {
        const struct counts_row *r = &t.rows[i];
        printf("%6" PRIu32 " %10.3f %4" PRIu32, r->interval, (double)(r->tsc - start[r->cpu]) / hz,
               r->cpu);
        for (size_t k = 0; k < e; k++) {
            if (r->values[k] == COUNTS_NOT_COUNTED)
                printf(" %14s", "-");
            else
                printf(" %14" PRIu64, r->values[k]);
        }
        printf("\n");
    }
out:
    free(counted);
    free(ticks);
    free(start);
    counts_free(&t);
    session_free(&s);
    return rc;
}

int counts_export_csv(const struct counts_table *t, uint32_t num_cpus, const char *outdir,
                      const char *hostname, struct diag *d)
{
    size_t e = t->num_events;
    char **names = calloc(e ? e : 1, sizeof *names);
    uint64_t *sum = calloc(e ? e : 1, sizeof *sum);
    int rc = names && sum ? 0 : diag_fail(d, DIAG_NOMEM, "out of memory");
    for (uint32_t cpu = 0; !rc && cpu < num_cpus; cpu++) {
        struct vtune_table table;
        char what[32];
        memset(&table, 0, sizeof table);
        memset(sum, 0, e * sizeof *sum);
        for (size_t k = 0; !rc && k < e; k++) {
            size_t n = strlen(t->names[k]) + 16;
            free(names[k]);
            if (!(names[k] = malloc(n)))
                rc = diag_fail(d, DIAG_NOMEM, "out of memory");
            else
                snprintf(names[k], n, "%s_cpu%" PRIu32, t->names[k], cpu);
        }
        snprintf(what, sizeof what, "counters-cpu%" PRIu32, cpu);
        char *path = rc ? NULL : vtune_csv_path(outdir, what, hostname);
        if (!rc && !path)
            rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        if (!rc)
            rc = vtune_counters_open(&table, path, (const char *const *)names, e, d);
        free(path);
        for (size_t i = 0; !rc && i < t->num_rows; i++) {
            const struct counts_row *r = &t->rows[i];
            if (r->cpu != cpu)
                continue;
            for (size_t k = 0; k < e; k++)
                if (r->values[k] != COUNTS_NOT_COUNTED)
                    sum[k] += r->values[k];
            if (vtune_counter_row(&table, r->tsc, sum) != 0)
                rc = diag_fail(d, DIAG_OUTPUT, "%s: write error", table.path);
        }
        if (table.f) {
            struct diag ignored;
            int closed = vtune_table_close(&table, rc ? &ignored : d);
            if (!rc)
                rc = closed;
        }
    }
    for (size_t k = 0; names && k < e; k++)
        free(names[k]);
    free(names);
    free(sum);
    return rc;
}
