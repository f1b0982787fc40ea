#include "code_names.h"

#include <stdio.h>
#include <string.h>

bool code_names_image_holds(const struct symbols *sym, const struct module_info *m)
{
    return !m || (m->tsc == 0 && m->unload_tsc == 0) ||
           strcmp(m->name, symbols_image_name(sym)) == 0;
}

void code_names_outside(const struct module_info *m, char *buf, size_t size)
{
    snprintf(buf, size, "[%s]", m ? m->name : "unknown");
}

const char *code_names_function(struct symbols *sym, const struct code_place *pl,
                                struct code_location *loc, char *outside)
{
    if (!sym || !code_names_image_holds(sym, pl->module) ||
        !symbols_lookup(sym, pl->address, loc)) {
        memset(loc, 0, sizeof *loc);
        code_names_outside(pl->module, outside, CODE_NAMES_OUTSIDE_SIZE);
        return outside;
    }
    if (loc->symbol)
        return loc->symbol;
    if (loc->num_frames && loc->frames[0].function)
        return loc->frames[0].function;
    return "[no symbol]";
}
