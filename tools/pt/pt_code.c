#include "pt_code.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <gelf.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A symbol that may name code, before sizes are settled. */
struct candidate {
    uint64_t start, size, section_end;
    char *name;
    bool global, sized;
};

struct builder {
    struct candidate *items;
    size_t n, cap;
    struct pt_code *code; /* where the pieces go */
    size_t pieces_cap;
};

/* The piece's path is copied: the sources need not outlive the code, which may rebuild
 * its image from the pieces (pt_code_cut). */
static int add_piece(struct builder *b, const struct pt_code_piece *x, struct diag *d)
{
    struct pt_code *c = b->code;
    if (c->num_pieces == b->pieces_cap) {
        size_t cap = b->pieces_cap ? 2 * b->pieces_cap : 16;
        struct pt_code_piece *p = realloc(c->pieces, cap * sizeof *p);
        if (!p)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        c->pieces = p;
        b->pieces_cap = cap;
    }
    c->pieces[c->num_pieces] = *x;
    c->pieces[c->num_pieces].path = strdup(x->path);
    if (!c->pieces[c->num_pieces].path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    c->num_pieces++;
    return 0;
}

static int intern(struct pt_code *c, char *name, uint32_t *id, struct diag *d)
{
    if (!name)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (c->num_names == c->names_cap) {
        size_t cap = c->names_cap ? 2 * c->names_cap : 256;
        char **names = realloc(c->names, cap * sizeof *names);
        if (!names) {
            free(name);
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        }
        c->names = names;
        c->names_cap = cap;
    }
    *id = (uint32_t)c->num_names;
    c->names[c->num_names++] = name;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int add_candidate(struct builder *b, const struct candidate *x, struct diag *d)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        struct candidate *items = realloc(b->items, cap * sizeof *items);
        if (!items)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        b->items = items;
        b->cap = cap;
    }
    b->items[b->n] = *x;
    b->items[b->n].name = strdup(x->name);
    if (!b->items[b->n].name)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    b->n++;
    return 0;
}

/* Function symbols of one symbol table, and global untyped symbols in code (entry points
 * written in assembly often have no type or size). */
static int read_symbols(Elf *e, Elf_Scn *symtab, uint64_t bias, struct builder *b, struct diag *d)
{
    GElf_Shdr sh;
    Elf_Data *data = elf_getdata(symtab, NULL);
    if (!gelf_getshdr(symtab, &sh) || !data || !sh.sh_entsize)
        return 0;
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 1; i < count; i++) {
        GElf_Sym sym;
        GElf_Shdr code;
        if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
            sym.st_shndx >= SHN_LORESERVE)
            continue;
        int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
        Elf_Scn *scn = elf_getscn(e, sym.st_shndx);
        if (!scn || !gelf_getshdr(scn, &code) || !(code.sh_flags & SHF_EXECINSTR))
            continue;
        if (type != STT_FUNC && !(type == STT_NOTYPE && bind != STB_LOCAL))
            continue;
        const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
        if (!name || !name[0])
            continue;
        struct candidate x = {
            .start = sym.st_value + bias,
            .size = sym.st_size,
            .section_end = code.sh_addr + code.sh_size + bias,
            .name = (char *)name,
            .global = bind != STB_LOCAL,
            .sized = sym.st_size > 0,
        };
        int rc = add_candidate(b, &x, d);
        if (rc)
            return rc;
    }
    return 0;
}

/* Where an image ran: where its source places it, else at its link addresses for a
 * fixed-address executable, else at the load address of the module of the same base name;
 * a load address is that of the page its first segment starts in, as module records give
 * it. */
static int image_bias(Elf *e, const struct pt_code_source *src, const struct profile *p,
                      uint64_t *bias, struct diag *d)
{
    const char *path = src->path;
    GElf_Ehdr eh;
    size_t nph;
    *bias = 0;
    if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph) != 0)
        return diag_fail(d, DIAG_INPUT, "%s: not an ELF file: %s", path, elf_errmsg(-1));
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        return diag_fail(d, DIAG_INPUT, "%s: neither an executable nor a shared object", path);
    if (eh.e_type == ET_EXEC && !src->placed)
        return 0;
    uint64_t low = UINT64_MAX;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < low)
            low = ph.p_vaddr;
    }
    if (src->placed) {
        *bias = src->address - (low & ~0xfffull);
        return 0;
    }
    for (size_t i = 0; i < p->num_modules; i++)
        if (strcmp(p->modules[i].name, base_name(path)) == 0) {
            *bias = p->modules[i].load_address - (low & ~0xfffull);
            return 0;
        }
    return diag_fail(d, DIAG_INPUT,
                     "%s: a position-independent image, and no module of the collection is "
                     "named %s to say where it ran (give it as %s@ADDRESS)",
                     path, base_name(path), path);
}

static int add_elf(const struct pt_code_source *src, const struct profile *p, struct builder *b,
                   struct diag *d)
{
    const char *path = src->path;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return diag_fail(d, DIAG_INPUT, "%s: %s", path, strerror(errno));
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    int rc = 0;
    uint64_t bias = 0;
    size_t nph = 0, segments = 0;
    if (!e || elf_kind(e) != ELF_K_ELF)
        rc = diag_fail(d, DIAG_INPUT, "%s: not an ELF file", path);
    else
        rc = image_bias(e, src, p, &bias, d);
    if (!rc && elf_getphdrnum(e, &nph) != 0)
        rc = diag_fail(d, DIAG_INPUT, "%s: no program headers: %s", path, elf_errmsg(-1));
    for (size_t i = 0; !rc && i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
            !ph.p_filesz)
            continue;
        struct pt_code_piece x = {(char *)path, ph.p_offset, ph.p_filesz, ph.p_vaddr + bias};
        rc = add_piece(b, &x, d);
        segments++;
    }
    if (!rc && !segments)
        rc = diag_fail(d, DIAG_INPUT, "%s: no executable segment", path);
    /* The full symbol table when there is one, else the dynamic one. */
    Elf_Scn *scn = NULL, *symtab = NULL;
    while (!rc && (scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !symtab))
            symtab = scn;
    }
    if (!rc && symtab)
        rc = read_symbols(e, symtab, bias, b, d);
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}

/* By address; at one address a sized symbol before an unsized one, global before local. */
static int compare_candidates(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->sized != y->sized)
        return x->sized ? -1 : 1;
    if (x->global != y->global)
        return x->global ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* One function per address; an unsized symbol reaches to the next symbol or the end of
 * its section, and no function overlaps the next one. */
static int settle_functions(struct pt_code *c, struct builder *b, struct diag *d)
{
    if (b->n) /* an image of raw segments only has no symbols, and qsort wants an array */
        qsort(b->items, b->n, sizeof *b->items, compare_candidates);
    c->functions = calloc(b->n ? b->n : 1, sizeof *c->functions);
    if (!c->functions)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; i < b->n; i++) {
        struct candidate *x = &b->items[i];
        if (i > 0 && b->items[i - 1].start == x->start)
            continue;
        size_t next = i + 1;
        while (next < b->n && b->items[next].start == x->start)
            next++;
        uint64_t end = x->sized ? x->start + x->size : x->section_end;
        if (next < b->n && b->items[next].start < end)
            end = b->items[next].start;
        if (end <= x->start)
            continue;
        struct pt_code_function *f = &c->functions[c->num_functions];
        f->start = x->start;
        f->end = end;
        int rc = intern(c, x->name, &f->name, d);
        x->name = NULL; /* now the code's */
        if (rc)
            return rc;
        c->num_functions++;
    }
    return 0;
}

static int add_module_ranges(struct pt_code *c, const struct profile *p, struct diag *d)
{
    c->ranges = calloc(p->num_modules ? p->num_modules : 1, sizeof *c->ranges);
    if (!c->ranges)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; i < p->num_modules; i++) {
        const struct module_info *m = &p->modules[i];
        struct pt_code_range *r = &c->ranges[c->num_ranges];
        r->start = m->load_address;
        r->end = m->load_address + m->length;
        size_t len = strlen(m->name) + 3;
        char *name = malloc(len);
        if (name)
            snprintf(name, len, "[%s]", m->name);
        int rc = intern(c, name, &r->name, d);
        if (rc)
            return rc;
        c->num_ranges++;
    }
    return 0;
}

/* Raw memory: the whole file at its address. */
static int add_raw(const struct pt_code_source *src, struct builder *b, struct diag *d)
{
    struct stat st;
    if (stat(src->path, &st) != 0)
        return diag_fail(d, DIAG_INPUT, "%s: %s", src->path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return diag_fail(d, DIAG_INPUT, "%s: not a regular file", src->path);
    if (st.st_size == 0)
        return diag_fail(d, DIAG_INPUT, "%s: empty: no memory to place at 0x%" PRIx64, src->path,
                         src->address);
    if (src->address + (uint64_t)st.st_size - 1 < src->address)
        return diag_fail(d, DIAG_INPUT,
                         "%s: %lld bytes at 0x%" PRIx64 " go past the end of the address space",
                         src->path, (long long)st.st_size, src->address);
    struct pt_code_piece x = {(char *)src->path, 0, (uint64_t)st.st_size, src->address};
    return add_piece(b, &x, d);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every address where the name of the code may change, sorted, once each: the regions'
 * edges, each region's name, and no cut yet. */
static int find_regions(struct pt_code *c, struct diag *d)
{
    size_t cap = 2 * (c->num_functions + c->num_ranges), k = 0;
    uint64_t *at = malloc((cap ? cap : 1) * sizeof *at);
    if (!at)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; i < c->num_functions; i++) {
        at[k++] = c->functions[i].start;
        at[k++] = c->functions[i].end;
    }
    for (size_t i = 0; i < c->num_ranges; i++) {
        at[k++] = c->ranges[i].start;
        at[k++] = c->ranges[i].end;
    }
    qsort(at, k, sizeof *at, compare_u64);
    size_t n = 0;
    for (size_t i = 0; i < k; i++)
        if (!n || at[i] != at[n - 1])
            at[n++] = at[i];
    c->bounds = at;
    c->num_bounds = n;
    c->region_names = calloc(n + 1, sizeof *c->region_names);
    c->cut = calloc(n ? n : 1, sizeof *c->cut);
    if (!c->region_names || !c->cut)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t r = 0; r <= n; r++)
        c->region_names[r] = pt_code_name_at(c, pt_code_region_start(c, r));
    return 0;
}

size_t pt_code_region(const struct pt_code *c, uint64_t ip)
{
    size_t lo = 0, hi = c->num_bounds;
    while (lo < hi) { /* the number of edges at or below ip */
        size_t mid = lo + (hi - lo) / 2;
        if (c->bounds[mid] <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One section of the image: bytes [offset, offset + size) of path at vaddr. Its name, when
 * it lies in one region, goes by its isid. */
static int add_section(struct pt_code *c, struct pt_image *image, const char *path, uint64_t offset,
                       uint64_t size, uint64_t vaddr, struct diag *d)
{
    int isid = pt_iscache_add_file(c->iscache, path, offset, size, vaddr);
    int err = isid < 0 ? isid : pt_image_add_cached(image, c->iscache, isid, NULL);
    if (err < 0)
        return diag_fail(d, DIAG_LIBRARY,
                         "%s: libipt cannot add %" PRIu64 " bytes at 0x%" PRIx64 ": %s", path, size,
                         vaddr, pt_errstr(pt_errcode(err)));
    if ((size_t)isid >= c->num_isids) {
        size_t n = 2 * (size_t)isid + 16;
        uint32_t *names = realloc(c->isid_names, n * sizeof *names);
        if (!names)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        memset(names + c->num_isids, 0, (n - c->num_isids) * sizeof *names);
        c->isid_names = names;
        c->num_isids = n;
    }
    size_t region = pt_code_region(c, vaddr);
    c->isid_names[isid] =
        region == pt_code_region(c, vaddr + size - 1) ? c->region_names[region] + 1 : 0;
    return 0;
}

/* A new image from the pieces, in their order, each cut at the region edges marked in
 * c->cut; it replaces the old one (no decoder may hold that). The sections stay in the
 * cache, so a rebuilt image maps nothing again. */
static int build_image(struct pt_code *c, struct diag *d)
{
    struct pt_image *image = pt_image_alloc("acart");
    if (!image)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; !rc && i < c->num_pieces; i++) {
        const struct pt_code_piece *x = &c->pieces[i];
        uint64_t start = x->vaddr, end = x->vaddr + x->size;
        size_t k = pt_code_region(c, start); /* the first edge above start */
        while (!rc && start < end) {
            while (k < c->num_bounds && (c->bounds[k] <= start || !c->cut[k]))
                k++;
            uint64_t stop = k < c->num_bounds && c->bounds[k] < end ? c->bounds[k] : end;
            rc = add_section(c, image, x->path, x->offset + (start - x->vaddr), stop - start, start,
                             d);
            start = stop;
        }
    }
    if (rc) {
        pt_image_free(image);
        return rc;
    }
    pt_image_free(c->image);
    c->image = image;
    return 0;
}

int pt_code_cut(struct pt_code *c, const size_t *regions, size_t n, struct diag *d)
{
    for (size_t i = 0; i < n; i++) {
        if (regions[i] > 0)
            c->cut[regions[i] - 1] = true;
        if (regions[i] < c->num_bounds)
            c->cut[regions[i]] = true;
    }
    return build_image(c, d);
}

int pt_code_cut_everywhere(struct pt_code *c, struct diag *d)
{
    for (size_t k = 0; k < c->num_bounds; k++)
        c->cut[k] = true;
    return build_image(c, d);
}

int pt_code_open(struct pt_code *c, const struct pt_code_source *sources, size_t n,
                 const struct profile *p, struct diag *d)
{
    struct builder b = {.code = c};
    uint32_t unknown;
    memset(c, 0, sizeof *c);
    elf_version(EV_CURRENT);
    c->iscache = pt_iscache_alloc("acart");
    int rc = c->iscache ? intern(c, strdup("[unknown]"), &unknown, d)
                        : diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        rc = sources[i].raw ? add_raw(&sources[i], &b, d) : add_elf(&sources[i], p, &b, d);
    if (!rc)
        rc = settle_functions(c, &b, d);
    if (!rc)
        rc = add_module_ranges(c, p, d);
    if (!rc)
        rc = find_regions(c, d);
    if (!rc)
        rc = build_image(c, d);
    for (size_t i = 0; i < b.n; i++)
        free(b.items[i].name);
    free(b.items);
    if (rc)
        pt_code_close(c);
    return rc;
}

void pt_code_close(struct pt_code *c)
{
    /* The image holds the cache's sections: it goes first. */
    pt_image_free(c->image);
    pt_iscache_free(c->iscache);
    free(c->isid_names);
    for (size_t i = 0; i < c->num_names; i++)
        free(c->names[i]);
    free(c->names);
    free(c->functions);
    free(c->ranges);
    for (size_t i = 0; i < c->num_pieces; i++)
        free(c->pieces[i].path);
    free(c->pieces);
    free(c->bounds);
    free(c->region_names);
    free(c->cut);
    memset(c, 0, sizeof *c);
}

static const struct pt_code_function *function_at(const struct pt_code *c, uint64_t ip)
{
    size_t lo = 0, hi = c->num_functions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->functions[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ip >= c->functions[lo - 1].end)
        return NULL;
    return &c->functions[lo - 1];
}

uint32_t pt_code_name_at(const struct pt_code *c, uint64_t ip)
{
    const struct pt_code_function *f = function_at(c, ip);
    if (f)
        return f->name;
    /* Modules are sorted by address, then load time: of several here, the latest load. */
    for (size_t i = c->num_ranges; i-- > 0;)
        if (ip >= c->ranges[i].start && ip < c->ranges[i].end)
            return c->ranges[i].name;
    return PT_CODE_UNKNOWN;
}

uint64_t pt_code_function_start(const struct pt_code *c, uint64_t ip)
{
    const struct pt_code_function *f = function_at(c, ip);
    return f ? f->start : ip;
}

static bool legacy_prefix(uint8_t byte)
{
    /* Segment overrides, operand and address size, LOCK, REPNE, REP. */
    static const uint8_t prefixes[] = {0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65,
                                       0x66, 0x67, 0xf0, 0xf2, 0xf3};
    return memchr(prefixes, byte, sizeof prefixes) != NULL;
}

/* The classes libipt's instruction decoder gives (pt_ild.c) of the instructions that end
 * a block: branches that need trace, calls and returns. Others are ptic_error. */
static enum pt_insn_class classify(const uint8_t *p, size_t n, enum pt_exec_mode mode)
{
    size_t i = 0;
    while (i < n && legacy_prefix(p[i]))
        i++;
    if (mode == ptem_64bit && i < n && (p[i] & 0xf0) == 0x40) /* REX */
        i++;
    if (i >= n)
        return ptic_error;
    uint8_t op = p[i++];
    bool bits64 = mode == ptem_64bit;
    switch (op) {
    case 0xe8:
        return ptic_call;
    case 0xc2:
    case 0xc3:
        return ptic_return;
    case 0xcc: /* INT3 */
    case 0xcd: /* INT n */
    case 0xf1: /* INT1 */
        return ptic_far_call;
    case 0x9a: /* CALL ptr16:32 */
    case 0xce: /* INTO */
        return bits64 ? ptic_error : ptic_far_call;
    case 0xea: /* JMP ptr16:32 */
        return bits64 ? ptic_error : ptic_far_jump;
    case 0xca: /* RET far */
    case 0xcb:
    case 0xcf: /* IRET */
        return ptic_far_return;
    case 0xff:
        if (i >= n)
            return ptic_error;
        switch ((p[i] >> 3) & 7) {
        case 2:
            return ptic_call;
        case 3:
            return ptic_far_call;
        case 4:
            return ptic_jump;
        case 5:
            return ptic_far_jump;
        default:
            return ptic_error;
        }
    case 0x0f:
        if (i >= n)
            return ptic_error;
        switch (p[i++]) {
        case 0x05: /* SYSCALL */
        case 0x34: /* SYSENTER */
            return ptic_far_call;
        case 0x07: /* SYSRET */
        case 0x35: /* SYSEXIT */
            return ptic_far_return;
        case 0x01:
            if (i >= n)
                return ptic_error;
            switch (p[i]) {
            case 0xc1: /* VMCALL */
                return ptic_far_call;
            case 0xc2: /* VMLAUNCH */
            case 0xc3: /* VMRESUME */
            case 0xec: /* UIRET */
                return ptic_far_return;
            default:
                return ptic_error;
            }
        default:
            return ptic_error;
        }
    default:
        return ptic_error;
    }
}

enum pt_insn_class pt_code_decode_class(const struct pt_code *c, const struct pt_block *b)
{
    if (!b->ninsn)
        return b->iclass;
    if (b->truncated)
        return classify(b->raw, b->size, b->mode);
    uint8_t raw[16];
    int n = pt_iscache_read(c->iscache, raw, sizeof raw, b->isid, b->end_ip);
    if (n <= 0)
        return b->iclass;
    return classify(raw, (size_t)n, b->mode);
}
