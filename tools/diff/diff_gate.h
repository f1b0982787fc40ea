/* `acart diff --fail-if RULE`: the thresholds a CI job gates a firmware change with.
 *
 *   RULE = [NAME:]grew>N | [NAME:]shrank>N | [NAME:]changed>N
 *
 * N is in percentage points of the event's samples. A row (a function, or a caller ->
 * callee pair; only the row labelled NAME when NAME is given) crosses `grew>N` when its
 * share grew by more than N points with confidence: the lower end of its interval
 * (diff_stats.h) is above N. `shrank>N`: the upper end is below -N. `changed>N`: either. */
#ifndef ACART_TOOLS_DIFF_GATE_H
#define ACART_TOOLS_DIFF_GATE_H

#include <stdbool.h>

#include "diag.h"
#include "diff_stats.h"

enum diff_gate_kind { DIFF_GREW, DIFF_SHRANK, DIFF_CHANGED };

struct diff_gate {
    const char *text; /* the rule as given */
    char *name;       /* NULL: every row */
    enum diff_gate_kind kind;
    double points;
};

/* Parses rule into g (g->name malloc'ed, or NULL). Returns 0 or DIAG_USAGE with d saying
 * what is wrong. */
int diff_gate_parse(const char *rule, struct diff_gate *g, struct diag *d);
void diff_gate_free(struct diff_gate *g);

/* Whether the row labelled label, with this change, crosses g. */
bool diff_gate_crossed(const struct diff_gate *g, const char *label, const struct diff_change *c);

#endif
