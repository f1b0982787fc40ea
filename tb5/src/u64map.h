/* u64map.h - an open-addressing hash map from u64 keys to u64 values (for binding). */
#ifndef TB5_U64MAP_H
#define TB5_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
    uint64_t *keys;
    uint64_t *vals;
    uint8_t *used;
    size_t cap; /* a power of two */
    size_t count;
};

/* Returns 1 and stores the value if key is present, 0 otherwise. */
int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);
/* Inserts or replaces; returns 0 on success, -1 when out of memory. */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);
void u64map_free(struct u64map *m);

#endif /* TB5_U64MAP_H */
