/* Code places: what report and flamegraph count samples by. A place is a code address
 * together with the module that held it when the sample was taken, or none: the same
 * address holds different modules over time (overlays loaded and unloaded at one
 * address), so what the code there is depends on the sample's process and time, which a
 * tally keyed by address alone would lose. Each distinct (module, address) gets an id,
 * 0, 1, 2, ... in order of first appearance. */
#ifndef ACART_TOOLS_CODE_PLACES_H
#define ACART_TOOLS_CODE_PLACES_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct code_place {
    uint64_t address;
    const struct module_info *module; /* NULL: no module held the address */
};

/* A slot holds its place's key beside the id, so that a probe reads one cache line: with
 * the key only in places[], looking places up was a quarter of `acart report`. */
struct code_slot {
    uint64_t address;
    const struct module_info *module;
    uint64_t id; /* the place's id + 1; 0: an empty slot */
};

struct code_places {
    const struct profile *p;
    struct code_place *places;
    size_t num_places, places_cap;
    struct code_slot *slots; /* open addressing */
    size_t slots_cap;        /* a power of two */
};

int code_places_init(struct code_places *cp, const struct profile *p);
void code_places_free(struct code_places *cp);

/* The id of the place of the code at address in sample s's process at s's time. Returns
 * 0, or -1 when out of memory. */
int code_places_add(struct code_places *cp, uint64_t address, const struct sample *s, uint64_t *id);

/* Sample s's call stack as places, innermost first: its own code, then each caller's call
 * site (the byte before the return address, inside the call instruction, so that the
 * caller's module, function and line are found). out has room for 1 + s->num_callers.
 * Returns 0, or -1 when out of memory. */
int code_places_stack(struct code_places *cp, const struct sample *s, uint64_t *out);

static inline const struct code_place *code_place(const struct code_places *cp, uint64_t id)
{
    return &cp->places[id];
}

#endif
