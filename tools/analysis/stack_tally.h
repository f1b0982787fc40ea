/* Sample counts per distinct call stack and event. A stack is a sample's code followed by
 * its callers', innermost first, as 64-bit values of the user's choosing (report and
 * flamegraph use code places, code_places.h); a sample without a call stack is the stack
 * of its code alone. Counting stacks first and naming them afterwards symbolises each
 * distinct stack once, however many samples share it. */
#ifndef ACART_TOOLS_STACK_TALLY_H
#define ACART_TOOLS_STACK_TALLY_H

#include <stddef.h>
#include <stdint.h>

struct stack_tally {
    size_t num_events;
    size_t num_stacks;
    /* Stack i is addresses[first[i] .. first[i] + depth[i]); its counts are
     * counts[i * num_events ...]. */
    uint64_t *addresses;
    size_t *first;
    uint32_t *depth;
    uint64_t *counts;
    size_t addresses_used, addresses_cap, stacks_cap;
    /* Open addressing: 0 is an empty slot, else a stack's index + 1. */
    size_t *slots;
    size_t slots_cap; /* a power of two */
};

int stack_tally_init(struct stack_tally *t, size_t num_events);
void stack_tally_free(struct stack_tally *t);

/* Adds n samples of event to stack[0..depth) (depth at least 1). Returns 0, or -1 when
 * out of memory. */
int stack_tally_add(struct stack_tally *t, const uint64_t *stack, size_t depth, size_t event,
                    uint64_t n);

/* Stack i as added: [0] the sampled code, [1..) its callers, innermost first; *depth is
 * how many there are (at least 1). */
static inline const uint64_t *stack_tally_stack(const struct stack_tally *t, size_t i,
                                                size_t *depth)
{
    *depth = t->depth[i];
    return &t->addresses[t->first[i]];
}

static inline const uint64_t *stack_tally_counts(const struct stack_tally *t, size_t i)
{
    return &t->counts[i * t->num_events];
}

#endif
