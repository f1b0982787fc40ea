/* What every PT command opens: the collection (session.json with its `pt` member, the
 * module map) or a raw trace with what the command line says of it, the code (ELF images
 * and raw memory into a libipt image) and the decoder configuration; then, per CPU, the
 * trace decoded into calls and functions (pt_flow). */
#ifndef ACART_TOOLS_PT_INPUT_H
#define ACART_TOOLS_PT_INPUT_H

#include <intel-pt.h>

#include "profile.h"
#include "pt_code.h"
#include "pt_flow.h"

struct pt_input {
    const char *dir;   /* the collection folder; for a raw trace, the trace file */
    const char *trace; /* a raw trace file, or NULL for a collection */
    struct profile p;  /* for a raw trace, a session made from struct pt_raw_config */
    struct pt_code code;
    struct pt_config config;
};

/* What a raw trace leaves to the command line (docs/pt.md, "A trace from elsewhere"): what
 * a collection's session.json says, as far as libipt's pt_config takes it. */
struct pt_raw_config {
    uint32_t cpu_family, cpu_model, cpu_stepping; /* family 0: none, no errata */
    uint32_t mtc_freq, nom_freq, cpuid_15_eax, cpuid_15_ebx;
    uint64_t tsc_hz;   /* 0: nom_freq x 100 MHz, or no time if that is 0 too */
    uint64_t addr_cfg; /* IA32_RTIT_CTL.ADDRn_CFG, 4 bits a range */
    struct session_pt_filter filters[SESSION_PT_MAX_FILTERS];
    size_t num_filters;
};

/* Opens collection folder dir and the ELF images elfs[0..n). A collection without Intel PT
 * is bad input. */
int pt_input_open(struct pt_input *in, const char *dir, const char *const *elfs, size_t n,
                  struct diag *d);

/* The same with images of every kind (pt_code_open). */
int pt_input_open_sources(struct pt_input *in, const char *dir,
                          const struct pt_code_source *sources, size_t n, struct diag *d);

/* Opens the raw trace file trace, decoded as CPU 0 with raw's configuration, and the
 * images sources[0..n). */
int pt_input_open_raw(struct pt_input *in, const char *trace, const struct pt_raw_config *raw,
                      const struct pt_code_source *sources, size_t n, struct diag *d);
void pt_input_close(struct pt_input *in);

/* Decodes CPU cpu through sink (pt_decode.h); blocks as in pt_decode. Where the image does
 * not cover the trace (gaps where libipt found no memory), a warning on stderr names the
 * first address missing, as from the command name; when nothing could be decoded for that
 * reason, the decode fails (DIAG_INPUT), so the command does not give an empty result as
 * if it were one. The same for pt_input_flow. */
int pt_input_decode(struct pt_input *in, const char *name, uint32_t cpu, bool blocks,
                    const struct pt_sink *sink, struct diag *d);

/* How pt_input_flow decodes: with count_cycles, the cycles of CYC packets are counted
 * (pt_flow_decode: a query decoder beside the decode, or a second decode). */
struct pt_flow_options {
    const char *name; /* the command, for warnings ("pt functions"); NULL: "pt" */
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
