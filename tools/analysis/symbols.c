#include "symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

struct symbols {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    const char *name;
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

int symbols_open(const char *path, uint64_t load_address, struct symbols **out, struct diag *d)
{
    struct symbols *sym = calloc(1, sizeof *sym);
    if (!sym)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    const char *slash = strrchr(path, '/');
    sym->name = slash ? slash + 1 : path;
    sym->dwfl = dwfl_begin(&offline_callbacks);
    if (!sym->dwfl) {
        free(sym);
        return diag_fail(d, DIAG_LIBRARY, "%s: elfutils: %s", path, dwfl_errmsg(-1));
    }
    /* ET_EXEC ignores the base; ET_DYN goes to load_address + its first p_vaddr. */
    sym->mod = dwfl_report_elf(sym->dwfl, sym->name, path, -1, load_address, true);
    if (!sym->mod || dwfl_report_end(sym->dwfl, NULL, NULL) != 0) {
        int rc = diag_fail(d, DIAG_INPUT, "%s: not a usable ELF image: %s", path, dwfl_errmsg(-1));
        symbols_close(sym);
        return rc;
    }
    *out = sym;
    return 0;
}

void symbols_close(struct symbols *sym)
{
    if (!sym)
        return;
    dwfl_end(sym->dwfl);
    free(sym);
}

const char *symbols_image_name(const struct symbols *sym)
{
    return sym->name;
}

unsigned symbols_image_bits(const struct symbols *sym)
{
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(sym->mod, &bias);
    return elf && gelf_getclass(elf) == ELFCLASS64 ? 64 : 32;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    /* Inlined instances and out-of-line copies name their function through
     * DW_AT_abstract_origin / DW_AT_specification; _integrate follows those. */
    if (dwarf_attr_integrate(die, DW_AT_name, &attr))
        return dwarf_formstring(&attr);
    return NULL;
}

static const char *call_file(Dwarf_Die *cu, Dwarf_Die *inlined)
{
    Dwarf_Attribute attr;
    Dwarf_Word index;
    Dwarf_Files *files;
    size_t nfiles;
    if (!dwarf_attr(inlined, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &index) != 0 ||
        dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || index >= nfiles)
        return NULL;
    return dwarf_filesrc(files, index, NULL, NULL);
}

static int call_line(Dwarf_Die *inlined)
{
    Dwarf_Attribute attr;
    Dwarf_Word line;
    if (!dwarf_attr(inlined, DW_AT_call_line, &attr) || dwarf_formudata(&attr, &line) != 0)
        return 0;
    return (int)line;
}

/* Fills loc->frames from the DWARF scopes around address, outermost first. */
static void inline_frames(Dwfl_Module *mod, Dwarf_Addr address, struct code_location *loc)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, address, &bias);
    if (!cu)
        return;
    const char *file = NULL;
    int line = 0;
    Dwfl_Line *l = dwfl_module_getsrc(mod, address);
    if (l)
        file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);

    /* dwarf_getscopes continues an inlined subroutine with the scopes of its abstract
     * definition; the functions it was inlined into are the DIEs physically around the
     * innermost scope, which dwarf_getscopes_die lists. */
    Dwarf_Die *scopes = NULL;
    int nscopes = dwarf_getscopes(cu, address - bias, &scopes);
    if (nscopes > 0) {
        Dwarf_Die innermost = scopes[0];
        free(scopes);
        scopes = NULL;
        nscopes = dwarf_getscopes_die(&innermost, &scopes);
    }
    /* scopes[0] is the innermost. Walk outwards: each inlined subroutine's call site is the
     * position inside the function around it. */
    struct code_frame inner_first[SYMBOLS_MAX_FRAMES];
    size_t n = 0;
    for (int i = 0; i < nscopes && n < SYMBOLS_MAX_FRAMES; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
            tag != DW_TAG_entry_point)
            continue;
        inner_first[n++] = (struct code_frame){die_name(&scopes[i]), file, line};
        if (tag != DW_TAG_inlined_subroutine)
            break;
        file = call_file(cu, &scopes[i]);
        line = call_line(&scopes[i]);
    }
    free(scopes);
    if (n == 0 && file) /* line information without a function DIE */
        inner_first[n++] = (struct code_frame){NULL, file, line};
    for (size_t i = 0; i < n; i++)
        loc->frames[i] = inner_first[n - 1 - i];
    loc->num_frames = n;
}

int symbols_lookup(struct symbols *sym, uint64_t address, struct code_location *loc)
{
    memset(loc, 0, sizeof *loc);
    Dwarf_Addr low, high;
    dwfl_module_info(sym->mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
    if (address < low || address >= high)
        return 0;
    GElf_Off offset = 0;
    GElf_Sym elf_sym;
    loc->symbol = dwfl_module_addrinfo(sym->mod, address, &offset, &elf_sym, NULL, NULL, NULL);
    loc->symbol_offset = offset;
    inline_frames(sym->mod, address, loc);
    if (!loc->symbol && loc->num_frames == 0)
        return 0; /* between sections of the image: nothing there to name */
    return 1;
}
