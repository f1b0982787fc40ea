/* Sample counts per key and event: a hash table from a 64-bit key (an address, a task, a
 * CPU, ...) to one counter per event. */
#ifndef ACART_TOOLS_TALLY_H
#define ACART_TOOLS_TALLY_H

#include <stddef.h>
#include <stdint.h>

struct tally {
    size_t num_events;
    size_t capacity; /* slots, a power of two */
    size_t used;
    uint64_t *keys;
    unsigned char *occupied;
    uint64_t *counts; /* capacity * num_events */
};

int tally_init(struct tally *t, size_t num_events);
void tally_free(struct tally *t);

/* Adds n samples of event to key. Returns 0, or -1 when out of memory. */
int tally_add(struct tally *t, uint64_t key, size_t event, uint64_t n);

/* Iteration: slots i in [0, capacity) with occupied[i] set. */
static inline const uint64_t *tally_counts(const struct tally *t, size_t slot)
{
    return &t->counts[slot * t->num_events];
}

#endif
