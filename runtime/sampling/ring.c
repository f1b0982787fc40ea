#include "ring.h"
#include "acart.h"

int ring_init(struct ring *r, void *memory, uint32_t bytes, uint32_t record_size)
{
    if (!memory || record_size == 0 || bytes / record_size < 1 || bytes / record_size > 0x7fffffffu)
        return ACA_ERR_INVALID;
    r->base = memory;
    r->record_size = record_size;
    r->capacity = bytes / record_size;
    r->head = 0;
    r->tail = 0;
    r->sampled = 0;
    r->dropped = 0;
    return ACA_OK;
}

static uint32_t distance(const struct ring *r, uint32_t head, uint32_t tail)
{
    return head >= tail ? head - tail : head + 2 * r->capacity - tail;
}

static uint32_t slot(const struct ring *r, uint32_t pos)
{
    return pos >= r->capacity ? pos - r->capacity : pos;
}

void *ring_reserve(struct ring *r)
{
    uint32_t head = r->head;
    uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    r->sampled++;
    if (distance(r, head, tail) == r->capacity) {
        r->dropped++;
        return 0;
    }
    return r->base + (uint64_t)slot(r, head) * r->record_size;
}

void ring_commit(struct ring *r)
{
    uint32_t next = r->head + 1;
    if (next == 2 * r->capacity)
        next = 0;
    __atomic_store_n(&r->head, next, __ATOMIC_RELEASE);
}

uint32_t ring_peek_after(const struct ring *r, uint32_t skip, const void **data)
{
    uint32_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    uint32_t tail = r->tail;
    uint32_t used = distance(r, head, tail);
    if (skip >= used) {
        *data = 0;
        return 0;
    }
    uint32_t start = tail + skip;
    if (start >= 2 * r->capacity)
        start -= 2 * r->capacity;
    uint32_t first = slot(r, start);
    uint32_t run = r->capacity - first;
    *data = r->base + (uint64_t)first * r->record_size;
    return used - skip < run ? used - skip : run;
}

uint32_t ring_peek(const struct ring *r, const void **data)
{
    return ring_peek_after(r, 0, data);
}

void ring_consume(struct ring *r, uint32_t records)
{
    uint32_t next = r->tail + records;
    if (next >= 2 * r->capacity)
        next -= 2 * r->capacity;
    __atomic_store_n(&r->tail, next, __ATOMIC_RELEASE);
}

uint32_t ring_used(const struct ring *r)
{
    return distance(r, __atomic_load_n(&r->head, __ATOMIC_ACQUIRE),
                    __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
}
