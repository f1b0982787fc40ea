/* Counting mode's counts (counts.csv, counts.h) as `acart report --counts` and
 * `acart export csv` show them (counts_report.c). */
#ifndef ACART_TOOLS_COUNTS_REPORT_H
#define ACART_TOOLS_COUNTS_REPORT_H

#include <stdint.h>

#include "counts.h"
#include "diag.h"

/* `acart report --counts DIR`: the collection's counts per event and
 * its time series. Returns 0 or a diag code. */
int counts_report(const char *dir, struct diag *d);

/* `acart export csv` of a counting collection: counters-cpu<N>-hostname-NAME.csv per CPU,
 * VTune's discrete table, a row per read with each event's cumulative count on that CPU
 * (an event keeps its count through the intervals its group did not count). */
int counts_export_csv(const struct counts_table *t, uint32_t num_cpus, const char *outdir,
                      const char *hostname, struct diag *d);

#endif
