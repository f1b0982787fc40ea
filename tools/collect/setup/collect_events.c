/* Event names for `acart collect` (see collect_events.h). */
#include "collect_events.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collect_link.h"
#include "metrics.h"
#include "perfmon.h"
#include "pmu_models.h"

/* How many near names an unknown event's message suggests. */
#define MAX_SUGGESTIONS 4

/* A sample-after value: decimal or 0x hex, 1 to COLLECT_ECB_MAX_SAMPLE_AFTER. */
static int parse_sa(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!text[0] || text[0] == '-')
        return -1;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end || v == 0 || v > COLLECT_ECB_MAX_SAMPLE_AFTER)
        return -1;
    *out = v;
    return 0;
}

static int parse_one(const char *item, size_t len, struct collect_event_spec *s, char *err,
                     size_t err_len)
{
    char buf[COLLECT_EVENT_NAME_MAX + 64];
    if (len >= sizeof buf) {
        snprintf(err, err_len, "--event %.*s...: too long", 40, item);
        return -1;
    }
    memcpy(buf, item, len);
    buf[len] = 0;
    memset(s, 0, sizeof *s);
    char *mod = strchr(buf, ':');
    if (mod)
        *mod++ = 0;
    if (!buf[0] || strlen(buf) >= sizeof s->name) {
        snprintf(err, err_len, "--event %s: expected NAME[:sa=N][:precise]", buf);
        return -1;
    }
    strcpy(s->name, buf);
    while (mod) {
        char *next = strchr(mod, ':');
        if (next)
            *next++ = 0;
        if (strncmp(mod, "sa=", 3) == 0) {
            if (parse_sa(mod + 3, &s->sample_after)) {
                snprintf(err, err_len, "--event %s: expected sa=N with N from 1 to %llu", s->name,
                         (unsigned long long)COLLECT_ECB_MAX_SAMPLE_AFTER);
                return -1;
            }
        } else if (strcmp(mod, "precise") == 0) {
            s->precise = 1;
        } else {
            snprintf(err, err_len, "--event %s: unknown modifier '%s' (sa=N or precise)", s->name,
                     mod);
            return -1;
        }
        mod = next;
    }
    return 0;
}

int collect_events_parse(const char *arg, struct collect_event_spec *specs, size_t *n, size_t max,
                         char *err, size_t err_len)
{
    for (const char *p = arg;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (*n == max) {
            snprintf(err, err_len, "at most %zu events (3 fixed and 4 general counters)", max);
            return -1;
        }
        if (parse_one(p, len, &specs[*n], err, err_len))
            return -1;
        for (size_t i = 0; i < *n; i++)
            if (strcasecmp(specs[i].name, specs[*n].name) == 0) {
                snprintf(err, err_len, "event %s given twice", specs[*n].name);
                return -1;
            }
        (*n)++;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

/* Edit distance, case ignored, capped: only near names matter. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return SIZE_MAX;
    size_t row[128];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

/* ", did you mean A, B?" for the names nearest `name`: within a quarter of its length in
 * edit distance, or containing it. */
static void suggest(const struct perfmon_model *m, const char *name, char *out, size_t cap)
{
    const char *best[MAX_SUGGESTIONS] = {0};
    size_t score[MAX_SUGGESTIONS] = {0}, count = 0, limit = strlen(name) / 4 + 1;
    for (size_t i = 0;; i++) {
        const char *cand;
        if (m && i < m->num_events)
            cand = perfmon_name(m, &m->events[i]);
        else if (!collect_event_at(i - (m ? m->num_events : 0)))
            break;
        else
            cand = collect_event_at(i - (m ? m->num_events : 0))->name;
        size_t s = distance(name, cand);
        if (s > limit && strlen(name) >= 4 && contains(cand, name))
            s = limit; /* a substring is as good as the farthest near name */
        if (s > limit)
            continue;
        int dup = 0;
        for (size_t k = 0; k < count; k++)
            dup |= strcmp(best[k], cand) == 0;
        if (dup)
            continue;
        size_t at = count < MAX_SUGGESTIONS ? count++ : MAX_SUGGESTIONS;
        if (at == MAX_SUGGESTIONS) {
            if (s >= score[MAX_SUGGESTIONS - 1])
                continue;
            at = MAX_SUGGESTIONS - 1;
        }
        for (; at > 0 && score[at - 1] > s; at--) {
            best[at] = best[at - 1];
            score[at] = score[at - 1];
        }
        best[at] = cand;
        score[at] = s;
    }
    out[0] = 0;
    size_t len = 0;
    for (size_t k = 0; k < count && len < cap; k++)
        len +=
            (size_t)snprintf(out + len, cap - len, "%s%s", k ? ", " : "; did you mean ", best[k]);
    if (count && len < cap)
        snprintf(out + len, cap - len, "?");
}

static void list_models(char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (unsigned i = 0; i < perfmon_num_models && len < cap; i++) {
        const struct perfmon_model *m = &perfmon_models[i];
        len +=
            (size_t)snprintf(out + len, cap - len, "%s%s (%s:", i ? "; " : "", m->code, m->uarch);
        for (unsigned j = 0; j < m->num_cpu_models && len < cap; j++)
            len += (size_t)snprintf(out + len, cap - len, " 6-%02X", m->cpu_models[j]);
        if (len < cap)
            len += (size_t)snprintf(out + len, cap - len, ")");
    }
}

/* The built-in event of that name, case ignored like perfmon's names. */
static const struct collect_event_def *builtin_named(const char *name)
{
    const struct collect_event_def *def;
    for (size_t i = 0; (def = collect_event_at(i)) != NULL; i++)
        if (strcasecmp(def->name, name) == 0)
            return def;
    return NULL;
}

static int from_perfmon(const struct perfmon_model *m, const struct perfmon_event *pe,
                        const struct collect_event_spec *s, const struct collect_target_cpu *cpu,
                        struct collect_event_def *def, struct diag *d)
{
    unsigned avail = cpu->gp_counters && cpu->gp_counters < COLLECT_ECB_GP_COUNTERS
                         ? (1u << cpu->gp_counters) - 1
                         : (1u << COLLECT_ECB_GP_COUNTERS) - 1;
    memset(def, 0, sizeof *def);
    def->default_sample_after = perfmon_sample_after(m, pe);
    if (pe->fixed != PERFMON_NO_FIXED) {
        if (s->precise)
            return diag_fail(d, DIAG_USAGE,
                             "--event %s:precise: %s counts only on fixed counter %u, and acart "
                             "samples precisely (PEBS) only on general counters",
                             s->name, perfmon_name(m, pe), pe->fixed);
        if (pe->fixed >= COLLECT_ECB_FIXED_COUNTERS)
            return diag_fail(d, DIAG_USAGE,
                             "--event %s: counts only on fixed counter %u, which acart's event "
                             "group does not program (it has fixed counters 0 to %d)",
                             s->name, pe->fixed, COLLECT_ECB_FIXED_COUNTERS - 1);
        def->fixed_counter = pe->fixed;
        return 0;
    }
    def->fixed_counter = COLLECT_ECB_NO_FIXED;
    def->evtsel = perfmon_evtsel(pe);
    def->gp_mask = (uint8_t)(pe->counters & avail);
    if (s->precise) {
        if (!(pe->flags & PERFMON_PEBS))
            return diag_fail(d, DIAG_USAGE,
                             "--event %s:precise: perfmon says %s cannot be sampled with PEBS; "
                             "drop :precise, or pick a PEBS event",
                             s->name, perfmon_name(m, pe));
        def->precise = 1;
        def->gp_mask &= pe->pebs_counters;
    }
    const struct perfmon_extra *x = perfmon_extra(m, pe);
    /* The load-latency facility's counters per model (pmu_models.c, after Linux's PEBS
     * constraints), which the target enforces too: Sandy Bridge's PMC3, not Ice Lake's
     * PMC0. */
    const struct pmu_model *row = pmu_model_lookup(cpu->family, cpu->model);
    if (s->precise && x && x->msr == COLLECT_ECB_MSR_PEBS_LD_LAT && row)
        def->gp_mask &= row->ldlat_gp;
    if (!def->gp_mask)
        return diag_fail(d, DIAG_USAGE,
                         "--event %s: can count only on general counters 0x%02x%s, and the "
                         "target's event group has counters 0x%02x",
                         s->name, s->precise ? pe->pebs_counters : pe->counters,
                         s->precise ? " with PEBS" : "", avail);
    if (x) {
        def->extra_msr = x->msr;
        def->extra_value = x->value;
        if (x->alt_code || x->alt_umask)
            def->alt_evtsel = (def->evtsel & ~0xFFFFu) | x->alt_code | (uint32_t)x->alt_umask << 8;
    }
    return 0;
}

/* Which events keep a collection from fitting, in words. */
static int explain_misfit(const struct collect_events *out, int err, struct diag *d)
{
    char list[512];
    size_t len = 0, gp = 0, offcore = 0;
    list[0] = 0;
    for (size_t i = 0; i < out->num_events; i++) {
        const struct collect_event_def *def = out->events[i].def;
        if (def->fixed_counter != COLLECT_ECB_NO_FIXED)
            continue;
        gp++;
        offcore += def->extra_msr == COLLECT_ECB_MSR_OFFCORE_RSP_0;
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s (counters 0x%02x%s)",
                                    len ? ", " : "", def->name, def->gp_mask,
                                    def->extra_msr ? ", extra MSR" : "");
    }
    if (err == COLLECT_ECB_ERR_EXTRA)
        return diag_fail(d, DIAG_USAGE,
                         "too many events for the extra MSRs: %zu offcore events (at most 2, one "
                         "per MSR_OFFCORE_RSP; some can use only the first), or two load-latency "
                         "or frontend events with different thresholds: %s",
                         offcore, list);
    return diag_fail(d, DIAG_USAGE,
                     "too many events for the counters: %zu events need general counters and "
                     "no assignment fits them: %s",
                     gp, list);
}

int collect_events_metrics(const char *name, const struct collect_target_cpu *cpu,
                           struct collect_event_spec *specs, size_t *n, struct diag *d)
{
    if (strcmp(name, "tma1") != 0)
        return diag_fail(d, DIAG_USAGE, "--metrics %s: unknown metric set (tma1)", name);
    if (!cpu->pmu)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--metrics tma1: the target has no usable PMU and samples on a timer "
                         "(QEMU without a virtual PMU, most VMs)");
    const struct perfmon_model *m = perfmon_model_for(cpu->family, cpu->model);
    if (!m || strcmp(m->code, METRICS_TMA1_MODEL) != 0)
        return diag_fail(
            d, DIAG_USAGE,
            "--metrics tma1: acart has top-down level 1 for Skylake-class cores "
            "(perfmon %s), not for the target's CPU (family %" PRIu32 " model 0x%02" PRIX32 "%s%s)",
            METRICS_TMA1_MODEL, cpu->family, cpu->model, m ? ", perfmon " : "", m ? m->code : "");
    for (size_t i = 0; i < TMA1_EVENTS; i++) {
        memset(&specs[i], 0, sizeof specs[i]);
        snprintf(specs[i].name, sizeof specs[i].name, "%s", metrics_tma1_names[i]);
    }
    *n = TMA1_EVENTS;
    return 0;
}

/* Each spec's definition and sample-after value into out (no counter check yet). */
static int resolve_defs(const struct collect_event_spec *specs, size_t n,
                        const struct collect_target_cpu *cpu, struct collect_events *out,
                        struct diag *d)
{
    const struct perfmon_model *m = NULL;
    memset(out, 0, sizeof *out);
    out->table = out->table_buf;
    for (size_t i = 0; i < n; i++) {
        const struct collect_event_spec *s = &specs[i];
        struct collect_event_def *def = &out->defs[i];
        const struct collect_event_def *builtin = builtin_named(s->name);
        if (builtin && !s->precise) {
            *def = *builtin;
        } else {
            if (!cpu->pmu)
                return diag_fail(d, COLLECT_DIAG_TARGET,
                                 "--event %s: the target has no usable PMU and samples on a "
                                 "timer (QEMU without a virtual PMU, most VMs); only the "
                                 "built-in events CPU_CLK_UNHALTED.REF_TSC, "
                                 "CPU_CLK_UNHALTED.THREAD and INST_RETIRED.ANY set its rate",
                                 s->name);
            if (!m) {
                m = perfmon_model_for(cpu->family, cpu->model);
                if (!m) {
                    char models[512];
                    list_models(models, sizeof models);
                    return diag_fail(d, DIAG_USAGE,
                                     "--event %s: acart has no perfmon event table for the "
                                     "target's CPU (family %" PRIu32 " model 0x%02" PRIX32
                                     "); it has %s",
                                     s->name, cpu->family, cpu->model, models);
                }
                snprintf(out->table_buf, sizeof out->table_buf, "perfmon %s version %s", m->code,
                         m->version);
            }
            const struct perfmon_event *pe = perfmon_find(m, s->name);
            if (!pe) {
                char near[512];
                suggest(m, s->name, near, sizeof near);
                return diag_fail(d, DIAG_USAGE, "--event %s: no such event on %s (perfmon %s)%s",
                                 s->name, m->uarch, m->code, near);
            }
            int rc = from_perfmon(m, pe, s, cpu, def, d);
            if (rc)
                return rc;
            snprintf(out->names[i], sizeof out->names[i], "%s", perfmon_name(m, pe));
            def->name = out->names[i];
        }
        out->events[i].def = def;
        out->events[i].sample_after = s->sample_after ? s->sample_after : def->default_sample_after;
    }
    out->num_events = n;
    out->num_groups = 1;
    out->group_start[1] = n;
    return 0;
}

/* Why events[first, first + n) do not make one group. */
static int group_misfit(const struct collect_events *out, size_t first, size_t n, int err,
                        struct diag *d)
{
    static struct collect_events part;
    memset(&part, 0, sizeof part);
    for (size_t i = 0; i < n; i++) {
        part.defs[i] = out->defs[first + i];
        part.events[i] = out->events[first + i];
        part.events[i].def = &part.defs[i];
    }
    part.num_events = n;
    if (err == COLLECT_ECB_ERR_GP || err == COLLECT_ECB_ERR_EXTRA)
        return explain_misfit(&part, err, d);
    const struct collect_event_def *defs = part.defs;
    for (size_t i = 0; err == COLLECT_ECB_ERR_SAME_COUNTER && i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (defs[i].fixed_counter != COLLECT_ECB_NO_FIXED &&
                defs[i].fixed_counter == defs[j].fixed_counter)
                return diag_fail(d, DIAG_USAGE,
                                 "too many events for the counters: %s and %s both count only "
                                 "on fixed counter %u",
                                 defs[j].name, defs[i].name, defs[i].fixed_counter);
    return diag_fail(d, DIAG_USAGE, "%s", collect_ecb_strerror(err));
}

static int fits(const struct collect_events *out, size_t first, size_t n)
{
    static uint8_t scratch[COLLECT_ECB_SIZE];
    return collect_ecb_build(out->events + first, n, scratch, sizeof scratch);
}

int collect_events_resolve(const struct collect_event_spec *specs, size_t n,
                           const struct collect_target_cpu *cpu, struct collect_events *out,
                           struct diag *d)
{
    if (n > COLLECT_ECB_MAX_EVENTS)
        return diag_fail(d, DIAG_USAGE,
                         "at most %d events, or up to %d taking turns on the counters with "
                         "--mux MS",
                         COLLECT_ECB_MAX_EVENTS, COLLECT_MAX_EVENTS);
    int rc = resolve_defs(specs, n, cpu, out, d);
    if (rc)
        return rc;
    int err = fits(out, 0, n);
    return err < 0 ? group_misfit(out, 0, n, err, d) : 0;
}

int collect_events_resolve_groups(const struct collect_event_spec *specs, size_t n,
                                  const struct collect_target_cpu *cpu, struct collect_events *out,
                                  struct diag *d)
{
    if (n > COLLECT_MAX_EVENTS)
        return diag_fail(d, DIAG_USAGE, "at most %d events in all groups", COLLECT_MAX_EVENTS);
    int rc = resolve_defs(specs, n, cpu, out, d);
    if (rc)
        return rc;
    size_t g = 0, first = 0;
    while (first < n) {
        size_t len = 1;
        int err = fits(out, first, 1);
        if (err < 0)
            return group_misfit(out, first, 1, err, d);
        while (first + len < n && len < COLLECT_ECB_MAX_EVENTS && fits(out, first, len + 1) >= 0)
            len++;
        if (g == COLLECT_MAX_GROUPS)
            return diag_fail(d, DIAG_USAGE,
                             "the events need more than %d groups: the target multiplexes at "
                             "most %d",
                             COLLECT_MAX_GROUPS, COLLECT_MAX_GROUPS);
        out->group_start[g++] = first;
        first += len;
    }
    out->num_groups = g;
    out->group_start[g] = n;
    return 0;
}
