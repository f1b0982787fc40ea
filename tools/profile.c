#include "profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int profile_open(const char *path, struct profile *p, struct diag *d)
{
    memset(p, 0, sizeof *p);
    struct stat st;
    if (stat(path, &st) != 0)
        return diag_fail(d, DIAG_INPUT, "%s: %s", path, strerror(errno));
    p->source = strdup(path);
    if (!p->source)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc;
    if (S_ISDIR(st.st_mode)) {
        p->kind = PROFILE_COLLECTION;
        rc = collection_open(path, p, d);
    } else {
        p->kind = PROFILE_TB5;
        rc = tb5_read_open(path, p, d);
    }
    if (rc)
        profile_close(p);
    return rc;
}

int profile_scan(struct profile *p, profile_sample_fn *fn, void *ctx, struct diag *d)
{
    return p->kind == PROFILE_COLLECTION ? collection_scan(p, fn, ctx, d)
                                         : tb5_read_scan(p, fn, ctx, d);
}

void profile_close(struct profile *p)
{
    if (p->kind == PROFILE_TB5)
        tb5_read_close(p);
    for (size_t i = 0; i < p->num_modules; i++)
        free(p->modules[i].path);
    free(p->modules);
    free(p->records_per_cpu);
    session_free(&p->session);
    free(p->source);
    memset(p, 0, sizeof *p);
}

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

static int compare_load_address(const void *a, const void *b)
{
    const struct module_info *x = a, *y = b;
    if (x->load_address != y->load_address)
        return x->load_address < y->load_address ? -1 : 1;
    /* Of two modules at one address the later load wins the lookup: it sorts last. */
    return (x->tsc > y->tsc) - (x->tsc < y->tsc);
}

void profile_finish_modules(struct profile *p)
{
    if (p->num_modules)
        qsort(p->modules, p->num_modules, sizeof *p->modules, compare_load_address);
    for (size_t i = 0; i < p->num_modules; i++) {
        const char *slash = strrchr(p->modules[i].path, '/');
        const char *bslash = strrchr(p->modules[i].path, '\\');
        const char *sep = slash > bslash ? slash : bslash;
        p->modules[i].name = sep ? sep + 1 : p->modules[i].path;
    }
}

/* Bare-metal targets have one address space, so a module is found by address alone;
 * overlapping modules resolve to the one with the highest load address below ip. */
const struct module_info *profile_module_at(const struct profile *p, uint64_t ip)
{
    size_t lo = 0, hi = p->num_modules;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->modules[mid].load_address <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        const struct module_info *m = &p->modules[i];
        if (ip - m->load_address < m->length)
            return m;
    }
    return NULL;
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
