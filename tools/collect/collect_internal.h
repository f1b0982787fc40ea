/* What the files of `acart collect` share (collect.c runs the command, collect_options.c
 * reads its command line, collect_setup.c, collect_run.c and collect_session.c are its steps,
 * collect_cut.c judges a collection cut short, collect_status.c its status line): the options, the
 * state of one collection, and the steps cmd_collect takes in SEP's order.
 * tests/fuzz/fuzz_collect.c drives the same steps against a hostile peer. Every step returns 0 or a
 * diag code with d filled in (COLLECT_DIAG_TARGET for the target's failures). */
#ifndef ACART_TOOLS_COLLECT_INTERNAL_H
#define ACART_TOOLS_COLLECT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "acart_wire.h"
#include "collect_data.h"
#include "collect_events.h"
#include "collect_layout.h"
#include "collect_lbr.h"
#include "collect_link.h"
#include "collect_pt.h"
#include "collect_sysinfo.h"
#include "collect_uncore.h"
#include "counts.h"
#include "diag.h"
#include "session.h"
#include "task_switches.h"

struct collect_options {
    const char *target, *output;
    double duration_s, timeout_s;
    int transfer; /* -1: whichever the target runs, else enum session_transfer */
    struct collect_event_spec specs[COLLECT_MAX_EVENTS]; /* as given */
    size_t num_specs;
    struct collect_events resolved; /* for the target's CPU (resolve_events) */
    const char *metrics;            /* --metrics: a metric set whose events to sample */
    struct collect_event events[COLLECT_MAX_EVENTS];
    size_t num_events;
    uint32_t mux_ms; /* --mux: each group's turn; 0: one group */
    int count;       /* --count: counting mode */
    int event_given; /* --event */
    uint32_t interval_ms;
    uint32_t callstack_depth;  /* return addresses per sample; 0: no call stacks */
    uint32_t stack_copy_bytes; /* --callstack=dwarf: stack bytes per sample; 0: none */
    int lbr;                   /* --lbr: 0 none, 1 every branch, 2 call-stack mode */
    struct collect_pt_options pt;
    struct collect_uncore uncore; /* --uncore */
};

/* The port's task switches: kept/lost per CPU (num_cpus entries) and the kept ones, CPU 0's
 * first. present: the target answered GET_TASK_SWITCHES (it may have none to give). */
struct collect_switches {
    int present;
    uint64_t *kept, *lost;
    struct task_switch *sw;
    size_t n;
};

struct collection {
    struct collect_options opt;
    struct collect_layout layout;
    struct collect_link link;
    uint32_t num_cpus;
    enum session_transfer transfer;
    struct sysinfo sys;
    struct link_data *data; /* until the reader takes them */
    struct data_reader reader;
    /* Record sizes by descriptor, which the reader's scanners borrow: they must live as long
     * as the reader thread, which a failed run leaves running until the collection ends. */
    uint32_t sample_sizes[COLLECT_MAX_GROUPS];
    struct session_task *tasks;
    size_t num_tasks;
    time_t started_wall;
    double started, stopped;
    uint64_t num_samples;              /* GET_NUM_SAMPLES */
    struct sep_sample_drop_info drops; /* GET_SAMPLE_DROP_INFO */
    struct acart_drop_reasons reasons; /* ACART_OP_GET_DROP_REASONS, if the target has it */
    int have_reasons;
    struct acart_pmi_budget budget; /* ACART_OP_GET_PMI_BUDGET, if the target has it */
    int have_budget;
    struct acart_group_times group_times; /* ACART_OP_GET_GROUP_TIMES, with --mux */
    struct counts_table counts;           /* --count: the reads */
    struct collect_pt pt;                 /* --pt */
    int pt_freeze_sent;                   /* --pt-freeze-after: PT_FREEZE went out */
    struct collect_lbr lbr;               /* --lbr */
    struct session_lbr session_lbr;
    struct acart_channel_totals totals; /* ACART_OP_GET_CHANNEL_TOTALS, if the target has it */
    int have_totals;
    struct collect_switches switches; /* ACART_OP_GET_TASK_SWITCHES, if the target has it */
    int drain_gave_up;                /* after STOP a channel stayed silent for --timeout */
};

/* ---- collect_options.c -------------------------------------------------------------- */

extern const char collect_usage[];

/* Returns -1 when the options are good, else the exit status to end with. */
int collect_parse_options(int argc, char **argv, struct collect_options *o);

/* ---- collect_status.c: the status line ---------------------------------------------- */

/* One line on stderr, rewritten in place, only when stderr is a terminal. */
struct collect_status {
    int enabled, shown;
};

void collect_status_show(struct collect_status *sl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void collect_status_clear(struct collect_status *sl);
/* width characters of '#' (done) and '.' (to do) into buf, which holds width + 1. */
void collect_status_bar(char *buf, size_t width, double fraction);

/* ---- collect_setup.c: the requests before START, in this order ---------------------- */

/* One control request whose reply has exactly want bytes. */
int collect_request(struct collection *c, uint32_t op, const void *in, size_t in_len, void *out,
                    size_t want, struct diag *d);
/* SET_OSID, VERSION, GET_DRV_SETUP_INFO, the system configuration, GET_PLATFORM_INFO,
 * NUM_CORES and GET_NORMALIZED_TSC, as SEP asks them. */
int collect_target_description(struct collection *c, struct diag *d);
/* The events by name for the target's CPU. */
int collect_resolve_events(struct collection *c, struct diag *d);
/* --lbr: the registers to ask for. */
int collect_plan_lbr(struct collection *c, struct diag *d);
/* RESERVE, INIT_DRIVER and SET_CPU_TOPOLOGY. */
int collect_configure_driver(struct collection *c, struct diag *d);
/* --pt: the negotiation, PT_CONFIG, the PT channel and the pt-cpu<N>.bin files. */
int collect_configure_pt(struct collection *c, struct diag *d);
/* The descriptors, INIT, LBR_INFO, EM_GROUPS and every group's ECB. */
int collect_configure_events(struct collection *c, struct diag *d);
/* --uncore: its events and device. */
int collect_configure_uncore(struct collection *c, struct diag *d);
/* The target's task list, for session.json. */
int collect_read_tasks(struct collection *c, struct diag *d);
int collect_init_pmu(struct collection *c, struct diag *d);
/* The target's VERSION string says it samples on a timer: it has no usable PMU. */
int collect_target_samples_on_timer(const struct collection *c);

/* ---- collect_run.c: the collection -------------------------------------------------- */

/* The control connection's handshake and the data connections (before the set-up). */
int collect_connect_target(struct collection *c, struct diag *d);
/* START, the duration, STOP and the drain of every data channel. */
int collect_run(struct collection *c, struct diag *d);
/* Counting mode: one read of every CPU's counters into c->counts. */
int collect_read_counts(struct collection *c, struct diag *d);
/* After the drain: the target's counts, drops, group times, TSC skew, PT status and
 * TERMINATE. */
int collect_results(struct collection *c, struct diag *d);

/* A request of an acart extension that a target may lack: a target without it answers
 * DRIVER_COMM_FAILED, which is no error and leaves *present 0. */
int collect_extension_request(struct collection *c, uint32_t op, const void *in, size_t in_len,
                              void *reply, size_t size, size_t min, size_t *got, int *present,
                              struct diag *d);

/* ---- collect_switches.c: the port's task switches ----------------------------------- */

/* After STOP: every CPU's task switches (ACART_OP_GET_TASK_SWITCHES) into c->switches; a
 * target without them leaves it empty. */
int collect_task_switches(struct collection *c, struct diag *d);
/* task-switches.csv, when the target had switches to give. */
int collect_write_task_switches(const struct collection *c, struct diag *d);
/* A CPU whose log filled up: a warning naming it and how many switches it lost. */
void collect_warn_lost_switches(const struct collection *c);
/* session.json's samples.task_switches, when the target had switches to give. */
int collect_switches_in_session(const struct collection *c, struct session *s, struct diag *d);
void collect_switches_free(struct collect_switches *s);

/* ---- collect_cut.c: cut is cut ------------------------------------------------------ */

/* The control connection has ended (read end of file or a reset): nothing can confirm the
 * data channels any more. */
int collect_control_lost(const struct collection *c);
/* After a failure from START on: whether the data channels were cut (the control
 * connection ended, a channel was reset or ended inside a record, or the drain gave up).
 * Stops the reader. */
int collect_channels_cut(struct collection *c);
/* Names every channel of the collection as cut, with the records each holds, before d's
 * message (the cause); returns COLLECT_DIAG_TARGET. */
int collect_report_cut(struct collection *c, struct diag *d);
/* Every data channel holds exactly what the target says it queued on it
 * (ACART_OP_GET_CHANNEL_TOTALS; nothing to check with a target without it). */
int collect_check_channels(const struct collection *c, struct diag *d);

/* ---- collect_session.c: what the collection leaves, and the checks ------------------ */

/* The GET_DROP_REASONS entry of a CPU, or NULL. */
const struct acart_drop_reasons_cpu *collect_reasons_entry(const struct collection *c,
                                                           uint32_t cpu);
/* What the target says a CPU delivered and dropped; 0 if it does not say. */
int collect_drop_entry(const struct collection *c, uint32_t cpu, struct sep_sample_drop *out);
/* session.json, and counts.csv in counting mode. */
int collect_write_session(struct collection *c, struct diag *d);
/* --uncore: uncore.json beside uncore.bin. */
int collect_write_uncore(struct collection *c, struct diag *d);
/* Every CPU channel holds exactly what the target says it sent. */
int collect_check_counts(const struct collection *c, struct diag *d);
/* No CPU stayed silent through time-based sampling long enough for 20 ticks. */
int collect_check_silent_cpus(const struct collection *c, struct diag *d);
void collect_print_summary(const struct collection *c);

#endif
