/* VTune's CSV format for external data (interval and discrete tables), as its user guide
 * specifies: one table per file, named "<what>-hostname-<hostname>.csv", comma-separated,
 * header row first, timestamps as RDTSC values. */
#ifndef ACART_TOOLS_VTUNE_CSV_H
#define ACART_TOOLS_VTUNE_CSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

struct vtune_table {
    FILE *f;
    char *path;
    size_t columns;
};

/* "<dir>/<what>-hostname-<hostname>.csv", malloc'ed; NULL when out of memory. */
char *vtune_csv_path(const char *dir, const char *what, const char *hostname);

/* An interval table "name,start_tsc.RDTSC,end_tsc,pid,tid": one row per task interval. */
int vtune_intervals_open(struct vtune_table *t, const char *path, struct diag *d);
int vtune_interval(struct vtune_table *t, const char *name, uint64_t start_tsc, uint64_t end_tsc,
                   uint32_t pid, uint32_t tid);

/* A discrete table "tsc.RDTSC,<counter>.COUNT,...": cumulative counter values. */
int vtune_counters_open(struct vtune_table *t, const char *path, const char *const *counters,
                        size_t num_counters, struct diag *d);
int vtune_counter_row(struct vtune_table *t, uint64_t tsc, const uint64_t *values);

/* A counter or task name as a CSV field: the format has no quoting, so separators, quotes
 * and line breaks become '_'. For counters (strict) everything but letters, digits and
 * '_' does, since VTune reads the part after the last '.' as the column's kind. */
void vtune_field(char *dst, size_t size, const char *src, int strict);

/* Closes the file; reports a write error that happened on any row. */
int vtune_table_close(struct vtune_table *t, struct diag *d);

#endif
