/* Intel PT in `acart collect --pt` (docs/pt.md, docs/sep-protocol.md 4.4): the negotiation
 * (ACART_OP_EXTENSIONS, PT_INFO, PT_CONFIG), the PT data connection, its chunks written to
 * pt-cpu<N>.bin as they arrive, and after the drain the target's PT_STATUS checked against
 * what arrived and turned into session.json's pt member. */
#ifndef ACART_TOOLS_COLLECT_PT_H
#define ACART_TOOLS_COLLECT_PT_H

#include <stdint.h>
#include <stdio.h>

#include "acart_wire.h"
#include "collect_link.h"
#include "diag.h"
#include "session.h"

struct collect_pt_options {
    int enabled;
    int snapshot;                             /* --pt-snapshot */
    int cyc;                                  /* --pt-cyc */
    int no_tsc, no_mtc;                       /* --pt-no-tsc, --pt-no-mtc */
    uint32_t cpl;                             /* ACART_PT_OS and/or ACART_PT_USER (--pt-cpl) */
    const char *filters[ACART_PT_MAX_RANGES]; /* --pt-filter, as given */
    size_t num_filters;
    const char *elf;     /* --elf: the image --pt-filter SYMBOL is looked up in */
    double freeze_after; /* --pt-freeze-after: seconds after START, 0 for none */
};

/* One CPU's trace as it arrives. */
struct collect_pt_cpu {
    char *path;
    FILE *file;
    uint64_t bytes; /* written to the file */
    int ended;
    int wrapped;
    struct session_pt_loss *lost;
    size_t num_lost, cap_lost;
};

struct collect_pt {
    struct collect_pt_options opt;
    struct acart_pt_info info;
    struct acart_pt_config config;
    struct acart_pt_config_reply reply;
    char *filter_names[ACART_PT_MAX_RANGES]; /* what the user asked for, per range */
    uint32_t num_cpus;
    struct collect_pt_cpu *cpus;
    /* The PT channel's parser (the reader thread's). */
    uint8_t header[sizeof(struct acart_pt_chunk)];
    size_t header_fill;
    struct acart_pt_chunk chunk;
    uint32_t payload_left;
    int failed, write_failed;
    char error[256];
    /* After the drain. */
    struct acart_pt_status status;
};

/* Parses one --pt-filter value into opt (the names are resolved by collect_pt_configure).
 * Returns 0, or -1 when there are already ACART_PT_MAX_RANGES. */
int collect_pt_add_filter(struct collect_pt_options *opt, const char *arg);

/* EXTENSIONS, PT_INFO and PT_CONFIG. Fails with the target's reason when it has no Intel
 * PT, and with the name that did not resolve for a bad --pt-filter. */
int collect_pt_configure(struct collect_pt *pt, struct collect_link *l, uint32_t num_cpus,
                         struct diag *d);

/* Opens the PT data connection (its handshake answer must say ACART_DATA_PT). */
int collect_pt_open_channel(struct collect_link *l, struct link_data *out, struct diag *d);

/* Creates pt-cpu<N>.bin in dir for every CPU. */
int collect_pt_open_files(struct collect_pt *pt, const char *dir, struct diag *d);

/* The reader thread: the PT channel's next bytes. A malformed chunk sets pt->failed with
 * pt->error saying what. */
void collect_pt_feed(struct collect_pt *pt, const uint8_t *buf, size_t len);

/* During the collection (snapshot mode): *frozen = 1 once the target froze its rings. */
int collect_pt_poll_frozen(struct collect_pt *pt, struct collect_link *l, int *frozen,
                           struct diag *d);

/* During the collection (snapshot mode): PT_FREEZE, the host's freeze of every CPU's
 * ring (--pt-freeze-after). */
int collect_pt_freeze(struct collect_link *l, struct diag *d);

/* After the drain, before TERMINATE: closes the files, reads PT_STATUS and checks every
 * CPU's trace ended where the target says, with the losses it reported. */
int collect_pt_results(struct collect_pt *pt, struct collect_link *l, struct diag *d);

/* session.json's pt member (malloc'ed; session_free frees it), or NULL when out of memory. */
struct session_pt *collect_pt_session(struct collect_pt *pt);

/* One line for the summary. */
void collect_pt_summary(const struct collect_pt *pt, FILE *out);

void collect_pt_free(struct collect_pt *pt);

#endif
