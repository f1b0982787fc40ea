/* session.json: what `acart collect` knows about a collection besides the raw records
 * (target, TSC rate, events, sample counts, tasks). The schema is specified in
 * docs/cli.md; session_read and session_write are its only implementation. */
#ifndef ACART_TOOLS_SESSION_H
#define ACART_TOOLS_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "diag.h"

#define SESSION_FORMAT  "acart-session"
#define SESSION_VERSION 1
/* A sample names its event in an 8-bit field. */
#define SESSION_MAX_EVENTS 256
/* The fixed part of a sample record on the wire (struct sep_sample_pc). */
#define SESSION_SAMPLE_RECORD_MIN 48
/* A sample names its CPU in a 12-bit field. */
#define SESSION_MAX_CPUS 4096
/* The most return addresses a sample's call stack may hold (docs/cli.md). */
#define SESSION_MAX_CALLSTACK_DEPTH 64

enum session_transfer { SESSION_TRANSFER_DELAYED, SESSION_TRANSFER_IMMEDIATE };

struct session_event {
    uint32_t index;        /* the eventIndex that samples carry */
    char *name;            /* e.g. "CPU_CLK_UNHALTED.REF_TSC" */
    uint64_t sample_after; /* events per sample */
};

struct session_task {
    uint32_t pid, tid;
    char *name;
};

struct session_cpu {
    uint32_t cpu, apic_id, package, core, thread;
};

/* Sample records on a CPU channel are 48 bytes plus what their event descriptor appends:
 * here, at most a call stack of callstack_size / 8 little-endian return addresses,
 * innermost first, ended by the first 0 (the target zero-fills the rest). */
struct session_descriptor {
    uint32_t id;               /* the descriptor_id that records carry */
    uint32_t sample_size;      /* bytes of one record, at least 48 */
    uint32_t callstack_offset; /* where the call stack starts in a record; 0: no call stack */
    uint32_t callstack_size;   /* its bytes, a multiple of 8; 0: no call stack */
};

struct session_module {
    char *path;
    uint64_t load_address, length;
};

/* The reasons behind samples.dropped_per_cpu (the last, stuck_resets, counts PMU resets,
 * not samples). */
enum session_drop {
    SESSION_DROP_RING_FULL,
    SESSION_DROP_NO_COUNTER,
    SESSION_DROP_MALFORMED,
    SESSION_DROP_COLLISION,
    SESSION_DROP_STUCK,
    SESSION_DROP_STUCK_RESETS,
    SESSION_DROP_KINDS
};
/* Their session.json keys under samples.drop_reasons, and what the report calls them. */
extern const char *const session_drop_keys[SESSION_DROP_KINDS];
extern const char *const session_drop_names[SESSION_DROP_KINDS];

struct session {
    /* target */
    char *hostname;
    char *address;                              /* optional, NULL if absent */
    char *os_sysname, *os_release, *os_version; /* optional */
    uint64_t tsc_hz;
    uint32_t num_cpus;
    char *cpu_vendor; /* optional */
    uint32_t cpu_family, cpu_model, cpu_stepping;
    struct session_cpu *topology; /* optional: num_topology entries */
    size_t num_topology;

    enum session_transfer transfer;
    char *started_utc; /* optional, "YYYY-MM-DDThh:mm:ssZ" */
    double duration_s;

    struct session_descriptor *descriptors; /* optional: without it every record is 48 bytes */
    size_t num_descriptors;

    struct session_event *events; /* sorted by index */
    size_t num_events;

    uint64_t samples_total;
    uint64_t *samples_per_cpu; /* num_cpus entries: what the target reported sending */
    uint64_t *dropped_per_cpu; /* num_cpus entries */
    /* Optional (all or none): why each CPU dropped what it did, from the target's
     * ACART_OP_GET_DROP_REASONS; num_cpus entries each, indexed by enum session_drop. */
    uint64_t *drop_reasons[SESSION_DROP_KINDS];

    struct session_task *tasks; /* optional */
    size_t num_tasks;
    struct session_module *modules; /* optional, used only without module.bin */
    size_t num_modules;
};

/* Reads and validates path into s (zeroed first). On failure s holds nothing to free. */
int session_read(const char *path, struct session *s, struct diag *d);

/* Parses session JSON text; `name` is used in messages. */
int session_parse(const char *text, const char *name, struct session *s, struct diag *d);

/* Formats s as session JSON (malloc'ed, NUL-terminated) or returns NULL when out of memory. */
char *session_format(const struct session *s);

/* Writes s to path (replacing it). */
int session_write(const struct session *s, const char *path, struct diag *d);

void session_free(struct session *s);

/* The event with this index, or NULL. */
const struct session_event *session_event(const struct session *s, uint32_t index);

/* The collection's start (started_utc) as a time_t; -1 if the session has none. */
int session_start_time(const struct session *s, time_t *t);

/* Bytes of a sample record with this descriptor_id, or 0 if the session does not know it. */
uint32_t session_record_size(const struct session *s, uint32_t descriptor_id);

/* The descriptor with this id, or NULL (also when the session lists none). */
const struct session_descriptor *session_descriptor(const struct session *s,
                                                    uint32_t descriptor_id);

/* The deepest call stack any descriptor holds, in return addresses; 0 without call stacks. */
uint32_t session_callstack_depth(const struct session *s);

/* The name of task (pid, tid), or NULL if the session does not list it. */
const char *session_task_name(const struct session *s, uint32_t pid, uint32_t tid);

#endif
