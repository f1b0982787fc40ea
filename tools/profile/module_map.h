/* Which module holds an address at a time, for a process: the lookup behind every
 * sample-to-module attribution of the host tools.
 *
 * Firmware may load code at run time, and overlays are loaded and unloaded at the same
 * address one after another, so the address alone does not say whose code a sample ran:
 * a module is a rectangle in address x time, [load_address, + length) x [tsc, unload_tsc),
 * and a sample a point in it. A sample belongs to the module that contains its address
 * and time and belongs to its process or is global; among several, the latest load wins
 * (ties: the higher load address, then the later in the sorted module list).
 *
 * The map cuts the address space at every module's ends into intervals that no module
 * starts or ends inside, and gives each interval its timeline: from which time on which
 * module holds it. A lookup is a binary search for the interval and one for the time, in
 * the global modules and in the sample's process's; millions of samples cost no more
 * than that, however many overlay lifetimes share an address. */
#ifndef ACART_TOOLS_MODULE_MAP_H
#define ACART_TOOLS_MODULE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Code modes, the numbers the wire and tb5 use (SEP_MODE_* / TBRW_MODE_*). */
enum code_mode { CODE_MODE_UNKNOWN = 0, CODE_MODE_16 = 1, CODE_MODE_32 = 2, CODE_MODE_64 = 3 };

/* A module's lifetime: loaded at tsc, unloaded at unload_tsc (exclusive). */
struct module_info {
    char *path;
    const char *name; /* base name, inside path */
    uint64_t load_address, length;
    uint64_t tsc;        /* when it was loaded (0: before anything, like the image) */
    uint64_t unload_tsc; /* when it was unloaded (0: it was not) */
    uint32_t pid;        /* owning process (0: global) */
    uint16_t selector;   /* code segment selector */
    uint8_t mode;        /* enum code_mode */
    bool exe, global;
};

/* No module there then. */
#define MODULE_MAP_NONE SIZE_MAX

/* The modules of one process (or the global ones), cut into intervals. Interval j is
 * [bounds[j], bounds[j + 1]); its timeline is the segments first[j] .. first[j + 1] - 1,
 * segment k holding from starts[k] (the first from time 0) until the next one starts. */
struct module_group {
    uint32_t pid;
    size_t num_bounds;
    uint64_t *bounds;
    size_t *first;
    uint64_t *starts;
    size_t *holder; /* index into the modules, or MODULE_MAP_NONE */
    size_t num_segments, segments_cap;
};

struct module_map {
    const struct module_info *modules;
    struct module_group global;  /* modules of pid 0 or flagged global: seen by every pid */
    struct module_group *groups; /* per process, sorted by pid */
    size_t num_groups;
};

/* Builds the map of modules[0..n), which must stay in place while the map is used. With
 * timed false the samples carry no times: lifetimes are ignored and the latest load
 * containing an address wins. Returns 0, or -1 when out of memory. */
int module_map_build(struct module_map *map, const struct module_info *modules, size_t n,
                     bool timed);

/* The index of the module holding ip for process pid at time tsc, or MODULE_MAP_NONE. */
size_t module_map_find(const struct module_map *map, uint64_t ip, uint32_t pid, uint64_t tsc);

void module_map_free(struct module_map *map);

#endif
