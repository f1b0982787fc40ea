#include "heap.h"
#include "io.h"

#include <stdint.h>

#define HEAP_BYTES (512 * 1024)

static uint8_t arena[HEAP_BYTES] __attribute__((aligned(64)));
static size_t used;

void *heap_alloc(size_t bytes, size_t align)
{
    uintptr_t flags = irq_save();
    uintptr_t at = ((uintptr_t)arena + used + align - 1) & ~(uintptr_t)(align - 1);
    void *p = NULL;
    if (at + bytes <= (uintptr_t)arena + HEAP_BYTES && at + bytes >= at) {
        used = at + bytes - (uintptr_t)arena;
        p = (void *)at;
    }
    irq_restore(flags);
    return p;
}

size_t heap_used(void)
{
    return used;
}

size_t heap_size(void)
{
    return HEAP_BYTES;
}
