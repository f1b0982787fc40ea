#include "pt_input.h"

#include <inttypes.h>
#include <string.h>

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

int pt_input_flow(struct pt_input *in, uint32_t cpu, struct pt_flow *f, struct diag *d)
{
    struct pt_sink sink;
    if (pt_flow_init(f, &in->code, cpu, in->p.session.pt->nom_freq))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    pt_flow_sink(f, &sink);
    int rc = pt_input_decode(in, cpu, false, &sink, d);
    pt_flow_finish(f);
    return rc;
}

double pt_input_us(const struct pt_input *in, double ticks)
{
    return ticks * 1e6 / (double)in->p.session.tsc_hz;
}
