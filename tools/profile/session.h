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
#define SESSION_SAMPLE_RECORD_MAX 65536 /* a descriptor's sample_size at most */
/* A sample names its CPU in a 12-bit field. */
#define SESSION_MAX_CPUS 4096
/* The most return addresses a sample's call stack may hold (docs/cli.md). */
#define SESSION_MAX_CALLSTACK_DEPTH 64

enum session_transfer { SESSION_TRANSFER_DELAYED, SESSION_TRANSFER_IMMEDIATE };

struct session_event {
    uint32_t index;        /* the eventIndex that samples carry */
    char *name;            /* e.g. "CPU_CLK_UNHALTED.REF_TSC" */
    uint64_t sample_after; /* events per sample */
    uint32_t group;        /* its event group (multiplexed sessions; else 0) */
};

struct session_task {
    uint32_t pid, tid;
    char *name;
};

struct session_cpu {
    uint32_t cpu, apic_id, package, core, thread;
};

/* Sample records on a CPU channel are 48 bytes plus what their event descriptor appends:
 * here, a call stack of callstack_size / 8 little-endian return addresses, innermost
 * first, ended by the first 0 (the target zero-fills the rest), and the memory
 * information of load-latency samples (struct sep_latency_info, docs/sep-protocol.md
 * 6.4), all zero in samples without it. */
struct session_descriptor {
    uint32_t id;               /* the descriptor_id that records carry */
    uint32_t sample_size;      /* bytes of one record, at least 48 */
    uint32_t callstack_offset; /* where the call stack starts in a record; 0: no call stack */
    uint32_t callstack_size;   /* its bytes, a multiple of 8; 0: no call stack */
    uint32_t latency_offset;   /* where the memory information starts; 0: none */
    uint32_t latency_size;     /* its bytes, at least 24 (address, data source, latency) */
    /* The stack copy of `acart collect --callstack=dwarf` (struct acart_stack_copy and the
     * stack bytes, acart_ext.h), which the reader unwinds into the call stack; 0: none. */
    uint32_t stack_copy_offset;
    uint32_t stack_copy_size;
};

struct session_module {
    char *path;
    uint64_t load_address, length;
};

/* Intel PT sideband (docs/pt.md): how the CPUs traced, and the facts libipt needs to
 * decode and time the packets of pt-cpu<N>.bin. */
#define SESSION_PT_VERSION     1
#define SESSION_PT_MAX_FILTERS 4

enum session_pt_mode { SESSION_PT_FULL, SESSION_PT_SNAPSHOT };
enum session_pt_freeze {
    SESSION_PT_FREEZE_HOST,
    SESSION_PT_FREEZE_API,
    SESSION_PT_FREEZE_EXCEPTION
};

struct session_pt_filter {
    uint64_t start, end; /* end inclusive, as in IA32_RTIT_ADDRn_B */
    char *name;          /* optional */
};

/* Bytes of trace the target dropped just before file offset `offset` of pt-cpu<N>.bin. */
struct session_pt_loss {
    uint64_t offset, bytes;
};

struct session_pt_cpu {
    uint64_t bytes;               /* the size pt-cpu<N>.bin should have */
    int wrapped;                  /* snapshot: older trace was overwritten */
    struct session_pt_loss *lost; /* increasing offsets; num_lost entries */
    size_t num_lost;
};

struct session_pt {
    enum session_pt_mode mode;
    uint64_t rtit_ctl;
    uint32_t cpuid_15_eax, cpuid_15_ebx, cpuid_15_ecx;
    uint32_t mtc_freq, nom_freq;
    struct session_pt_filter filters[SESSION_PT_MAX_FILTERS];
    size_t num_filters;
    int has_freeze;
    enum session_pt_freeze freeze_reason;
    uint64_t freeze_code, freeze_tsc;
    struct session_pt_cpu *per_cpu; /* num_cpus entries, indexed by CPU */
};

/* LBRs in the records (docs/sep-protocol.md 6.3, `acart collect --lbr`): at `offset` of
 * every record, num_regs raw u64 MSR values, register regs[i] each; the CPU's LBR format
 * (IA32_PERF_CAPABILITIES[5:0], 63 architectural), depth and whether INFO MSRs were read
 * say how they decode; call_stack: recorded in call-stack mode (the stack is the chain of
 * open calls, innermost first). */
#define SESSION_LBR_MAX_REGS 97 /* TOS, then FROM, TO and INFO of 32 entries */
enum session_lbr_kind {
    SESSION_LBR_TOS,
    SESSION_LBR_FROM,
    SESSION_LBR_TO,
    SESSION_LBR_INFO,
    SESSION_LBR_NONE
};
struct session_lbr_reg {
    uint8_t kind;  /* enum session_lbr_kind */
    uint8_t index; /* stack entry by MSR index, below 32 */
};
struct session_lbr {
    uint32_t format, depth;
    int has_info, call_stack;
    uint32_t offset;
    uint32_t num_regs;
    struct session_lbr_reg regs[SESSION_LBR_MAX_REGS];
};

/* TSC ticks per MTC period, 2^mtc_freq * ebx / eax; 0 when leaf 0x15 is unknown. */
double session_pt_mtc_to_tsc(const struct session_pt *pt);

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

/* The target's PMI budget per CPU (ACART_OP_GET_PMI_BUDGET; docs/pmu.md): a CPU whose
 * sampling interrupts came too often or took too long had its periods doubled `throttles`
 * times, the first at first_raise_tsc; its samples after that stand for more events than
 * the event's sample-after. Arrays of num_cpus entries. */
enum session_budget_field {
    SESSION_BUDGET_PMIS,         /* PMIs the CPU took */
    SESSION_BUDGET_THROTTLES,    /* raises of its periods (each doubled them) */
    SESSION_BUDGET_RATE_LOWERED, /* its PMIs took too long: its rate was lowered */
    SESSION_BUDGET_MAX_PMI_TSC,  /* the longest PMI, TSC ticks */
    SESSION_BUDGET_FIRST_RAISE,  /* TSC of its first raise; 0 without one */
    SESSION_BUDGET_FIELDS
};
extern const char *const session_budget_keys[SESSION_BUDGET_FIELDS];
struct session_budget {
    uint32_t max_rate_hz, cpu_percent; /* as configured on the target */
    uint64_t *per_cpu[SESSION_BUDGET_FIELDS];
};

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
    struct session_budget *budget; /* optional: NULL from a target without the budget */
    /* Optional (both or none): the task switches the port reported on each CPU
     * (ACART_OP_GET_TASK_SWITCHES), kept in task-switches.csv (task_switches.h), and those
     * after its log was full; num_cpus entries each. */
    uint64_t *switches_kept, *switches_lost;

    struct session_task *tasks; /* optional */
    size_t num_tasks;
    struct session_module *modules; /* optional, used only without module.bin */
    size_t num_modules;
    struct session_pt *pt;   /* optional: NULL for a collection without Intel PT */
    struct session_lbr *lbr; /* optional: NULL for a collection without LBRs */
    /* Optional, multiplexed collections only (num_groups > 1): event groups took turns
     * on the counters, mux_ms each; per CPU the TSC ticks it counted (group_enabled) and
     * each group had the counters (group_running[cpu * num_groups + g]). */
    uint32_t num_groups;
    uint32_t mux_ms;
    uint64_t *group_enabled;
    uint64_t *group_running;
    /* Optional: a counting-mode collection (collect --count), whose time series is
     * counts.csv (counts.h): every count_interval_ms the counts of count_groups groups
     * taking turns (each event's `group`). 0: a sampling collection. */
    uint32_t count_interval_ms;
    uint32_t count_groups;
};

/* A multiplexed event's estimated count: samples x sample-after, scaled by the time its
 * group's CPUs were enabled over the time the group counted. Without multiplexing, or
 * when the group never counted, samples x sample-after. running and enabled (summed over
 * the CPUs, TSC ticks) are set when the session is multiplexed. */
double session_scaled_count(const struct session *s, const struct session_event *ev,
                            uint64_t samples, uint64_t *running, uint64_t *enabled);

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
