/* What every exporter of samples (pprof, perf, folded, perfetto) and diff open the same
 * way: the collection folder or tb5 file, the ELF image if given (placed as report places
 * it), and for those that work on stacks, the sample stacks (sample_stacks.h), with a
 * progress line on a terminal for large inputs. */
#ifndef ACART_TOOLS_EXPORT_INPUT_H
#define ACART_TOOLS_EXPORT_INPUT_H

#include <stdbool.h>

#include "diag.h"
#include "profile.h"
#include "sample_stacks.h"
#include "symbols.h"

struct export_input {
    const char *source, *elf;
    struct profile p;
    struct symbols *sym; /* NULL without an image: code is named by module */
    struct sample_stacks ss;
};

enum export_input_flags {
    EXPORT_INPUT_STACKS = 1,     /* collect the sample stacks */
    EXPORT_INPUT_BY_CONTEXT = 2, /* ... kept apart per CPU and task */
};

/* Opens source and elf (NULL: none); with EXPORT_INPUT_STACKS scans the samples into
 * in->ss. what names the command in the progress line. */
int export_input_open(struct export_input *in, const char *source, const char *elf, int flags,
                      const char *what, struct diag *d);
void export_input_close(struct export_input *in);

/* The command line the sample exporters share: `acart <command> SOURCE -o FILE [--elf
 * IMAGE]`. Returns -1 with *source, *output and *elf (NULL if not given) set, else the exit
 * status to return (--help, or a usage error naming <command>). */
int export_input_args(int argc, char **argv, const char *command, const char *usage,
                      const char **source, const char **output, const char **elf);

/* The event by name or index (NULL: the first); a usage error naming source if there is
 * no such event. */
int export_input_event(const struct export_input *in, const char *name, uint32_t *index,
                       struct diag *d);

#endif
