#include "code_places.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_PLACES 1024

static uint64_t hash_place(uint64_t address, const struct module_info *module)
{
    uint64_t h = address ^ ((uint64_t)(uintptr_t)module * 0x9e3779b97f4a7c15ull);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static size_t find_slot(const struct code_places *cp, uint64_t address,
                        const struct module_info *module)
{
    size_t i = (size_t)hash_place(address, module) & (cp->slots_cap - 1);
    for (; cp->slots[i].id; i = (i + 1) & (cp->slots_cap - 1))
        if (cp->slots[i].address == address && cp->slots[i].module == module)
            break;
    return i;
}

int code_places_init(struct code_places *cp, const struct profile *p)
{
    memset(cp, 0, sizeof *cp);
    cp->p = p;
    cp->places_cap = INITIAL_PLACES;
    cp->slots_cap = 2 * INITIAL_PLACES;
    cp->places = malloc(cp->places_cap * sizeof *cp->places);
    cp->slots = calloc(cp->slots_cap, sizeof *cp->slots);
    if (cp->places && cp->slots)
        return 0;
    code_places_free(cp);
    return -1;
}

void code_places_free(struct code_places *cp)
{
    free(cp->places);
    free(cp->slots);
    memset(cp, 0, sizeof *cp);
}

static int grow(struct code_places *cp)
{
    size_t cap = 2 * cp->places_cap;
    struct code_place *places = realloc(cp->places, cap * sizeof *places);
    if (!places)
        return -1;
    cp->places = places;
    cp->places_cap = cap;
    struct code_slot *slots = calloc(2 * cap, sizeof *slots);
    if (!slots)
        return -1;
    free(cp->slots);
    cp->slots = slots;
    cp->slots_cap = 2 * cap;
    for (size_t k = 0; k < cp->num_places; k++)
        cp->slots[find_slot(cp, places[k].address, places[k].module)] =
            (struct code_slot){places[k].address, places[k].module, k + 1};
    return 0;
}

int code_places_add(struct code_places *cp, uint64_t address, const struct sample *s, uint64_t *id)
{
    const struct module_info *module = profile_module_at(cp->p, address, s->pid, s->tsc);
    size_t i = find_slot(cp, address, module);
    if (!cp->slots[i].id) {
        /* At most half full, so probes stay short. */
        if (cp->num_places == cp->places_cap) {
            if (grow(cp) != 0)
                return -1;
            i = find_slot(cp, address, module);
        }
        cp->places[cp->num_places] = (struct code_place){address, module};
        cp->slots[i] = (struct code_slot){address, module, ++cp->num_places};
    }
    *id = cp->slots[i].id - 1;
    return 0;
}

int code_places_stack(struct code_places *cp, const struct sample *s, uint64_t *out)
{
    if (code_places_add(cp, s->ip, s, &out[0]) != 0)
        return -1;
    for (uint32_t k = 0; k < s->num_callers; k++)
        if (code_places_add(cp, s->callers[k] - 1, s, &out[k + 1]) != 0)
            return -1;
    return 0;
}
