/* Listening, the session's connections and their handshakes, and ending a session.
 *
 * One host at a time. The first connection of a session is its control channel; after
 * the handshake the host opens num_cpus + 2 data connections, which get their channel
 * type in accept order, as the reference target assigns them: CPU 0..n-1, then uncore,
 * then module. Any connection beyond that is a second host: it gets a target status
 * with a busy status, a note saying who holds the board, and is closed.
 *
 * Whatever ends a session (TERMINATE, a closed or reset connection, a protocol error, a
 * dead peer, a handshake or drain that cannot finish) goes through session_end
 * (session.c). Once lwIP has let go of the last of them the agent logs what
 * lwIP holds ("board ready"), so a test can compare it with the count at boot. */
#include "collection.h"
#include "control.h"
#include "session.h"
#include "target.h"
#include "transfer.h"
#include "log.h"
#include "msr_policy.h"
#include "platform_check.h"
#include "pmu_owner.h"
#include "pt_session.h"
#include "uncore.h"

#if ACA_WITH_IPROBE
#include "ipr.h"
#endif

#include "code_mode.h"
#include "cpuid.h"
#include "acart_platform.h"
#include "io.h"

#include <string.h>

/* A refused host gets this long to send its first message before it is dropped. */
#define REFUSED_TIMEOUT_MS 2000

struct refused {
    struct channel *ch;
    uint32_t remote_ip;
    uint64_t deadline_ms;
};
static struct refused refused[4];

/* NOBITS (a .bss.* name): the pool costs RAM, never image size. Split among the CPUs
 * online at aca_start(). */
static uint8_t builtin_rings[ACA_RING_POOL_BYTES]
    __attribute__((section(".bss.acart_rings"), aligned(64)));

#if !ACA_WITH_PT
/* Built without Intel PT there is never a snapshot collection to freeze: the port's calls
 * (acart.h) do what they do on a CPU without PT, nothing. */
void aca_trace_freeze(uint32_t code)
{
    (void)code;
}

void aca_trace_freeze_exception(uint32_t vector)
{
    (void)vector;
}
#endif

void aca_config_init(struct aca_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->size = sizeof(*cfg);
    cfg->port = ACA_DEFAULT_PORT;
    cfg->transfer = ACA_TRANSFER_DELAYED;
    cfg->interrupt_mode = ACA_INTERRUPT_NMI;
}

static void on_data_channel_event(struct channel *ch, void *arg, enum channel_event ev);
static void on_control_event(struct channel *ch, void *arg, enum channel_event ev);

static void fill_target_status(struct sep_target_status *st, int32_t status)
{
    struct cpu_signature sig;
    cpu_read_signature(&sig);
    memset(st, 0, sizeof(*st));
    st->msg_size = sizeof(*st);
    st->proto_version = SEP_PROTOCOL_VERSION;
    st->status = status;
    st->os_info_offset = offsetof(struct sep_target_status, os_info);
    st->os_info_size = sizeof(st->os_info);
    st->collect_switch_offset = offsetof(struct sep_target_status, collect_switch);
    st->collect_switch_size = sizeof(st->collect_switch);
    st->hardware_info_offset = offsetof(struct sep_target_status, hardware_info);
    st->hardware_info_size = sizeof(st->hardware_info);
    strcpy(st->os_info.sysname, "acart");
    strcpy(st->os_info.release, "0.1");
    /* What a host (or a person reading VTune's target information) first sees of the
     * board: its sampling and whether it has Intel PT. */
    strcpy(st->os_info.version,
           target.pmu_usable
               ? (target.pt_usable ? "bare-metal " CODE_MODE_NAME ", PMU sampling, Intel PT"
                                   : "bare-metal " CODE_MODE_NAME ", PMU sampling, no Intel PT")
               : (target.pt_usable ? "bare-metal " CODE_MODE_NAME ", time-based sampling, Intel PT"
                                   : "bare-metal " CODE_MODE_NAME
                                     ", time-based sampling, no Intel PT"));
    st->collect_switch.bits = SEP_AGENT_NATIVE << SEP_SWITCH_AGENT_MODE_SHIFT;
    if (target.cfg.transfer == ACA_TRANSFER_DELAYED)
        st->collect_switch.bits |= SEP_SWITCH_DATA_TRANSFER_MODE;
    if (uncore_model_name())
        st->collect_switch.bits |= SEP_SWITCH_UNCORE_SUPPORTED;
    st->hardware_info.num_cpus = target.num_cpus;
    st->hardware_info.family = (sig.signature >> 8) & 0xf;
    st->hardware_info.model = sig.model;
    st->hardware_info.stepping = sig.stepping;
    st->hardware_info.tsc_freq = aca_plat_tsc_hz();
}

static void format_ip(char *out, uint32_t ip)
{
    /* network byte order: the first octet is the lowest-addressed byte */
    const uint8_t *b = (const uint8_t *)&ip;
    log_format(out, 16, "%u.%u.%u.%u", (unsigned)b[0], (unsigned)b[1], (unsigned)b[2],
               (unsigned)b[3]);
}

static uint16_t holder_state(void)
{
    if (!session.handshake_done)
        return ACART_BUSY_HANDSHAKE;
    switch (collection.state) {
    case COLLECTION_RUNNING:
    case COLLECTION_PAUSED:
        return ACART_BUSY_COLLECTING;
    case COLLECTION_STOPPED:
        return ACART_BUSY_TRANSFERRING;
    default:
        return ACART_BUSY_IDLE;
    }
}

static const char *const holder_state_names[] = {"opening its data connections", "connected",
                                                 "collecting", "transferring its records"};

static void fill_busy_note(struct acart_busy_note *n)
{
    uint64_t now = target_now_ms();
    memset(n, 0, sizeof(*n));
    memcpy(n->magic, ACART_BUSY_NOTE_MAGIC, sizeof(ACART_BUSY_NOTE_MAGIC));
    n->holder_ip = session.remote_ip;
    n->holder_port = session.remote_port;
    n->holder_state = holder_state();
    n->since_boot_ms = session.session_start_ms;
    n->held_ms = now - session.session_start_ms;
}

static void set_keepalive(struct channel *ch)
{
    channel_set_keepalive(ch, target.keepalive_idle_ms, target.keepalive_interval_ms,
                          target.keepalive_count);
}

/* The connection becomes the control connection of a new session. */
static void open_session(struct channel *ch, uint32_t remote_ip)
{
    session.control = ch;
    session.control_handshaken = 0;
    session.session_start_ms = target_now_ms();
    session.remote_ip = remote_ip;
    session.remote_port = channel_remote_port(ch);
    channel_set_callback(ch, on_control_event, 0);
    set_keepalive(ch);
}

static void drop_refused(struct refused *r)
{
    struct channel *c = r->ch;
    r->ch = 0;
    channel_close(c);
}

/* A connection we will not serve: answer its first message with a busy status and the
 * busy note, then close. */
static void on_refused_event(struct channel *ch, void *arg, enum channel_event ev)
{
    struct refused *r = arg;
    if (ev == CHANNEL_EVENT_CLOSED) {
        r->ch = 0;
        return;
    }
    /* The session that held the board ended while this host waited: a busy note now would
     * name a holder that is gone, so the host gets the board. */
    if (ev == CHANNEL_EVENT_DATA && !session.control) {
        uint32_t ip = r->remote_ip;
        r->ch = 0;
        agent_log("acart: a host that waited takes the free board");
        open_session(ch, ip);
        on_control_event(ch, 0, CHANNEL_EVENT_DATA);
        return;
    }
    if (ev == CHANNEL_EVENT_DATA && channel_available(ch) >= sizeof(struct sep_first_msg)) {
        struct sep_first_msg first;
        struct sep_target_status st;
        struct acart_busy_note note;
        channel_read(ch, &first, sizeof(first));
        fill_target_status(&st, SEP_STATUS_PMU_IN_USE);
        fill_busy_note(&note);
        /* The note only behind its status: alone it would read as a status. */
        if (channel_send(ch, &st, sizeof(st)) == ACA_OK)
            channel_send(ch, &note, sizeof(note));
        char ip[16];
        format_ip(ip, note.holder_ip);
        agent_log("acart: refused a host: the board is held by %s:%u since %llu.%03u s after "
                  "boot (for %llu.%03u s), %s",
                  ip, (unsigned)note.holder_port, (unsigned long long)(note.since_boot_ms / 1000),
                  (unsigned)(note.since_boot_ms % 1000), (unsigned long long)(note.held_ms / 1000),
                  (unsigned)(note.held_ms % 1000), holder_state_names[note.holder_state]);
        drop_refused(r);
    }
}

static int refuse(struct channel *ch, uint32_t remote_ip)
{
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        if (!refused[i].ch) {
            refused[i].ch = ch;
            refused[i].remote_ip = remote_ip;
            refused[i].deadline_ms = target_now_ms() + REFUSED_TIMEOUT_MS;
            channel_set_callback(ch, on_refused_event, &refused[i]);
            return 0;
        }
    }
    agent_log("acart: reset a connection: a session is in progress and %u refused hosts wait "
              "for their answer",
              (unsigned)(sizeof(refused) / sizeof(refused[0])));
    return -1;
}

static int host_allowed(uint32_t remote_ip)
{
    if (!target.cfg.allowed_hosts)
        return 1;
    for (uint32_t i = 0; i < target.cfg.num_allowed_hosts; i++) {
        const struct aca_allowed_hosts *a = &target.cfg.allowed_hosts[i];
        /* Network byte order: the prefix is the lowest-addressed bytes, so compare in
         * host order. */
        uint32_t ip = __builtin_bswap32(remote_ip), net = __builtin_bswap32(a->addr);
        uint32_t mask = a->prefix_len ? ~0u << (32 - a->prefix_len) : 0;
        if ((ip & mask) == (net & mask))
            return 1;
    }
    return 0;
}

/* Refused hosts are logged at most once per REFUSED_LOG_MS and then counted, so a scan of
 * the port cannot flood the console (or the net context that prints it). */
#define REFUSED_LOG_MS 60000
static struct {
    int open;            /* a line was logged less than REFUSED_LOG_MS ago */
    uint64_t since_ms;   /* ... at this time */
    uint32_t suppressed; /* refusals since, not logged */
    uint32_t last_ip;
} refused_log;

static void refused_log_flush(uint64_t now)
{
    if (!refused_log.open || now - refused_log.since_ms < REFUSED_LOG_MS)
        return;
    if (refused_log.suppressed) {
        char ip[16];
        format_ip(ip, refused_log.last_ip);
        agent_log("acart: reset %u more connections from hosts not in allowed_hosts in %u s "
                  "(the last from %s)",
                  (unsigned)refused_log.suppressed, (unsigned)(REFUSED_LOG_MS / 1000), ip);
    }
    refused_log.open = 0;
    refused_log.suppressed = 0;
}

static void log_not_allowed(uint32_t remote_ip, uint16_t remote_port)
{
    uint64_t now = target_now_ms();
    refused_log_flush(now);
    if (refused_log.open) {
        refused_log.suppressed++;
        refused_log.last_ip = remote_ip;
        return;
    }
    char ip[16];
    format_ip(ip, remote_ip);
    agent_log("acart: reset a connection from %s:%u: not in allowed_hosts (further ones within "
              "%u s are counted, not logged)",
              ip, (unsigned)remote_port, (unsigned)(REFUSED_LOG_MS / 1000));
    refused_log.open = 1;
    refused_log.since_ms = now;
}

static int on_accept(struct channel *ch, void *arg, uint32_t remote_ip)
{
    (void)arg;
    if (!host_allowed(remote_ip)) {
        log_not_allowed(remote_ip, channel_remote_port(ch));
        return -1; /* reset by the channel layer: nothing of it is read */
    }
    if (!session.control) {
        open_session(ch, remote_ip);
        return 0;
    }
    if (session.control_handshaken && session.data_accepted < session.data_expected &&
        remote_ip == session.remote_ip) {
        uint32_t k = session.data_accepted++;
        struct data_link *l = &session.links[k];
        l->ch = ch;
        l->first_read = 0;
        l->handshaken = 0;
        l->records_held = 0;
        l->window_start_ms = target_now_ms();
        if (k < target.num_cpus) {
            l->type = SEP_DATA_CPU;
            l->id = (uint16_t)k;
        } else if (k < target.num_cpus + SEP_NONCORE_DATA_CONNECTIONS) {
            l->type = k == target.num_cpus ? SEP_DATA_UNCORE : SEP_DATA_MODULE;
            l->id = 0;
        } else {
            l->type = ACART_DATA_PT; /* only after PT_CONFIG raised data_expected */
            l->id = 0;
        }
        channel_set_callback(ch, on_data_channel_event, l);
        set_keepalive(ch);
        return 0;
    }
    return refuse(ch, remote_ip);
}

_Static_assert(sizeof(struct sep_target_status) <= CHANNEL_SEND_MIN,
               "a handshake answer must fit one whole send");

static void control_handshake(void)
{
    struct sep_first_msg first;
    struct sep_target_status st;
    if (channel_available(session.control) < sizeof(first))
        return;
    channel_read(session.control, &first, sizeof(first));
    int32_t status = SEP_STATUS_SUCCESS;
    if (first.msg_size != sizeof(first) || first.proto_version != SEP_PROTOCOL_VERSION)
        status = SEP_STATUS_COMM_NOT_COMPATIBLE;
    fill_target_status(&st, status);
    /* A handshake answer that cannot be queued (lwIP out of memory) would leave the host
     * waiting for it: end the session instead. */
    int sent = channel_send(session.control, &st, sizeof(st));
    channel_flush(session.control);
    if (sent != ACA_OK || status != SEP_STATUS_SUCCESS) {
        session_end(sent != ACA_OK ? "no room to queue the handshake answer"
                                   : "incompatible first message");
        return;
    }
    session.control_handshaken = 1;
    session.data_expected = target.num_cpus + SEP_NONCORE_DATA_CONNECTIONS;
    session.data_accepted = 0;
    agent_log("acart: host connected (protocol %u, %u data channels expected)",
              (unsigned)first.proto_version, (unsigned)session.data_expected);
}

static void on_control_event(struct channel *ch, void *arg, enum channel_event ev)
{
    (void)ch;
    (void)arg;
    switch (ev) {
    case CHANNEL_EVENT_DATA:
        if (!session.control_handshaken)
            control_handshake();
        if (session.control && session.control_handshaken)
            control_on_data();
        break;
    case CHANNEL_EVENT_SENT:
        control_on_sent();
        break;
    case CHANNEL_EVENT_CLOSED:
        session.control = 0; /* the channel layer releases it */
        session_end("the control connection was closed or lost");
        break;
    }
}

static void check_handshake_done(void)
{
    if (session.handshake_done || session.data_accepted < session.data_expected)
        return;
    for (uint32_t i = 0; i < session.data_accepted; i++)
        if (!session.links[i].handshaken)
            return;
    session.handshake_done = 1;
}

/* The answer to a data connection's first message. lwIP's memory may be taken by the
 * other connections when the host opens dozens at once: then it waits for the next poll,
 * within the handshake timeout, rather than ending the session. */
static void answer_data_handshake(struct data_link *l)
{
    struct sep_data_first_msg reply = {SEP_PROTOCOL_VERSION, l->type, l->id};
    if (channel_send(l->ch, &reply, sizeof(reply)) != ACA_OK)
        return;
    channel_flush(l->ch);
    l->handshaken = 1;
    l->window_start_ms = target_now_ms();
    check_handshake_done();
}

static void on_data_channel_event(struct channel *ch, void *arg, enum channel_event ev)
{
    struct data_link *l = arg;
    switch (ev) {
    case CHANNEL_EVENT_DATA:
        if (!l->first_read) {
            struct sep_first_msg first;
            if (channel_available(ch) < sizeof(first))
                return;
            channel_read(ch, &first, sizeof(first));
            if (first.msg_size != sizeof(first) || first.proto_version != SEP_PROTOCOL_VERSION) {
                session_end("bad first message on a data connection");
                return;
            }
            l->first_read = 1;
            answer_data_handshake(l);
        } else {
            /* Hosts send nothing on data channels after the handshake; discard it. */
            uint8_t sink[64];
            while (channel_read(ch, sink, sizeof(sink)))
                ;
        }
        break;
    case CHANNEL_EVENT_SENT:
        transfer_pump();
        break;
    case CHANNEL_EVENT_CLOSED:
        l->ch = 0;
        if (collection.state != COLLECTION_STOPPED)
            session_end("a data connection was closed or lost");
        break;
    }
}

int aca_start(const struct aca_config *cfg)
{
    if (target.started)
        return ACA_ERR_BUSY;
    if (!cfg || cfg->size != sizeof(struct aca_config))
        return ACA_ERR_CONFIG_SIZE;
    if (cfg->interrupt_mode == ACA_INTERRUPT_VECTOR &&
        (cfg->interrupt_vector < 0x30 || cfg->interrupt_vector >= 0xf0))
        return ACA_ERR_INVALID;
    if (cfg->transfer != ACA_TRANSFER_DELAYED && cfg->transfer != ACA_TRANSFER_IMMEDIATE)
        return ACA_ERR_INVALID;
    if (cfg->allowed_hosts && cfg->num_allowed_hosts == 0)
        return ACA_ERR_INVALID; /* nobody at all: surely a mistake, not a policy */
    for (uint32_t i = 0; cfg->allowed_hosts && i < cfg->num_allowed_hosts; i++)
        if (cfg->allowed_hosts[i].prefix_len > 32)
            return ACA_ERR_INVALID;

    int perr_platform = platform_check_basics();
    if (perr_platform)
        return perr_platform;
    uint32_t ncpus = aca_plat_num_cpus();
    if (ncpus > ACA_MAX_CPUS)
        ncpus = ACA_MAX_CPUS;
    target.cfg = *cfg;
    if (target.cfg.port == 0)
        target.cfg.port = ACA_DEFAULT_PORT;
    if (cfg->ring_memory) {
        if (cfg->ring_bytes_per_cpu < 4096 || ((uintptr_t)cfg->ring_memory & 63))
            return ACA_ERR_INVALID;
        target.ring_memory = cfg->ring_memory;
        target.ring_bytes_per_cpu = cfg->ring_bytes_per_cpu;
    } else {
        target.ring_memory = builtin_rings;
        target.ring_bytes_per_cpu = (uint32_t)(sizeof(builtin_rings) / ncpus) & ~63u;
    }
    target.num_cpus = ncpus;
    target.keepalive_idle_ms =
        cfg->keepalive_idle_ms ? cfg->keepalive_idle_ms : ACA_KEEPALIVE_IDLE_MS;
    target.keepalive_interval_ms =
        cfg->keepalive_interval_ms ? cfg->keepalive_interval_ms : ACA_KEEPALIVE_INTERVAL_MS;
    target.keepalive_count = cfg->keepalive_count ? cfg->keepalive_count : ACA_KEEPALIVE_COUNT;
    target.handshake_timeout_ms =
        cfg->handshake_timeout_ms ? cfg->handshake_timeout_ms : ACA_HANDSHAKE_TIMEOUT_MS;
    target.drain_stall_ms = cfg->drain_stall_ms ? cfg->drain_stall_ms : ACA_DRAIN_STALL_MS;
    target.drain_min_bytes = cfg->drain_min_bytes ? cfg->drain_min_bytes : ACA_DRAIN_MIN_BYTES;
    target.pmi_max_rate_hz = cfg->pmi_max_rate_hz == ACA_PMI_NO_BUDGET ? 0
                             : cfg->pmi_max_rate_hz                    ? cfg->pmi_max_rate_hz
                                                                       : ACA_PMI_MAX_RATE_HZ;
    target.pmi_cpu_percent = cfg->pmi_cpu_percent ? cfg->pmi_cpu_percent : ACA_PMI_CPU_PERCENT;
    if (target.pmi_cpu_percent > 100)
        return ACA_ERR_INVALID;

    int perr = sampler_probe_pmu();
    const struct pmu_caps *caps = sampler_pmu_caps();
    target.pmu_usable = caps != 0;
    target.sampling_note = caps ? 0 : pmu_strerror(perr);
    struct msr_policy_limits limits;
    memset(&limits, 0, sizeof(limits));
    if (caps) {
        limits.num_gp_counters = caps->num_gp;
        limits.num_fixed_counters = caps->num_fixed;
        limits.full_width_writes = caps->full_width_write;
        /* Model-specific or architectural: LBR_INFO and ECBs may name the stack's MSRs. */
        limits.lbr_depth = caps->lbr.depth;
        limits.lbr_from_base = caps->lbr.from_msr;
        limits.lbr_to_base = caps->lbr.to_msr;
        limits.lbr_info_base = caps->lbr.info_msr;
    } else {
        /* Without a PMU nothing host-supplied reaches a counter MSR, but ECBs are still
         * checked against the architectural envelope so a bad one is refused the same
         * way. */
        limits.num_gp_counters = 8;
        limits.num_fixed_counters = 4;
    }
    int pt_err = pt_session_probe(cfg->pt_memory, cfg->pt_memory_bytes, ncpus);
    const struct pt_caps *pt = pt_session_caps();
    target.pt_usable = pt_err == 0;
    if (pt) {
        limits.pt = 1;
        limits.pt_output = pt->topa || pt->single_range;
        limits.pt_ranges = pt->num_ranges;
    }
    const char *no_uncore = uncore_probe(target.pmu_usable, &limits);
    msr_policy_configure(&limits);

    int err = channel_listen(target.cfg.port, on_accept, 0);
    if (err == ACA_ERR_LWIP)
        agent_log("acart: lwIP's TCP_SND_BUF is %u bytes; acart needs at least %u (one whole "
                  "sample record or handshake answer): raise TCP_SND_BUF in lwipopts.h",
                  (unsigned)channel_lwip_snd_buf(), (unsigned)CHANNEL_SEND_MIN);
    if (err)
        return err;
    target.started = 1;
#if ACA_WITH_IPROBE
    pmu_owner_net_started();
#endif
    if (caps)
        agent_log("acart: PMU %s, perfmon v%u: %u general + %u fixed counters, PEBS %s, "
                  "LBR %u; PMI as %s",
                  caps->uarch, (unsigned)caps->version, (unsigned)caps->num_gp,
                  (unsigned)caps->num_fixed, caps->pebs.usable ? "yes" : "no",
                  (unsigned)caps->lbr.depth,
                  target.cfg.interrupt_mode == ACA_INTERRUPT_NMI ? "NMI" : "vector");
    else
        agent_log("acart: %s: samples are time-based (the platform's sampling timer)",
                  target.sampling_note);
    if (pt)
        agent_log(
            "acart: Intel PT: %s%s, %u address ranges%s%s%s%s; %u KiB of trace memory",
            pt->topa_multi ? "ToPA regions"
            : pt->topa     ? "one-entry ToPA"
                           : "",
            pt->single_range ? (pt->topa ? ", single range" : "single range") : "",
            (unsigned)pt->num_ranges, pt->mtc ? ", MTC" : "", pt->psb_cyc ? ", CYC" : "",
            pt->ptwrite ? ", PTWRITE" : "", pt->power_events ? ", power events" : "",
            (unsigned)(cfg->pt_memory ? cfg->pt_memory_bytes / 1024 : ACA_PT_POOL_BYTES / 1024));
    else
        agent_log("acart: no Intel PT (%s): PT requests are refused", pt_session_why());
    if (no_uncore)
        agent_log("acart: no uncore (%s): uncore requests are refused", no_uncore);
    else
        agent_log("acart: uncore: %s", uncore_model_name());
    agent_log("acart: %u cpus, %s transfer, rings %u KiB per cpu", (unsigned)ncpus,
              target.cfg.transfer == ACA_TRANSFER_DELAYED ? "delayed" : "immediate",
              (unsigned)(target.ring_bytes_per_cpu / 1024));
    agent_log("acart: lwIP sends up to %u bytes per connection (its TCP_SND_BUF)",
              (unsigned)channel_lwip_snd_buf());
    if (!cfg->allowed_hosts)
        agent_log("acart: any host may connect (no allowed_hosts)");
    for (uint32_t i = 0; cfg->allowed_hosts && i < cfg->num_allowed_hosts; i++) {
        char ip[16];
        format_ip(ip, cfg->allowed_hosts[i].addr);
        agent_log("acart: hosts allowed to connect: %s/%u", ip,
                  (unsigned)cfg->allowed_hosts[i].prefix_len);
    }
    agent_log("acart: keepalive %u ms idle, then %u probes %u ms apart; handshake timeout %u "
              "ms; a data connection that takes under %u bytes in %u ms is stalled",
              (unsigned)target.keepalive_idle_ms, (unsigned)target.keepalive_count,
              (unsigned)target.keepalive_interval_ms, (unsigned)target.handshake_timeout_ms,
              (unsigned)target.drain_min_bytes, (unsigned)target.drain_stall_ms);
    session.report_ready = 1;
    return ACA_OK;
}

static void report_ready(void)
{
    struct channel_net_stats n;
    channel_net_stats(&n);
    if (n.memory_known)
        agent_log("acart: board ready: tcp active %u time-wait %u pcbs %u, channels %u, heap %u "
                  "bytes, pbufs %u, segments %u",
                  (unsigned)n.tcp_active, (unsigned)n.tcp_time_wait, (unsigned)n.tcp_pcbs_used,
                  (unsigned)n.channels_open, (unsigned)n.heap_used, (unsigned)n.pbuf_pool_used,
                  (unsigned)n.tcp_segs_used);
    else /* zeros would read as a measurement */
        agent_log("acart: board ready: tcp active %u time-wait %u pcbs unknown, channels %u, "
                  "heap unknown, pbufs unknown, segments unknown (the port has no "
                  "aca_port_net_memory)",
                  (unsigned)n.tcp_active, (unsigned)n.tcp_time_wait, (unsigned)n.channels_open);
}

static void expire_refused(uint64_t now)
{
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (refused[i].ch && now >= refused[i].deadline_ms)
            drop_refused(&refused[i]);
}

static int refused_waiting(void)
{
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (refused[i].ch)
            return 1;
    return 0;
}

void aca_poll(void)
{
    if (!target.started)
        return;
#if ACA_WITH_IPROBE
    /* IPROBE tasks' cross-CPU calls and deferred full actions run here (pmu_owner.h). */
    pmu_owner_net_enter();
    aca_ipr_poll();
    pmu_owner_net_leave();
#endif
    pt_session_poll();
    uint64_t now = target_now_ms();
    expire_refused(now);
    refused_log_flush(now);
    if (session.control && !session.handshake_done &&
        now - session.session_start_ms > target.handshake_timeout_ms) {
        session_end(session.control_handshaken ? "the data connections were not all opened "
                                                 "within the handshake timeout"
                                               : "no first message within the handshake "
                                                 "timeout");
        return;
    }
    const struct data_link *stalled = transfer_stalled(now);
    if (stalled) {
        agent_log("acart: data connection %u (%s %u) took %u bytes in %u ms with records "
                  "waiting",
                  (unsigned)(stalled - session.links),
                  stalled->type == SEP_DATA_CPU      ? "cpu"
                  : stalled->type == ACART_DATA_PT   ? "pt"
                  : stalled->type == SEP_DATA_UNCORE ? "uncore"
                                                     : "module",
                  (unsigned)stalled->id, (unsigned)stalled->window_bytes,
                  (unsigned)(now - stalled->window_start_ms));
        session_end("the host stopped reading a data connection");
        return;
    }
    for (uint32_t i = 0; !session.handshake_done && i < session.data_accepted; i++)
        if (session.links[i].ch && session.links[i].first_read && !session.links[i].handshaken)
            answer_data_handshake(&session.links[i]);
    /* A response (or a request behind it) that waited for memory: no SENT event on the
     * control connection would ever retry it. */
    if (session.control && session.control_handshaken &&
        session.framing.response_sent < session.framing.response_len)
        control_on_sent();
    transfer_pump();
    uint32_t closing = channel_poll();
    if (session.report_ready && !session.control && closing == 0 && !refused_waiting()) {
        session.report_ready = 0;
        report_ready();
    }
}
