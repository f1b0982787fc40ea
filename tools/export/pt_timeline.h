/* Intel PT calls as trace-event JSON (the format chrome://tracing and Perfetto read): per
 * CPU, a thread "cpu N" of process pid holding every call as a complete event ("ph":"X")
 * named by its function and nested by the call tree, and the trace's gaps as instants.
 * `acart export chrome` writes only these; `acart export perfetto` writes them beside the
 * samples' timeline. */
#ifndef ACART_TOOLS_PT_TIMELINE_H
#define ACART_TOOLS_PT_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pt_input.h"

struct pt_timeline {
    const struct pt_input *in;
    FILE *out;
    int pid;
    bool by_insns;     /* times are instruction numbers, one microsecond each */
    uint64_t base_tsc; /* time 0 */
    bool first;        /* no event written yet: the next one needs no comma */
};

/* Writes CPU f->cpu's thread name and order, its calls and its gaps. */
void pt_timeline_write_cpu(struct pt_timeline *t, const struct pt_flow *f);

#endif
