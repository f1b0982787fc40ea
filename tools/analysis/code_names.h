/* How every command names code: the function at a code place as `acart report --by
 * function` shows it, with the lookup behind it (inlined frames and source lines) for
 * those that show more. report, flamegraph, the exporters and diff all name code here, so
 * a function has the same name, and a sample the same function, in every output. */
#ifndef ACART_TOOLS_CODE_NAMES_H
#define ACART_TOOLS_CODE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "code_places.h"
#include "symbols.h"

/* Room for the name of code outside the image: "[<module name>]" or "[unknown]". */
#define CODE_NAMES_OUTSIDE_SIZE 300

/* Whether the ELF image sym may name code that module m held (m NULL: no module did): yes
 * for the image's own module and for modules there all along, no for one loaded or
 * unloaded during the collection under another name, whose code is not the image's
 * whatever the image has at that address (an overlay in a buffer of the image). */
bool code_names_image_holds(const struct symbols *sym, const struct module_info *m);

/* The name for code the image does not name: "[<module name>]" or "[unknown]". */
void code_names_outside(const struct module_info *m, char *buf, size_t size);

/* The function of the code at pl: its ELF symbol, else the DWARF function, else "[no
 * symbol]"; code the image does not name (sym NULL, another module, no symbol or DWARF
 * there) is "[module]" or "[unknown]", written into outside (CODE_NAMES_OUTSIDE_SIZE
 * bytes). loc receives the lookup: its frames (outermost first, each further one inlined
 * into the one before) and lines; num_frames 0 and symbol NULL for code outside. The name
 * lives as long as sym and outside. */
const char *code_names_function(struct symbols *sym, const struct code_place *pl,
                                struct code_location *loc, char *outside);

#endif
