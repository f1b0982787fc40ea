/* The one path from a collection to call stacks that the exporters (pprof, folded,
 * perfetto) and diff take: every sample becomes its stack of code places (code_places.h:
 * its own code, then each caller's call site, innermost first), counted per event in a
 * stack tally, optionally kept apart per context (CPU and task), so that each distinct
 * stack is named once (code_names.h) however many samples share it. The places, their
 * modules and their names are the ones `acart report` and `acart flamegraph` use. */
#ifndef ACART_TOOLS_SAMPLE_STACKS_H
#define ACART_TOOLS_SAMPLE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "code_places.h"
#include "diag.h"
#include "profile.h"
#include "stack_tally.h"

/* Where a sample was taken: its CPU and task (pid ACART_IRQ_PID: an interrupt handler,
 * tid ACART_IRQ_TID_BASE | vector). */
struct sample_context {
    uint32_t pid, tid;
    uint16_t cpu;
};

struct sample_stacks {
    const struct profile *p;
    bool by_context;
    struct code_places places;
    struct stack_tally stacks; /* one count per event of the session */
    struct sample_context *contexts;
    size_t num_contexts, contexts_cap;
    size_t *slots; /* open addressing over contexts: 0 empty, else index + 1 */
    size_t slots_cap;
    uint64_t *scratch;     /* one sample's stack */
    uint64_t samples;      /* samples scanned */
    uint64_t with_callers; /* of those, samples whose call stack is not empty */
    uint32_t deepest;      /* the most callers one sample had */
};

/* Scans every sample of p (opened with profile_open; a progress hook attached to p
 * reports as usual) into ss. by_context keeps stacks of different CPUs or tasks apart.
 * Returns 0 or a diag code (a damaged collection found during the scan: DIAG_INPUT). */
int sample_stacks_collect(struct sample_stacks *ss, struct profile *p, bool by_context,
                          struct diag *d);
void sample_stacks_free(struct sample_stacks *ss);

static inline size_t sample_stacks_count(const struct sample_stacks *ss)
{
    return ss->stacks.num_stacks;
}

/* Stack i: its places, innermost first (*depth of them, at least 1), its context (NULL
 * unless by_context) and its samples per event (indexed by the session's event index). */
const uint64_t *sample_stacks_get(const struct sample_stacks *ss, size_t i, size_t *depth,
                                  const struct sample_context **context, const uint64_t **counts);

/* A task as the outputs name it: its name from the session, else "[irq 0xNN]" for an
 * interrupt handler, else "pid P tid T". Raw (not escaped). */
void sample_stacks_task_name(const struct session *s, uint32_t pid, uint32_t tid, char *buf,
                             size_t size);

#endif
