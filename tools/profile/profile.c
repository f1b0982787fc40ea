#include "profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int profile_add_module(struct profile *p, const struct module_info *m, struct diag *d)
{
    struct module_info *grown = realloc(p->modules, (p->num_modules + 1) * sizeof *grown);
    if (!grown)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    p->modules = grown;
    struct module_info *copy = &p->modules[p->num_modules];
    *copy = *m;
    copy->path = strdup(m->path);
    if (!copy->path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    p->num_modules++;
    return 0;
}

bool profile_unload_module(struct profile *p, uint32_t pid, uint64_t load_address, const char *path,
                           uint64_t tsc)
{
    /* The latest load that began by then: a writer that sends a module's loads before
     * their unloads (load a, load a, unload a, unload a) still pairs each unload with
     * the load it ends. */
    struct module_info *ends = NULL;
    for (size_t i = p->num_modules; i-- > 0;) {
        struct module_info *m = &p->modules[i];
        if (m->pid == pid && m->load_address == load_address && m->unload_tsc == 0 &&
            m->tsc <= tsc && (!ends || m->tsc > ends->tsc) && (!path || strcmp(m->path, path) == 0))
            ends = m;
    }
    if (!ends)
        return false;
    /* 0 means "not unloaded": an unload at TSC 0 ends the lifetime as early as anything
     * can. */
    ends->unload_tsc = tsc ? tsc : 1;
    return true;
}

static int compare_modules(const void *a, const void *b)
{
    const struct module_info *x = a, *y = b;
    if (x->load_address != y->load_address)
        return x->load_address < y->load_address ? -1 : 1;
    /* Of two modules loaded at one address at one time the later in the list wins the
     * lookup: an order that does not depend on qsort. */
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    if (x->length != y->length)
        return x->length < y->length ? -1 : 1;
    if (x->unload_tsc != y->unload_tsc)
        return x->unload_tsc < y->unload_tsc ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return strcmp(x->path, y->path);
}

int profile_finish_modules(struct profile *p, bool timed, struct diag *d)
{
    if (p->num_modules)
        qsort(p->modules, p->num_modules, sizeof *p->modules, compare_modules);
    for (size_t i = 0; i < p->num_modules; i++) {
        const char *slash = strrchr(p->modules[i].path, '/');
        const char *bslash = strrchr(p->modules[i].path, '\\');
        const char *sep = slash > bslash ? slash : bslash;
        p->modules[i].name = sep ? sep + 1 : p->modules[i].path;
    }
    if (module_map_build(&p->module_map, p->modules, p->num_modules, timed) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    return 0;
}

const struct module_info *profile_module_at(const struct profile *p, uint64_t ip, uint32_t pid,
                                            uint64_t tsc)
{
    size_t i = module_map_find(&p->module_map, ip, pid, tsc);
    return i == MODULE_MAP_NONE ? NULL : &p->modules[i];
}

unsigned profile_code_mode(const struct profile *p)
{
    for (size_t i = 0; i < p->num_modules; i++)
        if (p->modules[i].exe)
            return p->modules[i].mode;
    return p->num_modules ? p->modules[0].mode : CODE_MODE_UNKNOWN;
}

const char *profile_code_mode_name(unsigned mode)
{
    switch (mode) {
    case CODE_MODE_64:
        return "64-bit code (Intel 64)";
    case CODE_MODE_32:
        return "32-bit code (IA-32)";
    case CODE_MODE_16:
        return "16-bit code";
    default:
        return "code mode unknown";
    }
}

unsigned profile_check_counts(const struct profile *p, const char *command)
{
    unsigned mismatches = 0;
    if (!p->records_known || !p->reported_counts)
        return 0;
    for (uint32_t cpu = 0; cpu < p->session.num_cpus; cpu++) {
        uint64_t want = p->session.samples_per_cpu[cpu], have = p->records_per_cpu[cpu];
        if (want == have)
            continue;
        fprintf(stderr,
                "acart %s: warning: %s: CPU %" PRIu32 " has %" PRIu64
                " sample records, the target reported %" PRIu64 "\n",
                command, p->source, cpu, have, want);
        mismatches++;
    }
    return mismatches;
}
