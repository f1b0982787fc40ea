#include "task_switches.h"
#include "file_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "cpu,tsc,pid,tid"

int task_switches_write(const char *path, const struct task_switch *sw, size_t n, struct diag *d)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return diag_fail(d, DIAG_OUTPUT, "%s: %s", path, strerror(errno));
    fputs(HEADER "\n", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%" PRIu32 ",%" PRIu64 ",%" PRIu32 ",%" PRIu32 "\n", sw[i].cpu, sw[i].tsc,
                sw[i].pid, sw[i].tid);
    int failed = ferror(f);
    if (fclose(f) || failed)
        return diag_fail(d, DIAG_OUTPUT, "%s: write error", path);
    return 0;
}

/* "cpu,tsc,pid,tid" exactly: decimal numbers, nothing else on the line. */
static int parse_line(const char *line, struct task_switch *out)
{
    uint64_t v[4];
    const char *p = line;
    for (int i = 0; i < 4; i++) {
        if (*p < '0' || *p > '9')
            return -1;
        char *end;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        if (errno || *end != (i < 3 ? ',' : 0))
            return -1;
        v[i] = x;
        p = end + (i < 3);
    }
    if (v[0] > UINT32_MAX || v[2] > UINT32_MAX || v[3] > UINT32_MAX)
        return -1;
    *out = (struct task_switch){(uint32_t)v[0], (uint32_t)v[2], (uint32_t)v[3], v[1]};
    return 0;
}

static int parse(char *text, const char *path, const struct session *s, struct task_switches *t,
                 struct diag *d)
{
    uint64_t want = 0;
    for (uint32_t c = 0; c < s->num_cpus; c++)
        want += s->switches_kept[c];
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    if (!line || strcmp(line, HEADER) != 0)
        return diag_fail(d, DIAG_INPUT, "%s: line 1: expected %s", path, HEADER);
    if (want > SIZE_MAX / sizeof *t->sw || !(t->sw = calloc(want ? want : 1, sizeof *t->sw)))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    uint64_t *per_cpu = calloc(s->num_cpus ? s->num_cpus : 1, sizeof *per_cpu);
    if (!per_cpu)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc = 0;
    for (size_t n = 2; !rc && (line = strtok_r(NULL, "\n", &save)) != NULL; n++) {
        struct task_switch sw;
        if (parse_line(line, &sw))
            rc = diag_fail(d, DIAG_INPUT, "%s: line %zu: expected %s as decimal numbers", path, n,
                           HEADER);
        else if (sw.cpu >= s->num_cpus)
            rc = diag_fail(d, DIAG_INPUT,
                           "%s: line %zu: CPU %" PRIu32 " of a %" PRIu32 "-CPU target", path, n,
                           sw.cpu, s->num_cpus);
        else if (t->n == want)
            rc =
                diag_fail(d, DIAG_INPUT, "%s: line %zu: more switches than session.json's %" PRIu64,
                          path, n, want);
        else if (t->n && (sw.cpu < t->sw[t->n - 1].cpu ||
                          (sw.cpu == t->sw[t->n - 1].cpu && sw.tsc < t->sw[t->n - 1].tsc)))
            rc = diag_fail(d, DIAG_INPUT,
                           "%s: line %zu: out of order (by CPU, then TSC, as collect writes it)",
                           path, n);
        else {
            per_cpu[sw.cpu]++;
            t->sw[t->n++] = sw;
        }
    }
    for (uint32_t c = 0; !rc && c < s->num_cpus; c++)
        if (per_cpu[c] != s->switches_kept[c])
            rc = diag_fail(d, DIAG_INPUT,
                           "%s: CPU %" PRIu32 " has %" PRIu64
                           " switches, session.json says %" PRIu64 " (samples.task_switches.kept)",
                           path, c, per_cpu[c], s->switches_kept[c]);
    free(per_cpu);
    return rc;
}

int task_switches_read(const char *dir, const struct session *s, struct task_switches *out,
                       struct diag *d)
{
    memset(out, 0, sizeof *out);
    if (!s->switches_kept)
        return 0;
    char *path = file_join(dir, TASK_SWITCHES_FILE);
    if (!path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    char *text;
    size_t len;
    int rc = file_read_all(path, &text, &len, d);
    if (!rc) {
        rc = parse(text, path, s, out, d);
        free(text);
    }
    free(path);
    if (rc)
        task_switches_free(out);
    return rc;
}

void task_switches_free(struct task_switches *t)
{
    free(t->sw);
    memset(t, 0, sizeof *t);
}
