/* Addresses of an ELF image to functions, inlined frames and source lines, with elfutils
 * (libdwfl/libdw). Strings returned live as long as the struct symbols. */
#ifndef ACART_TOOLS_SYMBOLS_H
#define ACART_TOOLS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define SYMBOLS_MAX_FRAMES 16

/* A function on the way to an address, with the source position inside it. */
struct code_frame {
    const char *function; /* NULL if DWARF does not name it */
    const char *file;     /* NULL without line information */
    int line;
};

struct code_location {
    const char *symbol;     /* the ELF symbol containing the address, or NULL */
    uint64_t symbol_offset; /* address - symbol value */
    /* Outermost first: frames[0] is the out-of-line function, each further frame a function
     * inlined into the one before it. Each frame's position is where the next frame was
     * inlined; the last frame's position is the address itself. 0 frames when the image
     * has no DWARF for the address. */
    size_t num_frames;
    struct code_frame frames[SYMBOLS_MAX_FRAMES];
};

struct symbols;

/* Loads the image at path. A position-independent image is placed at load_address (where
 * the target's module record says it ran); a fixed-address image (ET_EXEC) at its link
 * addresses. */
int symbols_open(const char *path, uint64_t load_address, struct symbols **out, struct diag *d);
void symbols_close(struct symbols *sym);

/* The image's base name, for messages. */
const char *symbols_image_name(const struct symbols *sym);

/* The image's ELF class: 32 (ELF32, i686 code) or 64 (ELF64, x86_64 code). */
unsigned symbols_image_bits(const struct symbols *sym);

/* Describes the code at address. Returns 1 if the image covers the address (loc filled),
 * 0 if the address is outside the image. */
int symbols_lookup(struct symbols *sym, uint64_t address, struct code_location *loc);

#endif
