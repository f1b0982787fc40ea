#include "pt_input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collection.h"
#include "profile_open.h"
#include "pt_cycles.h"

int pt_input_open(struct pt_input *in, const char *dir, const char *const *elfs, size_t n,
                  struct diag *d)
{
    struct pt_code_source *sources = calloc(n ? n : 1, sizeof *sources);
    if (!sources) {
        memset(in, 0, sizeof *in);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        sources[i].path = elfs[i];
    int rc = pt_input_open_sources(in, dir, sources, n, d);
    free(sources);
    return rc;
}

int pt_input_open_sources(struct pt_input *in, const char *dir,
                          const struct pt_code_source *sources, size_t n, struct diag *d)
{
    memset(in, 0, sizeof *in);
    in->dir = dir;
    int rc = collection_open(dir, &in->p, d);
    if (rc) {
        profile_close(&in->p);
        return rc;
    }
    if (!in->p.session.pt) {
        profile_close(&in->p);
        return diag_fail(d, DIAG_INPUT,
                         "%s: no Intel PT in this collection (session.json has no pt member)", dir);
    }
    if ((rc = pt_code_open(&in->code, sources, n, &in->p, d))) {
        profile_close(&in->p);
        return rc;
    }
    pt_decode_config(&in->p.session, &in->config);
    return 0;
}

/* The session a collection of this one trace would have. */
static int raw_session(struct session *s, const char *trace, uint64_t bytes,
                       const struct pt_raw_config *raw, struct diag *d)
{
    s->hostname = strdup(trace);
    s->num_cpus = 1;
    s->cpu_family = raw->cpu_family;
    s->cpu_model = raw->cpu_model;
    s->cpu_stepping = raw->cpu_stepping;
    s->tsc_hz = raw->tsc_hz ? raw->tsc_hz : (uint64_t)raw->nom_freq * 100000000u;
    s->pt = calloc(1, sizeof *s->pt);
    if (s->pt)
        s->pt->per_cpu = calloc(1, sizeof *s->pt->per_cpu);
    if (!s->hostname || !s->pt || !s->pt->per_cpu)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct session_pt *pt = s->pt;
    pt->mode = SESSION_PT_FULL;
    pt->mtc_freq = raw->mtc_freq;
    pt->nom_freq = raw->nom_freq;
    pt->cpuid_15_eax = raw->cpuid_15_eax;
    pt->cpuid_15_ebx = raw->cpuid_15_ebx;
    pt->rtit_ctl = (uint64_t)raw->mtc_freq << 14 | raw->addr_cfg << 32;
    pt->num_filters = raw->num_filters;
    for (size_t i = 0; i < raw->num_filters; i++) {
        pt->filters[i].start = raw->filters[i].start;
        pt->filters[i].end = raw->filters[i].end;
    }
    pt->per_cpu[0].bytes = bytes;
    return 0;
}

int pt_input_open_raw(struct pt_input *in, const char *trace, const struct pt_raw_config *raw,
                      const struct pt_code_source *sources, size_t n, struct diag *d)
{
    memset(in, 0, sizeof *in);
    in->dir = trace;
    in->trace = trace;
    struct stat st;
    int rc = 0;
    if (stat(trace, &st) != 0)
        rc = diag_fail(d, DIAG_INPUT, "%s: %s", trace, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = diag_fail(d, DIAG_INPUT, "%s: not a trace file", trace);
    if (!rc)
        rc = raw_session(&in->p.session, trace, (uint64_t)st.st_size, raw, d);
    if (!rc)
        rc = pt_code_open(&in->code, sources, n, &in->p, d);
    if (rc) {
        profile_close(&in->p);
        return rc;
    }
    pt_decode_config(&in->p.session, &in->config);
    return 0;
}

static int load_trace(const struct pt_input *in, uint32_t cpu, struct pt_cpu_trace *t,
                      struct diag *d)
{
    if (in->trace)
        return pt_trace_load_file(in->trace, &in->p.session, cpu, t, d);
    return pt_trace_load(in->dir, &in->p.session, cpu, t, d);
}

void pt_input_close(struct pt_input *in)
{
    pt_code_close(&in->code);
    profile_close(&in->p);
}

/* What a decode says of the image's coverage of the trace. */
struct coverage {
    uint64_t insns;
    size_t unmapped; /* gaps where libipt found no memory */
    bool has_first;
    uint64_t first; /* the first address it missed */
};

static void coverage_gap(struct coverage *c, const struct pt_gap *gap)
{
    if (gap->kind != PT_GAP_DECODE || gap->errcode != -pte_nomap)
        return;
    c->unmapped++;
    if (!c->has_first && gap->has_unmapped) {
        c->has_first = true;
        c->first = gap->unmapped;
    }
}

static int check_coverage(const char *name, const struct pt_input *in, uint32_t cpu,
                          const struct coverage *c, struct diag *d)
{
    if (!c->unmapped)
        return 0;
    char where[64] = "";
    if (c->has_first)
        snprintf(where, sizeof where, ", first at 0x%" PRIx64, c->first);
    if (!c->insns)
        return diag_fail(d, DIAG_INPUT,
                         "%s: cpu %" PRIu32 ": the image does not cover the trace: no "
                         "instruction decoded, the code it ran is in no image given (--elf, "
                         "--raw)%s",
                         in->dir, cpu, where);
    fprintf(stderr,
            "acart %s: warning: %s: cpu %" PRIu32 ": the image does not cover all of the "
            "trace: %zu gaps where the code is in no image given%s\n",
            name, in->dir, cpu, c->unmapped, where);
    return 0;
}

/* pt_input_decode's sink in front of the caller's: it counts what coverage needs. */
struct counting_sink {
    const struct pt_sink *inner;
    struct coverage c;
};

static int count_insn(void *ctx, const struct pt_insn *insn, uint64_t tsc)
{
    struct counting_sink *s = ctx;
    s->c.insns++;
    return s->inner->insn ? s->inner->insn(s->inner->ctx, insn, tsc) : 0;
}

static int count_block(void *ctx, const struct pt_block *block, uint64_t tsc)
{
    struct counting_sink *s = ctx;
    s->c.insns += block->ninsn;
    return s->inner->block ? s->inner->block(s->inner->ctx, block, tsc) : 0;
}

static int pass_event(void *ctx, const struct pt_event *ev)
{
    struct counting_sink *s = ctx;
    return s->inner->event ? s->inner->event(s->inner->ctx, ev) : 0;
}

static int count_gap(void *ctx, const struct pt_gap *gap)
{
    struct counting_sink *s = ctx;
    coverage_gap(&s->c, gap);
    return s->inner->gap ? s->inner->gap(s->inner->ctx, gap) : 0;
}

static int pass_end(void *ctx, uint64_t tsc)
{
    struct counting_sink *s = ctx;
    return s->inner->end ? s->inner->end(s->inner->ctx, tsc) : 0;
}

int pt_input_decode(struct pt_input *in, const char *name, uint32_t cpu, bool blocks,
                    const struct pt_sink *sink, struct diag *d)
{
    struct pt_cpu_trace t;
    int rc = load_trace(in, cpu, &t, d);
    if (rc)
        return rc;
    /* Each block is printed with one name: it must lie in one region. */
    if (blocks && (rc = pt_code_cut_everywhere(&in->code, d)) != 0) {
        pt_trace_free(&t);
        return rc;
    }
    struct counting_sink counting = {.inner = sink};
    const struct pt_sink proxy = {.insn = count_insn,
                                  .block = count_block,
                                  .event = pass_event,
                                  .gap = count_gap,
                                  .end = pass_end,
                                  .ctx = &counting};
    rc = pt_decode(&t, &in->config, in->code.image, blocks, &proxy, d);
    if (rc == DIAG_NOMEM)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory decoding CPU %" PRIu32, cpu);
    pt_trace_free(&t);
    if (!rc)
        rc = check_coverage(name, in, cpu, &counting.c, d);
    return rc;
}

int pt_input_flow(struct pt_input *in, uint32_t cpu, const struct pt_flow_options *options,
                  struct pt_flow *f, struct diag *d)
{
    static const struct pt_flow_options keep_all;
    if (!options)
        options = &keep_all;
    if (pt_flow_init(f, &in->code, cpu, in->p.session.pt->nom_freq))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    f->closed = options->closed;
    struct pt_cpu_trace t;
    int rc = load_trace(in, cpu, &t, d);
    if (rc)
        return rc;
    /* A consumer of closed calls cannot take back what it was given, so the decode must
     * not start over: the image is cut at every region edge (pt_flow_decode). */
    if (options->closed.fn)
        rc = pt_code_cut_everywhere(&in->code, d);
    if (!rc)
        rc = pt_flow_decode(f, &t, &in->config, &in->code, options->count_cycles, d);
    if (rc == DIAG_NOMEM)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory decoding CPU %" PRIu32, cpu);
    pt_trace_free(&t);
    /* Without a TSC rate, ticks are no time (a raw trace given neither --tsc-hz nor
     * --nom-freq): shown as not known, as where the clock never moved. */
    if (!rc && f->timed && !in->p.session.tsc_hz) {
        f->timed = false;
        for (size_t i = 0; i < in->code.num_names; i++)
            if (f->functions[i].self_insns)
                f->functions[i].time_unknown = true;
    }
    if (!rc) {
        struct coverage c = {.insns = f->insns};
        for (size_t i = 0; i < f->num_gaps; i++)
            coverage_gap(&c, &f->gaps[i]);
        rc = check_coverage(options->name ? options->name : "pt", in, cpu, &c, d);
    }
    return rc;
}

void pt_input_warn_timing(const char *name, const struct pt_input *in, const struct pt_flow *f,
                          bool cycles)
{
    if (!f->insns)
        return;
    const struct pt_timing *tm = &f->timing;
    uint32_t nom_freq = in->p.session.pt->nom_freq;
    if (!f->timed) {
        bool cyc_only = tm->cyc_packets && !tm->mtc_packets;
        const char *why =
            !in->p.session.tsc_hz
                ? "no TSC rate to turn ticks into time (give --tsc-hz or --nom-freq)"
            : !tm->tsc_packets && !tm->mtc_packets && !tm->cyc_packets
                ? "the trace has no timing packets (TSC, MTC, CYC)"
            : cyc_only && !nom_freq
                ? "libipt cannot turn CYC packets into time with pt.nom_freq 0 (unknown) and no "
                  "MTC packets to calibrate them"
            : cyc_only && !tm->cbr_packets
                ? "libipt cannot turn CYC packets into time without a CBR packet or MTC packets "
                  "to calibrate them"
                : "libipt's clock did not move while instructions ran";
        fprintf(stderr, "acart %s: warning: cpu %" PRIu32 ": times not known: %s\n", name, f->cpu,
                why);
    } else if (f->lost_cyc || f->lost_mtc) {
        fprintf(stderr,
                "acart %s: warning: cpu %" PRIu32 ": libipt could not use %" PRIu64
                " CYC and %" PRIu64 " MTC packets for time (lost_cyc, lost_mtc), at least: "
                "times next to them are coarser\n",
                name, f->cpu, f->lost_cyc, f->lost_mtc);
    }
    if (cycles && f->uncounted_cyc)
        fprintf(stderr,
                "acart %s: warning: cpu %" PRIu32 ": at least %" PRIu64
                " CYC packets came before any CBR packet after their PSB: their cycles are "
                "not counted\n",
                name, f->cpu, f->uncounted_cyc);
    if (!cycles || f->cycles_counted)
        return;
    bool unknown = false;
    for (size_t i = 0; i < f->code->num_names; i++)
        unknown |= f->functions[i].cycles_unknown;
    if (unknown)
        fprintf(stderr,
                "acart %s: warning: cpu %" PRIu32 ": core cycles not known (-): no CYC packets, "
                "and %s\n",
                name, f->cpu,
                !f->timed          ? "no time to estimate them from"
                : !nom_freq        ? "pt.nom_freq is 0 (unknown), so time gives no cycles"
                : !tm->cbr_packets ? "the trace has no CBR packet to give the core:bus ratio"
                                   : "no CBR packet gives the core:bus ratio before the first");
}

double pt_input_us(const struct pt_input *in, double ticks)
{
    return ticks * 1e6 / (double)in->p.session.tsc_hz;
}
