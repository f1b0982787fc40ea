#include "pt_input.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "collection.h"
#include "profile_open.h"
#include "pt_cycles.h"

int pt_input_open(struct pt_input *in, const char *dir, const char *const *elfs, size_t n,
                  struct diag *d)
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
    if ((rc = pt_code_open(&in->code, elfs, n, &in->p, d))) {
        profile_close(&in->p);
        return rc;
    }
    pt_decode_config(&in->p.session, &in->config);
    return 0;
}

void pt_input_close(struct pt_input *in)
{
    pt_code_close(&in->code);
    profile_close(&in->p);
}

int pt_input_decode(struct pt_input *in, uint32_t cpu, bool blocks, const struct pt_sink *sink,
                    struct diag *d)
{
    struct pt_cpu_trace t;
    int rc = pt_trace_load(in->dir, &in->p.session, cpu, &t, d);
    if (rc)
        return rc;
    rc = pt_decode(&t, &in->config, in->code.image, blocks, sink, d);
    if (rc == DIAG_NOMEM)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory decoding CPU %" PRIu32, cpu);
    pt_trace_free(&t);
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
    int rc = pt_trace_load(in->dir, &in->p.session, cpu, &t, d);
    if (rc)
        return rc;
    rc = pt_flow_decode(f, &t, &in->config, in->code.image, options->count_cycles, d);
    if (rc == DIAG_NOMEM)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory decoding CPU %" PRIu32, cpu);
    pt_trace_free(&t);
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
            !tm->tsc_packets && !tm->mtc_packets && !tm->cyc_packets
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
