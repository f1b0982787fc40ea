/* The code an Intel PT trace ran through, for libipt and for names (docs/pt.md, "How the
 * host decodes it"): ELF images placed where they ran and raw memory at its address, in a
 * libipt image through libipt's image section cache, and the functions the ELF images
 * define, sorted by address.
 *
 * The image holds each piece of code (an ELF segment, a raw file) as one section of
 * libipt's image section cache, mapped once for the whole decode, as a bare libipt decode
 * holds it: libipt's block decoder ends a block at every section boundary and pays for
 * each switch between sections (locks, a search of the image), so cutting the image at
 * every function would cost that on every call and return. Names go by regions instead:
 * the stretches between the addresses where the name may change (a function's start and
 * end, a module's). A block that runs through direct calls is split into regions by its
 * path (pt_path.h). A block that ends at every call, jump and return lies in one region
 * but where code runs on into the next region (a fall-through, or a conditional branch to
 * another function): the flow sees that from the block's first and last addresses and has
 * the image cut at that region's edges (pt_code_cut) before decoding again, so each block
 * names one function and its instructions count in one step. (A block that left its
 * region and came back into it by conditional branches or by running on alone, with no
 * jump, call or return in between, would not be seen.)
 *
 * Every address has a name id: a function of an image, else the module of the collection
 * holding it ("[module]"), else "[unknown]". Ids are dense, so analyses keep per-function
 * tables as arrays indexed by them. */
#ifndef ACART_TOOLS_PT_CODE_H
#define ACART_TOOLS_PT_CODE_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "profile.h"

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

/* Bytes [offset, offset + size) of a file that are memory at vaddr. */
struct pt_code_piece {
    char *path;
    uint64_t offset, size, vaddr;
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
    struct pt_code_piece *pieces; /* the image's code, in the order given */
    size_t num_pieces;
    /* Region r is [bounds[r - 1], bounds[r]) (from 0 for r = 0, to the end of the address
     * space for r = num_bounds), all of name region_names[r]. */
    uint64_t *bounds;
    uint32_t *region_names;
    size_t num_bounds;
    bool *cut; /* by edge: the image is cut at bounds[k] */
};

#define PT_CODE_UNKNOWN 0u

/* Builds the image from sources[0..n), in that order (where two overlap, the later one's
 * bytes are decoded). An ELF file goes where its address says, else at its link addresses
 * when it is a fixed-address executable, else at the load address of the module of p with
 * the same base name (a position-independent image placed by neither is refused). */
int pt_code_open(struct pt_code *c, const struct pt_code_source *sources, size_t n,
                 const struct profile *p, struct diag *d);
void pt_code_close(struct pt_code *c);

/* The region holding ip. */
size_t pt_code_region(const struct pt_code *c, uint64_t ip);

static inline uint64_t pt_code_region_start(const struct pt_code *c, size_t region)
{
    return region ? c->bounds[region - 1] : 0;
}

/* The region's last address. */
static inline uint64_t pt_code_region_last(const struct pt_code *c, size_t region)
{
    return region < c->num_bounds ? c->bounds[region] - 1 : UINT64_MAX;
}

/* Rebuilds the image cut also at both edges of each of regions[0..n), so that a block
 * ends where it leaves or enters one of them. No decoder may be using the image. */
int pt_code_cut(struct pt_code *c, const size_t *regions, size_t n, struct diag *d);

/* Rebuilds the image cut at every region edge: every block lies in one region (`pt trace
 * --blocks` names each block; a consumer of closed calls cannot be told to start over). */
int pt_code_cut_everywhere(struct pt_code *c, struct diag *d);

/* The name id of the code at ip. */
uint32_t pt_code_name_at(const struct pt_code *c, uint64_t ip);

/* The name id of a block libipt decoded from section isid starting at ip: the section's
 * name when the section is the code's and lies in one region, else a search. */
static inline uint32_t pt_code_block_name(const struct pt_code *c, int isid, uint64_t ip)
{
    if (isid > 0 && (size_t)isid < c->num_isids && c->isid_names[isid])
        return c->isid_names[isid] - 1;
    return pt_code_name_at(c, ip);
}

/* The class of a block's last instruction where libipt's block decoder did not give it:
 * a block served from libipt's block cache (a second run of the same code) that ends in an
 * indirect jump or a far transfer (an IRET, INT, SYSCALL, far CALL or RET, VMLAUNCH) comes
 * as ptic_error (ptic_indirect from libipt 2.1), and libipt leaves it to the caller to
 * decode the instruction. It is read from the image section cache; ptic_error where it
 * cannot be read or is none of those. */
enum pt_insn_class pt_code_decode_class(const struct pt_code *c, const struct pt_block *b);

static inline enum pt_insn_class pt_code_block_class(const struct pt_code *c,
                                                     const struct pt_block *b)
{
#if LIBIPT_VERSION >= 0x201
    if (b->iclass != ptic_error && b->iclass != ptic_indirect)
        return b->iclass;
#else
    if (b->iclass != ptic_error)
        return b->iclass;
#endif
    return pt_code_decode_class(c, b);
}

/* The start of the function holding ip, or ip itself outside every function. */
uint64_t pt_code_function_start(const struct pt_code *c, uint64_t ip);

static inline const char *pt_code_name(const struct pt_code *c, uint32_t id)
{
    return c->names[id];
}

#endif
