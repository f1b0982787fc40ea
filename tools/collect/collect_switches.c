/* The port's task switches (aca_task_switched on the target), read after STOP a page at a
 * time per CPU, and task-switches.csv. A target without them (the reference, an acart built
 * without a switch log) answers DRIVER_COMM_FAILED; one whose port reports none answers
 * with none kept and none lost: both leave no file, and export perfetto then draws the
 * tasks from the samples alone. */
#include "collect_internal.h"
#include "file_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One page of CPU `cpu`'s switches from `first`, checked. */
static int read_page(struct collection *c, uint32_t cpu, uint32_t first,
                     struct acart_task_switches *page, int *present, struct diag *d)
{
    struct acart_task_switch_read r = {cpu, first};
    size_t got = 0;
    int rc =
        collect_extension_request(c, ACART_OP_GET_TASK_SWITCHES, &r, sizeof r, page, sizeof *page,
                                  offsetof(struct acart_task_switches, entry), &got, present, d);
    if (rc || !*present)
        return rc;
    /* From `first`, as many as fit a page or remain of those kept; none only at the end. */
    if (page->cpu != cpu || page->count > ACART_TASK_SWITCH_PAGE ||
        got < offsetof(struct acart_task_switches, entry) + page->count * sizeof page->entry[0] ||
        first > page->kept || page->count > page->kept - first ||
        (page->count == 0 && first < page->kept))
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "GET_TASK_SWITCHES: CPU %" PRIu32 " from %" PRIu32 ": a %zu-byte reply "
                         "for CPU %" PRIu32 " with %" PRIu32 " of %" PRIu32 " switches",
                         cpu, first, got, page->cpu, page->count, page->kept);
    return 0;
}

int collect_task_switches(struct collection *c, struct diag *d)
{
    struct collect_switches *s = &c->switches;
    struct acart_task_switches *page = malloc(sizeof *page);
    s->kept = calloc(c->num_cpus ? c->num_cpus : 1, sizeof *s->kept);
    s->lost = calloc(c->num_cpus ? c->num_cpus : 1, sizeof *s->lost);
    if (!page || !s->kept || !s->lost) {
        free(page);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    int rc = 0, present = 1;
    for (uint32_t cpu = 0; !rc && present && cpu < c->num_cpus; cpu++) {
        uint32_t first = 0, kept = 0;
        do {
            if ((rc = read_page(c, cpu, first, page, &present, d)) || !present)
                break;
            if (first && page->kept != kept) {
                rc = diag_fail(d, COLLECT_DIAG_TARGET,
                               "GET_TASK_SWITCHES: CPU %" PRIu32 " said %" PRIu32
                               " switches, then %" PRIu32,
                               cpu, kept, page->kept);
                break;
            }
            if (!first && page->kept) { /* the CPU's first page: room for all it kept */
                struct task_switch *grown = realloc(s->sw, (s->n + page->kept) * sizeof *grown);
                if (!grown) {
                    rc = diag_fail(d, DIAG_NOMEM, "out of memory");
                    break;
                }
                s->sw = grown;
            }
            kept = page->kept;
            s->kept[cpu] = page->kept;
            s->lost[cpu] = page->lost;
            for (uint32_t i = 0; i < page->count; i++) {
                const struct acart_task_switch *e = &page->entry[i];
                if (s->n && s->sw[s->n - 1].cpu == cpu && e->tsc < s->sw[s->n - 1].tsc) {
                    rc = diag_fail(d, COLLECT_DIAG_TARGET,
                                   "GET_TASK_SWITCHES: CPU %" PRIu32 "'s switch %" PRIu32
                                   " goes back in time",
                                   cpu, first + i);
                    break;
                }
                s->sw[s->n++] = (struct task_switch){cpu, e->pid, e->tid, e->tsc};
            }
            first += page->count;
        } while (!rc && first < kept);
    }
    free(page);
    s->present = !rc && present;
    return rc;
}

static int any_switches(const struct collect_switches *s, uint32_t num_cpus)
{
    for (uint32_t i = 0; s->present && i < num_cpus; i++)
        if (s->kept[i] || s->lost[i])
            return 1;
    return 0;
}

int collect_write_task_switches(const struct collection *c, struct diag *d)
{
    if (!any_switches(&c->switches, c->num_cpus))
        return 0;
    char *path = file_join(c->opt.output, TASK_SWITCHES_FILE);
    if (!path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc = task_switches_write(path, c->switches.sw, c->switches.n, d);
    free(path);
    return rc;
}

void collect_warn_lost_switches(const struct collection *c)
{
    for (uint32_t i = 0; c->switches.present && i < c->num_cpus; i++)
        if (c->switches.lost[i])
            fprintf(stderr,
                    "acart collect: warning: CPU %" PRIu32
                    "'s task-switch log was full after %" PRIu64 " switches: %" PRIu64
                    " later ones were not kept, so its timeline shows "
                    "switches only up to the last one kept (ACA_TASK_SWITCHES_PER_CPU)\n",
                    i, c->switches.kept[i], c->switches.lost[i]);
}

int collect_switches_in_session(const struct collection *c, struct session *s, struct diag *d)
{
    if (!any_switches(&c->switches, c->num_cpus))
        return 0;
    s->switches_kept = calloc(c->num_cpus, sizeof *s->switches_kept);
    s->switches_lost = calloc(c->num_cpus, sizeof *s->switches_lost);
    if (!s->switches_kept || !s->switches_lost)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    memcpy(s->switches_kept, c->switches.kept, c->num_cpus * sizeof *s->switches_kept);
    memcpy(s->switches_lost, c->switches.lost, c->num_cpus * sizeof *s->switches_lost);
    return 0;
}

void collect_switches_free(struct collect_switches *s)
{
    free(s->kept);
    free(s->lost);
    free(s->sw);
    memset(s, 0, sizeof *s);
}
