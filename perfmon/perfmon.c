/* Lookups in the generated perfmon tables (perfmon.h). */
#include "perfmon.h"

#include <stddef.h>

#define EVTSEL_EDGE        (1u << 18)
#define EVTSEL_ANY         (1u << 21)
#define EVTSEL_INV         (1u << 23)
#define EVTSEL_CMASK_SHIFT 24

const struct perfmon_model *perfmon_model_for(uint32_t family, uint32_t model)
{
    if (family != 6)
        return NULL;
    for (unsigned i = 0; i < perfmon_num_models; i++)
        for (unsigned j = 0; j < perfmon_models[i].num_cpu_models; j++)
            if (perfmon_models[i].cpu_models[j] == model)
                return &perfmon_models[i];
    return NULL;
}

static char upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* strcmp of the upper-case name in the table with name, case ignored. */
static int compare(const char *table, const char *name)
{
    for (;; table++, name++) {
        char a = *table, b = upper(*name);
        if (a != b || !a)
            return (unsigned char)a - (unsigned char)b;
    }
}

const struct perfmon_event *perfmon_find(const struct perfmon_model *m, const char *name)
{
    if (!m || !name)
        return NULL;
    unsigned lo = 0, hi = m->num_events;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        int c = compare(m->names + m->events[mid].name, name);
        if (c == 0)
            return &m->events[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *perfmon_name(const struct perfmon_model *m, const struct perfmon_event *e)
{
    return m->names + e->name;
}

uint32_t perfmon_sample_after(const struct perfmon_model *m, const struct perfmon_event *e)
{
    return m->sample_after[e->sample_after];
}

const struct perfmon_extra *perfmon_extra(const struct perfmon_model *m,
                                          const struct perfmon_event *e)
{
    return e->extra ? &m->extras[e->extra - 1] : NULL;
}

uint32_t perfmon_evtsel(const struct perfmon_event *e)
{
    uint32_t v = e->code | (uint32_t)e->umask << 8 | (uint32_t)e->cmask << EVTSEL_CMASK_SHIFT;
    if (e->flags & PERFMON_EDGE)
        v |= EVTSEL_EDGE;
    if (e->flags & PERFMON_ANY)
        v |= EVTSEL_ANY;
    if (e->flags & PERFMON_INV)
        v |= EVTSEL_INV;
    return v;
}
