/* What every subcommand does the same way: help and usage errors, numbers in arguments,
 * opening the input with a progress display, finding the image's load address. */
#ifndef ACART_TOOLS_CLI_H
#define ACART_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "profile.h"
#include "symbols.h"

/* Prints usage on stdout; returns ACART_EXIT_OK. */
int cli_help(const char *usage);

/* Prints "acart <command>: <message>" and the usage on stderr; returns ACART_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A whole decimal number (or 0x hex) in [0, max]; -1 otherwise. */
int cli_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* Opens the ELF image for a profile: a position-independent image is placed where the
 * target's module of the same base name was loaded. An image of the other mode than the
 * collection's (ELF32 for 64-bit code, ELF64 for 32-bit code) is refused (DIAG_INPUT,
 * naming both). When the samples carry stack copies (collect --callstack=dwarf), it also
 * gives the profile an unwinder on that image, so that their callers come out of the scan. */
int cli_open_symbols(struct profile *p, const char *elf_path, struct symbols **out, struct diag *d);

/* Opens the ELF image for the IPROBE sample files of folder dir (`acart fetch`), at its link
 * addresses, and refuses it (DIAG_INPUT, *out NULL) when a file's header says its code was
 * of the other mode, as cli_open_symbols does for a collection. */
int cli_open_ipr_symbols(const char *dir, const char *elf_path, struct symbols **out,
                         struct diag *d);

/* An event by name or index; NULL if the session has no such event. */
const struct session_event *cli_find_event(const struct session *s, const char *name_or_index);

/* Whether the ELF image sym may name code that module m held (m NULL: no module did): yes
 * for the image's own module and for modules there all along, no for one loaded or
 * unloaded during the collection under another name, whose code is not the image's
 * whatever the image has at that address (an overlay in a buffer of the image). */
bool cli_image_holds(const struct symbols *sym, const struct module_info *m);

/* The name for code the image does not name: "[<module name>]" or "[unknown]". */
void cli_outside_name(const struct module_info *m, char *buf, size_t size);

#endif
