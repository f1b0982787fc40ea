/* The kernel heap: one static arena, carved from the bottom up. Tasks never exit in this
 * kernel, so what they take (their stacks and control blocks) is never given back. */
#ifndef RTOS_PC_HEAP_H
#define RTOS_PC_HEAP_H

#include <stddef.h>

/* `bytes` aligned to `align` (a power of two), or NULL when the arena is spent. */
void *heap_alloc(size_t bytes, size_t align);

size_t heap_used(void);
size_t heap_size(void);

#endif
