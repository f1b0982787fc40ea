#include "vtune_csv.h"

#include "text_escape.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

char *vtune_csv_path(const char *dir, const char *what, const char *hostname)
{
    /* The host name usually comes from the target: it must not leave dir or name a
     * hidden or special file. */
    size_t hn = text_escape_filename(NULL, 0, hostname) + 1;
    char *host = malloc(hn);
    if (!host)
        return NULL;
    text_escape_filename(host, hn, hostname);
    size_t n = strlen(dir) + strlen(what) + hn + sizeof "/-hostname-.csv";
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s-hostname-%s.csv", dir, what, host);
    free(host);
    return p;
}

void vtune_field(char *dst, size_t size, const char *src, int strict)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++) {
        unsigned char c = (unsigned char)src[i];
        int keep = strict ? (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9') || c == '_'
                          : c >= 0x20 && c != ',' && c != '"';
        dst[i] = keep ? (char)c : '_';
    }
    dst[i] = '\0';
}

static int open_table(struct vtune_table *t, const char *path, struct diag *d)
{
    t->path = strdup(path);
    t->f = t->path ? fopen(path, "w") : NULL;
    if (!t->path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (!t->f) {
        int rc = diag_fail(d, DIAG_OUTPUT, "%s: %s", path, strerror(errno));
        free(t->path);
        t->path = NULL;
        return rc;
    }
    return 0;
}

int vtune_intervals_open(struct vtune_table *t, const char *path, struct diag *d)
{
    int rc = open_table(t, path, d);
    if (rc)
        return rc;
    t->columns = 5;
    fputs("name,start_tsc.RDTSC,end_tsc,pid,tid\n", t->f);
    return 0;
}

int vtune_interval(struct vtune_table *t, const char *name, uint64_t start_tsc, uint64_t end_tsc,
                   uint32_t pid, uint32_t tid)
{
    char field[256];
    vtune_field(field, sizeof field, name, 0);
    return fprintf(t->f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu32 "\n", field, start_tsc,
                   end_tsc, pid, tid) < 0
               ? -1
               : 0;
}

int vtune_counters_open(struct vtune_table *t, const char *path, const char *const *counters,
                        size_t num_counters, struct diag *d)
{
    int rc = open_table(t, path, d);
    if (rc)
        return rc;
    t->columns = 1 + num_counters;
    fputs("tsc.RDTSC", t->f);
    for (size_t i = 0; i < num_counters; i++) {
        char field[256];
        vtune_field(field, sizeof field, counters[i], 1);
        fprintf(t->f, ",%s.COUNT", field);
    }
    fputc('\n', t->f);
    return 0;
}

int vtune_counter_row(struct vtune_table *t, uint64_t tsc, const uint64_t *values)
{
    fprintf(t->f, "%" PRIu64, tsc);
    for (size_t i = 0; i + 1 < t->columns; i++)
        fprintf(t->f, ",%" PRIu64, values[i]);
    return fputc('\n', t->f) == EOF ? -1 : 0;
}

int vtune_table_close(struct vtune_table *t, struct diag *d)
{
    int rc = 0;
    if (t->f) {
        int failed = ferror(t->f);
        int err = errno;
        if (fclose(t->f) != 0 && !failed) {
            failed = 1;
            err = errno;
        }
        if (failed)
            rc = diag_fail(d, DIAG_OUTPUT, "%s: write error: %s", t->path, strerror(err));
    }
    free(t->path);
    t->f = NULL;
    t->path = NULL;
    return rc;
}
