#include "diff_gate.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *word;
    enum diff_gate_kind kind;
} kinds[] = {{"grew>", DIFF_GREW}, {"shrank>", DIFF_SHRANK}, {"changed>", DIFF_CHANGED}};

int diff_gate_parse(const char *rule, struct diff_gate *g, struct diag *d)
{
    memset(g, 0, sizeof *g);
    g->text = rule;
    /* The last occurrence of a keyword: a name may hold ':' (C++) but hardly "grew>". */
    const char *at = NULL;
    size_t k = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        for (const char *p = strstr(rule, kinds[i].word); p; p = strstr(p + 1, kinds[i].word))
            if (!at || p > at) {
                at = p;
                k = i;
            }
    }
    if (!at || (at != rule && at[-1] != ':') || (at != rule && at == rule + 1))
        return diag_fail(d, DIAG_USAGE,
                         "--fail-if %s: expected [NAME:]grew>N, [NAME:]shrank>N or "
                         "[NAME:]changed>N (N in percentage points)",
                         rule);
    const char *number = at + strlen(kinds[k].word);
    char *end;
    double n = strtod(number, &end);
    if (!*number || *end || !(n >= 0 && n <= 100))
        return diag_fail(d, DIAG_USAGE, "--fail-if %s: %s is not a number of points 0 to 100", rule,
                         number);
    g->kind = kinds[k].kind;
    g->points = n;
    if (at != rule) {
        size_t len = (size_t)(at - 1 - rule);
        if (!(g->name = malloc(len + 1)))
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        memcpy(g->name, rule, len);
        g->name[len] = '\0';
    }
    return 0;
}

void diff_gate_free(struct diff_gate *g)
{
    free(g->name);
    g->name = NULL;
}

bool diff_gate_crossed(const struct diff_gate *g, const char *label, const struct diff_change *c)
{
    if (g->name && strcmp(g->name, label) != 0)
        return false;
    double points = g->points / 100.0;
    bool grew = c->low > points, shrank = c->high < -points;
    switch (g->kind) {
    case DIFF_GREW:
        return grew;
    case DIFF_SHRANK:
        return shrank;
    default:
        return grew || shrank;
    }
}
