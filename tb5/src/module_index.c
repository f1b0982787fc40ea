/*
 * module_index.c - the module lookup of binding (3.3, 6.1). A module record covers
 * [load_address, load_address + length) from its load time (module_event_when,
 * inclusive) to its unload time (exclusive). The unload time is module_unload_tsc
 * for TSC-timed modules (TBRW_MODULE_TSC_USED) or reserved_for_legacy (the unload
 * sample count) for sample-count-timed ones, where 0 and all-ones mean "never";
 * a separate TBRW_MODULE_UNLOADED record ends the latest matching load instead.
 *
 * Lookup: the spans of a process are sorted by start address; a binary search finds
 * the last span starting at or below ip, and the scan walks back while the running
 * maximum of end addresses still covers ip. Address ranges reused over time (a
 * library unloaded and another loaded in its place) are told apart by time, and
 * when several spans match, the one loaded last wins. With few overlaps the cost
 * per sample is one binary search.
 */
#include <stdlib.h>

#include "module_index.h"

static int is_unload_record(uint32_t flags)
{
    return (flags & TBRW_MODULE_UNLOADED) && !(flags & TBRW_MODULE_LOADED);
}

static uint64_t unload_time(const TBRW_MODULE *m)
{
    uint64_t t =
        (m->module_flags & TBRW_MODULE_TSC_USED) ? m->module_unload_tsc : m->reserved_for_legacy;

    return (t == 0 || t == UINT64_MAX) ? TB5_TIME_NEVER : t;
}

static int group_add(struct module_group *g, const struct module_span *s)
{
    if (g->count == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 8;
        struct module_span *p = realloc(g->spans, cap * sizeof(*p));
        if (!p)
            return -1;
        g->spans = p;
        g->cap = cap;
    }
    g->spans[g->count++] = *s;
    return 0;
}

static struct module_group *group_for(struct module_index *ix, const TBRW_MODULE *m)
{
    uint64_t gi;

    if (m->module_flags & TBRW_MODULE_GLOBAL_LOAD)
        return &ix->global;
    if (!u64map_get(&ix->by_pid, m->module_associated_pid, &gi)) {
        struct module_group *g = realloc(ix->groups, (ix->ngroups + 1) * sizeof(*g));
        if (!g)
            return NULL;
        ix->groups = g;
        gi = ix->ngroups++;
        g[gi] = (struct module_group){0};
        if (u64map_put(&ix->by_pid, m->module_associated_pid, gi) != 0)
            return NULL;
    }
    return &ix->groups[gi];
}

static int span_order(const void *a, const void *b)
{
    const struct module_span *x = a, *y = b;

    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->module < y->module ? -1 : x->module > y->module;
}

static void sort_group(struct module_group *g)
{
    if (g->count)
        qsort(g->spans, g->count, sizeof(struct module_span), span_order);
}

/* First span with lo >= addr. */
static size_t lower_bound(const struct module_group *g, uint64_t addr)
{
    size_t a = 0, b = g->count;

    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (g->spans[m].lo < addr)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* An unload record ends the latest still-open load of the same module image. */
static void apply_unload(struct module_group *g, const TBRW_MODULE *m)
{
    struct module_span *best = NULL;
    uint64_t t = m->module_event_when;

    for (size_t i = lower_bound(g, m->module_load_address);
         i < g->count && g->spans[i].lo == m->module_load_address; i++) {
        struct module_span *s = &g->spans[i];
        if (s->end == TB5_TIME_NEVER && s->start <= t && (!best || s->start >= best->start))
            best = s;
    }
    if (best)
        best->end = t;
}

static int finish_group(struct module_group *g)
{
    g->max_hi = malloc((g->count ? g->count : 1) * sizeof(uint64_t));
    if (!g->max_hi)
        return -1;
    for (size_t i = 0; i < g->count; i++)
        g->max_hi[i] = (i && g->max_hi[i - 1] > g->spans[i].hi) ? g->max_hi[i - 1] : g->spans[i].hi;
    return 0;
}

int module_index_build(struct module_index *ix, const TBRW_MODULE *modules, uint64_t count)
{
    *ix = (struct module_index){0};
    for (uint64_t i = 0; i < count; i++) {
        const TBRW_MODULE *m = &modules[i];
        struct module_group *g;
        struct module_span s;
        if (is_unload_record(m->module_flags) || m->module_length == 0)
            continue;
        g = group_for(ix, m);
        if (!g)
            return -1;
        s.lo = m->module_load_address;
        s.hi = m->module_length > UINT64_MAX - s.lo ? UINT64_MAX : s.lo + m->module_length;
        s.start = m->module_event_when;
        s.end = unload_time(m);
        s.module = i;
        s.tsc = (m->module_flags & TBRW_MODULE_TSC_USED) != 0;
        if (group_add(g, &s) != 0)
            return -1;
    }
    sort_group(&ix->global);
    for (size_t i = 0; i < ix->ngroups; i++)
        sort_group(&ix->groups[i]);
    for (uint64_t i = 0; i < count; i++) {
        const TBRW_MODULE *m = &modules[i];
        uint64_t gi;
        if (!is_unload_record(m->module_flags))
            continue;
        if (m->module_flags & TBRW_MODULE_GLOBAL_LOAD)
            apply_unload(&ix->global, m);
        else if (u64map_get(&ix->by_pid, m->module_associated_pid, &gi))
            apply_unload(&ix->groups[gi], m);
    }
    if (finish_group(&ix->global) != 0)
        return -1;
    for (size_t i = 0; i < ix->ngroups; i++)
        if (finish_group(&ix->groups[i]) != 0)
            return -1;
    return 0;
}

const struct module_group *module_index_group(const struct module_index *ix, uint32_t pid)
{
    uint64_t gi;

    return u64map_get(&ix->by_pid, pid, &gi) ? &ix->groups[gi] : NULL;
}

static int loaded_at(const struct module_span *s, const struct sample_time *t)
{
    uint64_t now;

    if (s->tsc) {
        if (!t->have_tsc)
            return 1; /* no time stamps in the samples: only the address can decide */
        now = t->tsc;
    } else {
        now = t->ordinal;
    }
    return s->start <= now && now < s->end;
}

/* Number of spans with lo <= addr. */
static size_t upper_bound(const struct module_group *g, uint64_t addr)
{
    size_t a = 0, b = g->count;

    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (g->spans[m].lo <= addr)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

uint64_t module_group_lookup(const struct module_group *g, uint64_t ip, const struct sample_time *t)
{
    const struct module_span *best = NULL;
    size_t k;

    if (!g)
        return TBRW_BIND_NO_INDEX;
    k = upper_bound(g, ip);
    while (k-- > 0 && g->max_hi[k] > ip) {
        const struct module_span *s = &g->spans[k];
        if (s->hi > ip && loaded_at(s, t) &&
            (!best || s->start > best->start ||
             (s->start == best->start && s->module > best->module)))
            best = s;
    }
    return best ? best->module : TBRW_BIND_NO_INDEX;
}

static void group_free(struct module_group *g)
{
    free(g->spans);
    free(g->max_hi);
}

void module_index_free(struct module_index *ix)
{
    group_free(&ix->global);
    for (size_t i = 0; i < ix->ngroups; i++)
        group_free(&ix->groups[i]);
    free(ix->groups);
    u64map_free(&ix->by_pid);
    *ix = (struct module_index){0};
}
