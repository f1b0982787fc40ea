/* What every PT command opens: the collection (session.json with its `pt` member, the
 * module map), the code (ELF images into a libipt image) and the decoder configuration;
 * then, per CPU, the trace decoded into calls and functions (pt_flow). */
#ifndef ACART_TOOLS_PT_INPUT_H
#define ACART_TOOLS_PT_INPUT_H

#include <intel-pt.h>

#include "profile.h"
#include "pt_code.h"
#include "pt_flow.h"

struct pt_input {
    const char *dir;
    struct profile p;
    struct pt_code code;
    struct pt_config config;
};

/* Opens collection folder dir and the ELF images elfs[0..n). A collection without Intel PT
 * is bad input. */
int pt_input_open(struct pt_input *in, const char *dir, const char *const *elfs, size_t n,
                  struct diag *d);
void pt_input_close(struct pt_input *in);

/* Decodes CPU cpu through sink (pt_decode.h); blocks as in pt_decode. */
int pt_input_decode(struct pt_input *in, uint32_t cpu, bool blocks, const struct pt_sink *sink,
                    struct diag *d);

/* How pt_input_flow decodes: with count_cycles, the cycles of CYC packets are counted
 * (pt_flow_decode: a second decode). */
struct pt_flow_options {
    bool count_cycles;
    struct pt_closed_calls closed;
};

/* Decodes CPU cpu into f (initialised here; pt_flow_free it); options NULL: every call kept,
 * cycles not counted. */
int pt_input_flow(struct pt_input *in, uint32_t cpu, const struct pt_flow_options *options,
                  struct pt_flow *f, struct diag *d);

/* Warns on stderr, one line each, where f's times are not known (the clock never moved
 * while instructions ran), where libipt could not use timing packets (lost_cyc,
 * lost_mtc), and with cycles, where its functions' cycles are not known. name is the
 * command ("pt functions"). */
void pt_input_warn_timing(const char *name, const struct pt_input *in, const struct pt_flow *f,
                          bool cycles);

/* Microseconds from TSC ticks at the target's TSC rate. */
double pt_input_us(const struct pt_input *in, double ticks);

#endif
