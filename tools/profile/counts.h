/* Counting mode's time series (`acart collect --count`): counts.csv in the collection
 * folder, written by collect, read by `report --counts` and `export csv`.
 *
 * A header "interval,cpu,group,tsc,tsc_delta,EVENT,..." and one row per read of the
 * counters and CPU: the read's number (0, 1, ...), the CPU, the event group that counted * in that
 * interval, the target's TSC as the read went out (GET_NORMALIZED_TSC just before it: the
 * interval's end), the interval's TSC ticks on that CPU, then each event's count in it; the events
 * of the other groups have an empty field (they did not count). Event names are perfmon's, which
 * hold no commas. */
#ifndef ACART_TOOLS_COUNTS_H
#define ACART_TOOLS_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define COUNTS_FILE        "counts.csv"
#define COUNTS_NOT_COUNTED UINT64_MAX /* a value of an event whose group was not counting */

struct counts_row {
    uint32_t interval, cpu, group;
    uint64_t tsc, delta;
    uint64_t *values; /* one per event, COUNTS_NOT_COUNTED for the other groups' */
};

struct counts_table {
    size_t num_events;
    char **names;
    struct counts_row *rows;
    size_t num_rows, cap;
};

/* An empty table of these events (names copied). Returns 0 or DIAG_NOMEM. */
int counts_init(struct counts_table *t, const char *const *names, size_t num_events,
                struct diag *d);

/* Appends a row; values (num_events of them) are copied. Returns 0 or DIAG_NOMEM. */
int counts_add(struct counts_table *t, const struct counts_row *row, struct diag *d);

int counts_write(const struct counts_table *t, const char *path, struct diag *d);

/* Reads path into t. Returns 0, or DIAG_INPUT naming the line that is wrong, or the
 * error of reading the file. */
int counts_read(const char *path, struct counts_table *t, struct diag *d);

void counts_free(struct counts_table *t);

#endif
