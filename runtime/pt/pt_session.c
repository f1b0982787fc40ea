/* Intel PT in a host session. See pt_session.h; the protocol is docs/sep-protocol.md 4.4,
 * what the host makes of it docs/pt.md.
 *
 * Full mode sends each CPU's trace as its regions fill (immediate transfer) or after the
 * stop (delayed: the rings fill, then what does not fit is counted lost), with a LOST
 * chunk where the target lost bytes. Snapshot mode sends nothing until the collection
 * stops: then each CPU's frozen ring, unrolled from its first PSB. */
#include "pt_session.h"

#include "acart.h"
#include "acart_opts.h"
#include "acart_platform.h"
#include "log.h"
#include "msr_policy.h"
#include "sampler.h"
#include "task_events.h"

#include "io.h"
#include "msr.h"
#include "msr_safe.h"
#include "pmu.h"

#include <string.h>

_Static_assert(ACA_MAX_CPUS <= ACART_MAX_PT_CPUS, "a PT status entry per CPU");
_Static_assert(ACART_PT_OS == PT_TRACE_OS && ACART_PT_USER == PT_TRACE_USER &&
                   ACART_PT_TSC == PT_TIMING_TSC && ACART_PT_MTC == PT_TIMING_MTC &&
                   ACART_PT_CYC == PT_TIMING_CYC && ACART_PT_PTWRITE == PT_PACKETS_PTW &&
                   ACART_PT_POWER == PT_PACKETS_POWER,
               "the wire's PT flags are the arch layer's");
_Static_assert(ACART_PT_MAX_RANGES == PT_MAX_RANGES && ACART_PT_RANGE_FILTER == PT_RANGE_FILTER &&
                   ACART_PT_RANGE_STOP == PT_RANGE_STOP,
               "the wire's ranges are the arch layer's");
_Static_assert(ACART_PT_MODE_FULL == PT_MODE_FULL && ACART_PT_MODE_SNAPSHOT == PT_MODE_SNAPSHOT &&
                   ACART_PT_OUT_TOPA == PT_OUT_TOPA && ACART_PT_OUT_TOPA_ONE == PT_OUT_TOPA_ONE &&
                   ACART_PT_OUT_SINGLE == PT_OUT_SINGLE,
               "the wire's modes and outputs are the arch layer's");

#if ACA_PT_POOL_BYTES
/* NOBITS (a .bss.* name): RAM, never image size. */
static uint8_t pool[ACA_PT_POOL_BYTES]
    __attribute__((section(".bss.acart_pt"), aligned(PT_MEMORY_ALIGN)));
#endif

/* What aca_start found; kept across sessions. */
static struct {
    int usable;
    const char *why; /* under 80 characters: acart_pt_info.why */
    struct pt_caps caps;
    uint8_t *memory;
    uint32_t memory_bytes;
    uint32_t num_cpus;
    uint32_t nom_freq;
} probe;

/* What one CPU has put on the PT channel. */
struct send_state {
    uint64_t sent;    /* bytes of its trace */
    uint32_t ring_at; /* full mode: where byte `sent` is in the ring */
    uint32_t losses_sent;
    uint32_t first, len; /* snapshot: the unrolled ring */
    int prepared, wrapped, ended;
};

/* The session's PT, zeroed when it ends. */
static struct {
    int configured;
    volatile int tracing; /* started and not yet stopped (frozen CPUs included) */
    int stopped;          /* the collection stopped: what is left goes out, then END */
    int frozen_everywhere;
    struct pt_config cfg;
    uint64_t ctl;
    struct pt_layout layout;
    struct pt_buffer bufs[ACA_MAX_CPUS];
    struct pt_cpu cpus[ACA_MAX_CPUS];
    struct send_state send[ACA_MAX_CPUS];
    uint32_t next_cpu; /* the drain starts here, so no CPU waits behind the others */
} run;

/* The freeze of a snapshot collection: claimed once (0 -> 1), recorded, published (2). */
static volatile uint32_t freeze_state;
static struct {
    uint32_t reason, code, cpu;
    uint64_t tsc;
} freeze;

static uint8_t stage[sizeof(struct acart_pt_chunk) + ACART_PT_CHUNK_MAX];

int pt_session_probe(const void *port_memory, uint32_t port_bytes, uint32_t num_cpus)
{
    struct pt_layout layout;
    uint64_t info;
    int err;

    memset(&probe, 0, sizeof(probe));
    err = pt_probe(&probe.caps);
    if (err) {
        probe.why = probe.caps.why;
        return err;
    }
    if (port_memory) {
        probe.memory = (uint8_t *)port_memory;
        probe.memory_bytes = port_bytes;
    } else {
#if ACA_PT_POOL_BYTES
        probe.memory = pool;
        probe.memory_bytes = sizeof(pool);
#endif
    }
    if (!probe.memory) {
        probe.why = "no trace memory (ACA_PT_POOL_BYTES is 0, no pt_memory from the port)";
        return PT_ERR_MEMORY;
    }
    err = pt_output_layout(&probe.caps, PT_MODE_SNAPSHOT, probe.memory, probe.memory_bytes,
                           num_cpus, &layout, run.bufs);
    if (err) {
        probe.why = "trace memory too small for the CPUs, not 64 KiB aligned, or too high";
        return err;
    }
    if (msr_read_safe(MSR_PLATFORM_INFO, &info) == 0)
        probe.nom_freq = (uint32_t)(info >> 8) & 0xff;
    probe.num_cpus = num_cpus;
    probe.usable = 1;
    return PT_OK;
}

const char *pt_session_why(void)
{
    return probe.usable ? "" : probe.why;
}

const struct pt_caps *pt_session_caps(void)
{
    return probe.usable ? &probe.caps : 0;
}

void pt_session_info(struct acart_pt_info *out)
{
    const struct pt_caps *c = &probe.caps;

    memset(out, 0, sizeof(*out));
    out->version = 1;
    out->present = (uint32_t)probe.usable;
    if (!probe.usable) {
        strncpy(out->why, probe.why ? probe.why : "", sizeof(out->why) - 1);
        return;
    }
    out->caps = (c->topa ? ACART_PT_CAP_TOPA : 0) | (c->topa_multi ? ACART_PT_CAP_TOPA_MULTI : 0) |
                (c->single_range ? ACART_PT_CAP_SINGLE_RANGE : 0) |
                (c->ip_filter ? ACART_PT_CAP_IP_FILTER : 0) | (c->mtc ? ACART_PT_CAP_MTC : 0) |
                (c->psb_cyc ? ACART_PT_CAP_PSB_CYC : 0) | (c->ptwrite ? ACART_PT_CAP_PTWRITE : 0) |
                (c->power_events ? ACART_PT_CAP_POWER : 0) |
                (c->cr3_filter ? ACART_PT_CAP_CR3_FILTER : 0) | (c->pmi ? ACART_PT_CAP_PMI : 0);
    out->num_ranges = c->num_ranges;
    out->mtc_periods = c->mtc_periods;
    out->cyc_thresholds = c->cyc_thresholds;
    out->psb_periods = c->psb_periods;
    out->cpuid_15_eax = c->cpuid15_eax;
    out->cpuid_15_ebx = c->cpuid15_ebx;
    out->cpuid_15_ecx = c->cpuid15_ecx;
    out->nom_freq = probe.nom_freq;
    out->memory_bytes = probe.memory_bytes;
}

/* A module the port reports (the image, or one loaded and still there), by its name or
 * the base name of its path: its range, end inclusive. */
static int find_module(const char *name, uint64_t *start, uint64_t *end)
{
    static struct aca_module_info listed[32];
    static struct module_event loaded[ACA_MAX_MODULE_EVENTS];
    int n = aca_port_module_list(listed, 32);

    if (n > 32)
        n = 32;
    for (int i = 0; i < n; i++) {
        const char *full = listed[i].name, *base;

        listed[i].name[sizeof(listed[i].name) - 1] = 0;
        base = strrchr(full, '/');
        if (listed[i].length && (!strcmp(full, name) || (base && !strcmp(base + 1, name)))) {
            *start = listed[i].start;
            *end = listed[i].start + listed[i].length - 1;
            return 1;
        }
    }
    n = task_events_modules(loaded, ACA_MAX_MODULE_EVENTS);
    for (int i = 0; i < n; i++) {
        const char *base = strrchr(loaded[i].name, '/');

        if (loaded[i].unload_tsc == 0 && loaded[i].length &&
            (!strcmp(loaded[i].name, name) || (base && !strcmp(base + 1, name)))) {
            *start = loaded[i].start;
            *end = loaded[i].start + loaded[i].length - 1;
            return 1;
        }
    }
    return 0;
}

static const char *const output_names[] = {"ToPA regions", "one-entry ToPA", "single range"};

int32_t pt_session_configure(const struct acart_pt_config *req, struct acart_pt_config_reply *rep)
{
    struct pt_config cfg;
    struct pt_layout layout;
    uint32_t msrs[PT_CONFIG_MAX_MSRS + 1];
    uint64_t ctl;
    int err;

    if (!probe.usable) {
        agent_log("acart: PT_CONFIG refused: no Intel PT: %s", probe.why);
        return ACART_STATUS_NO_PT;
    }
    if (run.tracing)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    if (req->version != 1 || req->mode > ACART_PT_MODE_SNAPSHOT ||
        req->num_filters > ACART_PT_MAX_RANGES) {
        agent_log("acart: PT_CONFIG refused: version %u, mode %u, %u filters",
                  (unsigned)req->version, (unsigned)req->mode, (unsigned)req->num_filters);
        return SEP_STATUS_BAD_PARAMETER;
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.mode = req->mode;
    cfg.flags = req->flags;
    cfg.mtc_freq = req->mtc_freq;
    cfg.cyc_thresh = req->cyc_thresh;
    cfg.psb_freq = req->psb_freq;
    cfg.num_ranges = req->num_filters;
    for (uint32_t i = 0; i < req->num_filters; i++) {
        const struct acart_pt_filter *f = &req->filters[i];
        struct pt_range *r = &cfg.ranges[i];
        char name[sizeof(f->module) + 1];

        memcpy(name, f->module, sizeof(f->module));
        name[sizeof(f->module)] = 0;
        r->cfg = f->cfg;
        r->start = f->start;
        r->end = f->end;
        if (name[0] && !find_module(name, &r->start, &r->end)) {
            agent_log("acart: PT_CONFIG refused: no module named %s", name);
            return SEP_STATUS_BAD_PARAMETER;
        }
    }
    err = pt_output_layout(&probe.caps, cfg.mode, probe.memory, probe.memory_bytes, probe.num_cpus,
                           &layout, run.bufs);
    if (!err)
        err = pt_config_ctl(&probe.caps, &cfg, layout.output, &ctl);
    if (err) {
        agent_log("acart: PT_CONFIG refused: %s", pt_strerror(err));
        return err == PT_ERR_MEMORY ? SEP_STATUS_NO_MEMORY : SEP_STATUS_BAD_PARAMETER;
    }
    /* Every MSR the trace code will write, through the allowlist, before any is. */
    uint32_t n = pt_config_msrs(&cfg, msrs);
    if (probe.caps.pmi)
        msrs[n++] = MSR_IA32_PERF_GLOBAL_OVF_CTRL; /* the ToPA PMI's acknowledgement */
    for (uint32_t i = 0; i < n; i++) {
        int perr = msr_policy_check_own(msrs[i]);
        if (perr) {
            agent_log("acart: PT_CONFIG refused: MSR 0x%x: %s", (unsigned)msrs[i],
                      msr_policy_strerror(perr));
            return SEP_STATUS_MSR_ACCESS_ERROR;
        }
    }
    run.cfg = cfg;
    run.ctl = ctl;
    run.layout = layout;
    run.configured = 1;
    sampler_set_trace_pmi(pt_session_pmi);

    memset(rep, 0, sizeof(*rep));
    rep->rtit_ctl = ctl | RTIT_CTL_TRACE_EN;
    rep->output = layout.output;
    rep->bytes_per_cpu = run.bufs[0].bytes;
    rep->region_bytes = run.bufs[0].region_bytes;
    rep->regions = run.bufs[0].regions;
    for (uint32_t i = 0; i < cfg.num_ranges; i++) {
        rep->filters[i].start = cfg.ranges[i].start;
        rep->filters[i].end = cfg.ranges[i].end;
    }
    agent_log("acart: PT configured: %s mode, %s, %u KiB per cpu (%u regions of %u KiB), "
              "IA32_RTIT_CTL 0x%llx, %u address ranges",
              cfg.mode == PT_MODE_FULL ? "full" : "snapshot", output_names[layout.output],
              (unsigned)(rep->bytes_per_cpu / 1024), (unsigned)rep->regions,
              (unsigned)(rep->region_bytes / 1024), (unsigned long long)rep->rtit_ctl,
              (unsigned)cfg.num_ranges);
    return SEP_STATUS_SUCCESS;
}

int pt_session_configured(void)
{
    return run.configured;
}

/* ---- on every CPU (aca_plat_call_on_all_cpus), and the freezes ---- */

static struct pt_cpu *this_cpu(void)
{
    uint32_t cpu = aca_plat_cpu_index();

    return cpu < probe.num_cpus ? &run.cpus[cpu] : 0;
}

static void start_on_cpu(void *arg)
{
    struct pt_cpu *c = this_cpu();

    (void)arg;
    if (c) {
        pt_cpu_program(c, &run.cfg);
        pt_cpu_start(c);
    }
}

static void pause_on_cpu(void *arg)
{
    struct pt_cpu *c = this_cpu();

    (void)arg;
    if (c)
        pt_cpu_pause(c);
}

static void resume_on_cpu(void *arg)
{
    struct pt_cpu *c = this_cpu();

    (void)arg;
    if (c)
        pt_cpu_resume(c);
}

static void stop_on_cpu(void *arg)
{
    struct pt_cpu *c = this_cpu();

    (void)arg;
    if (c)
        pt_cpu_stop(c, rdtsc());
}

static int claim_freeze(uint32_t reason, uint32_t code)
{
    uint32_t expected = 0;

    if (!__atomic_compare_exchange_n(&freeze_state, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return 0;
    freeze.reason = reason;
    freeze.code = code;
    freeze.cpu = aca_plat_cpu_index();
    freeze.tsc = rdtsc();
    __atomic_store_n(&freeze_state, 2, __ATOMIC_RELEASE);
    return 1;
}

static void freeze_here(uint32_t reason, uint32_t code)
{
    struct pt_cpu *c;

    if (!run.tracing || run.cfg.mode != PT_MODE_SNAPSHOT)
        return;
    claim_freeze(reason, code);
    c = this_cpu();
    if (c)
        pt_cpu_stop(c, rdtsc());
}

void aca_trace_freeze(uint32_t code)
{
    freeze_here(ACART_PT_FREEZE_API, code);
}

void aca_trace_freeze_exception(uint32_t vector)
{
    freeze_here(ACART_PT_FREEZE_EXCEPTION, vector);
}

int pt_session_pmi(void)
{
    struct pt_cpu *c = this_cpu();

    return c && run.configured ? pt_cpu_pmi(c) : 0;
}

/* ---- with the collection (net context) ---- */

void pt_session_start(void)
{
    if (!run.configured || run.tracing)
        return;
    for (uint32_t i = 0; i < probe.num_cpus; i++) {
        pt_cpu_init(&run.cpus[i], &probe.caps, &run.bufs[i], &run.layout.discard, &run.cfg,
                    run.ctl);
        memset(&run.send[i], 0, sizeof(run.send[i]));
    }
    if (run.cfg.mode == PT_MODE_FULL)
        pt_output_write_discard(&run.layout);
    __atomic_store_n(&freeze_state, 0, __ATOMIC_RELEASE);
    run.stopped = run.frozen_everywhere = 0;
    run.tracing = 1;
    aca_plat_call_on_all_cpus(start_on_cpu, 0);
}

void pt_session_pause(void)
{
    if (run.tracing)
        aca_plat_call_on_all_cpus(pause_on_cpu, 0);
}

void pt_session_resume(void)
{
    if (run.tracing)
        aca_plat_call_on_all_cpus(resume_on_cpu, 0);
}

static const char *const freeze_names[] = {"the host", "aca_trace_freeze", "exception"};

void pt_session_poll(void)
{
    if (!run.tracing || run.frozen_everywhere ||
        __atomic_load_n(&freeze_state, __ATOMIC_ACQUIRE) != 2)
        return;
    run.frozen_everywhere = 1;
    aca_plat_call_on_all_cpus(stop_on_cpu, 0);
    agent_log("acart: trace frozen by %s (%u) on cpu %u; the host fetches it when the "
              "collection stops",
              freeze_names[freeze.reason], (unsigned)freeze.code, (unsigned)freeze.cpu);
}

int32_t pt_session_freeze_now(void)
{
    if (!run.configured || run.cfg.mode != PT_MODE_SNAPSHOT || !run.tracing)
        return SEP_STATUS_INVALID_STATE_TRANS;
    claim_freeze(ACART_PT_FREEZE_HOST, 0);
    pt_session_poll();
    return SEP_STATUS_SUCCESS;
}

void pt_session_stop(void)
{
    if (!run.tracing)
        return;
    if (run.cfg.mode == PT_MODE_SNAPSHOT)
        claim_freeze(ACART_PT_FREEZE_HOST, 0); /* the stop freezes what nothing froze */
    aca_plat_call_on_all_cpus(stop_on_cpu, 0);
    run.tracing = 0;
    run.stopped = 1;
    uint64_t lost = 0;
    uint32_t losses = 0, unknown = 0, errors = 0;
    for (uint32_t i = 0; i < probe.num_cpus; i++) {
        lost += run.cpus[i].lost_bytes;
        losses += run.cpus[i].lost_events;
        unknown += run.cpus[i].lost_unknown;
        errors += run.cpus[i].errors;
    }
    /* "At least": a loss's count leaves out what ran between the STOP and the PMI, and
     * one of unknown size counts 0. */
    agent_log("acart: trace stopped: at least %llu bytes lost to full rings in %u losses "
              "(%u of unknown size), %u operational errors",
              (unsigned long long)lost, (unsigned)losses, (unsigned)unknown, (unsigned)errors);
}

void pt_session_reset(void)
{
    if (run.tracing)
        aca_plat_call_on_all_cpus(stop_on_cpu, 0);
    if (run.configured)
        sampler_set_trace_pmi(0);
    memset(&run, 0, sizeof(run));
    __atomic_store_n(&freeze_state, 0, __ATOMIC_RELEASE);
}

/* ---- the PT channel ---- */

/* One chunk and n bytes of the ring from ring offset `at`, queued whole or not at all. */
static int send_chunk(struct channel *ch, const struct acart_pt_chunk *h, const struct pt_buffer *b,
                      uint32_t at, uint32_t *queued)
{
    uint32_t n = h->length, first = n;

    memcpy(stage, h, sizeof(*h));
    if (n) {
        if (at + n > b->bytes)
            first = b->bytes - at;
        memcpy(stage + sizeof(*h), b->data + at, first);
        memcpy(stage + sizeof(*h) + first, b->data, n - first);
    }
    if (channel_send(ch, stage, (uint32_t)sizeof(*h) + n) != ACA_OK)
        return 0;
    *queued += (uint32_t)sizeof(*h) + n;
    return 1;
}

/* Payload bytes the channel takes now in one chunk, at most `want`; 0 when not even a
 * header fits (or nothing is wanted). */
static uint32_t chunk_room(const struct channel *ch, uint64_t want)
{
    uint32_t room = channel_send_room(ch);

    if (room <= sizeof(struct acart_pt_chunk))
        return 0;
    room -= (uint32_t)sizeof(struct acart_pt_chunk);
    if (room > ACART_PT_CHUNK_MAX)
        room = ACART_PT_CHUNK_MAX;
    return want < room ? (uint32_t)want : room;
}

static int send_marker(struct channel *ch, uint16_t type, uint32_t cpu, uint64_t offset,
                       uint64_t value, uint32_t *queued)
{
    struct acart_pt_chunk h = {type, (uint16_t)cpu, 0, offset, value};

    return channel_send_room(ch) >= sizeof(h) && send_chunk(ch, &h, 0, 0, queued);
}

/* Full mode: the bytes and losses ready; returns 1 when nothing more can come. */
static int drain_full(struct channel *ch, uint32_t i, uint32_t *queued)
{
    struct pt_cpu *c = &run.cpus[i];
    struct send_state *s = &run.send[i];

    for (;;) {
        uint64_t limit = pt_cpu_ready_bytes(c);
        int have_loss = s->losses_sent < pt_cpu_num_losses(c);
        struct pt_loss loss = {0, 0};

        if (have_loss) {
            loss = pt_cpu_loss(c, s->losses_sent);
            if (loss.offset < limit)
                limit = loss.offset;
        }
        if (s->sent < limit) {
            uint32_t n = chunk_room(ch, limit - s->sent);
            struct acart_pt_chunk h = {ACART_PT_CHUNK_DATA, (uint16_t)i, n, s->sent, 0};

            if (!n || !send_chunk(ch, &h, &c->buf, s->ring_at, queued))
                return 0;
            s->sent += n;
            s->ring_at = (s->ring_at + n) % c->buf.bytes;
        } else if (have_loss) {
            if (!send_marker(ch, ACART_PT_CHUNK_LOST, i, s->sent, loss.bytes, queued))
                return 0;
            s->losses_sent++;
        } else {
            break;
        }
        pt_cpu_sent(c, s->sent, s->losses_sent);
    }
    return run.stopped && __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == PT_CPU_DONE &&
           s->sent == pt_cpu_ready_bytes(c) && s->losses_sent == pt_cpu_num_losses(c);
}

/* Snapshot mode, once stopped: the unrolled ring. */
static int drain_snapshot(struct channel *ch, uint32_t i, uint32_t *queued)
{
    struct pt_cpu *c = &run.cpus[i];
    struct send_state *s = &run.send[i];

    if (!run.stopped)
        return 0;
    if (!s->prepared) {
        s->len = pt_cpu_snapshot(c, &s->first, &s->wrapped);
        s->prepared = 1;
    }
    while (s->sent < s->len) {
        uint32_t n = chunk_room(ch, s->len - s->sent);
        struct acart_pt_chunk h = {ACART_PT_CHUNK_DATA, (uint16_t)i, n, s->sent, 0};

        if (!n ||
            !send_chunk(ch, &h, &c->buf, (s->first + (uint32_t)s->sent) % c->buf.bytes, queued))
            return 0;
        s->sent += n;
    }
    return 1;
}

int pt_session_drain(struct channel *ch, uint32_t *queued)
{
    int all = 1;

    if (!run.configured)
        return 1;
    for (uint32_t k = 0; k < probe.num_cpus; k++) {
        uint32_t i = (run.next_cpu + k) % probe.num_cpus;
        struct send_state *s = &run.send[i];

        if (s->ended)
            continue;
        int done = run.cfg.mode == PT_MODE_FULL ? drain_full(ch, i, queued)
                                                : drain_snapshot(ch, i, queued);
        if (done && send_marker(ch, ACART_PT_CHUNK_END, i, s->sent, s->wrapped ? 1 : 0, queued))
            s->ended = 1;
        else
            all = 0;
    }
    run.next_cpu = (run.next_cpu + 1) % probe.num_cpus;
    channel_flush(ch);
    return all && run.stopped;
}

int pt_session_blocked(const struct channel *ch)
{
    if (!run.configured || channel_send_room(ch) > sizeof(struct acart_pt_chunk))
        return 0;
    for (uint32_t i = 0; i < probe.num_cpus; i++) {
        const struct send_state *s = &run.send[i];

        if (s->ended)
            continue;
        if (run.cfg.mode == PT_MODE_FULL ? s->sent < pt_cpu_ready_bytes(&run.cpus[i]) : run.stopped)
            return 1;
    }
    return 0;
}

uint32_t pt_session_status(struct acart_pt_status *out)
{
    memset(out, 0, sizeof(*out));
    out->version = 1;
    out->num_cpus = probe.num_cpus;
    out->mode = run.cfg.mode;
    out->tracing = run.tracing && !run.frozen_everywhere;
    if (__atomic_load_n(&freeze_state, __ATOMIC_ACQUIRE) == 2) {
        out->frozen = 1;
        out->freeze_reason = freeze.reason;
        out->freeze_code = freeze.code;
        out->freeze_cpu = freeze.cpu;
        out->freeze_tsc = freeze.tsc;
    }
    for (uint32_t i = 0; i < probe.num_cpus; i++) {
        const struct pt_cpu *c = &run.cpus[i];
        struct acart_pt_cpu_status *e = &out->cpu[i];

        e->bytes = run.send[i].sent;
        e->lost_bytes = c->lost_bytes;
        e->lost_events = c->lost_events;
        e->lost_unknown = c->lost_unknown;
        e->unrecorded = c->unrecorded;
        e->wrapped = (uint32_t)run.send[i].wrapped;
        e->errors = c->errors;
        e->pmis = c->pmis;
    }
    return (uint32_t)(offsetof(struct acart_pt_status, cpu) + probe.num_cpus * sizeof(out->cpu[0]));
}
