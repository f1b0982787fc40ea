/* The code an Intel PT trace ran through, for libipt and for names (docs/pt.md, "How the
 * host decodes it"): ELF images placed where they ran and raw memory at its address, in a
 * libipt image through libipt's image section cache, and the functions the ELF images
 * define, sorted by address.
 *
 * The image is cut into sections at every place the name changes (a function's start and
 * end, a module's), so that a block of libipt's block decoder, which never crosses a
 * section, runs in one function: its instructions are counted in one step, and the
 * section's identifier gives its name without a search. The section cache keeps every
 * section mapped once for the whole decode; without it libipt opens and maps a file
 * section again each time the decoder moves into it.
 *
 * Every address has a name id: a function of an image, else the module of the collection
 * holding it ("[module]"), else "[unknown]". Ids are dense, so analyses keep per-function
 * tables as arrays indexed by them. */
#ifndef ACART_TOOLS_PT_CODE_H
#define ACART_TOOLS_PT_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "profile.h"

struct pt_image;
struct pt_image_section_cache;

/* One image given on the command line: an ELF file (--elf FILE[@ADDR]) or raw memory
 * (--raw FILE@ADDR). */
struct pt_code_source {
    const char *path;
    bool raw;    /* the file's bytes are memory at address */
    bool placed; /* ELF: address says where its lowest segment's page ran */
    uint64_t address;
};

struct pt_code_function {
    uint64_t start, end; /* [start, end) */
    uint32_t name;       /* name id */
};

struct pt_code_range {
    uint64_t start, end; /* a module's code, [start, end) */
    uint32_t name;       /* "[module]" */
};

struct pt_code {
    struct pt_image *image;
    struct pt_image_section_cache *iscache;
    /* By a section's identifier in the cache (isid): 1 + the name id of the code it holds,
     * or 0 for an isid that is not one of the code's sections. */
    uint32_t *isid_names;
    size_t num_isids;
    struct pt_code_function *functions; /* sorted by start, not overlapping */
    size_t num_functions;
    struct pt_code_range *ranges; /* the collection's modules */
    size_t num_ranges;
    char **names; /* by name id; names[0] is "[unknown]" */
    size_t num_names, names_cap;
};

#define PT_CODE_UNKNOWN 0u

/* Builds the image from sources[0..n), in that order (where two overlap, the later one's
 * bytes are decoded). An ELF file goes where its address says, else at its link addresses
 * when it is a fixed-address executable, else at the load address of the module of p with
 * the same base name (a position-independent image placed by neither is refused). */
int pt_code_open(struct pt_code *c, const struct pt_code_source *sources, size_t n,
                 const struct profile *p, struct diag *d);
void pt_code_close(struct pt_code *c);

/* The name id of the code at ip. */
uint32_t pt_code_name_at(const struct pt_code *c, uint64_t ip);

/* The name id of a block libipt decoded from section isid starting at ip: the section's
 * name when the section is the code's, else a search. */
static inline uint32_t pt_code_block_name(const struct pt_code *c, int isid, uint64_t ip)
{
    if (isid > 0 && (size_t)isid < c->num_isids && c->isid_names[isid])
        return c->isid_names[isid] - 1;
    return pt_code_name_at(c, ip);
}

/* The start of the function holding ip, or ip itself outside every function. */
uint64_t pt_code_function_start(const struct pt_code *c, uint64_t ip);

static inline const char *pt_code_name(const struct pt_code *c, uint32_t id)
{
    return c->names[id];
}

#endif
