#include "stack_tally.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_STACKS    256
#define INITIAL_ADDRESSES 4096

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_stack(const uint64_t *stack, size_t depth)
{
    uint64_t h = 0;
    for (size_t i = 0; i < depth; i++)
        h = mix(h, stack[i]);
    return h;
}

static bool same_stack(const struct stack_tally *t, size_t i, const uint64_t *stack, size_t depth)
{
    return t->depth[i] == depth &&
           memcmp(&t->addresses[t->first[i]], stack, depth * sizeof *stack) == 0;
}

int stack_tally_init(struct stack_tally *t, size_t num_events)
{
    memset(t, 0, sizeof *t);
    t->num_events = num_events ? num_events : 1;
    t->stacks_cap = INITIAL_STACKS;
    t->addresses_cap = INITIAL_ADDRESSES;
    t->slots_cap = INITIAL_STACKS * 2;
    t->addresses = malloc(t->addresses_cap * sizeof *t->addresses);
    t->first = malloc(t->stacks_cap * sizeof *t->first);
    t->depth = malloc(t->stacks_cap * sizeof *t->depth);
    t->counts = calloc(t->stacks_cap * t->num_events, sizeof *t->counts);
    t->slots = calloc(t->slots_cap, sizeof *t->slots);
    if (t->addresses && t->first && t->depth && t->counts && t->slots)
        return 0;
    stack_tally_free(t);
    return -1;
}

void stack_tally_free(struct stack_tally *t)
{
    free(t->addresses);
    free(t->first);
    free(t->depth);
    free(t->counts);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t find_slot(const struct stack_tally *t, uint64_t hash, const uint64_t *stack,
                        size_t depth)
{
    size_t i = (size_t)hash & (t->slots_cap - 1);
    while (t->slots[i] && !same_stack(t, t->slots[i] - 1, stack, depth))
        i = (i + 1) & (t->slots_cap - 1);
    return i;
}

static int grow_slots(struct stack_tally *t)
{
    size_t cap = t->slots_cap * 2;
    size_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t k = 0; k < t->num_stacks; k++) {
        size_t i = (size_t)hash_stack(&t->addresses[t->first[k]], t->depth[k]) & (cap - 1);
        while (slots[i])
            i = (i + 1) & (cap - 1);
        slots[i] = k + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->slots_cap = cap;
    return 0;
}

static int grow_stacks(struct stack_tally *t)
{
    size_t cap = t->stacks_cap * 2;
    size_t *first = realloc(t->first, cap * sizeof *first);
    if (!first)
        return -1;
    t->first = first;
    uint32_t *depth = realloc(t->depth, cap * sizeof *depth);
    if (!depth)
        return -1;
    t->depth = depth;
    uint64_t *counts = realloc(t->counts, cap * t->num_events * sizeof *counts);
    if (!counts)
        return -1;
    memset(counts + t->stacks_cap * t->num_events, 0,
           (cap - t->stacks_cap) * t->num_events * sizeof *counts);
    t->counts = counts;
    t->stacks_cap = cap;
    return 0;
}

static int reserve_addresses(struct stack_tally *t, size_t more)
{
    size_t cap = t->addresses_cap;
    while (cap - t->addresses_used < more)
        cap *= 2;
    if (cap == t->addresses_cap)
        return 0;
    uint64_t *grown = realloc(t->addresses, cap * sizeof *grown);
    if (!grown)
        return -1;
    t->addresses = grown;
    t->addresses_cap = cap;
    return 0;
}

int stack_tally_add(struct stack_tally *t, const uint64_t *stack, size_t depth, size_t event,
                    uint64_t n)
{
    uint64_t hash = hash_stack(stack, depth);
    size_t i = find_slot(t, hash, stack, depth);
    if (!t->slots[i]) {
        /* Keep the table at most half full, so probes stay short. */
        if ((t->num_stacks + 1) * 2 > t->slots_cap) {
            if (grow_slots(t) != 0)
                return -1;
            i = find_slot(t, hash, stack, depth);
        }
        if ((t->num_stacks == t->stacks_cap && grow_stacks(t) != 0) ||
            reserve_addresses(t, depth) != 0)
            return -1;
        size_t k = t->num_stacks++;
        t->first[k] = t->addresses_used;
        t->depth[k] = (uint32_t)depth;
        memcpy(&t->addresses[t->addresses_used], stack, depth * sizeof *stack);
        t->addresses_used += depth;
        t->slots[i] = k + 1;
    }
    t->counts[(t->slots[i] - 1) * t->num_events + event] += n;
    return 0;
}
