/*
 * module_index.h - where binding looks modules up: per process, the modules it had
 * loaded, sorted by address, each with the time span it was loaded for; plus the
 * global (kernel) modules every process sees.
 */
#ifndef TB5_MODULE_INDEX_H
#define TB5_MODULE_INDEX_H

#include <stdint.h>

#include "tbrw_types.h"
#include "u64map.h"

#define TB5_TIME_NEVER UINT64_MAX

struct module_span {
    uint64_t lo, hi;     /* addresses [lo, hi) */
    uint64_t start, end; /* loaded over [start, end) */
    uint64_t module;     /* index in the module section */
    int tsc;             /* times are TSC values, else sample numbers */
};

struct module_group {
    struct module_span *spans; /* sorted by lo */
    uint64_t *max_hi;          /* max_hi[i] = largest hi among spans[0..i] */
    size_t count;
    size_t cap;
};

struct module_index {
    struct module_group global;
    struct module_group *groups; /* one per process that loaded modules */
    size_t ngroups;
    struct u64map by_pid; /* OS pid -> index in groups */
};

/* The time of one sample, in both units a module may use. */
struct sample_time {
    uint64_t tsc;
    uint64_t ordinal;
    int have_tsc;
};

int module_index_build(struct module_index *ix, const TBRW_MODULE *modules, uint64_t count);
/* The group of a process, NULL if it loaded nothing of its own. */
const struct module_group *module_index_group(const struct module_index *ix, uint32_t pid);
/* Module containing ip at time t in group g (loaded last wins), or TBRW_BIND_NO_INDEX. */
uint64_t module_group_lookup(const struct module_group *g, uint64_t ip,
                             const struct sample_time *t);
void module_index_free(struct module_index *ix);

#endif /* TB5_MODULE_INDEX_H */
