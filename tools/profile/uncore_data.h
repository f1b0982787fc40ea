/* The uncore counts of a collection (acart collect --uncore): uncore.bin, the uncore
 * channel's records as received (docs/sep-protocol.md 6.2), and uncore.json, what they
 * hold: the events and where each record carries each count. acart report --uncore and
 * acart export csv read them through this. */
#ifndef ACART_TOOLS_UNCORE_DATA_H
#define ACART_TOOLS_UNCORE_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

#define UNCORE_DATA_MAX_EVENTS 16

struct uncore_data {
    size_t num_events;
    char *names[UNCORE_DATA_MAX_EVENTS];
    uint32_t offsets[UNCORE_DATA_MAX_EVENTS]; /* of each count in a record */
    uint32_t record_size;
    uint32_t interval_ms; /* what the host asked */
    uint64_t tsc_hz;
    size_t num_reads;
    uint64_t *tsc;    /* per read */
    uint64_t *counts; /* per read, num_events counts since START */
};

/* The uncore counts of the collection folder dir. Returns 0, 1 when it has none (no
 * uncore.json), or DIAG_INPUT with a message for a malformed or cut-off one. */
int uncore_data_load(const char *dir, struct uncore_data *u, struct diag *d);
void uncore_data_free(struct uncore_data *u);

/* The counts per interval: each read's time since the first and each event's count in
 * the interval before it, then the totals and rates. */
int uncore_data_report(const struct uncore_data *u, FILE *out);

/* uncore-hostname-HOST.csv in outdir: VTune's discrete table, each event's cumulative
 * count at every read ("tsc.RDTSC,<event>.COUNT,..."). */
int uncore_data_export_csv(const struct uncore_data *u, const char *outdir, const char *hostname,
                           struct diag *d);

#endif
