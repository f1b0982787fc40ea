/* Listening, the session's connections and their handshakes, and tearing a session down.
 *
 * One host at a time. The first connection of a session is its control channel; after
 * the handshake the host opens num_cpus + 2 data connections, which get their channel
 * type in accept order, as the reference target assigns them: CPU 0..n-1, then uncore,
 * then module. Any connection beyond that is a second host: it gets a target status
 * with a busy status and is closed. When the host terminates, vanishes or sends garbage,
 * the session ends: sampling stops, rings are reset, and the agent listens again. */
#include "agent.h"
#include "log.h"
#include "msr_policy.h"

#include "cpu.h"
#include "io.h"
#include "lapic.h"
#include "msr_safe.h"
#include "smp.h"
#include "tsc.h"

#include <string.h>

struct agent agent;

static uint8_t builtin_rings[ACA_MAX_CPUS][ACA_RING_BYTES_PER_CPU]
    __attribute__((section(".acart_rings"), aligned(64)));

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
    strcpy(st->os_info.version, agent.pmu_usable ? "bare-metal i686, PMU sampling"
                                                 : "bare-metal i686, time-based sampling");
    st->collect_switch.bits = SEP_AGENT_NATIVE << SEP_SWITCH_AGENT_MODE_SHIFT;
    if (agent.cfg.transfer == ACA_TRANSFER_DELAYED)
        st->collect_switch.bits |= SEP_SWITCH_DATA_TRANSFER_MODE;
    st->hardware_info.num_cpus = agent.num_cpus;
    st->hardware_info.family = (sig.signature >> 8) & 0xf;
    st->hardware_info.model = sig.model;
    st->hardware_info.stepping = sig.stepping;
    st->hardware_info.tsc_freq = tsc_hz();
}

/* A connection we will not serve: answer its first message with `status`, then close. */
static void on_refused_event(struct channel *ch, void *arg, enum channel_event ev)
{
    (void)arg;
    if (ev == CHANNEL_EVENT_DATA && channel_available(ch) >= sizeof(struct sep_first_msg)) {
        struct sep_first_msg first;
        struct sep_target_status st;
        channel_read(ch, &first, sizeof(first));
        fill_target_status(&st, SEP_STATUS_PMU_IN_USE);
        channel_send(ch, &st, sizeof(st));
        channel_close(ch);
    }
}

static int on_accept(struct channel *ch, void *arg, uint32_t remote_ip)
{
    (void)arg;
    if (agent.cfg.allowed_hosts) {
        uint32_t i;
        for (i = 0; i < agent.cfg.num_allowed_hosts; i++)
            if (agent.cfg.allowed_hosts[i] == remote_ip)
                break;
        if (i == agent.cfg.num_allowed_hosts) {
            agent_log("acart: refused a connection from a host not on the allowlist");
            return -1;
        }
    }
    if (!agent.control) {
        agent.control = ch;
        agent.control_handshaken = 0;
        agent.control_since_tsc = rdtsc();
        agent.remote_ip = remote_ip;
        channel_set_callback(ch, on_control_event, 0);
        /* A host gone without a FIN (power, cable) is noticed within ~20 s. */
        channel_set_keepalive(ch, 10000, 2000, 5);
        return 0;
    }
    if (agent.control_handshaken && agent.data_accepted < agent.data_expected &&
        remote_ip == agent.remote_ip) {
        uint32_t k = agent.data_accepted++;
        struct data_link *l = &agent.links[k];
        l->ch = ch;
        l->handshaken = 0;
        if (k < agent.num_cpus) {
            l->type = SEP_DATA_CPU;
            l->id = (uint16_t)k;
        } else {
            l->type = k == agent.num_cpus ? SEP_DATA_UNCORE : SEP_DATA_MODULE;
            l->id = 0;
        }
        channel_set_callback(ch, on_data_channel_event, l);
        return 0;
    }
    agent_log("acart: refused a second host: a session is in progress");
    channel_set_callback(ch, on_refused_event, 0);
    return 0;
}

static void control_handshake(void)
{
    struct sep_first_msg first;
    struct sep_target_status st;
    if (channel_available(agent.control) < sizeof(first))
        return;
    channel_read(agent.control, &first, sizeof(first));
    int32_t status = SEP_STATUS_SUCCESS;
    if (first.msg_size != sizeof(first) || first.proto_version != SEP_PROTOCOL_VERSION)
        status = SEP_STATUS_COMM_NOT_COMPATIBLE;
    fill_target_status(&st, status);
    channel_send(agent.control, &st, sizeof(st));
    channel_flush(agent.control);
    if (status != SEP_STATUS_SUCCESS) {
        agent_end_session("incompatible first message");
        return;
    }
    agent.control_handshaken = 1;
    agent.data_expected = agent.num_cpus + SEP_NONCORE_DATA_CONNECTIONS;
    agent.data_accepted = 0;
    agent_log("acart: host connected (protocol %u, %u data channels expected)",
              (unsigned)first.proto_version, (unsigned)agent.data_expected);
}

static void on_control_event(struct channel *ch, void *arg, enum channel_event ev)
{
    (void)ch;
    (void)arg;
    switch (ev) {
    case CHANNEL_EVENT_DATA:
        if (!agent.control_handshaken)
            control_handshake();
        if (agent.control && agent.control_handshaken)
            control_on_data();
        break;
    case CHANNEL_EVENT_SENT:
        control_on_sent();
        break;
    case CHANNEL_EVENT_CLOSED:
        agent.control = 0; /* the channel layer releases it */
        agent_end_session(agent.terminate_after_send ? "host terminated the session"
                                                     : "host closed the control connection");
        break;
    }
}

static void on_data_channel_event(struct channel *ch, void *arg, enum channel_event ev)
{
    struct data_link *l = arg;
    switch (ev) {
    case CHANNEL_EVENT_DATA:
        if (!l->handshaken) {
            struct sep_first_msg first;
            if (channel_available(ch) < sizeof(first))
                return;
            channel_read(ch, &first, sizeof(first));
            if (first.msg_size != sizeof(first) || first.proto_version != SEP_PROTOCOL_VERSION) {
                agent_end_session("bad first message on a data connection");
                return;
            }
            struct sep_data_first_msg reply = {SEP_PROTOCOL_VERSION, l->type, l->id};
            channel_send(ch, &reply, sizeof(reply));
            channel_flush(ch);
            l->handshaken = 1;
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
        if (agent.state != COLLECTION_STOPPED)
            agent_end_session("host closed a data connection");
        break;
    }
}

void agent_end_session(const char *why)
{
    sampler_reset();
    if (agent.control) {
        struct channel *c = agent.control;
        agent.control = 0;
        channel_close(c);
    }
    for (uint32_t i = 0; i < ACA_MAX_CPUS + SEP_NONCORE_DATA_CONNECTIONS; i++) {
        if (agent.links[i].ch) {
            struct channel *c = agent.links[i].ch;
            agent.links[i].ch = 0;
            channel_abort(c);
        }
    }
    /* Everything of the session goes; the configuration of aca_start() stays. */
    size_t keep = offsetof(struct agent, control);
    memset((uint8_t *)&agent + keep, 0, sizeof(agent) - keep);
    agent_log("acart: session ended (%s); listening again", why);
}

int aca_start(const struct aca_config *cfg)
{
    if (agent.started)
        return ACA_ERR_BUSY;
    if (!cfg || cfg->size != sizeof(struct aca_config))
        return ACA_ERR_CONFIG_SIZE;
    if (cfg->interrupt_mode == ACA_INTERRUPT_VECTOR &&
        (cfg->interrupt_vector < 0x30 || cfg->interrupt_vector >= 0xf0))
        return ACA_ERR_INVALID;
    if (cfg->transfer != ACA_TRANSFER_DELAYED && cfg->transfer != ACA_TRANSFER_IMMEDIATE)
        return ACA_ERR_INVALID;

    uint32_t ncpus = smp_num_cpus();
    if (ncpus > ACA_MAX_CPUS)
        ncpus = ACA_MAX_CPUS;
    agent.cfg = *cfg;
    if (agent.cfg.port == 0)
        agent.cfg.port = ACA_DEFAULT_PORT;
    if (cfg->ring_memory) {
        if (cfg->ring_bytes_per_cpu < 4096 || ((uintptr_t)cfg->ring_memory & 63))
            return ACA_ERR_INVALID;
        agent.ring_memory = cfg->ring_memory;
        agent.ring_bytes_per_cpu = cfg->ring_bytes_per_cpu;
    } else {
        agent.ring_memory = &builtin_rings[0][0];
        agent.ring_bytes_per_cpu = ACA_RING_BYTES_PER_CPU;
    }
    agent.num_cpus = ncpus;
    msr_safe_init();

    int perr = sampler_probe_pmu();
    const struct pmu_caps *caps = sampler_pmu_caps();
    agent.pmu_usable = caps != 0;
    agent.sampling_note = caps ? 0 : pmu_strerror(perr);
    struct msr_policy_limits limits;
    memset(&limits, 0, sizeof(limits));
    if (caps) {
        limits.num_gp_counters = caps->num_gp;
        limits.num_fixed_counters = caps->num_fixed;
        limits.full_width_writes = caps->full_width_write;
        if (!caps->lbr.arch) {
            limits.lbr_depth = caps->lbr.depth;
            limits.lbr_from_base = caps->lbr.from_msr;
            limits.lbr_to_base = caps->lbr.to_msr;
            limits.lbr_info_base = caps->lbr.info_msr;
        }
    } else {
        /* Without a PMU nothing host-supplied reaches a counter MSR, but ECBs are still
         * checked against the architectural envelope so a bad one is refused the same
         * way. */
        limits.num_gp_counters = 8;
        limits.num_fixed_counters = 4;
    }
    msr_policy_configure(&limits);

    int err = channel_listen(agent.cfg.port, on_accept, 0);
    if (err)
        return err;
    agent.started = 1;
    if (caps)
        agent_log("acart: PMU %s, perfmon v%u: %u general + %u fixed counters, PEBS %s, "
                  "LBR %u; PMI as %s",
                  caps->uarch, (unsigned)caps->version, (unsigned)caps->num_gp,
                  (unsigned)caps->num_fixed, caps->pebs.usable ? "yes" : "no",
                  (unsigned)caps->lbr.depth,
                  agent.cfg.interrupt_mode == ACA_INTERRUPT_NMI ? "NMI" : "vector");
    else
        agent_log("acart: %s: samples are time-based (LAPIC timer)", agent.sampling_note);
    agent_log("acart: %u cpus, %s transfer, rings %u KiB per cpu", (unsigned)ncpus,
              agent.cfg.transfer == ACA_TRANSFER_DELAYED ? "delayed" : "immediate",
              (unsigned)(agent.ring_bytes_per_cpu / 1024));
    return ACA_OK;
}

/* A connection that never sends its first message would hold the agent forever. */
#define HANDSHAKE_TIMEOUT_S 10

void aca_poll(void)
{
    if (!agent.started)
        return;
    if (agent.control && !agent.control_handshaken &&
        rdtsc() - agent.control_since_tsc > HANDSHAKE_TIMEOUT_S * tsc_hz()) {
        agent_end_session("no first message within 10 s");
        return;
    }
    transfer_pump();
}
