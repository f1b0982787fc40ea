/* Receiving the data channels of a collection: one thread polls every data connection
 * from START until each has reached end of file, writes each CPU channel's bytes to
 * cpu<N>.bin, the uncore channel's to uncore.bin and the module channel's to module.bin
 * exactly as received, and counts (and checks) the CPU and module records as they arrive. The
 * thread never blocks on one channel, so a target streaming while it collects (immediate transfer)
 * is read as fast as it sends, and a target sending after STOP (delayed transfer) is drained in
 * parallel. */
#ifndef ACART_TOOLS_COLLECT_DATA_H
#define ACART_TOOLS_COLLECT_DATA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "collect_link.h"
#include "collect_pt.h"
#include "collect_records.h"
#include "diag.h"

struct data_channel {
    struct link_data link;
    char *path; /* where its bytes go (cpu<N>.bin, uncore.bin, module.bin) */
    FILE *file;
    struct record_scanner scan; /* CPU and module channels */
    int scanned;
    uint64_t bytes;
    int eof;   /* the connection ended: a FIN, or a reset passed on as one */
    int reset; /* ... and the host saw the reset itself (ECONNRESET) */
};

struct data_reader {
    /* CPUs 0..num_cpus-1, uncore, module (link_open_data order), then the PT channel when
     * the collection traces (its chunks go to pt, not to a file of their own). */
    struct data_channel *ch;
    size_t n;
    uint32_t num_cpus;

    pthread_t thread;
    int running;
    atomic_int stop;
    /* For the progress display, updated as data arrives. */
    atomic_uint_fast64_t bytes, samples;
    atomic_uint_fast64_t pt_bytes; /* the PT channel's, not in bytes */
    struct collect_pt *pt;
    atomic_int open;   /* channels not yet at end of file */
    atomic_int failed; /* error holds the message */
    char error[512];
    int write_failed; /* the failure was writing a file, not receiving */
};

/* "data channel of CPU 1", "module data channel", ... into buf. */
const char *data_channel_name(const struct data_channel *c, char *buf, size_t size);

/* Takes ownership of the n connections in data (CPUs, uncore, module), creates the files
 * in dir, and prepares the record scanners (record sizes by descriptor_id in sizes).
 * Nothing is read until data_reader_start. */
int data_reader_init(struct data_reader *r, const struct link_data *data, size_t n, const char *dir,
                     const uint32_t *sizes, uint32_t num_descriptors, uint32_t num_events,
                     struct diag *d);

/* The collection traces: the PT channel's chunks go to pt (collect_pt_feed). Before
 * data_reader_start. */
void data_reader_set_pt(struct data_reader *r, struct collect_pt *pt);

/* Starts the thread. */
int data_reader_start(struct data_reader *r, struct diag *d);

/* Asks the thread to stop (if it has not already ended) and waits for it. */
void data_reader_join(struct data_reader *r);

/* After the join: flushes and closes the files, checks each channel's stream ended on a
 * record boundary with every record sensible. */
int data_reader_finish(struct data_reader *r, struct diag *d);

/* Closes whatever is still open and frees everything. */
void data_reader_free(struct data_reader *r);

#endif
