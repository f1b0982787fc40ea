#include "tally.h"

#include <stdlib.h>
#include <string.h>

#define TALLY_INITIAL_CAPACITY 1024

static size_t slot_of(uint64_t key, size_t capacity)
{
    /* Addresses share their low bits within a function: mix before masking. */
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

static int allocate(struct tally *t, size_t capacity)
{
    t->keys = calloc(capacity, sizeof *t->keys);
    t->occupied = calloc(capacity, 1);
    t->counts = calloc(capacity * t->num_events, sizeof *t->counts);
    t->capacity = capacity;
    t->used = 0;
    if (t->keys && t->occupied && t->counts)
        return 0;
    free(t->keys);
    free(t->occupied);
    free(t->counts);
    t->keys = NULL;
    t->occupied = NULL;
    t->counts = NULL;
    return -1;
}

int tally_init(struct tally *t, size_t num_events)
{
    memset(t, 0, sizeof *t);
    t->num_events = num_events ? num_events : 1;
    return allocate(t, TALLY_INITIAL_CAPACITY);
}

void tally_free(struct tally *t)
{
    free(t->keys);
    free(t->occupied);
    free(t->counts);
    memset(t, 0, sizeof *t);
}

static size_t find_slot(const struct tally *t, uint64_t key)
{
    size_t i = slot_of(key, t->capacity);
    while (t->occupied[i] && t->keys[i] != key)
        i = (i + 1) & (t->capacity - 1);
    return i;
}

static int grow(struct tally *t)
{
    struct tally old = *t;
    if (allocate(t, old.capacity * 2) != 0) {
        *t = old;
        return -1;
    }
    for (size_t i = 0; i < old.capacity; i++) {
        if (!old.occupied[i])
            continue;
        size_t j = find_slot(t, old.keys[i]);
        t->occupied[j] = 1;
        t->keys[j] = old.keys[i];
        memcpy(&t->counts[j * t->num_events], &old.counts[i * t->num_events],
               t->num_events * sizeof *t->counts);
        t->used++;
    }
    free(old.keys);
    free(old.occupied);
    free(old.counts);
    return 0;
}

int tally_add(struct tally *t, uint64_t key, size_t event, uint64_t n)
{
    size_t i = find_slot(t, key);
    if (!t->occupied[i]) {
        /* Keep the load at most 3/4 so probes stay short. */
        if ((t->used + 1) * 4 > t->capacity * 3) {
            if (grow(t) != 0)
                return -1;
            i = find_slot(t, key);
        }
        t->occupied[i] = 1;
        t->keys[i] = key;
        t->used++;
    }
    t->counts[i * t->num_events + event] += n;
    return 0;
}
