/* A tb5 file as a profile. Files written by `acart import` carry the session JSON in their
 * user-defined global section; for other tb5 files a session is made from the hardware,
 * software and event sections. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samprec_shared.h"
#include "tb5_read.h"
#include "tb5_record.h"
#include "tb5_strings.h"
#include "tb5_tools.h"
#include "tbrw.h"

#define SCAN_BATCH 4096

struct tb5_input {
    TBRW_PTR h;
    TBRW_U32 record_size;
    TBRW_U32 tsc_offset; /* 0: the records have no TSC */
    TBRW_U64 num_records;
};

static int tbrw_fail(struct diag *d, const char *path, TBRW_U32 code, const char *what)
{
    return diag_fail(d, DIAG_INPUT, "%s: %s: %s", path, what, tb5_strerror(code));
}

static int read_stored_session(TBRW_PTR h, struct profile *p, bool *found, struct diag *d)
{
    TBRW_U32 size = 0;
    TBRW_U32 rc = TBRW_get_user_defined_global(h, 0, NULL, &size);
    *found = false;
    if (rc != TBRW_BUFFER_TOO_SMALL)
        return 0; /* no user-defined section, or someone else's */
    char *text = malloc(size + 1u);
    if (!text)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    rc = TBRW_get_user_defined_global(h, size, text, NULL);
    text[size] = '\0';
    if (rc || strncmp(text, "{", 1) != 0 || !strstr(text, "\"" SESSION_FORMAT "\"")) {
        free(text);
        return 0;
    }
    char name[600];
    snprintf(name, sizeof name, "%s (session in the user-defined section)", p->source);
    int err = session_parse(text, name, &p->session, d);
    free(text);
    *found = !err;
    return err;
}

static TBRW_U32 collect_event(TBRW_EVENT *ev, TBRW_U32 size, TBRW_U32 n, void *ctx)
{
    (void)size;
    struct profile *p = ((void **)ctx)[0];
    TBRW_PTR h = ((void **)ctx)[1];
    struct session *s = &p->session;
    for (TBRW_U32 i = 0; i < n; i++) {
        struct session_event *grown = realloc(s->events, (s->num_events + 1) * sizeof *grown);
        if (!grown)
            return TBRW_NO_MEMORY;
        s->events = grown;
        struct session_event *e = &s->events[s->num_events++];
        e->index = ev[i].event_id;
        e->sample_after = ev[i].event_sav;
        e->name = tb5_string(h, &ev[i].event_name);
        if (!e->name && !(e->name = strdup("?")))
            return TBRW_NO_MEMORY;
    }
    return 1;
}

/* A session from the sections every tb5 file has (chapter 6.2). */
static int make_session(TBRW_PTR h, struct profile *p, struct diag *d)
{
    struct session *s = &p->session;
    TBRW_U32 size = 0, rc;
    TBRW_HOST host;
    if (TBRW_get_host(h, sizeof host, &host, NULL) == TBRW_SUCCESS)
        s->hostname = tb5_string(h, &host.host_name);
    if (!s->hostname && !(s->hostname = strdup("unknown")))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if ((rc = TBRW_get_system(h, 0, NULL, &size)) != TBRW_BUFFER_TOO_SMALL)
        return tbrw_fail(d, p->source, rc, "hardware section");
    TBRW_SYSTEM *sys = malloc(size);
    if (!sys)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if ((rc = TBRW_get_system(h, size, sys, NULL))) {
        free(sys);
        return tbrw_fail(d, p->source, rc, "hardware section");
    }
    for (TBRW_U32 n = 0; n < sys->system_num_nodes; n++) {
        const TBRW_NODE *node = &sys->node_array[n];
        s->num_cpus += node->node_num_available;
        for (TBRW_U32 c = 0; c < node->node_num_available && !s->tsc_hz; c++)
            s->tsc_hz = (uint64_t)node->cpu_array[c].cpu_speed_mhz * 1000000u;
    }
    free(sys);
    if (s->num_cpus == 0 || s->num_cpus > SESSION_MAX_CPUS)
        return diag_fail(d, DIAG_INPUT, "%s: hardware section: %" PRIu32 " CPUs", p->source,
                         s->num_cpus);
    if (!s->tsc_hz)
        s->tsc_hz = 1000000000u; /* unknown: report times as if 1 GHz */
    s->samples_per_cpu = calloc(s->num_cpus, sizeof *s->samples_per_cpu);
    s->dropped_per_cpu = calloc(s->num_cpus, sizeof *s->dropped_per_cpu);
    if (!s->samples_per_cpu || !s->dropped_per_cpu)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    void *ctx[2] = {p, h};
    if ((rc = TBRW_enumerate_events(h, 0, collect_event, ctx, 0)))
        return tbrw_fail(d, p->source, rc, "event description section");
    for (size_t i = 0; i < s->num_events; i++)
        if (s->events[i].index != i)
            return diag_fail(d, DIAG_INPUT, "%s: event %zu has event id %" PRIu32, p->source, i,
                             s->events[i].index);
    if (s->num_events == 0)
        return diag_fail(d, DIAG_INPUT, "%s: stream 0 describes no events", p->source);
    return 0;
}

struct module_ctx {
    struct profile *p;
    TBRW_PTR h;
    struct diag *d;
    int err;
};

/* Module lifetimes as binding reads them (docs/tb5-format.md, Binding): a load at
 * module_event_when until module_unload_tsc (0 or all ones: never), or until a separate
 * unload record. Modules timed in sample numbers rather than TSCs are taken as loaded
 * throughout: a struct sample has no sample number to compare with. */
static TBRW_U32 collect_module(TBRW_MODULE *m, TBRW_U32 size, TBRW_U32 n, void *arg)
{
    (void)size;
    struct module_ctx *mc = arg;
    for (TBRW_U32 i = 0; i < n; i++) {
        bool timed = (m[i].module_flags & TBRW_MODULE_TSC_USED) != 0;
        if ((m[i].module_flags & TBRW_MODULE_UNLOADED) &&
            !(m[i].module_flags & TBRW_MODULE_LOADED)) {
            if (timed)
                profile_unload_module(mc->p, m[i].module_associated_pid, m[i].module_load_address,
                                      NULL, m[i].module_event_when);
            continue;
        }
        char *path = tb5_string(mc->h, &m[i].module_path);
        TBRW_U64 unload = m[i].module_unload_tsc;
        struct module_info info = {
            .path = path ? path : "[unnamed]",
            .load_address = m[i].module_load_address,
            .length = m[i].module_length,
            .tsc = timed ? m[i].module_event_when : 0,
            .unload_tsc = timed && unload != (TBRW_U64)-1 ? unload : 0,
            .pid = m[i].module_associated_pid,
            .selector = (uint16_t)m[i].module_code_selector,
            .mode = (uint8_t)m[i].module_segment_type,
            .exe = (m[i].module_flags & TBRW_MODULE_IS_EXE) != 0,
            .global = (m[i].module_flags & TBRW_MODULE_GLOBAL_LOAD) != 0,
        };
        mc->err = profile_add_module(mc->p, &info, mc->d);
        free(path);
        if (mc->err)
            return 0;
    }
    return 1;
}

static TBRW_U32 find_tsc(TBRW_SAMPREC_DESC_ENTRY *e, TBRW_U32 size, TBRW_U32 n, void *arg)
{
    (void)size;
    struct tb5_input *in = arg;
    for (TBRW_U32 i = 0; i < n; i++)
        if (e[i].desc_type == ST_TIME_STAMP && e[i].desc_data_size == sizeof(TBRW_U64))
            in->tsc_offset = e[i].desc_offset;
    return 1;
}

static int read_shape(struct tb5_input *in, struct profile *p, struct diag *d)
{
    TBRW_U32 rc = tb5_data_shape(in->h, 0, &in->num_records, &in->record_size);
    if (rc)
        return tbrw_fail(d, p->source, rc, "stream 0");
    if (in->record_size < sizeof(TBRW_SampleRecordPC))
        return diag_fail(d, DIAG_INPUT, "%s: stream 0 records are %" PRIu32 " bytes, too small",
                         p->source, in->record_size);
    if ((rc = TBRW_enumerate_data_descriptor_entries(in->h, 0, find_tsc, in)))
        return tbrw_fail(d, p->source, rc, "data description section");
    if (in->tsc_offset + sizeof(TBRW_U64) > in->record_size)
        in->tsc_offset = 0;
    p->num_records = in->num_records;
    p->input_bytes = in->num_records * in->record_size;
    return 0;
}

int tb5_read_open(const char *path, struct profile *p, struct diag *d)
{
    struct tb5_input *in = calloc(1, sizeof *in);
    if (!in)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    p->tb5 = in;
    TBRW_U32 rc = tb5_open_path(&in->h, path, TBRW_FILE_READ);
    if (rc) {
        in->h = NULL;
        return tbrw_fail(d, path, rc, "cannot open as a tb5 file");
    }
    bool stored;
    int err = read_stored_session(in->h, p, &stored, d);
    if (!err && !stored)
        err = make_session(in->h, p, d);
    if (err)
        return err;
    p->reported_counts = stored;
    p->records_per_cpu = calloc(p->session.num_cpus, sizeof *p->records_per_cpu);
    if (!p->records_per_cpu)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct module_ctx mc = {p, in->h, d, 0};
    rc = TBRW_enumerate_modules(in->h, collect_module, &mc, 0);
    if (mc.err)
        return mc.err;
    if (rc)
        return tbrw_fail(d, path, rc, "module section");
    if ((err = read_shape(in, p, d)))
        return err;
    return profile_finish_modules(p, in->tsc_offset != 0, d);
}

struct scan_ctx {
    struct profile *p;
    struct tb5_input *in;
    profile_sample_fn *fn;
    void *ctx;
    struct sample batch[SCAN_BATCH];
    size_t n;
    uint64_t index;
    int rc;
    struct diag *d;
};

static TBRW_U32 scan_records(void *data, TBRW_U32 size, TBRW_U32 n, void *arg)
{
    (void)size;
    struct scan_ctx *sc = arg;
    const struct session *s = &sc->p->session;
    const unsigned char *rec = data;
    for (TBRW_U32 i = 0; i < n; i++, rec += sc->in->record_size, sc->index++) {
        TBRW_SampleRecordPC r;
        uint64_t tsc = 0;
        memcpy(&r, rec, sizeof r);
        if (sc->in->tsc_offset)
            memcpy(&tsc, rec + sc->in->tsc_offset, sizeof tsc);
        struct sample *smp = &sc->batch[sc->n];
        tb5_record_to_sample(&r, tsc, smp);
        if (smp->event >= s->num_events || smp->cpu >= s->num_cpus) {
            sc->rc = diag_fail(sc->d, DIAG_INPUT,
                               "%s: stream 0 record %" PRIu64 ": sample of event %u on CPU %u, "
                               "but the file describes %zu events and %" PRIu32 " CPUs",
                               sc->p->source, sc->index, smp->event, smp->cpu, s->num_events,
                               s->num_cpus);
            return 0;
        }
        sc->p->records_per_cpu[smp->cpu]++;
        if (++sc->n == SCAN_BATCH) {
            sc->rc = sc->fn(sc->batch, sc->n, sc->ctx);
            sc->n = 0;
            if (sc->rc)
                return 0;
        }
    }
    if (sc->p->progress)
        sc->p->progress(sc->index * sc->in->record_size, sc->p->progress_ctx);
    return 1;
}

int tb5_read_scan(struct profile *p, profile_sample_fn *fn, void *ctx, struct diag *d)
{
    struct tb5_input *in = p->tb5;
    /* Field by field: zeroing the whole batch would touch every page of it, which for a
     * small file costs more than the scan. */
    struct scan_ctx *sc = malloc(sizeof *sc);
    if (!sc)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    sc->p = p, sc->in = in, sc->fn = fn, sc->ctx = ctx, sc->d = d;
    sc->n = 0, sc->index = 0, sc->rc = 0;
    memset(p->records_per_cpu, 0, p->session.num_cpus * sizeof *p->records_per_cpu);
    int rc = 0;
    if (in->num_records) {
        TBRW_U32 t = TBRW_enumerate_data(in->h, 0, scan_records, sc, 0);
        if (sc->rc)
            rc = sc->rc;
        else if (t)
            rc = tbrw_fail(d, p->source, t, "data section of stream 0");
    }
    if (!rc && sc->n)
        rc = fn(sc->batch, sc->n, ctx);
    if (!rc)
        p->records_known = true;
    free(sc);
    return rc;
}

void tb5_read_close(struct profile *p)
{
    struct tb5_input *in = p->tb5;
    if (in && in->h)
        TBRW_close(in->h);
    free(in);
    p->tb5 = NULL;
}
