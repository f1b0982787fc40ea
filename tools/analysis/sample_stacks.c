#include "sample_stacks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "profile_open.h"

/* The context is the stack's last entry, tagged so no place id can be mistaken for it. */
#define CONTEXT_TAG (1ull << 63)

#define STOP_NO_MEMORY 1

static uint64_t hash_context(const struct sample_context *c)
{
    uint64_t h = ((uint64_t)c->pid << 32 | c->tid) ^ ((uint64_t)c->cpu * 0x9e3779b97f4a7c15ull);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static bool same_context(const struct sample_context *a, const struct sample_context *b)
{
    return a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu;
}

static size_t find_context(const struct sample_stacks *ss, const struct sample_context *c)
{
    size_t i = (size_t)hash_context(c) & (ss->slots_cap - 1);
    while (ss->slots[i] && !same_context(&ss->contexts[ss->slots[i] - 1], c))
        i = (i + 1) & (ss->slots_cap - 1);
    return i;
}

/* The id of context c, added if new. Returns 0, or -1 when out of memory. */
static int context_id(struct sample_stacks *ss, const struct sample_context *c, uint64_t *id)
{
    size_t i = find_context(ss, c);
    if (!ss->slots[i]) {
        if (ss->num_contexts == ss->contexts_cap) {
            size_t cap = ss->contexts_cap ? 2 * ss->contexts_cap : 64;
            struct sample_context *grown = realloc(ss->contexts, cap * sizeof *grown);
            size_t *slots = calloc(2 * cap, sizeof *slots);
            if (!grown || !slots) {
                if (grown)
                    ss->contexts = grown;
                free(slots);
                return -1;
            }
            ss->contexts = grown;
            ss->contexts_cap = cap;
            free(ss->slots);
            ss->slots = slots;
            ss->slots_cap = 2 * cap; /* at most half full */
            for (size_t k = 0; k < ss->num_contexts; k++)
                ss->slots[find_context(ss, &ss->contexts[k])] = k + 1;
            i = find_context(ss, c);
        }
        ss->contexts[ss->num_contexts] = *c;
        ss->slots[i] = ++ss->num_contexts;
    }
    *id = ss->slots[i] - 1;
    return 0;
}

static int add_samples(const struct sample *batch, size_t n, void *ctx)
{
    struct sample_stacks *ss = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &batch[i];
        size_t depth = (size_t)s->num_callers + 1;
        if (code_places_stack(&ss->places, s, ss->scratch) != 0)
            return STOP_NO_MEMORY;
        if (ss->by_context) {
            struct sample_context c = {s->pid, s->tid, s->cpu};
            uint64_t id;
            if (context_id(ss, &c, &id) != 0)
                return STOP_NO_MEMORY;
            ss->scratch[depth++] = CONTEXT_TAG | id;
        }
        if (stack_tally_add(&ss->stacks, ss->scratch, depth, s->event, 1) != 0)
            return STOP_NO_MEMORY;
        ss->samples++;
        ss->with_callers += s->num_callers != 0;
        if (s->num_callers > ss->deepest)
            ss->deepest = s->num_callers;
    }
    return 0;
}

int sample_stacks_collect(struct sample_stacks *ss, struct profile *p, bool by_context,
                          struct diag *d)
{
    memset(ss, 0, sizeof *ss);
    ss->p = p;
    ss->by_context = by_context;
    ss->scratch = calloc((size_t)p->callstack_depth + 2, sizeof *ss->scratch);
    if (!ss->scratch || code_places_init(&ss->places, p) != 0 ||
        stack_tally_init(&ss->stacks, p->session.num_events) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (by_context) {
        ss->slots_cap = 128;
        if (!(ss->slots = calloc(ss->slots_cap, sizeof *ss->slots)))
            return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    int rc = profile_scan(p, add_samples, ss, d);
    if (rc == STOP_NO_MEMORY)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    return rc;
}

void sample_stacks_free(struct sample_stacks *ss)
{
    code_places_free(&ss->places);
    stack_tally_free(&ss->stacks);
    free(ss->contexts);
    free(ss->slots);
    free(ss->scratch);
    memset(ss, 0, sizeof *ss);
}

const uint64_t *sample_stacks_get(const struct sample_stacks *ss, size_t i, size_t *depth,
                                  const struct sample_context **context, const uint64_t **counts)
{
    const uint64_t *stack = stack_tally_stack(&ss->stacks, i, depth);
    *context = NULL;
    if (ss->by_context) {
        *context = &ss->contexts[stack[*depth - 1] & ~CONTEXT_TAG];
        --*depth;
    }
    *counts = stack_tally_counts(&ss->stacks, i);
    return stack;
}

void sample_stacks_task_name(const struct session *s, uint32_t pid, uint32_t tid, char *buf,
                             size_t size)
{
    const char *name = session_task_name(s, pid, tid);
    if (name)
        snprintf(buf, size, "%s", name);
    else if (pid == ACART_IRQ_PID)
        snprintf(buf, size, "[irq 0x%02x]", (unsigned)(tid & 0xff));
    else
        snprintf(buf, size, "pid %" PRIu32 " tid %" PRIu32, pid, tid);
}
