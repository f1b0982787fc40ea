#include "cli.h"
#include "code_names.h"
#include "ipr_file.h"
#include "unwind.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_help(const char *usage)
{
    fputs(usage, stdout);
    return ACART_EXIT_OK;
}

int cli_usage_error(const char *command, const char *usage, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "acart %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fputs(usage, stderr);
    return ACART_EXIT_USAGE;
}

int cli_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s[0] || s[0] == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

static uint32_t unwind_record(void *ctx, const unsigned char *copy, uint32_t copy_size,
                              uint64_t *callers, uint32_t max)
{
    return unwind_stack_copy(ctx, copy, copy_size, callers, max);
}

static void unwind_free(void *ctx)
{
    unwind_close(ctx);
}

static bool has_stack_copies(const struct session *s)
{
    for (size_t i = 0; i < s->num_descriptors; i++)
        if (s->descriptors[i].stack_copy_size)
            return true;
    return false;
}

/* Closes *sym and fails when the image is of another mode than the code the samples came
 * from (mode: enum code_mode; unknown passes): an image of the other mode would name every
 * sample wrongly, or not at all. `source` says whose mode it is, `known` how it is known. */
static int check_image_mode(const char *elf_path, struct symbols **sym, unsigned mode,
                            const char *source, const char *known, struct diag *d)
{
    unsigned bits = symbols_image_bits(*sym);
    if ((mode == CODE_MODE_64 && bits != 64) || (mode == CODE_MODE_32 && bits != 32)) {
        symbols_close(*sym);
        *sym = NULL;
        return diag_fail(d, DIAG_INPUT,
                         "%s is an ELF%u image, but %s is of %s (%s): give the image the "
                         "target ran",
                         elf_path, bits, source, profile_code_mode_name(mode), known);
    }
    return 0;
}

int cli_open_symbols(struct profile *p, const char *elf_path, struct symbols **out, struct diag *d)
{
    const char *slash = strrchr(elf_path, '/');
    const char *base = slash ? slash + 1 : elf_path;
    uint64_t load_address = 0;
    for (size_t i = 0; i < p->num_modules; i++)
        if (strcmp(p->modules[i].name, base) == 0)
            load_address = p->modules[i].load_address;
    int rc = symbols_open(elf_path, load_address, out, d);
    if (rc)
        return rc;
    if ((rc = check_image_mode(elf_path, out, profile_code_mode(p), "the collection",
                               "its module records say so", d)))
        return rc;
    if (has_stack_copies(&p->session) && !p->unwind) {
        struct unwinder *u;
        if ((rc = unwind_open(elf_path, load_address, &u, d))) {
            symbols_close(*out);
            *out = NULL;
            return rc;
        }
        p->unwind = unwind_record;
        p->unwind_ctx = u;
        p->unwind_free = unwind_free;
    }
    return 0;
}

int cli_open_ipr_symbols(const char *dir, const char *elf_path, struct symbols **out,
                         struct diag *d)
{
    char **paths;
    size_t n;
    int rc = symbols_open(elf_path, 0, out, d);
    if (rc)
        return rc;
    if ((rc = ipr_file_list(dir, &paths, &n, d))) {
        symbols_close(*out);
        *out = NULL;
        return rc;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        struct ipr_file f;
        if ((rc = ipr_file_open(&f, paths[i], d))) {
            symbols_close(*out);
            *out = NULL;
            break;
        }
        unsigned bits = f.header.code_bits;
        char source[4200];
        snprintf(source, sizeof source, "the IPROBE sample file %s", paths[i]);
        rc = check_image_mode(elf_path, out,
                              bits == 64   ? CODE_MODE_64
                              : bits == 32 ? CODE_MODE_32
                                           : CODE_MODE_UNKNOWN,
                              source, "its header says so", d);
        ipr_file_close(&f);
    }
    ipr_file_free_paths(paths, n);
    return rc;
}

const struct session_event *cli_find_event(const struct session *s, const char *name_or_index)
{
    uint64_t index;
    for (size_t i = 0; i < s->num_events; i++)
        if (strcmp(s->events[i].name, name_or_index) == 0)
            return &s->events[i];
    if (cli_parse_uint(name_or_index, UINT32_MAX, &index) == 0)
        return session_event(s, (uint32_t)index);
    return NULL;
}

bool cli_image_holds(const struct symbols *sym, const struct module_info *m)
{
    return code_names_image_holds(sym, m);
}

void cli_outside_name(const struct module_info *m, char *buf, size_t size)
{
    code_names_outside(m, buf, size);
}
