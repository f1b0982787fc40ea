/* The collection itself (see collect_internal.h): the connections, START, the wait (or the
 * reads of counting mode), STOP, the drain of every data channel and the target's results. */
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "collect_internal.h"
#include "collect_net.h"

#define CONNECT_WINDOW_S 10.0

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

int collect_connect_target(struct collection *c, struct diag *d)
{
    int rc = link_open(&c->link, CONNECT_WINDOW_S, c->opt.timeout_s, d);
    if (rc)
        return rc;
    const struct sep_target_status *st = &c->link.status;
    c->num_cpus = st->hardware_info.num_cpus;
    c->transfer = (st->collect_switch.bits & SEP_SWITCH_DATA_TRANSFER_MODE)
                      ? SESSION_TRANSFER_DELAYED
                      : SESSION_TRANSFER_IMMEDIATE;
    static const char *const mode[] = {"delayed", "immediate"};
    if (c->opt.transfer >= 0 && c->opt.transfer != (int)c->transfer)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--transfer %s: %s:%s runs %s transfer. The target chooses the mode "
                         "(the qemu-pc board runs immediate transfer when its kernel command "
                         "line has transfer=immediate, else delayed)",
                         mode[c->opt.transfer], c->link.host, c->link.port, mode[c->transfer]);
    size_t n = c->num_cpus + SEP_NONCORE_DATA_CONNECTIONS;
    c->data = calloc(n + 1, sizeof *c->data); /* and the PT channel's place */
    if (!c->data)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    c->data[n].fd = -1;
    rc = link_open_data(&c->link, c->data, n, d);
    if (rc) {
        free(c->data);
        c->data = NULL;
    }
    return rc;
}

/* The freezes' names, by ACART_PT_FREEZE_*. */
static const char *const freeze_names[] = {"the host", "aca_trace_freeze", "an exception"};

/* Snapshot mode ends when the target freezes its trace: there is nothing more to wait
 * for. Polled four times a second, and at once after --pt-freeze-after's PT_FREEZE. */
static int snapshot_frozen(struct collection *c, double now, double *next, int *frozen,
                           struct diag *d)
{
    *frozen = 0;
    if (!c->opt.pt.enabled || !c->opt.pt.snapshot)
        return 0;
    if (c->opt.pt.freeze_after && !c->pt_freeze_sent &&
        now >= c->started + c->opt.pt.freeze_after) {
        fprintf(stderr,
                "acart collect: freezing the target's trace after %.1f s (--pt-freeze-after)\n",
                now - c->started);
        int rc = collect_pt_freeze(&c->link, d);
        if (rc)
            return rc;
        c->pt_freeze_sent = 1;
        *next = now;
    }
    if (now < *next)
        return 0;
    *next = now + 0.25;
    int rc = collect_pt_poll_frozen(&c->pt, &c->link, frozen, d);
    if (!rc && *frozen)
        fprintf(stderr,
                "acart collect: the target froze its trace (%s, code %" PRIu32 ", on cpu %" PRIu32
                ") after %.1f s: stopping the collection\n",
                c->pt.status.freeze_reason < 3 ? freeze_names[c->pt.status.freeze_reason] : "?",
                c->pt.status.freeze_code, c->pt.status.freeze_cpu, now - c->started);
    return rc;
}

/* One read of the counters (READ_AND_RESET, or READ_SWITCH_GROUP when groups take turns):
 * a row per CPU for the interval that ended. */
int collect_read_counts(struct collection *c, struct diag *d)
{
    const struct collect_events *r = &c->opt.resolved;
    size_t n = c->num_cpus, e = c->opt.num_events;
    size_t bytes = 8 * (n + n * e);
    uint64_t *reply = calloc(n + n * e, sizeof *reply);
    uint64_t *values = calloc(e ? e : 1, sizeof *values);
    int rc = reply && values ? 0 : diag_fail(d, DIAG_NOMEM, "out of memory");
    uint32_t op = r->num_groups > 1 ? SEP_OP_READ_SWITCH_GROUP : SEP_OP_READ_AND_RESET;
    uint32_t read = c->counts.num_rows ? c->counts.rows[c->counts.num_rows - 1].interval + 1 : 0;
    uint32_t group =
        (uint32_t)(read % r->num_groups); /* The target's TSC as the read goes out: where the
                                           * interval ends (the reply has only deltas, which leave
                                           * out the time each read takes). */
    uint64_t now = 0;
    if (!rc)
        rc = collect_request(c, SEP_OP_GET_NORMALIZED_TSC, NULL, 0, &now, sizeof now, d);
    if (!rc)
        rc = collect_request(c, op, NULL, 0, reply, bytes, d);
    for (size_t cpu = 0; !rc && cpu < n; cpu++) {
        for (size_t i = 0; i < e; i++)
            values[i] = i >= r->group_start[group] && i < r->group_start[group + 1]
                            ? reply[n + cpu * e + i]
                            : COUNTS_NOT_COUNTED;
        struct counts_row row = {read, (uint32_t)cpu, group, now, reply[cpu], values};
        rc = counts_add(&c->counts, &row, d);
    }
    free(reply);
    free(values);
    return rc;
}

/* Ctrl-C ends the duration early (the collection then stops as usual); *old is the
 * handler to put back. */
static void catch_interrupt(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, old);
}

/* Counting mode: a read every interval until the duration is over, and one at the end. */
static int count_duration(struct collection *c, struct collect_status *sl, struct diag *d)
{
    struct sigaction old;
    catch_interrupt(&old);
    int rc = 0;
    double end = c->started + c->opt.duration_s, step = c->opt.interval_ms / 1000.0;
    double next = c->started + step;
    for (double now = net_now(); !rc && now < end; now = net_now()) {
        if (interrupted || collect_control_lost(c))
            break;
        if (now >= next) {
            rc = collect_read_counts(c, d);
            next += step;
            if (next <= now)
                next = now + step;
            continue;
        }
        char b[31];
        collect_status_bar(b, sizeof b - 1, (now - c->started) / c->opt.duration_s);
        collect_status_show(sl, "counting [%s] %.1f/%.1f s, %zu reads", b, now - c->started,
                            c->opt.duration_s,
                            c->counts.num_rows / (c->num_cpus ? c->num_cpus : 1));
        double wait = (next < end ? next : end) - now;
        poll(NULL, 0, wait < 0.1 ? (int)ceil(wait * 1000) : 100);
    }
    sigaction(SIGINT, &old, NULL);
    collect_status_clear(sl);
    if (!rc && !collect_control_lost(c))
        rc = collect_read_counts(c, d); /* the last interval, up to STOP */
    return rc;
}

static int wait_duration(struct collection *c, struct collect_status *sl, struct diag *d)
{
    double next_poll = 0;
    int frozen = 0, rc = 0;
    struct sigaction old;
    catch_interrupt(&old);
    double end = c->started + c->opt.duration_s;
    for (double now = net_now(); now < end; now = net_now()) {
        if (interrupted || atomic_load(&c->reader.failed) || collect_control_lost(c) ||
            (rc = snapshot_frozen(c, now, &next_poll, &frozen, d)) != 0 || frozen)
            break;
        char b[31];
        collect_status_bar(b, sizeof b - 1, (now - c->started) / c->opt.duration_s);
        collect_status_show(sl, "collecting [%s] %.1f/%.1f s, %" PRIu64 " samples received", b,
                            now - c->started, c->opt.duration_s,
                            (uint64_t)atomic_load(&c->reader.samples));
        double left = end - now;
        poll(NULL, 0, left < 0.1 ? (int)ceil(left * 1000) : 100);
    }
    sigaction(SIGINT, &old, NULL);
    collect_status_clear(sl);
    if (interrupted)
        fprintf(stderr, "acart collect: interrupted: stopping the collection after %.1f s\n",
                net_now() - c->started);
    return rc;
}

/* After STOP the target sends what it holds and closes every data channel. */
/* What a target can still send after STOP is bounded by its memory: a 32-bit board holds
 * less than 4 GiB of samples, and its module and uncore records are a small fraction of
 * that. A target that goes on past either is broken or hostile, and must not keep the
 * host draining for ever. */
#define DRAIN_MAX_BYTES     (4ull << 30)
#define DRAIN_MAX_NONSAMPLE (256ull << 20)

static int drain(struct collection *c, struct collect_status *sl, struct diag *d)
{
    const uint64_t at_stop = atomic_load(&c->reader.bytes);
    const uint64_t pt_at_stop = atomic_load(&c->reader.pt_bytes);
    uint64_t last_bytes = at_stop + pt_at_stop;
    /* After STOP a target sends at most its trace memory (in chunks), twice over for a
     * ring that was being drained. */
    const uint64_t pt_max = 2ull * c->pt.info.memory_bytes + (64ull << 20);
    double last_change = net_now();
    while (atomic_load(&c->reader.open) > 0 && !atomic_load(&c->reader.failed)) {
        uint64_t pt_bytes = atomic_load(&c->reader.pt_bytes);
        if (pt_bytes - pt_at_stop > pt_max)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "after STOP the target sent %" PRIu64 " bytes of Intel PT trace and "
                             "is still sending: more than its %" PRIu32 " bytes of trace memory; "
                             "giving up",
                             pt_bytes - pt_at_stop, c->pt.info.memory_bytes);
        uint64_t bytes = atomic_load(&c->reader.bytes);
        uint64_t sample_bytes = (uint64_t)atomic_load(&c->reader.samples) * c->layout.sample_size;
        if (bytes - at_stop > DRAIN_MAX_BYTES ||
            (bytes > sample_bytes && bytes - sample_bytes > DRAIN_MAX_NONSAMPLE))
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "after STOP the target sent %" PRIu64 " bytes (%" PRIu64
                             " of them not sample records) and is still sending: more than a "
                             "target can hold; giving up",
                             bytes - at_stop, bytes > sample_bytes ? bytes - sample_bytes : 0);
        double now = net_now();
        if (bytes + pt_bytes != last_bytes) {
            last_bytes = bytes + pt_bytes;
            last_change = now;
        } else if (now - last_change > c->opt.timeout_s) {
            collect_status_clear(sl);
            char list[256] = "";
            size_t len = 0;
            for (size_t i = 0; i < c->reader.n && len + 16 < sizeof list; i++) {
                const struct data_channel *ch = &c->reader.ch[i];
                if (ch->eof)
                    continue;
                if (ch->link.type == SEP_DATA_CPU)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%sCPU %u",
                                            len ? ", " : "", ch->link.id);
                else
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                            ch->link.type == SEP_DATA_MODULE ? "module"
                                            : ch->link.type == ACART_DATA_PT ? "Intel PT"
                                                                             : "uncore");
            }
            c->drain_gave_up = 1;
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "after STOP no data arrived for %.0f s and %d data channels are "
                             "still open (%s): see --timeout",
                             c->opt.timeout_s, atomic_load(&c->reader.open), list);
        }
        collect_status_show(sl, "receiving: %.1f MB, %" PRIu64 " samples, %d of %zu channels open",
                            (double)bytes / 1e6, (uint64_t)atomic_load(&c->reader.samples),
                            atomic_load(&c->reader.open), c->reader.n);
        poll(NULL, 0, 100);
    }
    collect_status_clear(sl);
    data_reader_join(&c->reader);
    return data_reader_finish(&c->reader, d);
}

int collect_run(struct collection *c, struct diag *d)
{
    struct collect_status sl = {isatty(STDERR_FILENO), 0};
    uint32_t groups = (uint32_t)c->opt.resolved.num_groups;
    for (uint32_t g = 0; g < groups; g++)
        c->sample_sizes[g] = c->layout.sample_size;
    size_t n = c->num_cpus + SEP_NONCORE_DATA_CONNECTIONS + (c->opt.pt.enabled ? 1 : 0);
    int rc = data_reader_init(&c->reader, c->data, n, c->opt.output, c->sample_sizes, groups,
                              (uint32_t)c->opt.num_events, d);
    free(c->data); /* the reader owns the connections now */
    c->data = NULL;
    if (c->opt.pt.enabled)
        data_reader_set_pt(&c->reader, &c->pt);
    if (!rc && c->opt.count) {
        const char *names[COLLECT_MAX_EVENTS];
        for (size_t i = 0; i < c->opt.num_events; i++)
            names[i] = c->opt.events[i].def->name;
        rc = counts_init(&c->counts, names, c->opt.num_events, d);
    }
    if (rc || (rc = data_reader_start(&c->reader, d)) ||
        (rc = collect_request(c, SEP_OP_START, NULL, 0, NULL, 0, d)))
        return rc;
    c->started = net_now();
    c->started_wall = time(NULL);
    if ((rc = c->opt.count ? count_duration(c, &sl, d) : wait_duration(c, &sl, d)))
        return rc;
    if (atomic_load(&c->reader.failed)) {
        data_reader_join(&c->reader);
        return data_reader_finish(&c->reader, d);
    }
    if (collect_control_lost(c))
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "%s:%s closed the control connection during the collection", c->link.host,
                         c->link.port);
    if ((rc = collect_request(c, SEP_OP_STOP, NULL, 0, NULL, 0, d)))
        return rc;
    c->stopped = net_now();
    return drain(c, &sl, d);
}

int collect_extension_request(struct collection *c, uint32_t op, const void *in, size_t in_len,
                              void *reply, size_t size, size_t min, size_t *got, int *present,
                              struct diag *d)
{
    *present = 0;
    int rc = link_request(&c->link, op, in, in_len, reply, size, min, got, d);
    if (rc && c->link.last_status == SEP_STATUS_DRIVER_COMM_FAILED) {
        d->code = 0;
        d->msg[0] = 0;
        return 0;
    }
    *present = !rc;
    return rc;
}

/* The reasons behind the drop counts (an acart extension): a target without it answers
 * DRIVER_COMM_FAILED and the session has counts only. Per CPU they must add up to what
 * GET_SAMPLE_DROP_INFO said. */
static int drop_reasons(struct collection *c, struct diag *d)
{
    size_t got = 0;
    int present;
    int rc = collect_extension_request(c, ACART_OP_GET_DROP_REASONS, NULL, 0, &c->reasons,
                                       sizeof c->reasons, offsetof(struct acart_drop_reasons, cpu),
                                       &got, &present, d);
    if (rc || !present)
        return rc;
    if (c->reasons.size > ACART_MAX_DROP_REASON_CPUS ||
        got < offsetof(struct acart_drop_reasons, cpu) + c->reasons.size * sizeof c->reasons.cpu[0])
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_DROP_REASONS: %zu bytes for %" PRIu32 " entries", got,
                         c->reasons.size);
    c->have_reasons = 1;
    return 0;
}

/* Each CPU's PMI budget (an acart extension): whether the target throttled it and from
 * when, which the session keeps and report shows. A target without it answers
 * DRIVER_COMM_FAILED: the session then says nothing about throttling. */
static int pmi_budget(struct collection *c, struct diag *d)
{
    size_t got = 0;
    int present;
    int rc =
        collect_extension_request(c, ACART_OP_GET_PMI_BUDGET, NULL, 0, &c->budget, sizeof c->budget,
                                  offsetof(struct acart_pmi_budget, cpu), &got, &present, d);
    if (rc || !present)
        return rc;
    if (c->budget.num_cpus != c->num_cpus ||
        got < offsetof(struct acart_pmi_budget, cpu) + c->num_cpus * sizeof c->budget.cpu[0])
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_PMI_BUDGET: %zu bytes for %" PRIu32 " CPUs, expected %" PRIu32
                         " CPUs",
                         got, c->budget.num_cpus, c->num_cpus);
    for (uint32_t i = 0; i < c->num_cpus; i++)
        if (c->budget.cpu[i].num_raises > ACART_MAX_BUDGET_RAISES)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "GET_PMI_BUDGET: CPU %" PRIu32 ": %" PRIu32 " raises", i,
                             c->budget.cpu[i].num_raises);
    c->have_budget = 1;
    return 0;
}

/* What the target queued on each data channel (an acart extension): the proof that each
 * stream the host read to its end is whole, checked by collect_check_channels. A target
 * without it answers DRIVER_COMM_FAILED: the CPU channels are then checked by their sample
 * counts only (collect_check_counts). */
static int channel_totals(struct collection *c, struct diag *d)
{
    size_t got = 0;
    int present;
    int rc = collect_extension_request(
        c, ACART_OP_GET_CHANNEL_TOTALS, NULL, 0, &c->totals, sizeof c->totals,
        offsetof(struct acart_channel_totals, channel), &got, &present, d);
    if (rc || !present)
        return rc;
    if (c->totals.size > ACART_MAX_CHANNEL_TOTALS ||
        got < offsetof(struct acart_channel_totals, channel) +
                  c->totals.size * sizeof c->totals.channel[0])
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_CHANNEL_TOTALS: %zu bytes for %" PRIu32 " entries", got,
                         c->totals.size);
    c->have_totals = 1;
    return 0;
}

/* How long each group counted on each CPU: what report scales multiplexed counts by. */
static int group_times(struct collection *c, struct diag *d)
{
    if (c->opt.resolved.num_groups < 2)
        return 0;
    size_t got = 0;
    int rc = link_request(&c->link, ACART_OP_GET_GROUP_TIMES, NULL, 0, &c->group_times,
                          sizeof c->group_times, offsetof(struct acart_group_times, cpu), &got, d);
    if (rc)
        return rc;
    const struct acart_group_times *t = &c->group_times;
    if (t->num_cpus != c->num_cpus || t->num_groups != c->opt.resolved.num_groups ||
        got < offsetof(struct acart_group_times, cpu) + t->num_cpus * sizeof t->cpu[0])
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_GROUP_TIMES: %zu bytes for %" PRIu32 " CPUs and %" PRIu32
                         " groups, expected %" PRIu32 " CPUs and %zu groups",
                         got, t->num_cpus, t->num_groups, c->num_cpus, c->opt.resolved.num_groups);
    return 0;
}

/* GET_INTERVAL_COUNTS (sampling on a PMU): the interrupts each event took on each CPU.
 * Every one went into the CPU's ring, delivered or dropped there for lack of room, so per
 * CPU they add up to delivered + ring_full of GET_DROP_REASONS. A target without either
 * (the reference keeps the counts only in continuous profiling) is not checked. */
static int interval_counts(struct collection *c, struct diag *d)
{
    size_t n = c->num_cpus, e = c->opt.num_events;
    if (c->opt.count || !c->have_reasons || !e || collect_target_samples_on_timer(c))
        return 0;
    uint64_t *counts = calloc(n * e, sizeof *counts);
    if (!counts)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc =
        collect_request(c, SEP_OP_GET_INTERVAL_COUNTS, NULL, 0, counts, n * e * sizeof *counts, d);
    if (rc && (c->link.last_status == SEP_STATUS_DRIVER_COMM_FAILED ||
               c->link.last_status == SEP_STATUS_INVALID_STATE_TRANS)) {
        d->code = 0;
        d->msg[0] = 0;
        rc = 0;
    } else {
        for (uint32_t cpu = 0; !rc && cpu < n; cpu++) {
            const struct acart_drop_reasons_cpu *r = collect_reasons_entry(c, cpu);
            uint64_t sum = 0;
            for (size_t i = 0; i < e; i++)
                sum += counts[cpu * e + i];
            if (r && sum != (uint64_t)r->delivered + r->ring_full)
                rc = diag_fail(d, COLLECT_DIAG_TARGET,
                               "GET_INTERVAL_COUNTS: CPU %" PRIu32 "'s events took %" PRIu64
                               " interrupts, GET_DROP_REASONS says %" PRIu32
                               " samples delivered and %" PRIu32 " dropped for room",
                               cpu, sum, r->delivered, r->ring_full);
        }
    }
    free(counts);
    return rc;
}

int collect_results(struct collection *c, struct diag *d)
{
    int64_t *skew = calloc(c->num_cpus, sizeof *skew);
    if (!skew)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc;
    if (!(rc = collect_request(c, SEP_OP_GET_NUM_SAMPLES, NULL, 0, &c->num_samples,
                               sizeof c->num_samples, d)) &&
        !(rc = collect_request(c, SEP_OP_GET_SAMPLE_DROP_INFO, NULL, 0, &c->drops, sizeof c->drops,
                               d)) &&
        !(rc = drop_reasons(c, d)) && !(rc = pmi_budget(c, d)) && !(rc = channel_totals(c, d)) &&
        !(rc = collect_task_switches(c, d)) && !(rc = group_times(c, d)) &&
        !(rc = interval_counts(c, d)) &&
        !(rc = collect_request(c, SEP_OP_TSC_SKEW_INFO, NULL, 0, skew, c->num_cpus * sizeof *skew,
                               d)) &&
        !(rc = c->opt.pt.enabled ? collect_pt_results(&c->pt, &c->link, d) : 0))
        rc = collect_request(c, SEP_OP_TERMINATE, NULL, 0, NULL, 0, d);
    free(skew);
    if (!rc && c->drops.size > SEP_MAX_SAMPLE_DROP_NODES)
        rc = diag_fail(d, COLLECT_DIAG_TARGET, "GET_SAMPLE_DROP_INFO: %" PRIu32 " entries of %d",
                       c->drops.size, SEP_MAX_SAMPLE_DROP_NODES);
    return rc;
}
