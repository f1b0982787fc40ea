/* IPROBE sample files (`acart fetch`) as trace-event JSON for `acart export perfetto`:
 * process pid holds a thread per CPU with an instant per sample-buffer record that has a
 * PC (named by its function), and a counter track per CPU and counter ("cpuN NAME") from
 * the records that hold the interrupting counter's count (counter 0's name when they do
 * not say which counter interrupted). Time stamps of 4 bytes (IPR_DATA_TSC outside
 * qdatcol: the TSC's low half) are extended across their wraps, per CPU in file order,
 * which holds while a CPU's consecutive records lie less than 2^32 ticks apart; their time
 * 0 is then not the TSC's. Records without a time stamp
 * (no IPR_DATA_TSC) cannot be placed and are counted instead. */
#ifndef ACART_TOOLS_IPR_TIMELINE_H
#define ACART_TOOLS_IPR_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "ipr_file.h"
#include "symbols.h"

struct ipr_point;

struct ipr_timeline {
    size_t num_files;
    uint64_t tsc_hz;      /* the first file's; 0 when there is none */
    uint64_t first_tsc;   /* UINT64_MAX when no record has a time */
    uint64_t timeless;    /* records without a time stamp */
    uint64_t num_samples; /* records placed */
    struct ipr_point *points;
    size_t num_points, cap;
    char (*counter_names)[IPR_FILE_NAME_SIZE]; /* per file, ACART_IPR_MAX_COUNTERS each */
};

/* Reads every IPROBE sample file of folder dir (none is not an error: num_files 0). */
int ipr_timeline_open(struct ipr_timeline *t, const char *dir, struct diag *d);
void ipr_timeline_close(struct ipr_timeline *t);

/* Writes the events, each but the first preceded by ",\n" (the first too unless first);
 * times in microseconds from base_tsc. sym names the samples' functions (NULL: by
 * address). Nothing when no record was placed. */
void ipr_timeline_write(const struct ipr_timeline *t, FILE *out, bool first, int pid,
                        uint64_t base_tsc, double us_per_tick, struct symbols *sym);

#endif
