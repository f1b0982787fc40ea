/* The code an Intel PT trace ran through, for libipt and for names (docs/pt.md, "How the
 * host decodes it"): ELF images placed where they ran, their executable segments in a
 * libipt image (pt_image_add_file), and the functions they define, sorted by address.
 *
 * Every address has a name id: a function of an image, else the module of the collection
 * holding it ("[module]"), else "[unknown]". Ids are dense, so analyses keep per-function
 * tables as arrays indexed by them. */
#ifndef ACART_TOOLS_PT_CODE_H
#define ACART_TOOLS_PT_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "profile.h"

struct pt_image;

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
    struct pt_code_function *functions; /* sorted by start, not overlapping */
    size_t num_functions;
    struct pt_code_range *ranges; /* the collection's modules */
    size_t num_ranges;
    char **names; /* by name id; names[0] is "[unknown]" */
    size_t num_names, names_cap;
};

#define PT_CODE_UNKNOWN 0u

/* Builds the image from the ELF files elf_paths[0..n): each goes at its link addresses when
 * it is a fixed-address executable, else at the load address of the module of p with the
 * same base name (a position-independent image no module names is refused). */
int pt_code_open(struct pt_code *c, const char *const *elf_paths, size_t n, const struct profile *p,
                 struct diag *d);
void pt_code_close(struct pt_code *c);

/* The name id of the code at ip. */
uint32_t pt_code_name_at(const struct pt_code *c, uint64_t ip);

/* The start of the function holding ip, or ip itself outside every function. */
uint64_t pt_code_function_start(const struct pt_code *c, uint64_t ip);

static inline const char *pt_code_name(const struct pt_code *c, uint32_t id)
{
    return c->names[id];
}

#endif
