/* Growing an array of the host tools by doubling, the one way: room for one more item. */
#ifndef ACART_TOOLS_ARRAY_GROW_H
#define ACART_TOOLS_ARRAY_GROW_H

#include <stddef.h>
#include <stdlib.h>

#include "diag.h"

/* Grows *items (of *cap, each size bytes; first_cap the first time) to hold one more than
 * n: 0 or DIAG_NOMEM, *items untouched then. */
static inline int array_grow(void **items, size_t *cap, size_t n, size_t size, size_t first_cap)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : first_cap;
    void *p = realloc(*items, c * size);
    if (!p)
        return DIAG_NOMEM;
    *items = p;
    *cap = c;
    return 0;
}

#endif
