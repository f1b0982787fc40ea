/* counts.csv (see counts.h). */
#include "counts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"

static const char *const fixed_columns[] = {"interval", "cpu", "group", "tsc", "tsc_delta"};
#define FIXED_COLUMNS (sizeof fixed_columns / sizeof fixed_columns[0])

int counts_init(struct counts_table *t, const char *const *names, size_t num_events, struct diag *d)
{
    memset(t, 0, sizeof *t);
    t->names = calloc(num_events ? num_events : 1, sizeof *t->names);
    if (!t->names)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    t->num_events = num_events;
    for (size_t i = 0; i < num_events; i++)
        if (!(t->names[i] = strdup(names[i])))
            return diag_fail(d, DIAG_NOMEM, "out of memory");
    return 0;
}

int counts_add(struct counts_table *t, const struct counts_row *row, struct diag *d)
{
    if (t->num_rows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct counts_row *rows = realloc(t->rows, cap * sizeof *rows);
        if (!rows)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        t->rows = rows;
        t->cap = cap;
    }
    struct counts_row *r = &t->rows[t->num_rows];
    *r = *row;
    r->values = malloc((t->num_events ? t->num_events : 1) * sizeof *r->values);
    if (!r->values)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    memcpy(r->values, row->values, t->num_events * sizeof *r->values);
    t->num_rows++;
    return 0;
}

int counts_write(const struct counts_table *t, const char *path, struct diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return diag_fail(d, DIAG_OUTPUT, "%s: %s", path, strerror(errno));
    for (size_t i = 0; i < FIXED_COLUMNS; i++)
        fprintf(f, "%s%s", i ? "," : "", fixed_columns[i]);
    for (size_t e = 0; e < t->num_events; e++)
        fprintf(f, ",%s", t->names[e]);
    fputc('\n', f);
    for (size_t i = 0; i < t->num_rows; i++) {
        const struct counts_row *r = &t->rows[i];
        fprintf(f, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, r->interval, r->cpu,
                r->group, r->tsc, r->delta);
        for (size_t e = 0; e < t->num_events; e++) {
            if (r->values[e] == COUNTS_NOT_COUNTED)
                fputc(',', f);
            else
                fprintf(f, ",%" PRIu64, r->values[e]);
        }
        fputc('\n', f);
    }
    int failed = ferror(f);
    if (fclose(f) || failed)
        return diag_fail(d, DIAG_OUTPUT, "%s: write error", path);
    return 0;
}

/* The next comma-separated field of *p, NUL-terminated in place. */
static char *field(char **p)
{
    char *start = *p, *comma = strchr(start, ',');
    if (comma) {
        *comma = 0;
        *p = comma + 1;
    } else {
        *p = start + strlen(start);
    }
    return start;
}

static int number(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!text[0] || text[0] == '-')
        return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse(char *text, const char *path, struct counts_table *t, struct diag *d)
{
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    if (!line)
        return diag_fail(d, DIAG_INPUT, "%s: empty", path);
    size_t columns = 1;
    for (const char *c = line; *c; c++)
        columns += *c == ',';
    if (columns <= FIXED_COLUMNS)
        return diag_fail(d, DIAG_INPUT, "%s: line 1: expected %s and events", path,
                         "interval,cpu,group,tsc,tsc_delta");
    const char **names = calloc(columns, sizeof *names);
    if (!names)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    char *p = line;
    int rc = 0;
    for (size_t i = 0; i < columns; i++) {
        names[i] = field(&p);
        if (i < FIXED_COLUMNS && strcmp(names[i], fixed_columns[i]) != 0)
            rc = diag_fail(d, DIAG_INPUT, "%s: line 1: column %zu is not %s", path, i + 1,
                           fixed_columns[i]);
    }
    if (!rc)
        rc = counts_init(t, names + FIXED_COLUMNS, columns - FIXED_COLUMNS, d);
    free(names);
    uint64_t *values = rc ? NULL : calloc(columns, sizeof *values);
    if (!rc && !values)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t n = 2; !rc && (line = strtok_r(NULL, "\n", &save)) != NULL; n++) {
        uint64_t fixed[FIXED_COLUMNS] = {0};
        size_t commas = 0, got = 0;
        for (const char *c = line; *c; c++)
            commas += *c == ',';
        p = line;
        for (; commas + 1 == columns && got < columns; got++) {
            const char *f = field(&p);
            uint64_t *slot = got < FIXED_COLUMNS ? &fixed[got] : &values[got - FIXED_COLUMNS];
            if (!f[0] && got >= FIXED_COLUMNS)
                *slot = COUNTS_NOT_COUNTED;
            else if (number(f, slot))
                break;
        }
        if (got != columns || fixed[0] > UINT32_MAX || fixed[1] > UINT32_MAX ||
            fixed[2] > UINT32_MAX) {
            rc = diag_fail(d, DIAG_INPUT, "%s: line %zu: expected %zu fields", path, n, columns);
            break;
        }
        struct counts_row r = {(uint32_t)fixed[0], (uint32_t)fixed[1], (uint32_t)fixed[2],
                               fixed[3],           fixed[4],           values};
        rc = counts_add(t, &r, d);
    }
    free(values);
    return rc;
}

int counts_read(const char *path, struct counts_table *t, struct diag *d)
{
    char *text;
    size_t len;
    memset(t, 0, sizeof *t);
    int rc = file_read_all(path, &text, &len, d);
    if (rc)
        return rc;
    rc = parse(text, path, t, d);
    free(text);
    if (rc)
        counts_free(t);
    return rc;
}

void counts_free(struct counts_table *t)
{
    for (size_t i = 0; t->names && i < t->num_events; i++)
        free(t->names[i]);
    free(t->names);
    for (size_t i = 0; i < t->num_rows; i++)
        free(t->rows[i].values);
    free(t->rows);
    memset(t, 0, sizeof *t);
}
