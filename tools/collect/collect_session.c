/* What a collection leaves in its folder and the checks of what arrived (see
 * collect_internal.h): session.json (with counts.csv in counting mode), uncore.json, every
 * CPU's records against the target's counts, and the summary line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect_internal.h"
#include "file_util.h"
#include "uncore_data.h"

/* How many CPUs the summary line names one by one. */
#define SUMMARY_CPUS 16

/* The GET_DROP_REASONS entry of a CPU, or NULL. */
const struct acart_drop_reasons_cpu *collect_reasons_entry(const struct collection *c, uint32_t cpu)
{
    for (uint32_t i = 0; i < c->reasons.size; i++)
        if (c->reasons.cpu[i].cpu_id == cpu)
            return &c->reasons.cpu[i];
    return NULL;
}

/* What an entry's reasons add up to: the CPU's dropped samples (stuck_resets counts resets,
 * not samples). */
static uint64_t reasons_dropped(const struct acart_drop_reasons_cpu *e)
{
    return (uint64_t)e->ring_full + e->no_counter + e->malformed + e->collision + e->stuck;
}

/* The reasons the target gave for a CPU's `dropped` samples, into out[kind][cpu]. */
static int reasons_of(const struct collection *c, uint32_t cpu, uint32_t dropped, uint64_t **out,
                      struct diag *d)
{
    const struct acart_drop_reasons_cpu *e = collect_reasons_entry(c, cpu);
    if (!e)
        return diag_fail(d, COLLECT_DIAG_TARGET, "GET_DROP_REASONS: no entry for CPU %" PRIu32,
                         cpu);
    const uint64_t v[SESSION_DROP_KINDS] = {e->ring_full, e->no_counter, e->malformed,
                                            e->collision, e->stuck,      e->stuck_resets};
    for (int k = 0; k < SESSION_DROP_KINDS; k++)
        out[k][cpu] = v[k];
    uint64_t sum = reasons_dropped(e);
    if (sum != dropped)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_DROP_REASONS: CPU %" PRIu32 "'s reasons add up to %" PRIu64
                         ", GET_SAMPLE_DROP_INFO says %" PRIu32 " dropped",
                         cpu, sum, dropped);
    return 0;
}

/* What the target says a CPU delivered and dropped: GET_SAMPLE_DROP_INFO, which holds 20
 * CPUs, or past those acart's GET_DROP_REASONS where it gives `delivered`; 0 if neither
 * mentions the CPU. */
int collect_drop_entry(const struct collection *c, uint32_t cpu, struct sep_sample_drop *out)
{
    for (uint32_t i = 0; i < c->drops.size; i++) {
        if (c->drops.drop_info[i].os_id == 0 && c->drops.drop_info[i].cpu_id == cpu) {
            *out = c->drops.drop_info[i];
            return 1;
        }
    }
    const struct acart_drop_reasons_cpu *e =
        c->have_reasons && (c->reasons.flags & ACART_DROP_REASONS_DELIVERED)
            ? collect_reasons_entry(c, cpu)
            : NULL;
    if (!e)
        return 0;
    uint64_t dropped = reasons_dropped(e);
    *out = (struct sep_sample_drop){0, cpu, e->delivered,
                                    dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)dropped};
    return 1;
}

static char *dup_field(const char *s, size_t max, int *oom)
{
    char *r = strndup(s, max);
    if (!r)
        *oom = 1;
    return r;
}

int collect_write_session(struct collection *c, struct diag *d)
{
    const struct sep_target_status *st = &c->link.status;
    struct session s;
    struct session_descriptor desc = {0,
                                      c->layout.sample_size,
                                      c->layout.callstack_offset,
                                      c->layout.callstack_size,
                                      c->layout.latency_offset,
                                      c->layout.latency_size,
                                      c->layout.stack_copy_offset,
                                      c->layout.stack_copy_size};
    size_t groups = c->opt.resolved.num_groups;
    char address[sizeof c->link.address + 24], started[32];
    int oom = 0;

    memset(&s, 0, sizeof s);
    snprintf(address, sizeof address, strchr(c->link.address, ':') ? "[%s]:%s" : "%s:%s",
             c->link.address, c->link.port);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&c->started_wall));
    s.hostname = dup_field(c->link.host, sizeof c->link.host, &oom);
    s.address = dup_field(address, sizeof address, &oom);
    s.os_sysname = dup_field(st->os_info.sysname, SEP_OSINFO_LEN, &oom);
    s.os_release = dup_field(st->os_info.release, SEP_OSINFO_LEN, &oom);
    s.os_version = dup_field(st->os_info.version, SEP_OSINFO_LEN, &oom);
    s.tsc_hz = st->hardware_info.tsc_freq;
    s.num_cpus = c->num_cpus;
    s.cpu_vendor = c->sys.vendor[0] ? dup_field(c->sys.vendor, sizeof c->sys.vendor, &oom) : NULL;
    s.cpu_family = st->hardware_info.family;
    s.cpu_model = st->hardware_info.model;
    s.cpu_stepping = st->hardware_info.stepping;
    s.topology = calloc(c->num_cpus, sizeof *s.topology);
    s.num_topology = c->num_cpus;
    s.transfer = c->transfer;
    s.started_utc = dup_field(started, sizeof started, &oom);
    s.duration_s = c->stopped - c->started;
    s.descriptors = calloc(groups, sizeof desc);
    s.num_descriptors = groups;
    s.events = calloc(c->opt.num_events, sizeof *s.events);
    s.num_events = c->opt.num_events;
    s.samples_total = c->num_samples;
    s.samples_per_cpu = calloc(c->num_cpus, sizeof *s.samples_per_cpu);
    s.dropped_per_cpu = calloc(c->num_cpus, sizeof *s.dropped_per_cpu);
    for (int k = 0; c->have_reasons && k < SESSION_DROP_KINDS; k++)
        if (!(s.drop_reasons[k] = calloc(c->num_cpus, sizeof *s.drop_reasons[k])))
            oom = 1;
    s.tasks = c->tasks; /* handed over: session_free frees them */
    s.num_tasks = c->num_tasks;
    c->tasks = NULL;
    c->num_tasks = 0;
    if (c->opt.pt.enabled && !(s.pt = collect_pt_session(&c->pt)))
        oom = 1;
    if (c->opt.lbr && (s.lbr = malloc(sizeof *s.lbr)) != NULL)
        *s.lbr = c->session_lbr; /* session_free frees it */
    else if (c->opt.lbr)
        oom = 1;
    if (!s.topology || !s.descriptors || !s.events || !s.samples_per_cpu || !s.dropped_per_cpu)
        oom = 1;
    int rc = 0;
    for (uint32_t i = 0; !oom && i < c->num_cpus; i++) {
        const struct sysinfo_cpu *sc = &c->sys.cpus[i];
        struct session_cpu t = {i, sc->apic_id, sc->package, sc->core, sc->thread};
        struct sep_sample_drop e;
        s.topology[i] = t;
        if (collect_drop_entry(c, i, &e)) {
            s.samples_per_cpu[i] = e.sampled;
            s.dropped_per_cpu[i] = e.dropped;
            if (c->have_reasons && (rc = reasons_of(c, i, e.dropped, s.drop_reasons, d)))
                break;
        } else {
            s.samples_per_cpu[i] = c->reader.ch[i].scan.records;
        }
    }
    for (size_t g = 0; !oom && g < groups; g++) {
        s.descriptors[g] = desc;
        s.descriptors[g].id = (uint32_t)g;
    }
    if (c->have_budget && !oom) {
        s.budget = calloc(1, sizeof *s.budget);
        for (int k = 0; s.budget && k < SESSION_BUDGET_FIELDS; k++)
            if (!(s.budget->per_cpu[k] = calloc(c->num_cpus, sizeof *s.budget->per_cpu[k])))
                oom = 1;
        if (!s.budget)
            oom = 1;
        for (uint32_t i = 0; !oom && i < c->num_cpus; i++) {
            const struct acart_pmi_budget_cpu *b = &c->budget.cpu[i];
            s.budget->per_cpu[SESSION_BUDGET_PMIS][i] = b->pmis;
            s.budget->per_cpu[SESSION_BUDGET_THROTTLES][i] = b->throttles;
            s.budget->per_cpu[SESSION_BUDGET_RATE_LOWERED][i] = b->rate_lowered;
            s.budget->per_cpu[SESSION_BUDGET_MAX_PMI_TSC][i] = b->max_took_tsc;
            s.budget->per_cpu[SESSION_BUDGET_FIRST_RAISE][i] = b->num_raises ? b->raises[0].tsc : 0;
        }
        if (!oom) {
            s.budget->max_rate_hz = c->budget.max_rate_hz;
            s.budget->cpu_percent = c->budget.cpu_percent;
        }
    }
    if (!oom && !rc)
        rc = collect_switches_in_session(c, &s, d);
    if (groups > 1 && !c->opt.count && !oom) {
        s.num_groups = (uint32_t)groups;
        s.mux_ms = c->opt.mux_ms;
        s.group_enabled = calloc(c->num_cpus, sizeof *s.group_enabled);
        s.group_running = calloc((size_t)c->num_cpus * groups, sizeof *s.group_running);
        if (!s.group_enabled || !s.group_running)
            oom = 1;
        for (uint32_t i = 0; !oom && i < c->num_cpus; i++) {
            s.group_enabled[i] = c->group_times.cpu[i].enabled;
            for (size_t g = 0; g < groups; g++)
                s.group_running[i * groups + g] = c->group_times.cpu[i].running[g];
        }
    }
    if (c->opt.count) {
        s.count_interval_ms = c->opt.interval_ms;
        s.count_groups = (uint32_t)(groups ? groups : 1);
    }
    for (size_t i = 0; !oom && i < s.num_events; i++) {
        for (size_t g = 0; g < groups; g++)
            if (i >= c->opt.resolved.group_start[g])
                s.events[i].group = (uint32_t)g;
        s.events[i].index = (uint32_t)i;
        s.events[i].name = dup_field(c->opt.events[i].def->name, COLLECT_EVENT_NAME_MAX, &oom);
        s.events[i].sample_after = c->opt.events[i].sample_after;
    }
    if (rc) {
        /* reasons_of said why */
    } else if (oom) {
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    } else {
        char *path = file_join(c->opt.output, "session.json");
        rc = path ? session_write(&s, path, d) : diag_fail(d, DIAG_NOMEM, "out of memory");
        free(path);
        path = c->opt.count ? file_join(c->opt.output, COUNTS_FILE) : NULL;
        if (!rc && c->opt.count)
            rc = path ? counts_write(&c->counts, path, d)
                      : diag_fail(d, DIAG_NOMEM, "out of memory");
        free(path);
    }
    session_free(&s);
    return rc;
}

/* Every CPU channel must hold exactly what the target says it sent. */
int collect_check_counts(const struct collection *c, struct diag *d)
{
    uint64_t received = 0, reported = 0;
    uint32_t uncovered = 0;
    for (uint32_t i = 0; i < c->num_cpus; i++) {
        uint64_t got = c->reader.ch[i].scan.records;
        struct sep_sample_drop e;
        received += got;
        if (!collect_drop_entry(c, i, &e)) {
            uncovered++;
            continue;
        }
        reported += e.sampled;
        /* Fewer than the target sent: the channel ended early, by a reset that arrived as
         * a FIN or a FIN the target should never have sent. Cut, not complete. */
        if (got < e.sampled)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "data channel of CPU %" PRIu32 " was cut after %" PRIu64 " of %" PRIu32
                             " records: the target reports %" PRIu32
                             " sent (GET_SAMPLE_DROP_INFO), so the collection is incomplete",
                             i, got, e.sampled, e.sampled);
        if (got > e.sampled)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "data channel of CPU %" PRIu32 ": received %" PRIu64
                             " sample records, the target reports %" PRIu32
                             " sent (GET_SAMPLE_DROP_INFO)",
                             i, got, e.sampled);
    }
    if (uncovered)
        fprintf(stderr,
                "acart collect: warning: GET_SAMPLE_DROP_INFO covers %" PRIu32 " of %" PRIu32
                " CPUs; the others are checked only in the total\n",
                c->num_cpus - uncovered, c->num_cpus);
    if (received != c->num_samples)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "received %" PRIu64 " sample records in all, the target reports %" PRIu64
                         " (GET_NUM_SAMPLES)",
                         received, c->num_samples);
    if (!uncovered && reported != c->num_samples)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "the target contradicts itself: %" PRIu64 " samples by "
                         "GET_SAMPLE_DROP_INFO, %" PRIu64 " by GET_NUM_SAMPLES",
                         reported, c->num_samples);
    return 0;
}

/* Time-based sampling ticks on every CPU at one rate. A CPU that took nothing while the
 * collection was long enough for 20 ticks has a sampling interrupt that never fires on the
 * target (a port whose timer does not deliver): that is a failed collection, not an empty
 * profile. PMU events may legitimately never occur, so only the time-based case is
 * checked. */
int collect_check_silent_cpus(const struct collection *c, struct diag *d)
{
    const struct sep_target_status *st = &c->link.status;
    char version[sizeof st->os_info.version + 1];
    memcpy(version, st->os_info.version, sizeof st->os_info.version);
    version[sizeof st->os_info.version] = 0;
    if (!strstr(version, "time-based") || c->opt.num_events == 0 ||
        c->opt.events[0].sample_after == 0)
        return 0;
    double ticks = (c->stopped - c->started) * (double)st->hardware_info.tsc_freq /
                   (double)c->opt.events[0].sample_after;
    if (ticks < 20)
        return 0;
    for (uint32_t i = 0; i < c->num_cpus; i++) {
        struct sep_sample_drop e;
        if (collect_drop_entry(c, i, &e) && e.sampled == 0 && e.dropped == 0)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "CPU %" PRIu32 " took no sample in %.2f s of time-based sampling "
                             "(about %.0f expected): its sampling timer never fired on the "
                             "target (see the board's console; aca_selftest() checks the port)",
                             i, c->stopped - c->started, ticks);
    }
    return 0;
}

void collect_print_summary(const struct collection *c)
{
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < c->num_cpus; i++) {
        struct sep_sample_drop e;
        if (collect_drop_entry(c, i, &e))
            dropped += e.dropped;
    }
    char stacks[48] = "";
    if (c->opt.callstack_depth)
        snprintf(stacks, sizeof stacks, ", call stacks up to %" PRIu32 " deep",
                 c->opt.callstack_depth);
    printf("%s: %" PRIu32 " CPUs, %.2f s, %s transfer%s: %" PRIu64 " samples (", c->opt.output,
           c->num_cpus, c->stopped - c->started,
           c->transfer == SESSION_TRANSFER_DELAYED ? "delayed" : "immediate", stacks,
           c->num_samples);
    for (uint32_t i = 0; i < c->num_cpus && i < SUMMARY_CPUS; i++)
        printf("%scpu%" PRIu32 " %" PRIu64, i ? ", " : "", i, c->reader.ch[i].scan.records);
    const struct data_channel *uncore = &c->reader.ch[c->num_cpus];
    const struct data_channel *module = &c->reader.ch[c->num_cpus + 1];
    printf("%s), %" PRIu64 " dropped, %" PRIu64 " module records\n",
           c->num_cpus > SUMMARY_CPUS ? ", ..." : "", dropped, module->scan.records);
    if (dropped)
        fprintf(stderr,
                "acart collect: warning: the target dropped %" PRIu64 " samples (its buffers "
                "were full): sample less often (--event NAME:sa=N) or use immediate transfer\n",
                dropped);
    if (c->opt.count)
        printf("counting: %zu events in %zu groups, %zu reads of %" PRIu32 " ms per CPU into "
               "%s\n",
               c->opt.num_events, c->opt.resolved.num_groups,
               c->counts.num_rows / (c->num_cpus ? c->num_cpus : 1), c->opt.interval_ms,
               COUNTS_FILE);
    if (c->opt.resolved.table[0])
        printf("events named from Intel %s for the target's CPU\n", c->opt.resolved.table);
    if (c->opt.pt.enabled)
        collect_pt_summary(&c->pt, stdout);
    if (uncore->bytes && !c->opt.uncore.num_events)
        fprintf(stderr,
                "acart collect: warning: the uncore channel sent %" PRIu64 " bytes unasked (kept "
                "in uncore.bin)\n",
                uncore->bytes);
    struct uncore_data u;
    struct diag ignored = {0};
    if (c->opt.uncore.num_events && uncore_data_load(c->opt.output, &u, &ignored) == 0) {
        printf("uncore: %zu reads every %" PRIu32 " ms:", u.num_reads, u.interval_ms);
        for (size_t e = 0; e < u.num_events; e++)
            printf("%s %s %" PRIu64, e ? "," : "", u.names[e],
                   u.num_reads ? u.counts[(u.num_reads - 1) * u.num_events + e] : 0);
        printf(" (acart report --uncore)\n");
        uncore_data_free(&u);
    }
}

/* --uncore: uncore.json beside uncore.bin, and every record of it whole and valid. */
int collect_write_uncore(struct collection *c, struct diag *d)
{
    if (!c->opt.uncore.num_events)
        return 0;
    struct uncore_data u;
    int rc = collect_uncore_write(&c->opt.uncore, c->opt.output,
                                  c->link.status.hardware_info.tsc_freq, d);
    if (!rc && !(rc = uncore_data_load(c->opt.output, &u, d)))
        uncore_data_free(&u);
    if (rc == DIAG_INPUT) { /* the target's records, not a file of the user's */
        d->code = COLLECT_DIAG_TARGET;
        return COLLECT_DIAG_TARGET;
    }
    return rc;
}
