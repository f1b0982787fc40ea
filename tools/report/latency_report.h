/* acart report --latency: the loads that load-latency samples measured (acart collect
 * --event MEM_TRANS_RETIRED.LOAD_LATENCY_GT_N:precise), as a latency histogram per data
 * source and an average latency per function. */
#ifndef ACART_TOOLS_LATENCY_REPORT_H
#define ACART_TOOLS_LATENCY_REPORT_H

#include <stdint.h>

#include "diag.h"
#include "profile.h"
#include "symbols.h"

/* Latency buckets: [0, 8), then each power of two up to [512, 1024), then 1024 and more. */
#define LATENCY_BUCKETS 9

/* The bucket of a latency in core cycles. */
unsigned latency_bucket(uint64_t cycles);

/* The name of a data source encoding (the low 4 bits of the record's data source) as the
 * model's table (enum pmu_pebs_dse) decodes it; NULL when the model's table is unknown. */
const char *latency_source_name(unsigned table, uint64_t data_source);

/* Scans p (opened) and prints the histogram per data source and the top functions by
 * loads (all for top 0); sym may be NULL. */
int latency_report(struct profile *p, struct symbols *sym, uint64_t top, struct diag *d);

#endif
