/* u64map.c - linear probing, table kept at most half full. */
#include <stdlib.h>

#include "u64map.h"

static size_t slot(uint64_t key, size_t cap)
{
    key ^= key >> 33; /* murmur3 finalizer: pids and tids are small and dense */
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
    if (m->cap == 0)
        return 0;
    for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return 0;
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return 1;
        }
    }
}

static int grow(struct u64map *m)
{
    struct u64map bigger = {0};

    bigger.cap = m->cap ? m->cap * 2 : 64;
    bigger.keys = malloc(bigger.cap * sizeof(uint64_t));
    bigger.vals = malloc(bigger.cap * sizeof(uint64_t));
    bigger.used = calloc(bigger.cap, 1);
    if (!bigger.keys || !bigger.vals || !bigger.used) {
        u64map_free(&bigger);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i] && u64map_put(&bigger, m->keys[i], m->vals[i]) != 0) {
            u64map_free(&bigger);
            return -1;
        }
    u64map_free(m);
    *m = bigger;
    return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
    if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
        return -1;
    for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i]) {
            m->used[i] = 1;
            m->keys[i] = key;
            m->vals[i] = val;
            m->count++;
            return 0;
        }
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
    }
}

void u64map_free(struct u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = m->vals = NULL;
    m->used = NULL;
    m->cap = m->count = 0;
}
