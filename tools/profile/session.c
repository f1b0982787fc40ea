#define _GNU_SOURCE /* strptime, timegm */
#include "session.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acart_wire.h"
#include "file_util.h"

/* JSON numbers are doubles: integers above 2^53 would silently lose bits. */
#define JSON_MAX_EXACT_INTEGER 9007199254740992.0

struct reader {
    const char *name; /* file name for messages */
    struct diag *d;
};

static int bad(struct reader *r, const char *field, const char *what)
{
    return diag_fail(r->d, DIAG_INPUT, "%s: %s: %s", r->name, field, what);
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static int get_uint(struct reader *r, const cJSON *obj, const char *key, const char *field,
                    uint64_t max, bool required, uint64_t *out)
{
    const cJSON *v = member(obj, key);
    if (!v) {
        if (required)
            return bad(r, field, "missing");
        return 0;
    }
    double x = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    if (!cJSON_IsNumber(v) || x < 0 || x != floor(x) || x > JSON_MAX_EXACT_INTEGER ||
        (uint64_t)x > max)
        return bad(r, field, "expected a non-negative integer in range");
    *out = (uint64_t)x;
    return 0;
}

static int get_u32(struct reader *r, const cJSON *obj, const char *key, const char *field,
                   bool required, uint32_t *out)
{
    uint64_t v = *out;
    int rc = get_uint(r, obj, key, field, UINT32_MAX, required, &v);
    *out = (uint32_t)v;
    return rc;
}

static int get_string(struct reader *r, const cJSON *obj, const char *key, const char *field,
                      bool required, char **out)
{
    const cJSON *v = member(obj, key);
    if (!v) {
        if (required)
            return bad(r, field, "missing");
        return 0;
    }
    if (!cJSON_IsString(v))
        return bad(r, field, "expected a string");
    *out = strdup(v->valuestring);
    if (!*out)
        return diag_fail(r->d, DIAG_NOMEM, "%s: out of memory", r->name);
    return 0;
}

/* Addresses are strings ("0x1000" or decimal): they may exceed what a JSON double holds. */
static int get_address(struct reader *r, const cJSON *obj, const char *key, const char *field,
                       uint64_t *out)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return bad(r, field, "missing");
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return bad(r, field, "expected an address string such as \"0x100000\"");
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v->valuestring, &end, 0);
    if (errno || *end || v->valuestring[0] == '-')
        return bad(r, field, "expected an address string such as \"0x100000\"");
    *out = x;
    return 0;
}

static int get_array(struct reader *r, const cJSON *obj, const char *key, const char *field,
                     bool required, const cJSON **out)
{
    const cJSON *v = member(obj, key);
    *out = NULL;
    if (!v) {
        if (required)
            return bad(r, field, "missing");
        return 0;
    }
    if (!cJSON_IsArray(v))
        return bad(r, field, "expected an array");
    *out = v;
    return 0;
}

static int get_object(struct reader *r, const cJSON *obj, const char *key, const char *field,
                      bool required, const cJSON **out)
{
    const cJSON *v = member(obj, key);
    *out = NULL;
    if (!v) {
        if (required)
            return bad(r, field, "missing");
        return 0;
    }
    if (!cJSON_IsObject(v))
        return bad(r, field, "expected an object");
    *out = v;
    return 0;
}

static void *alloc_array(struct reader *r, size_t n, size_t size, int *rc)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *rc = diag_fail(r->d, DIAG_NOMEM, "%s: out of memory", r->name);
    return p;
}

/* Reads one entry of a list into its struct (zeroed); i is its place in the list. */
typedef int read_entry_fn(struct reader *r, const cJSON *e, void *entry, size_t i, void *ctx);

/* The lists of session.json: every entry of arr is an object (else `entries`, the list's
 * name with "[]", is "expected objects"), read by fn in order into the array at base of
 * structs of size bytes each, one per entry. */
static int read_entries(struct reader *r, const cJSON *arr, const char *entries, void *base,
                        size_t size, read_entry_fn *fn, void *ctx)
{
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        if (!cJSON_IsObject(e))
            return bad(r, entries, "expected objects");
        int rc = fn(r, e, (char *)base + i * size, i, ctx);
        if (rc)
            return rc;
        i++;
    }
    return 0;
}

static int read_cpu(struct reader *r, const cJSON *e, void *entry, size_t i, void *ctx)
{
    struct session_cpu *c = entry;
    const struct session *s = ctx;
    int rc;
    (void)i;
    if ((rc = get_u32(r, e, "cpu", "target.topology[].cpu", true, &c->cpu)) ||
        (rc = get_u32(r, e, "apic_id", "target.topology[].apic_id", false, &c->apic_id)) ||
        (rc = get_u32(r, e, "package", "target.topology[].package", false, &c->package)) ||
        (rc = get_u32(r, e, "core", "target.topology[].core", false, &c->core)) ||
        (rc = get_u32(r, e, "thread", "target.topology[].thread", false, &c->thread)))
        return rc;
    if (c->cpu >= s->num_cpus)
        return bad(r, "target.topology[].cpu", "not below target.num_cpus");
    return 0;
}

static int read_target(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *t, *os, *sig, *topo;
    int rc;
    if ((rc = get_object(r, root, "target", "target", true, &t)) ||
        (rc = get_string(r, t, "hostname", "target.hostname", true, &s->hostname)) ||
        (rc = get_string(r, t, "address", "target.address", false, &s->address)) ||
        (rc = get_uint(r, t, "tsc_hz", "target.tsc_hz", UINT64_MAX, true, &s->tsc_hz)) ||
        (rc = get_u32(r, t, "num_cpus", "target.num_cpus", true, &s->num_cpus)) ||
        (rc = get_object(r, t, "os", "target.os", false, &os)) ||
        (rc = get_object(r, t, "cpu_signature", "target.cpu_signature", true, &sig)) ||
        (rc = get_array(r, t, "topology", "target.topology", false, &topo)))
        return rc;
    if (!s->hostname[0] || strpbrk(s->hostname, "/\\"))
        return bad(r, "target.hostname", "expected a non-empty name without slashes");
    if (s->tsc_hz == 0)
        return bad(r, "target.tsc_hz", "must be positive");
    if (s->num_cpus == 0 || s->num_cpus > SESSION_MAX_CPUS)
        return bad(r, "target.num_cpus", "must be 1 to 4096");
    if (os && ((rc = get_string(r, os, "sysname", "target.os.sysname", false, &s->os_sysname)) ||
               (rc = get_string(r, os, "release", "target.os.release", false, &s->os_release)) ||
               (rc = get_string(r, os, "version", "target.os.version", false, &s->os_version))))
        return rc;
    if ((rc = get_string(r, sig, "vendor", "target.cpu_signature.vendor", false, &s->cpu_vendor)) ||
        (rc = get_u32(r, sig, "family", "target.cpu_signature.family", true, &s->cpu_family)) ||
        (rc = get_u32(r, sig, "model", "target.cpu_signature.model", true, &s->cpu_model)) ||
        (rc = get_u32(r, sig, "stepping", "target.cpu_signature.stepping", true, &s->cpu_stepping)))
        return rc;
    if (!topo)
        return 0;
    s->num_topology = (size_t)cJSON_GetArraySize(topo);
    s->topology = alloc_array(r, s->num_topology, sizeof *s->topology, &rc);
    if (!s->topology)
        return rc;
    return read_entries(r, topo, "target.topology[]", s->topology, sizeof *s->topology, read_cpu,
                        s);
}

static int compare_event_index(const void *a, const void *b)
{
    const struct session_event *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int read_event(struct reader *r, const cJSON *e, void *entry, size_t i, void *ctx)
{
    struct session_event *ev = entry;
    int rc;
    (void)i;
    (void)ctx;
    if ((rc = get_u32(r, e, "index", "events[].index", true, &ev->index)) ||
        (rc = get_string(r, e, "name", "events[].name", true, &ev->name)) ||
        (rc = get_uint(r, e, "sample_after", "events[].sample_after", UINT64_MAX, true,
                       &ev->sample_after)) ||
        (rc = get_u32(r, e, "group", "events[].group", false, &ev->group)))
        return rc;
    if (ev->index >= SESSION_MAX_EVENTS)
        return bad(r, "events[].index", "must be below 256");
    if (!ev->name[0])
        return bad(r, "events[].name", "must not be empty");
    return 0;
}

static int read_events(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *arr;
    int rc;
    if ((rc = get_array(r, root, "events", "events", true, &arr)))
        return rc;
    s->num_events = (size_t)cJSON_GetArraySize(arr);
    if (s->num_events == 0 || s->num_events > SESSION_MAX_EVENTS)
        return bad(r, "events", "expected 1 to 256 events");
    s->events = alloc_array(r, s->num_events, sizeof *s->events, &rc);
    if (!s->events)
        return rc;
    if ((rc = read_entries(r, arr, "events[]", s->events, sizeof *s->events, read_event, NULL)))
        return rc;
    qsort(s->events, s->num_events, sizeof *s->events, compare_event_index);
    /* Samples name their event by its position in the list the host configured. */
    for (size_t i = 0; i < s->num_events; i++)
        if (s->events[i].index != i)
            return bad(r, "events[].index", "expected 0, 1, ... once each");
    return 0;
}

/* Both members or neither (files written before call stacks have neither). */
static int read_callstack_layout(struct reader *r, const cJSON *e, struct session_descriptor *desc)
{
    int rc;
    if ((rc = get_u32(r, e, "callstack_offset", "descriptors[].callstack_offset", false,
                      &desc->callstack_offset)) ||
        (rc = get_u32(r, e, "callstack_size", "descriptors[].callstack_size", false,
                      &desc->callstack_size)))
        return rc;
    if (desc->callstack_size == 0) {
        if (desc->callstack_offset != 0)
            return bad(r, "descriptors[].callstack_offset", "set, but callstack_size is 0");
        return 0;
    }
    if (desc->callstack_size % 8 != 0 || desc->callstack_size > 8 * SESSION_MAX_CALLSTACK_DEPTH)
        return bad(r, "descriptors[].callstack_size",
                   "must be a multiple of 8 up to 512 (64 return addresses)");
    if (desc->callstack_offset < SESSION_SAMPLE_RECORD_MIN ||
        (uint64_t)desc->callstack_offset + desc->callstack_size > desc->sample_size)
        return bad(r, "descriptors[].callstack_offset",
                   "the call stack must lie after the first 48 bytes and inside sample_size");
    return 0;
}

/* Both members or neither (files written before load-latency samples have neither). */
static int read_latency_layout(struct reader *r, const cJSON *e, struct session_descriptor *desc)
{
    int rc;
    if ((rc = get_u32(r, e, "latency_offset", "descriptors[].latency_offset", false,
                      &desc->latency_offset)) ||
        (rc = get_u32(r, e, "latency_size", "descriptors[].latency_size", false,
                      &desc->latency_size)))
        return rc;
    if (desc->latency_offset == 0 && desc->latency_size == 0)
        return 0;
    if (desc->latency_offset < SESSION_SAMPLE_RECORD_MIN || desc->latency_offset % 8 != 0 ||
        desc->latency_size < SEP_LATENCY_INFO_FILLED ||
        (uint64_t)desc->latency_offset + desc->latency_size > desc->sample_size)
        return bad(r, "descriptors[].latency_offset",
                   "the memory information (24 bytes or more) must lie after the first 48 "
                   "bytes, 8-byte aligned, inside sample_size");
    return 0;
}

/* Both members or neither (files written before stack copies have neither). */
static int read_stack_copy_layout(struct reader *r, const cJSON *e, struct session_descriptor *desc)
{
    int rc;
    if ((rc = get_u32(r, e, "stack_copy_offset", "descriptors[].stack_copy_offset", false,
                      &desc->stack_copy_offset)) ||
        (rc = get_u32(r, e, "stack_copy_size", "descriptors[].stack_copy_size", false,
                      &desc->stack_copy_size)))
        return rc;
    if (desc->stack_copy_offset == 0 && desc->stack_copy_size == 0)
        return 0;
    if (desc->stack_copy_offset < SESSION_SAMPLE_RECORD_MIN || desc->stack_copy_offset % 8 != 0 ||
        desc->stack_copy_size < ACART_STACK_COPY_HEAD ||
        desc->stack_copy_size > ACART_STACK_COPY_HEAD + ACART_STACK_COPY_MAX ||
        (uint64_t)desc->stack_copy_offset + desc->stack_copy_size > desc->sample_size)
        return bad(r, "descriptors[].stack_copy_offset",
                   "the stack copy (208 bytes and at most 8 KiB of stack) must lie after the "
                   "first 48 bytes, 8-byte aligned, inside sample_size");
    return 0;
}

static int read_descriptor(struct reader *r, const cJSON *e, void *entry, size_t i, void *ctx)
{
    struct session_descriptor *desc = entry;
    const struct session *s = ctx;
    int rc;
    if ((rc = get_u32(r, e, "id", "descriptors[].id", true, &desc->id)) ||
        (rc = get_u32(r, e, "sample_size", "descriptors[].sample_size", true, &desc->sample_size)))
        return rc;
    if (desc->sample_size < SESSION_SAMPLE_RECORD_MIN ||
        desc->sample_size > SESSION_SAMPLE_RECORD_MAX)
        return bad(r, "descriptors[].sample_size", "must be 48 to 65536");
    if ((rc = read_callstack_layout(r, e, desc)) || (rc = read_latency_layout(r, e, desc)) ||
        (rc = read_stack_copy_layout(r, e, desc)))
        return rc;
    for (size_t j = 0; j < i; j++)
        if (s->descriptors[j].id == desc->id)
            return bad(r, "descriptors[].id", "appears twice");
    return 0;
}

static int read_descriptors(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *arr;
    int rc;
    if ((rc = get_array(r, root, "descriptors", "descriptors", false, &arr)) || !arr)
        return rc;
    s->num_descriptors = (size_t)cJSON_GetArraySize(arr);
    s->descriptors = alloc_array(r, s->num_descriptors, sizeof *s->descriptors, &rc);
    if (!s->descriptors)
        return rc;
    return read_entries(r, arr, "descriptors[]", s->descriptors, sizeof *s->descriptors,
                        read_descriptor, s);
}

static int read_counts(struct reader *r, const cJSON *obj, const char *key, const char *field,
                       uint32_t n, uint64_t **out)
{
    const cJSON *arr, *e;
    int rc;
    if ((rc = get_array(r, obj, key, field, true, &arr)))
        return rc;
    if ((uint32_t)cJSON_GetArraySize(arr) != n)
        return bad(r, field, "expected one entry per CPU (target.num_cpus)");
    *out = alloc_array(r, n, sizeof **out, &rc);
    if (!*out)
        return rc;
    size_t i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        double x = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
        if (x < 0 || x != floor(x) || x > JSON_MAX_EXACT_INTEGER)
            return bad(r, field, "expected non-negative integers");
        (*out)[i++] = (uint64_t)x;
    }
    return 0;
}

const char *const session_drop_keys[SESSION_DROP_KINDS] = {
    "ring_full", "no_counter", "malformed", "collision", "stuck_pmi", "stuck_resets"};
const char *const session_drop_names[SESSION_DROP_KINDS] = {
    "buffer full",    "no matching counter", "malformed PEBS record",
    "PEBS collision", "stuck PMI",           "PMU resets"};

static int read_drop_reasons(struct reader *r, const cJSON *samples, struct session *s)
{
    static const char *const fields[SESSION_DROP_KINDS] = {
        "samples.drop_reasons.ring_full", "samples.drop_reasons.no_counter",
        "samples.drop_reasons.malformed", "samples.drop_reasons.collision",
        "samples.drop_reasons.stuck_pmi", "samples.drop_reasons.stuck_resets"};
    const cJSON *obj;
    int rc;
    if ((rc = get_object(r, samples, "drop_reasons", "samples.drop_reasons", false, &obj)) || !obj)
        return rc;
    for (int k = 0; k < SESSION_DROP_KINDS; k++)
        if ((rc = read_counts(r, obj, session_drop_keys[k], fields[k], s->num_cpus,
                              &s->drop_reasons[k])))
            return rc;
    for (uint32_t c = 0; c < s->num_cpus; c++) {
        uint64_t sum = 0;
        for (int k = 0; k < SESSION_DROP_STUCK_RESETS; k++)
            sum += s->drop_reasons[k][c];
        if (sum != s->dropped_per_cpu[c])
            return bad(r, "samples.drop_reasons", "do not add up to samples.dropped_per_cpu");
    }
    return 0;
}

const char *const session_budget_keys[SESSION_BUDGET_FIELDS] = {"pmis", "throttles", "rate_lowered",
                                                                "max_pmi_tsc", "first_raise_tsc"};

/* "samples.pmi_budget": {"max_rate_hz": R, "cpu_percent": P, and per CPU each of
 * session_budget_keys}. */
static int read_budget(struct reader *r, const cJSON *samples, struct session *s)
{
    static const char *const fields[SESSION_BUDGET_FIELDS] = {
        "samples.pmi_budget.pmis", "samples.pmi_budget.throttles",
        "samples.pmi_budget.rate_lowered", "samples.pmi_budget.max_pmi_tsc",
        "samples.pmi_budget.first_raise_tsc"};
    const cJSON *obj;
    int rc;
    if ((rc = get_object(r, samples, "pmi_budget", "samples.pmi_budget", false, &obj)) || !obj)
        return rc;
    s->budget = alloc_array(r, 1, sizeof *s->budget, &rc);
    if (!s->budget)
        return rc;
    if ((rc = get_u32(r, obj, "max_rate_hz", "samples.pmi_budget.max_rate_hz", true,
                      &s->budget->max_rate_hz)) ||
        (rc = get_u32(r, obj, "cpu_percent", "samples.pmi_budget.cpu_percent", true,
                      &s->budget->cpu_percent)))
        return rc;
    for (int k = 0; k < SESSION_BUDGET_FIELDS; k++)
        if ((rc = read_counts(r, obj, session_budget_keys[k], fields[k], s->num_cpus,
                              &s->budget->per_cpu[k])))
            return rc;
    return 0;
}

/* "samples.task_switches": {"kept": [per CPU], "lost": [per CPU]}. */
static int read_switches(struct reader *r, const cJSON *samples, struct session *s)
{
    const cJSON *obj;
    int rc;
    if ((rc = get_object(r, samples, "task_switches", "samples.task_switches", false, &obj)) ||
        !obj)
        return rc;
    if ((rc = read_counts(r, obj, "kept", "samples.task_switches.kept", s->num_cpus,
                          &s->switches_kept)) ||
        (rc = read_counts(r, obj, "lost", "samples.task_switches.lost", s->num_cpus,
                          &s->switches_lost)))
        return rc;
    return 0;
}

static int read_samples(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *obj;
    int rc;
    if ((rc = get_object(r, root, "samples", "samples", true, &obj)) ||
        (rc = get_uint(r, obj, "total", "samples.total", UINT64_MAX, true, &s->samples_total)) ||
        (rc =
             read_counts(r, obj, "per_cpu", "samples.per_cpu", s->num_cpus, &s->samples_per_cpu)) ||
        (rc = read_counts(r, obj, "dropped_per_cpu", "samples.dropped_per_cpu", s->num_cpus,
                          &s->dropped_per_cpu)) ||
        (rc = read_drop_reasons(r, obj, s)) || (rc = read_budget(r, obj, s)) ||
        (rc = read_switches(r, obj, s)))
        return rc;
    return 0;
}

static int read_task(struct reader *r, const cJSON *e, void *entry, size_t i, void *ctx)
{
    struct session_task *t = entry;
    int rc;
    (void)i;
    (void)ctx;
    if ((rc = get_u32(r, e, "pid", "tasks[].pid", true, &t->pid)) ||
        (rc = get_u32(r, e, "tid", "tasks[].tid", true, &t->tid)) ||
        (rc = get_string(r, e, "name", "tasks[].name", true, &t->name)))
        return rc;
    return 0;
}

static int read_tasks(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *arr;
    int rc;
    if ((rc = get_array(r, root, "tasks", "tasks", false, &arr)) || !arr)
        return rc;
    s->num_tasks = (size_t)cJSON_GetArraySize(arr);
    s->tasks = alloc_array(r, s->num_tasks, sizeof *s->tasks, &rc);
    if (!s->tasks)
        return rc;
    return read_entries(r, arr, "tasks[]", s->tasks, sizeof *s->tasks, read_task, NULL);
}

static int read_module(struct reader *r, const cJSON *e, void *entry, size_t i, void *ctx)
{
    struct session_module *m = entry;
    int rc;
    (void)i;
    (void)ctx;
    if ((rc = get_string(r, e, "path", "modules[].path", true, &m->path)) ||
        (rc = get_address(r, e, "load_address", "modules[].load_address", &m->load_address)) ||
        (rc = get_address(r, e, "length", "modules[].length", &m->length)))
        return rc;
    return 0;
}

static int read_modules(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *arr;
    int rc;
    if ((rc = get_array(r, root, "modules", "modules", false, &arr)) || !arr)
        return rc;
    s->num_modules = (size_t)cJSON_GetArraySize(arr);
    s->modules = alloc_array(r, s->num_modules, sizeof *s->modules, &rc);
    if (!s->modules)
        return rc;
    return read_entries(r, arr, "modules[]", s->modules, sizeof *s->modules, read_module, NULL);
}

static int get_bool(struct reader *r, const cJSON *obj, const char *key, const char *field,
                    int *out)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return 0;
    if (!cJSON_IsBool(v))
        return bad(r, field, "expected true or false");
    *out = cJSON_IsTrue(v);
    return 0;
}

double session_pt_mtc_to_tsc(const struct session_pt *pt)
{
    if (!pt->cpuid_15_eax)
        return 0.0;
    return ldexp((double)pt->cpuid_15_ebx / pt->cpuid_15_eax, (int)pt->mtc_freq);
}

static int read_loss(struct reader *r, const cJSON *l, void *entry, size_t i, void *ctx)
{
    struct session_pt_loss *x = entry;
    const struct session_pt_cpu *c = ctx;
    int rc;
    if ((rc = get_uint(r, l, "offset", "pt.per_cpu[].lost[].offset", c->bytes, true, &x->offset)) ||
        (rc = get_uint(r, l, "bytes", "pt.per_cpu[].lost[].bytes", UINT64_MAX, true, &x->bytes)))
        return rc;
    if (i > 0 && x->offset <= c->lost[i - 1].offset)
        return bad(r, "pt.per_cpu[].lost[].offset", "expected increasing offsets");
    return 0;
}

static int read_pt_cpus(struct reader *r, const cJSON *pt, struct session *s)
{
    const cJSON *arr, *e;
    int rc;
    if ((rc = get_array(r, pt, "per_cpu", "pt.per_cpu", true, &arr)))
        return rc;
    if ((uint32_t)cJSON_GetArraySize(arr) != s->num_cpus)
        return bad(r, "pt.per_cpu", "expected one entry per CPU (target.num_cpus)");
    s->pt->per_cpu = alloc_array(r, s->num_cpus, sizeof *s->pt->per_cpu, &rc);
    if (!s->pt->per_cpu)
        return rc;
    bool *seen = alloc_array(r, s->num_cpus, sizeof *seen, &rc);
    if (!seen)
        return rc;
    cJSON_ArrayForEach(e, arr)
    {
        uint32_t cpu = 0;
        const cJSON *lost;
        if (!cJSON_IsObject(e))
            rc = bad(r, "pt.per_cpu[]", "expected objects");
        else if (!(rc = get_u32(r, e, "cpu", "pt.per_cpu[].cpu", true, &cpu)) &&
                 (cpu >= s->num_cpus || seen[cpu]))
            rc = bad(r, "pt.per_cpu[].cpu", "expected each CPU below target.num_cpus once");
        if (rc)
            break;
        seen[cpu] = true;
        struct session_pt_cpu *c = &s->pt->per_cpu[cpu];
        if ((rc = get_uint(r, e, "bytes", "pt.per_cpu[].bytes", UINT64_MAX, true, &c->bytes)) ||
            (rc = get_bool(r, e, "wrapped", "pt.per_cpu[].wrapped", &c->wrapped)) ||
            (rc = get_array(r, e, "lost", "pt.per_cpu[].lost", false, &lost)))
            break;
        if (!lost)
            continue;
        c->num_lost = (size_t)cJSON_GetArraySize(lost);
        c->lost = alloc_array(r, c->num_lost, sizeof *c->lost, &rc);
        if (!c->lost)
            break;
        if ((rc = read_entries(r, lost, "pt.per_cpu[].lost[]", c->lost, sizeof *c->lost, read_loss,
                               c)))
            break;
    }
    free(seen);
    return rc;
}

static int read_filter(struct reader *r, const cJSON *e, void *entry, size_t i, void *ctx)
{
    struct session_pt_filter *f = entry;
    int rc;
    (void)i;
    (void)ctx;
    if ((rc = get_address(r, e, "start", "pt.filters[].start", &f->start)) ||
        (rc = get_address(r, e, "end", "pt.filters[].end", &f->end)) ||
        (rc = get_string(r, e, "name", "pt.filters[].name", false, &f->name)))
        return rc;
    if (f->end < f->start)
        return bad(r, "pt.filters[].end", "below start");
    return 0;
}

static int read_pt_filters(struct reader *r, const cJSON *pt, struct session_pt *p)
{
    const cJSON *arr;
    int rc;
    if ((rc = get_array(r, pt, "filters", "pt.filters", false, &arr)) || !arr)
        return rc;
    if (cJSON_GetArraySize(arr) > SESSION_PT_MAX_FILTERS)
        return bad(r, "pt.filters", "at most 4 ranges (IA32_RTIT_ADDR0..3)");
    p->num_filters = (size_t)cJSON_GetArraySize(arr);
    return read_entries(r, arr, "pt.filters[]", p->filters, sizeof p->filters[0], read_filter,
                        NULL);
}

static int read_pt_freeze(struct reader *r, const cJSON *pt, struct session_pt *p)
{
    static const char *const reasons[] = {"host", "api", "exception"};
    const cJSON *fz, *v;
    int rc;
    if ((rc = get_object(r, pt, "freeze", "pt.freeze", false, &fz)) || !fz)
        return rc;
    p->has_freeze = 1;
    v = member(fz, "reason");
    size_t k = 0;
    while (k < 3 && !(cJSON_IsString(v) && strcmp(v->valuestring, reasons[k]) == 0))
        k++;
    if (k == 3)
        return bad(r, "pt.freeze.reason", "expected \"host\", \"api\" or \"exception\"");
    p->freeze_reason = (enum session_pt_freeze)k;
    if ((rc = get_uint(r, fz, "code", "pt.freeze.code", UINT64_MAX, false, &p->freeze_code)) ||
        (rc = get_uint(r, fz, "tsc", "pt.freeze.tsc", UINT64_MAX, false, &p->freeze_tsc)))
        return rc;
    return 0;
}

static int read_pt(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *pt, *v;
    int rc;
    uint32_t version = 0;
    if ((rc = get_object(r, root, "pt", "pt", false, &pt)) || !pt)
        return rc;
    s->pt = alloc_array(r, 1, sizeof *s->pt, &rc);
    if (!s->pt)
        return rc;
    struct session_pt *p = s->pt;
    if ((rc = get_u32(r, pt, "version", "pt.version", true, &version)))
        return rc;
    if (version != SESSION_PT_VERSION)
        return bad(r, "pt.version", "only version 1 is supported");
    v = member(pt, "mode");
    if (cJSON_IsString(v) && strcmp(v->valuestring, "full") == 0)
        p->mode = SESSION_PT_FULL;
    else if (cJSON_IsString(v) && strcmp(v->valuestring, "snapshot") == 0)
        p->mode = SESSION_PT_SNAPSHOT;
    else
        return bad(r, "pt.mode", "expected \"full\" or \"snapshot\"");
    if ((rc = get_address(r, pt, "rtit_ctl", "pt.rtit_ctl", &p->rtit_ctl)) ||
        (rc = get_u32(r, pt, "cpuid_15_eax", "pt.cpuid_15_eax", true, &p->cpuid_15_eax)) ||
        (rc = get_u32(r, pt, "cpuid_15_ebx", "pt.cpuid_15_ebx", true, &p->cpuid_15_ebx)) ||
        (rc = get_u32(r, pt, "cpuid_15_ecx", "pt.cpuid_15_ecx", false, &p->cpuid_15_ecx)) ||
        (rc = get_u32(r, pt, "mtc_freq", "pt.mtc_freq", true, &p->mtc_freq)) ||
        (rc = get_u32(r, pt, "nom_freq", "pt.nom_freq", true, &p->nom_freq)))
        return rc;
    /* MSR_PLATFORM_INFO[15:8]. */
    if (p->nom_freq > 255)
        return bad(r, "pt.nom_freq", "expected 0 to 255 (MSR_PLATFORM_INFO bits 15:8)");
    /* IA32_RTIT_CTL.MTCFreq, bits 17:14. */
    if (p->mtc_freq > 15 || p->mtc_freq != ((p->rtit_ctl >> 14) & 0xf))
        return bad(r, "pt.mtc_freq", "expected IA32_RTIT_CTL.MTCFreq (bits 17:14 of rtit_ctl)");
    v = member(pt, "mtc_to_tsc");
    if (v) {
        double want = session_pt_mtc_to_tsc(p);
        if (!cJSON_IsNumber(v) || fabs(v->valuedouble - want) > want * 1e-9)
            return bad(r, "pt.mtc_to_tsc", "expected 2^mtc_freq * cpuid_15_ebx / cpuid_15_eax");
    }
    if ((rc = read_pt_filters(r, pt, p)) || (rc = read_pt_freeze(r, pt, p)) ||
        (rc = read_pt_cpus(r, pt, s)))
        return rc;
    return 0;
}

static int parse_utc(const char *text, time_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end)
        return -1;
    if (*end == '.') /* fractions of a second are allowed and ignored */
        for (end++; *end >= '0' && *end <= '9';)
            end++;
    if (strcmp(end, "Z") != 0)
        return -1;
    *out = timegm(&tm);
    return 0;
}

static int check_started_utc(struct reader *r, const struct session *s)
{
    time_t t;
    if (s->started_utc && parse_utc(s->started_utc, &t) != 0)
        return bad(r, "started_utc", "expected UTC time as \"YYYY-MM-DDThh:mm:ssZ\"");
    return 0;
}

/* "multiplexing": {"groups": G, "switch_ms": M, "enabled_tsc": [per CPU],
 *                  "running_tsc": [[per group] per CPU]} */
static int read_multiplexing(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *obj, *arr, *e;
    int rc;
    if ((rc = get_object(r, root, "multiplexing", "multiplexing", false, &obj)) || !obj)
        return rc;
    if ((rc = get_u32(r, obj, "groups", "multiplexing.groups", true, &s->num_groups)) ||
        (rc = get_u32(r, obj, "switch_ms", "multiplexing.switch_ms", true, &s->mux_ms)) ||
        (rc = read_counts(r, obj, "enabled_tsc", "multiplexing.enabled_tsc", s->num_cpus,
                          &s->group_enabled)) ||
        (rc = get_array(r, obj, "running_tsc", "multiplexing.running_tsc", true, &arr)))
        return rc;
    if (s->num_groups < 2 || s->num_groups > SESSION_MAX_EVENTS)
        return bad(r, "multiplexing.groups", "expected 2 to 256 groups");
    if ((uint32_t)cJSON_GetArraySize(arr) != s->num_cpus)
        return bad(r, "multiplexing.running_tsc", "expected one entry per CPU");
    s->group_running =
        alloc_array(r, (size_t)s->num_cpus * s->num_groups, sizeof *s->group_running, &rc);
    if (!s->group_running)
        return rc;
    size_t cpu = 0;
    cJSON_ArrayForEach(e, arr)
    {
        const cJSON *x;
        size_t g = 0;
        if (!cJSON_IsArray(e) || (uint32_t)cJSON_GetArraySize(e) != s->num_groups)
            return bad(r, "multiplexing.running_tsc", "expected one time per group per CPU");
        cJSON_ArrayForEach(x, e)
        {
            double v = cJSON_IsNumber(x) ? x->valuedouble : -1.0;
            if (v < 0 || v != floor(v) || v > JSON_MAX_EXACT_INTEGER)
                return bad(r, "multiplexing.running_tsc", "expected non-negative integers");
            s->group_running[cpu * s->num_groups + g++] = (uint64_t)v;
        }
        cpu++;
    }
    for (size_t i = 0; i < s->num_events; i++)
        if (s->events[i].group >= s->num_groups)
            return bad(r, "events[].group", "must be below multiplexing.groups");
    return 0;
}

static const char *const lbr_kind_names[] = {"tos", "from", "to", "info", "none"};

/* "tos", "none", or from/to/info followed by the entry's index. */
static int parse_lbr_reg(const char *text, struct session_lbr_reg *out)
{
    for (int k = 0; k <= SESSION_LBR_NONE; k++) {
        size_t n = strlen(lbr_kind_names[k]);
        if (strncmp(text, lbr_kind_names[k], n) != 0)
            continue;
        out->kind = (uint8_t)k;
        out->index = 0;
        if (k == SESSION_LBR_TOS || k == SESSION_LBR_NONE)
            return text[n] ? -1 : 0;
        char *end;
        unsigned long idx = strtoul(text + n, &end, 10);
        if (text[n] < '0' || text[n] > '9' || *end || idx >= 32)
            return -1;
        out->index = (uint8_t)idx;
        return 0;
    }
    return -1;
}

static int read_lbr(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *obj, *arr, *e;
    int rc;
    if ((rc = get_object(r, root, "lbr", "lbr", false, &obj)) || !obj)
        return rc;
    struct session_lbr *l = s->lbr = alloc_array(r, 1, sizeof *s->lbr, &rc);
    if (!l)
        return rc;
    if ((rc = get_u32(r, obj, "format", "lbr.format", true, &l->format)) ||
        (rc = get_u32(r, obj, "depth", "lbr.depth", true, &l->depth)) ||
        (rc = get_bool(r, obj, "has_info", "lbr.has_info", &l->has_info)) ||
        (rc = get_bool(r, obj, "call_stack", "lbr.call_stack", &l->call_stack)) ||
        (rc = get_u32(r, obj, "offset", "lbr.offset", true, &l->offset)) ||
        (rc = get_array(r, obj, "registers", "lbr.registers", true, &arr)))
        return rc;
    if ((l->format > 7 && l->format != 63) || l->depth == 0 || l->depth > 64)
        return bad(r, "lbr", "format must be 0 to 7 or 63, depth 1 to 64");
    int n = cJSON_GetArraySize(arr);
    if (n < 1 || n > SESSION_LBR_MAX_REGS)
        return bad(r, "lbr.registers", "expected 1 to 97 registers");
    cJSON_ArrayForEach(e, arr)
    {
        if (!cJSON_IsString(e) || parse_lbr_reg(e->valuestring, &l->regs[l->num_regs]) != 0)
            return bad(r, "lbr.registers[]", "expected \"tos\", \"none\", or fromN, toN, infoN");
        l->num_regs++;
    }
    if (l->offset < SESSION_SAMPLE_RECORD_MIN || l->offset % 8)
        return bad(r, "lbr.offset", "must be a multiple of 8, at least 48");
    for (size_t i = 0; i < s->num_descriptors; i++)
        if ((uint64_t)l->offset + 8ull * l->num_regs > s->descriptors[i].sample_size)
            return bad(r, "lbr.offset",
                       "the registers must lie inside every descriptor's sample_size");
    if (!s->descriptors)
        return bad(r, "lbr", "needs descriptors (records longer than 48 bytes)");
    return 0;
}

/* "counting": {"interval_ms": MS, "groups": G} */
static int read_counting(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *obj;
    int rc;
    if ((rc = get_object(r, root, "counting", "counting", false, &obj)) || !obj)
        return rc;
    if ((rc =
             get_u32(r, obj, "interval_ms", "counting.interval_ms", true, &s->count_interval_ms)) ||
        (rc = get_u32(r, obj, "groups", "counting.groups", true, &s->count_groups)))
        return rc;
    if (s->count_interval_ms == 0)
        return bad(r, "counting.interval_ms", "must be positive");
    if (s->count_groups == 0 || s->count_groups > SESSION_MAX_EVENTS)
        return bad(r, "counting.groups", "expected 1 to 256 groups");
    for (size_t i = 0; i < s->num_events; i++)
        if (s->events[i].group >= s->count_groups)
            return bad(r, "events[].group", "must be below counting.groups");
    return 0;
}

static int read_root(struct reader *r, const cJSON *root, struct session *s)
{
    const cJSON *v;
    int rc;
    if (!cJSON_IsObject(root))
        return diag_fail(r->d, DIAG_INPUT, "%s: expected a JSON object", r->name);
    v = member(root, "format");
    if (!cJSON_IsString(v) || strcmp(v->valuestring, SESSION_FORMAT) != 0)
        return bad(r, "format", "expected \"" SESSION_FORMAT "\"");
    uint32_t version = 0;
    if ((rc = get_u32(r, root, "version", "version", true, &version)))
        return rc;
    if (version != SESSION_VERSION)
        return diag_fail(r->d, DIAG_INPUT, "%s: version %" PRIu32 " is not supported (only %d)",
                         r->name, version, SESSION_VERSION);
    if ((rc = read_target(r, root, s)))
        return rc;
    v = member(root, "transfer");
    if (cJSON_IsString(v) && strcmp(v->valuestring, "delayed") == 0)
        s->transfer = SESSION_TRANSFER_DELAYED;
    else if (cJSON_IsString(v) && strcmp(v->valuestring, "immediate") == 0)
        s->transfer = SESSION_TRANSFER_IMMEDIATE;
    else
        return bad(r, "transfer", "expected \"delayed\" or \"immediate\"");
    v = member(root, "duration_s");
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0))
        return bad(r, "duration_s", "expected a non-negative number of seconds");
    s->duration_s = v->valuedouble;
    if ((rc = get_string(r, root, "started_utc", "started_utc", false, &s->started_utc)) ||
        (rc = check_started_utc(r, s)) || (rc = read_descriptors(r, root, s)) ||
        (rc = read_events(r, root, s)) || (rc = read_samples(r, root, s)) ||
        (rc = read_tasks(r, root, s)) || (rc = read_modules(r, root, s)) ||
        (rc = read_pt(r, root, s)) || (rc = read_multiplexing(r, root, s)) ||
        (rc = read_lbr(r, root, s)) || (rc = read_counting(r, root, s)))
        return rc;
    return 0;
}

int session_parse(const char *text, const char *name, struct session *s, struct diag *d)
{
    struct reader r = {name, d};
    memset(s, 0, sizeof *s);
    /* Strict: text after the object is an error too, not silently ignored. */
    const char *at = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &at, 1);
    if (!root)
        return diag_fail(d, DIAG_INPUT, "%s: not valid JSON (near byte %td)", name,
                         at ? at - text : (ptrdiff_t)0);
    int rc = read_root(&r, root, s);
    cJSON_Delete(root);
    if (rc)
        session_free(s);
    return rc;
}

int session_read(const char *path, struct session *s, struct diag *d)
{
    char *text;
    size_t len;
    memset(s, 0, sizeof *s);
    int rc = file_read_all(path, &text, &len, d);
    if (rc)
        return rc;
    if (strlen(text) != len) {
        free(text);
        return diag_fail(d, DIAG_INPUT, "%s: contains a NUL byte", path);
    }
    rc = session_parse(text, path, s, d);
    free(text);
    return rc;
}

/* Builders return false when cJSON ran out of memory. */
static bool add_string(cJSON *obj, const char *key, const char *value)
{
    return !value || cJSON_AddStringToObject(obj, key, value);
}

static bool add_number(cJSON *obj, const char *key, double value)
{
    return cJSON_AddNumberToObject(obj, key, value) != NULL;
}

static bool add_address(cJSON *obj, const char *key, uint64_t value)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, value);
    return cJSON_AddStringToObject(obj, key, buf) != NULL;
}

/* A new object at the end of arr: the next entry of a list; NULL when out of memory. */
static cJSON *add_entry(cJSON *arr)
{
    cJSON *e = cJSON_CreateObject();
    return e && cJSON_AddItemToArray(arr, e) ? e : NULL;
}

static bool add_counts(cJSON *obj, const char *key, const uint64_t *v, uint32_t n)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, key);
    if (!arr)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        cJSON *x = cJSON_CreateNumber(v ? (double)v[i] : 0.0);
        if (!x || !cJSON_AddItemToArray(arr, x))
            return false;
    }
    return true;
}

static bool build_target(cJSON *root, const struct session *s)
{
    cJSON *t = cJSON_AddObjectToObject(root, "target");
    if (!t || !add_string(t, "hostname", s->hostname) || !add_string(t, "address", s->address))
        return false;
    if (s->os_sysname || s->os_release || s->os_version) {
        cJSON *os = cJSON_AddObjectToObject(t, "os");
        if (!os || !add_string(os, "sysname", s->os_sysname) ||
            !add_string(os, "release", s->os_release) || !add_string(os, "version", s->os_version))
            return false;
    }
    if (!add_number(t, "tsc_hz", (double)s->tsc_hz) || !add_number(t, "num_cpus", s->num_cpus))
        return false;
    cJSON *sig = cJSON_AddObjectToObject(t, "cpu_signature");
    if (!sig || !add_string(sig, "vendor", s->cpu_vendor) ||
        !add_number(sig, "family", s->cpu_family) || !add_number(sig, "model", s->cpu_model) ||
        !add_number(sig, "stepping", s->cpu_stepping))
        return false;
    if (!s->topology)
        return true;
    cJSON *topo = cJSON_AddArrayToObject(t, "topology");
    if (!topo)
        return false;
    for (size_t i = 0; i < s->num_topology; i++) {
        const struct session_cpu *c = &s->topology[i];
        cJSON *e = add_entry(topo);
        if (!e || !add_number(e, "cpu", c->cpu) || !add_number(e, "apic_id", c->apic_id) ||
            !add_number(e, "package", c->package) || !add_number(e, "core", c->core) ||
            !add_number(e, "thread", c->thread))
            return false;
    }
    return true;
}

static bool build_lists(cJSON *root, const struct session *s)
{
    if (s->descriptors) {
        cJSON *descs = cJSON_AddArrayToObject(root, "descriptors");
        if (!descs)
            return false;
        for (size_t i = 0; i < s->num_descriptors; i++) {
            cJSON *e = add_entry(descs);
            if (!e || !add_number(e, "id", s->descriptors[i].id) ||
                !add_number(e, "sample_size", s->descriptors[i].sample_size) ||
                !add_number(e, "callstack_offset", s->descriptors[i].callstack_offset) ||
                !add_number(e, "callstack_size", s->descriptors[i].callstack_size))
                return false;
            if (s->descriptors[i].latency_size &&
                (!add_number(e, "latency_offset", s->descriptors[i].latency_offset) ||
                 !add_number(e, "latency_size", s->descriptors[i].latency_size)))
                return false;
            if (s->descriptors[i].stack_copy_size &&
                (!add_number(e, "stack_copy_offset", s->descriptors[i].stack_copy_offset) ||
                 !add_number(e, "stack_copy_size", s->descriptors[i].stack_copy_size)))
                return false;
        }
    }
    cJSON *events = cJSON_AddArrayToObject(root, "events");
    if (!events)
        return false;
    for (size_t i = 0; i < s->num_events; i++) {
        cJSON *e = add_entry(events);
        if (!e || !add_number(e, "index", s->events[i].index) ||
            !add_string(e, "name", s->events[i].name) ||
            !add_number(e, "sample_after", (double)s->events[i].sample_after) ||
            ((s->num_groups > 1 || s->count_interval_ms) &&
             !add_number(e, "group", s->events[i].group)))
            return false;
    }
    if (s->count_interval_ms) {
        cJSON *counting = cJSON_AddObjectToObject(root, "counting");
        if (!counting || !add_number(counting, "interval_ms", s->count_interval_ms) ||
            !add_number(counting, "groups", s->count_groups))
            return false;
    }
    if (s->num_groups > 1) {
        cJSON *mux = cJSON_AddObjectToObject(root, "multiplexing");
        cJSON *running = mux ? cJSON_AddArrayToObject(mux, "running_tsc") : NULL;
        if (!running || !add_number(mux, "groups", s->num_groups) ||
            !add_number(mux, "switch_ms", s->mux_ms) ||
            !add_counts(mux, "enabled_tsc", s->group_enabled, s->num_cpus))
            return false;
        for (uint32_t c = 0; c < s->num_cpus; c++) {
            cJSON *per = cJSON_CreateArray();
            if (!per || !cJSON_AddItemToArray(running, per))
                return false;
            for (uint32_t g = 0; g < s->num_groups; g++) {
                cJSON *x = cJSON_CreateNumber((double)s->group_running[c * s->num_groups + g]);
                if (!x || !cJSON_AddItemToArray(per, x))
                    return false;
            }
        }
    }
    cJSON *samples = cJSON_AddObjectToObject(root, "samples");
    if (!samples || !add_number(samples, "total", (double)s->samples_total) ||
        !add_counts(samples, "per_cpu", s->samples_per_cpu, s->num_cpus) ||
        !add_counts(samples, "dropped_per_cpu", s->dropped_per_cpu, s->num_cpus))
        return false;
    if (s->drop_reasons[0]) {
        cJSON *reasons = cJSON_AddObjectToObject(samples, "drop_reasons");
        if (!reasons)
            return false;
        for (int k = 0; k < SESSION_DROP_KINDS; k++)
            if (!add_counts(reasons, session_drop_keys[k], s->drop_reasons[k], s->num_cpus))
                return false;
    }
    if (s->budget) {
        cJSON *b = cJSON_AddObjectToObject(samples, "pmi_budget");
        if (!b || !add_number(b, "max_rate_hz", s->budget->max_rate_hz) ||
            !add_number(b, "cpu_percent", s->budget->cpu_percent))
            return false;
        for (int k = 0; k < SESSION_BUDGET_FIELDS; k++)
            if (!add_counts(b, session_budget_keys[k], s->budget->per_cpu[k], s->num_cpus))
                return false;
    }
    if (s->switches_kept) {
        cJSON *sw = cJSON_AddObjectToObject(samples, "task_switches");
        if (!sw || !add_counts(sw, "kept", s->switches_kept, s->num_cpus) ||
            !add_counts(sw, "lost", s->switches_lost, s->num_cpus))
            return false;
    }
    if (s->tasks) {
        cJSON *tasks = cJSON_AddArrayToObject(root, "tasks");
        if (!tasks)
            return false;
        for (size_t i = 0; i < s->num_tasks; i++) {
            cJSON *e = add_entry(tasks);
            if (!e || !add_number(e, "pid", s->tasks[i].pid) ||
                !add_number(e, "tid", s->tasks[i].tid) || !add_string(e, "name", s->tasks[i].name))
                return false;
        }
    }
    if (s->modules) {
        cJSON *modules = cJSON_AddArrayToObject(root, "modules");
        if (!modules)
            return false;
        for (size_t i = 0; i < s->num_modules; i++) {
            cJSON *e = add_entry(modules);
            if (!e || !add_string(e, "path", s->modules[i].path) ||
                !add_address(e, "load_address", s->modules[i].load_address) ||
                !add_address(e, "length", s->modules[i].length))
                return false;
        }
    }
    return true;
}

static bool build_pt(cJSON *root, const struct session_pt *p, uint32_t num_cpus)
{
    static const char *const reasons[] = {"host", "api", "exception"};
    cJSON *pt = cJSON_AddObjectToObject(root, "pt");
    if (!pt || !add_number(pt, "version", SESSION_PT_VERSION) ||
        !add_string(pt, "mode", p->mode == SESSION_PT_SNAPSHOT ? "snapshot" : "full") ||
        !add_address(pt, "rtit_ctl", p->rtit_ctl) ||
        !add_number(pt, "cpuid_15_eax", p->cpuid_15_eax) ||
        !add_number(pt, "cpuid_15_ebx", p->cpuid_15_ebx) ||
        !add_number(pt, "cpuid_15_ecx", p->cpuid_15_ecx) ||
        !add_number(pt, "mtc_freq", p->mtc_freq) ||
        !add_number(pt, "mtc_to_tsc", session_pt_mtc_to_tsc(p)) ||
        !add_number(pt, "nom_freq", p->nom_freq))
        return false;
    if (p->num_filters) {
        cJSON *filters = cJSON_AddArrayToObject(pt, "filters");
        if (!filters)
            return false;
        for (size_t i = 0; i < p->num_filters; i++) {
            cJSON *e = add_entry(filters);
            if (!e || !add_address(e, "start", p->filters[i].start) ||
                !add_address(e, "end", p->filters[i].end) ||
                !add_string(e, "name", p->filters[i].name))
                return false;
        }
    }
    if (p->has_freeze) {
        cJSON *fz = cJSON_AddObjectToObject(pt, "freeze");
        if (!fz || !add_string(fz, "reason", reasons[p->freeze_reason]) ||
            !add_number(fz, "code", (double)p->freeze_code) ||
            !add_number(fz, "tsc", (double)p->freeze_tsc))
            return false;
    }
    cJSON *cpus = cJSON_AddArrayToObject(pt, "per_cpu");
    if (!cpus)
        return false;
    for (uint32_t n = 0; n < num_cpus; n++) {
        const struct session_pt_cpu *c = &p->per_cpu[n];
        cJSON *e = add_entry(cpus);
        if (!e || !add_number(e, "cpu", n) || !add_number(e, "bytes", (double)c->bytes) ||
            (c->wrapped && !cJSON_AddBoolToObject(e, "wrapped", 1)))
            return false;
        if (!c->num_lost)
            continue;
        cJSON *lost = cJSON_AddArrayToObject(e, "lost");
        if (!lost)
            return false;
        for (size_t i = 0; i < c->num_lost; i++) {
            cJSON *l = add_entry(lost);
            if (!l || !add_number(l, "offset", (double)c->lost[i].offset) ||
                !add_number(l, "bytes", (double)c->lost[i].bytes))
                return false;
        }
    }
    return true;
}

static int add_lbr(cJSON *root, const struct session_lbr *l)
{
    cJSON *obj = cJSON_AddObjectToObject(root, "lbr");
    cJSON *regs = obj ? cJSON_CreateArray() : NULL;
    if (!regs || !cJSON_AddItemToObject(obj, "registers", regs) ||
        !add_number(obj, "format", l->format) || !add_number(obj, "depth", l->depth) ||
        !cJSON_AddBoolToObject(obj, "has_info", l->has_info) ||
        !cJSON_AddBoolToObject(obj, "call_stack", l->call_stack) ||
        !add_number(obj, "offset", l->offset))
        return 0;
    for (uint32_t i = 0; i < l->num_regs; i++) {
        char name[16];
        const struct session_lbr_reg *g = &l->regs[i];
        if (g->kind == SESSION_LBR_TOS || g->kind == SESSION_LBR_NONE)
            snprintf(name, sizeof name, "%s", lbr_kind_names[g->kind]);
        else
            snprintf(name, sizeof name, "%s%u", lbr_kind_names[g->kind], (unsigned)g->index);
        cJSON *x = cJSON_CreateString(name);
        if (!x || !cJSON_AddItemToArray(regs, x))
            return 0;
    }
    return 1;
}

char *session_format(const struct session *s)
{
    cJSON *root = cJSON_CreateObject();
    char *text = NULL;
    if (root && add_string(root, "format", SESSION_FORMAT) &&
        add_number(root, "version", SESSION_VERSION) && build_target(root, s) &&
        add_string(root, "transfer",
                   s->transfer == SESSION_TRANSFER_IMMEDIATE ? "immediate" : "delayed") &&
        add_string(root, "started_utc", s->started_utc) &&
        add_number(root, "duration_s", s->duration_s) && build_lists(root, s) &&
        (!s->pt || build_pt(root, s->pt, s->num_cpus)) && (!s->lbr || add_lbr(root, s->lbr)))
        text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

int session_write(const struct session *s, const char *path, struct diag *d)
{
    char *text = session_format(s);
    if (!text)
        return diag_fail(d, DIAG_NOMEM, "%s: out of memory formatting the session", path);
    size_t len = strlen(text);
    text[len] = '\n'; /* the file ends with a newline; text is no string from here on */
    int rc = file_write_all(path, text, len + 1, d);
    free(text);
    return rc;
}

void session_free(struct session *s)
{
    free(s->hostname);
    free(s->address);
    free(s->os_sysname);
    free(s->os_release);
    free(s->os_version);
    free(s->cpu_vendor);
    free(s->topology);
    free(s->started_utc);
    free(s->descriptors);
    for (size_t i = 0; i < s->num_events; i++)
        free(s->events[i].name);
    free(s->events);
    free(s->samples_per_cpu);
    free(s->dropped_per_cpu);
    for (int k = 0; k < SESSION_DROP_KINDS; k++)
        free(s->drop_reasons[k]);
    free(s->group_enabled);
    free(s->group_running);
    if (s->budget)
        for (int k = 0; k < SESSION_BUDGET_FIELDS; k++)
            free(s->budget->per_cpu[k]);
    free(s->budget);
    free(s->switches_kept);
    free(s->switches_lost);
    for (size_t i = 0; i < s->num_tasks; i++)
        free(s->tasks[i].name);
    free(s->tasks);
    for (size_t i = 0; i < s->num_modules; i++)
        free(s->modules[i].path);
    free(s->modules);
    if (s->pt) {
        for (size_t i = 0; i < s->pt->num_filters; i++)
            free(s->pt->filters[i].name);
        for (uint32_t n = 0; s->pt->per_cpu && n < s->num_cpus; n++)
            free(s->pt->per_cpu[n].lost);
        free(s->pt->per_cpu);
        free(s->pt);
    }
    free(s->lbr);
    memset(s, 0, sizeof *s);
}

double session_scaled_count(const struct session *s, const struct session_event *ev,
                            uint64_t samples, uint64_t *running, uint64_t *enabled)
{
    double count = (double)samples * (double)ev->sample_after;
    if (s->num_groups < 2 || !s->group_enabled || !s->group_running)
        return count;
    uint64_t run = 0, en = 0;
    for (uint32_t c = 0; c < s->num_cpus; c++) {
        run += s->group_running[c * s->num_groups + ev->group];
        en += s->group_enabled[c];
    }
    if (running)
        *running = run;
    if (enabled)
        *enabled = en;
    return run ? count * (double)en / (double)run : count;
}

const struct session_event *session_event(const struct session *s, uint32_t index)
{
    for (size_t i = 0; i < s->num_events; i++)
        if (s->events[i].index == index)
            return &s->events[i];
    return NULL;
}

int session_start_time(const struct session *s, time_t *t)
{
    return s->started_utc ? parse_utc(s->started_utc, t) : -1;
}

uint32_t session_record_size(const struct session *s, uint32_t descriptor_id)
{
    if (!s->descriptors)
        return SESSION_SAMPLE_RECORD_MIN;
    const struct session_descriptor *desc = session_descriptor(s, descriptor_id);
    return desc ? desc->sample_size : 0;
}

const struct session_descriptor *session_descriptor(const struct session *s, uint32_t descriptor_id)
{
    for (size_t i = 0; i < s->num_descriptors; i++)
        if (s->descriptors[i].id == descriptor_id)
            return &s->descriptors[i];
    return NULL;
}

uint32_t session_callstack_depth(const struct session *s)
{
    uint32_t deepest = 0;
    for (size_t i = 0; i < s->num_descriptors; i++)
        if (s->descriptors[i].callstack_size / 8 > deepest)
            deepest = s->descriptors[i].callstack_size / 8;
    /* A stack copy unwinds into as many return addresses as a call stack holds at most. */
    for (size_t i = 0; i < s->num_descriptors; i++)
        if (s->descriptors[i].stack_copy_size)
            deepest = SESSION_MAX_CALLSTACK_DEPTH;
    return deepest;
}

const char *session_task_name(const struct session *s, uint32_t pid, uint32_t tid)
{
    for (size_t i = 0; i < s->num_tasks; i++)
        if (s->tasks[i].tid == tid && s->tasks[i].pid == pid)
            return s->tasks[i].name;
    return NULL;
}
