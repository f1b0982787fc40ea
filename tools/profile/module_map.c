#include "module_map.h"

#include <stdlib.h>
#include <string.h>

/* The end of a lifetime that never ends. */
#define FOREVER UINT64_MAX

struct builder {
    const struct module_info *modules;
    bool timed;
    /* Scratch for one group, sized for all its members. */
    size_t *active; /* members holding the current interval, by rank */
    uint64_t *times;
    size_t *stack;
};

/* A module with a sort key: its load time (ranking) or address (sweeping). */
struct keyed {
    uint64_t key;
    size_t index;
};

static int compare_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static size_t sort_unique(uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, compare_u64);
    size_t out = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[out - 1])
            v[out++] = v[i];
    return out;
}

static bool is_global(const struct module_info *m)
{
    return m->pid == 0 || m->global;
}

static uint64_t range_end(const struct module_info *m)
{
    uint64_t end = m->load_address + m->length;
    return end < m->load_address ? UINT64_MAX : end;
}

static uint64_t load_time(const struct builder *b, size_t i)
{
    return b->timed ? b->modules[i].tsc : 0;
}

static uint64_t unload_time(const struct builder *b, size_t i)
{
    return b->timed && b->modules[i].unload_tsc ? b->modules[i].unload_tsc : FOREVER;
}

/* Whether module a wins over module b where both hold an address: the later load, then
 * the later in the list (profile sorts it by load address). */
static bool wins(const struct module_info *modules, size_t a, size_t b)
{
    if (modules[a].tsc != modules[b].tsc)
        return modules[a].tsc > modules[b].tsc;
    return a > b;
}

static int add_segment(struct module_group *g, uint64_t start, size_t holder)
{
    if (g->num_segments == g->segments_cap) {
        size_t cap = g->segments_cap ? 2 * g->segments_cap : 16;
        uint64_t *starts = realloc(g->starts, cap * sizeof *starts);
        if (!starts)
            return -1;
        g->starts = starts;
        size_t *holders = realloc(g->holder, cap * sizeof *holders);
        if (!holders)
            return -1;
        g->holder = holders;
        g->segments_cap = cap;
    }
    g->starts[g->num_segments] = start;
    g->holder[g->num_segments++] = holder;
    return 0;
}

/* The timeline of one interval, held by ranked[active[0..n)] (ascending rank, so ascending
 * load time). Walking the load and unload times in order, every module loaded by then is
 * pushed on a stack in rank order: the top is the latest load, and the holder once the
 * modules unloaded by then are popped off it. A module buried under a later load stays
 * until it surfaces; time only grows, so once unloaded it is popped for good. */
static int timeline(struct builder *b, struct module_group *g, const struct keyed *ranked,
                    const size_t *active, size_t n)
{
    size_t num_times = 0;
    b->times[num_times++] = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = ranked[active[k]].index;
        b->times[num_times++] = load_time(b, i);
        if (unload_time(b, i) != FOREVER)
            b->times[num_times++] = unload_time(b, i);
    }
    num_times = sort_unique(b->times, num_times);
    size_t pushed = 0, depth = 0, previous = 0;
    for (size_t t = 0; t < num_times; t++) {
        uint64_t now = b->times[t];
        while (pushed < n && load_time(b, ranked[active[pushed]].index) <= now)
            b->stack[depth++] = ranked[active[pushed++]].index;
        while (depth && unload_time(b, b->stack[depth - 1]) <= now)
            depth--;
        size_t holder = depth ? b->stack[depth - 1] : MODULE_MAP_NONE;
        if (t == 0 || holder != previous) {
            if (add_segment(g, now, holder) != 0)
                return -1;
            previous = holder;
        }
    }
    return 0;
}

/* The group of members[0..n) (keys ignored, overwritten). */
static int group_build(struct builder *b, struct module_group *g, struct keyed *members, size_t n)
{
    if (n == 0)
        return 0;
    const struct module_info *m = b->modules;
    for (size_t k = 0; k < n; k++)
        members[k].key = m[members[k].index].tsc;
    qsort(members, n, sizeof *members, compare_keyed); /* rank order: who wins over whom */
    struct keyed *by_address = malloc(n * sizeof *by_address);
    g->bounds = malloc(2 * n * sizeof *g->bounds);
    g->first = malloc(2 * n * sizeof *g->first);
    b->active = malloc(n * sizeof *b->active);
    b->times = malloc((2 * n + 1) * sizeof *b->times);
    b->stack = malloc(n * sizeof *b->stack);
    int rc = by_address && g->bounds && g->first && b->active && b->times && b->stack ? 0 : -1;
    for (size_t k = 0; !rc && k < n; k++) {
        const struct module_info *mod = &m[members[k].index];
        g->bounds[2 * k] = mod->load_address;
        g->bounds[2 * k + 1] = range_end(mod);
        by_address[k] = (struct keyed){mod->load_address, k};
    }
    if (!rc) {
        g->num_bounds = sort_unique(g->bounds, 2 * n);
        qsort(by_address, n, sizeof *by_address, compare_keyed);
    }
    /* Sweep the intervals in address order, keeping the members that cover the current
     * one, by rank. */
    size_t num_active = 0, next = 0;
    for (size_t j = 0; !rc && j + 1 < g->num_bounds; j++) {
        uint64_t at = g->bounds[j];
        size_t kept = 0;
        for (size_t a = 0; a < num_active; a++)
            if (range_end(&m[members[b->active[a]].index]) > at)
                b->active[kept++] = b->active[a];
        num_active = kept;
        for (; next < n && by_address[next].key <= at; next++) {
            size_t rank = by_address[next].index, pos = num_active++;
            for (; pos > 0 && b->active[pos - 1] > rank; pos--)
                b->active[pos] = b->active[pos - 1];
            b->active[pos] = rank;
        }
        g->first[j] = g->num_segments;
        rc = timeline(b, g, members, b->active, num_active);
    }
    if (!rc && g->num_bounds)
        g->first[g->num_bounds - 1] = g->num_segments;
    free(by_address);
    free(b->active);
    free(b->times);
    free(b->stack);
    return rc;
}

int module_map_build(struct module_map *map, const struct module_info *modules, size_t n,
                     bool timed)
{
    memset(map, 0, sizeof *map);
    map->modules = modules;
    struct builder b = {.modules = modules, .timed = timed};
    struct keyed *members = malloc((n ? n : 1) * sizeof *members);
    struct keyed *owned = malloc((n ? n : 1) * sizeof *owned); /* (pid, index), by pid */
    map->groups = malloc((n ? n : 1) * sizeof *map->groups);
    if (!members || !owned || !map->groups) {
        free(members);
        free(owned);
        return -1;
    }
    size_t num_global = 0, num_owned = 0;
    for (size_t i = 0; i < n; i++) {
        if (range_end(&modules[i]) <= modules[i].load_address)
            continue; /* empty: holds nothing */
        if (is_global(&modules[i]))
            members[num_global++] = (struct keyed){0, i};
        else
            owned[num_owned++] = (struct keyed){modules[i].pid, i};
    }
    int rc = group_build(&b, &map->global, members, num_global);
    qsort(owned, num_owned, sizeof *owned, compare_keyed);
    for (size_t k = 0; !rc && k < num_owned;) {
        size_t run = 0;
        uint32_t pid = (uint32_t)owned[k].key;
        for (; k < num_owned && owned[k].key == pid; k++)
            members[run++] = owned[k];
        struct module_group *g = &map->groups[map->num_groups++];
        memset(g, 0, sizeof *g);
        g->pid = pid;
        rc = group_build(&b, g, members, run);
    }
    free(members);
    free(owned);
    if (rc)
        module_map_free(map);
    return rc;
}

static size_t group_find(const struct module_group *g, uint64_t ip, uint64_t tsc)
{
    if (g->num_bounds < 2 || ip < g->bounds[0] || ip >= g->bounds[g->num_bounds - 1])
        return MODULE_MAP_NONE;
    size_t lo = 0, hi = g->num_bounds - 1; /* the interval: the last bound <= ip */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->bounds[mid] <= ip)
            lo = mid;
        else
            hi = mid;
    }
    size_t first = g->first[lo], end = g->first[lo + 1];
    while (end - first > 1) { /* the segment: the last start <= tsc (the first starts at 0) */
        size_t mid = first + (end - first) / 2;
        if (g->starts[mid] <= tsc)
            first = mid;
        else
            end = mid;
    }
    return g->holder[first];
}

size_t module_map_find(const struct module_map *map, uint64_t ip, uint32_t pid, uint64_t tsc)
{
    size_t found = group_find(&map->global, ip, tsc);
    size_t lo = 0, hi = map->num_groups;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (map->groups[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < map->num_groups && map->groups[lo].pid == pid) {
        size_t own = group_find(&map->groups[lo], ip, tsc);
        if (own != MODULE_MAP_NONE && (found == MODULE_MAP_NONE || wins(map->modules, own, found)))
            found = own;
    }
    return found;
}

static void group_free(struct module_group *g)
{
    free(g->bounds);
    free(g->first);
    free(g->starts);
    free(g->holder);
}

void module_map_free(struct module_map *map)
{
    group_free(&map->global);
    for (size_t i = 0; i < map->num_groups; i++)
        group_free(&map->groups[i]);
    free(map->groups);
    memset(map, 0, sizeof *map);
}
