#include "profile_open.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collection.h"
#include "tb5_read.h"

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
    if (p->unwind_free)
        p->unwind_free(p->unwind_ctx);
    for (size_t i = 0; i < p->num_modules; i++)
        free(p->modules[i].path);
    free(p->modules);
    module_map_free(&p->module_map);
    free(p->records_per_cpu);
    session_free(&p->session);
    free(p->source);
    memset(p, 0, sizeof *p);
}
