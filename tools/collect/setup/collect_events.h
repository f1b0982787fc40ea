/* `acart collect --event NAME[:sa=N][:precise][,NAME...]`: the names parsed, then
 * resolved for the target's CPU against acart's built-in events and Intel's perfmon
 * tables (perfmon/perfmon.h), with the counters' constraints checked, into the events
 * collect_ecb_build programs. */
#ifndef ACART_TOOLS_COLLECT_EVENTS_H
#define ACART_TOOLS_COLLECT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "collect_ecb.h"
#include "diag.h"

#define COLLECT_EVENT_NAME_MAX 128
/* Multiplexing (`collect --mux MS`): events in up to COLLECT_MAX_GROUPS groups that take
 * turns on the counters, COLLECT_MAX_EVENTS in all (the target's limits, sampler.h). */
#define COLLECT_MAX_GROUPS 8
#define COLLECT_MAX_EVENTS 32

/* One event as the user wrote it. */
struct collect_event_spec {
    char name[COLLECT_EVENT_NAME_MAX];
    uint64_t sample_after; /* 0: the event's default */
    int precise;
};

/* What the target says of its CPU. */
struct collect_target_cpu {
    uint32_t family, model; /* CPUID display family and model (the target status) */
    int pmu;                /* it samples with the PMU (not on a timer) */
    uint32_t gp_counters;   /* general counters it reports (CPUID 0xA); 0: unknown */
};

/* Adds the comma-separated events of arg to specs[*n..max). Returns 0, or -1 with a
 * message in err (a usage error). */
int collect_events_parse(const char *arg, struct collect_event_spec *specs, size_t *n, size_t max,
                         char *err, size_t err_len);

/* `collect --metrics NAME`: the events metric set NAME needs on cpu, into specs[0..*n).
 * Only "tma1" (metrics.h), on the SKL table's models. Returns 0, or DIAG_USAGE (unknown
 * set, a model without it) / COLLECT_DIAG_TARGET (no PMU) with a message. */
int collect_events_metrics(const char *name, const struct collect_target_cpu *cpu,
                           struct collect_event_spec *specs, size_t *n, struct diag *d);

/* Resolved events: their definitions live here. */
struct collect_events {
    struct collect_event_def defs[COLLECT_MAX_EVENTS];
    char names[COLLECT_MAX_EVENTS][COLLECT_EVENT_NAME_MAX];
    struct collect_event events[COLLECT_MAX_EVENTS];
    size_t num_events;
    /* Group g holds events [group_start[g], group_start[g + 1]); one group unless
     * collect_events_resolve_groups made more. */
    size_t num_groups;
    size_t group_start[COLLECT_MAX_GROUPS + 1];
    const char *table; /* "perfmon SKL version 59" when a name came from perfmon, else "" */
    char table_buf[64];
};

/* Resolves specs[0..n) for cpu into out. Built-in names (the fixed counters) work on any
 * target, time-based ones included; every other name needs the PMU and the perfmon table
 * of the target's model. Returns 0, or DIAG_USAGE with a message naming the event and
 * what is wrong: unknown event (with near names), no PMU, unknown model, precise on an
 * event without PEBS, too many events for the counters. */
int collect_events_resolve(const struct collect_event_spec *specs, size_t n,
                           const struct collect_target_cpu *cpu, struct collect_events *out,
                           struct diag *d);

/* The same for a multiplexed collection: up to COLLECT_MAX_EVENTS events, packed in order
 * into as few groups as the counters allow (a group ends before the first event that does
 * not fit it), at most COLLECT_MAX_GROUPS. Errors as above, for an event that fits no
 * group even alone, or for more groups than that. */
int collect_events_resolve_groups(const struct collect_event_spec *specs, size_t n,
                                  const struct collect_target_cpu *cpu, struct collect_events *out,
                                  struct diag *d);

#endif
