/* The command line every `acart pt` command shares (docs/pt.md, "acart pt"): the input, a
 * collection folder or a raw trace file; the images, ELF files (--elf FILE[@ADDR]) or raw
 * memory (--raw FILE@ADDR); and for a raw trace what a collection's session.json would say
 * and libipt's pt_config takes: the CPU (--cpu-model), the timing configuration and the
 * address filters. Parsing fails with the usage error that names what is wrong. */
#ifndef ACART_TOOLS_PT_ARGS_H
#define ACART_TOOLS_PT_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_code.h"
#include "pt_input.h"

struct pt_args {
    const char *input; /* DIR or TRACE */
    bool raw_trace;    /* input is a trace file, not a collection folder */
    const char *output;
    struct pt_code_source *sources; /* --elf and --raw in the order given */
    size_t num_sources;
    char **paths; /* what sources' paths point into, to free */
    size_t num_paths;
    struct pt_raw_config raw;
    const char *raw_option; /* the first option given that only a raw trace takes */
    int64_t cpu;            /* -1: every CPU */
    uint64_t max_depth, top;
    bool blocks, no_pad;
};

/* Parses the options of subcommand name (usage its help); returns -1 to go on, else the
 * exit status. needs_image: the command decodes code, so an image is required. */
int pt_args_parse(int argc, char **argv, const char *name, const char *usage, bool needs_image,
                  struct pt_args *a);
void pt_args_free(struct pt_args *a);

/* Opens a's input and images; returns -1 on success, else the exit status (the error
 * reported). */
int pt_args_open(struct pt_input *in, const struct pt_args *a, const char *name);

/* The CPUs to show: [pt_args_first_cpu, pt_args_end_cpu). */
uint32_t pt_args_first_cpu(const struct pt_args *a);
uint32_t pt_args_end_cpu(const struct pt_args *a, const struct pt_input *in);

/* The help every pt command ends with. */
extern const char pt_args_common_help[];

#endif
