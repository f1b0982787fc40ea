/* Commands that set up, run and end a collection. */
#include "acart_platform.h"
#include "cmd_lbr.h"
#include "collection.h"
#include "session.h"
#include "target.h"
#include "module_records.h"
#include "commands.h"
#include "log.h"
#include "msr_policy.h"
#include "pmu_owner.h"
#include "pt_session.h"
#include "sampler_plan.h"
#include "task_switches.h"
#include "uncore.h"

#include "io.h"

#include <string.h>

/* Room for every area of a record, a stack copy of ACART_STACK_COPY_MAX bytes included. A
 * record goes to the host whole, and the channel layer guarantees that much room. */
#define MAX_RECORD_SIZE 16384
_Static_assert(MAX_RECORD_SIZE <= CHANNEL_SEND_MIN, "a record must fit one whole send");

/* Counting mode (VTune's EMON): the host reads the counters; no samples. */
static int counting_mode(const struct collection *coll)
{
    return (coll->drv_config.collection_config &
            (SEP_DRV_CFG_COUNTING_MODE | SEP_DRV_CFG_EMON_MODE)) != 0;
}

int32_t cmd_reserve(struct cmd_request *req)
{
    uint32_t busy = sampler_is_running() || pmu_owner_current() == PMU_OWNER_IPROBE ? 1 : 0;
    return cmd_reply(req, &busy, sizeof(busy));
}

int32_t cmd_init_driver(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    memcpy(&coll->drv_config, req->in, sizeof(coll->drv_config));
    if (counting_mode(coll) && (!ACA_WITH_COUNTING || !target.pmu_usable)) {
        agent_log("acart: counting mode refused: %s (%s)",
                  ACA_WITH_COUNTING ? "it reads the PMU's counters, and this CPU has no usable PMU"
                                    : "not built in",
                  !ACA_WITH_COUNTING     ? "libacart.a has ACA_WITH_COUNTING 0"
                  : target.sampling_note ? target.sampling_note
                                         : "time-based sampling");
        return SEP_STATUS_INCOMPATIBLE_PARAMS;
    }
    coll->have_drv_config = 1;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_set_cpu_topology(struct cmd_request *req)
{
    if (req->in_len % sizeof(struct sep_cpu_topology))
        return SEP_STATUS_BAD_PARAMETER;
    uint32_t n = req->in_len / (uint32_t)sizeof(struct sep_cpu_topology);
    if (n != target.num_cpus)
        return SEP_STATUS_UNSUPPORTED_CPU_TOPOLOGY;
    for (uint32_t i = 0; i < n; i++) {
        struct sep_cpu_topology t;
        memcpy(&t, req->in + i * sizeof(t), sizeof(t));
        if (t.cpu_number >= target.num_cpus)
            return SEP_STATUS_UNSUPPORTED_CPU_TOPOLOGY;
    }
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_num_descriptor(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    uint32_t n;
    memcpy(&n, req->in, sizeof(n));
    if (n > COLLECTION_MAX_DESCRIPTORS)
        return SEP_STATUS_BAD_PARAMETER;
    coll->num_descriptors_expected = n;
    coll->num_descriptors = 0;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_desc_next(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    if (coll->num_descriptors >= coll->num_descriptors_expected)
        return SEP_STATUS_INVALID_STATE_TRANS;
    struct sep_event_desc *d = &coll->descriptors[coll->num_descriptors];
    memcpy(d, req->in, sizeof(*d));
    if (d->sample_size < sizeof(struct sep_sample_pc) || d->sample_size > MAX_RECORD_SIZE ||
        d->sample_size % 4)
        return SEP_STATUS_INVALID_EVENT_SIZE;
    if (d->callstack_size &&
        (d->callstack_offset < sizeof(struct sep_sample_pc) || d->callstack_offset % 8 ||
         d->callstack_size % 8 || d->callstack_offset + d->callstack_size > d->sample_size))
        return SEP_STATUS_INVALID_EVENT_SIZE;
    if (d->latency_offset_in_sample &&
        (d->latency_offset_in_sample < sizeof(struct sep_sample_pc) ||
         d->latency_offset_in_sample % 8 || d->latency_size_in_sample < SEP_LATENCY_INFO_FILLED ||
         (uint64_t)d->latency_offset_in_sample + d->latency_size_in_sample > d->sample_size))
        return SEP_STATUS_INVALID_EVENT_SIZE;
    /* The stack copy area (acart_ext.h) lives in fields SEP reserves: read only from a host
     * that negotiated acart's extensions, so whatever another host leaves there means
     * nothing (and ignored by a library built without stack copies, whose EXTENSIONS does
     * not offer them). It ends the record, which lets the sampler zero the rest without
     * testing each word against it. */
    if (!ACA_WITH_STACK_COPY || !req->session->extensions_negotiated) {
        d->reserved2 = 0;
        d->reserved3 = 0;
    }
    uint32_t copy_offset = d->reserved2, copy_size = (uint32_t)d->reserved3;
    if ((copy_offset || copy_size) &&
        (copy_offset < sizeof(struct sep_sample_pc) || copy_offset % 8 ||
         copy_size < ACART_STACK_COPY_HEAD + 8 || (copy_size - ACART_STACK_COPY_HEAD) % 8 ||
         copy_size - ACART_STACK_COPY_HEAD > ACART_STACK_COPY_MAX ||
         (uint64_t)copy_offset + copy_size != d->sample_size || (d->reserved3 >> 32) != 0))
        return SEP_STATUS_INVALID_EVENT_SIZE;
    coll->num_descriptors++;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_init(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    struct sep_dev_config dev;
    memcpy(&dev, req->in, sizeof(dev));
    if (dev.pebs_mode && !target.pmu_usable)
        return SEP_STATUS_PEBS_NOT_SUPPORTED;
    coll->want_callstacks = (dev.enable_bit_fields & SEP_DEV_CFG_COLLECT_OS_CALLSTACKS) != 0;
    coll->want_lbrs = (dev.enable_bit_fields & SEP_DEV_CFG_COLLECT_LBRS) != 0;
    coll->store_lbrs = (dev.enable_bit_fields & SEP_DEV_CFG_STORE_LBRS) != 0;
    coll->lbr_num_regs = 0;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_em_groups(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    struct sep_event_config ec;
    memcpy(&ec, req->in, sizeof(ec));
    if (ec.num_groups == 0)
        return SEP_STATUS_NO_EVENTS;
    if (ec.num_groups > SAMPLER_MAX_GROUPS) {
        agent_log("acart: %u event groups: at most %u take turns on the counters",
                  (unsigned)ec.num_groups, (unsigned)SAMPLER_MAX_GROUPS);
        return SEP_STATUS_EM_TOO_MANY_EVENT_GROUPS;
    }
    if (ec.num_groups > 1 && (!ACA_WITH_COUNTING || !target.pmu_usable)) {
        agent_log("acart: %u event groups: %s", (unsigned)ec.num_groups,
                  ACA_WITH_COUNTING ? "multiplexing needs a PMU, and this CPU has none "
                                      "(time-based sampling)"
                                    : "multiplexing is not built in (libacart.a has "
                                      "ACA_WITH_COUNTING 0)");
        return SEP_STATUS_CORE_EVT_MUX_NOT_SUPPORTED;
    }
    /* Turns of em_factor ms (timer) or em_factor overflows of event em_event_num. */
    if (ec.num_groups > 1 && ec.em_mode != SEP_EM_DISABLED &&
        ((ec.em_mode != SEP_EM_TIMER_BASED && ec.em_mode != SEP_EM_EVENT_BASED) ||
         ec.em_factor <= 0 || (ec.em_mode == SEP_EM_EVENT_BASED && ec.em_event_num < 0))) {
        agent_log("acart: EM_GROUPS: multiplexing mode %d with factor %d and event %d is not "
                  "one acart runs (timer-based: factor in ms; event-based: factor overflows of "
                  "an event)",
                  (int)ec.em_mode, (int)ec.em_factor, (int)ec.em_event_num);
        return SEP_STATUS_EM_NOT_SUPPORTED;
    }
    if (ec.sample_size &&
        (ec.sample_size < sizeof(struct sep_sample_pc) || ec.sample_size > MAX_RECORD_SIZE))
        return SEP_STATUS_INVALID_EVENT_SIZE;
    coll->event_config = ec;
    coll->have_event_config = 1;
    coll->have_ecb = 0;
    coll->groups_received = 0;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_em_config_next(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    if (!coll->have_event_config)
        return SEP_STATUS_INVALID_STATE_TRANS;
    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    int err = ecb_decode(req->in, req->in_len, &coll->ecb);
    if (err) {
        agent_log("acart: EM_CONFIG_NEXT refused: %s", ecb_strerror(err));
        return SEP_STATUS_INVALID_PROG_INFO;
    }
    if (coll->ecb.device_type != SEP_DEVICE_CORE)
        return SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE;
    for (uint32_t i = 0; i < coll->ecb.entry_count; i++) {
        const struct ecb_entry *e = &coll->ecb.entries[i];
        if (e->reg_type == SEP_REG_EMPTY)
            continue;
        int perr = msr_policy_check(e->reg_id, 1);
        if (perr) {
            agent_log("acart: EM_CONFIG_NEXT entry %u: MSR 0x%x refused: %s", (unsigned)i,
                      (unsigned)e->reg_id, msr_policy_strerror(perr));
            return SEP_STATUS_INVALID_PROG_INFO; /* a failure carries no payload */
        }
    }
    uint32_t group = coll->ecb.group_id;
    if (group >= coll->event_config.num_groups) {
        agent_log("acart: EM_CONFIG_NEXT: group %u of the %u EM_GROUPS announced", (unsigned)group,
                  (unsigned)coll->event_config.num_groups);
        return SEP_STATUS_INVALID_PROG_INFO;
    }
    struct ecb_plan *plan = &coll->plans[group];
    err = ecb_plan_sampling(&coll->ecb, plan);
    if (err) {
        agent_log("acart: EM_CONFIG_NEXT: %s", ecb_strerror(err));
        return SEP_STATUS_INVALID_PROG_INFO;
    }
    if (plan->num_counters == 0)
        return SEP_STATUS_NO_EVENTS;
    coll->groups_received |= 1u << group;
    coll->have_ecb = coll->groups_received == (1u << coll->event_config.num_groups) - 1;
    if (req->out_cap >= sizeof(struct sep_ioctl_status))
        req->out_len = sizeof(struct sep_ioctl_status); /* zeros: accepted */
    return SEP_STATUS_SUCCESS;
}

static uint32_t record_size_for(const struct collection *coll, uint32_t desc_id)
{
    if (desc_id < coll->num_descriptors)
        return coll->descriptors[desc_id].sample_size;
    if (coll->event_config.sample_size)
        return coll->event_config.sample_size;
    return sizeof(struct sep_sample_pc);
}

int32_t cmd_init_pmu(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    (void)req;
    if (!coll->have_ecb)
        return SEP_STATUS_NOT_CONFIGURED;
    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    /* The session holds the counters from here until it ends (session_end). */
    if (pmu_owner_claim(PMU_OWNER_HOST) != ACA_OK) {
        agent_log("acart: INIT_PMU refused: a program on the target owns the counters through "
                  "IPROBE (IprAllocate) until it calls IprDeallocate");
        return SEP_STATUS_PMU_IN_USE;
    }

    struct sampler_config *sc = &coll->sampler;
    memset(sc, 0, sizeof(*sc));
    sc->source = target.pmu_usable ? SAMPLER_SOURCE_PMU : SAMPLER_SOURCE_TIMER;
    sc->use_nmi = target.cfg.interrupt_mode == ACA_INTERRUPT_NMI;
    sc->vector = target.cfg.interrupt_vector;
    sc->pmi_max_rate_hz = target.pmi_max_rate_hz;
    sc->pmi_cpu_percent = target.pmi_cpu_percent;
    sc->num_groups = coll->event_config.num_groups;
    for (uint32_t g = 0; g < sc->num_groups; g++) {
        if (sampler_group_from_plan(&coll->plans[g], g, sc)) {
            agent_log("acart: INIT_PMU: the %u groups hold more than %u events in all",
                      (unsigned)sc->num_groups, (unsigned)SAMPLER_MAX_EVENTS);
            return SEP_STATUS_EXCEEDED_MAX_EVENTS;
        }
    }
    const struct sep_event_config *ec = &coll->event_config;
    sc->counting = counting_mode(coll);
    for (uint32_t i = 0; sc->counting && i < sc->num_events; i++)
        sc->events[i].sample_after = 0; /* count, never interrupt */
    if (sc->counting) {
        /* Turns end only on READ_SWITCH_GROUP, as in the reference's EMON. */
    } else if (sc->num_groups > 1 && ec->em_mode == SEP_EM_TIMER_BASED)
        sc->switch_tsc = (uint64_t)ec->em_factor * aca_plat_tsc_hz() / 1000;
    if (!sc->counting && sc->num_groups > 1 && ec->em_mode == SEP_EM_EVENT_BASED) {
        sc->switch_overflows = (uint32_t)ec->em_factor;
        sc->switch_event = (uint32_t)ec->em_event_num;
    }
    sc->record_size = record_size_for(coll, sc->events[0].descriptor_id);
    /* One ring record size: every group's samples (their descriptor is the host's) alike. */
    for (uint32_t i = 1; i < sc->num_events; i++)
        if (record_size_for(coll, sc->events[i].descriptor_id) != sc->record_size)
            return SEP_STATUS_INVALID_EVENT_SIZE;
    /* Frame-pointer call stacks, when the host asked for OS call stacks and described
     * where they go (docs/sep-protocol.md, "Call stacks"). */
    uint32_t desc = sc->events[0].descriptor_id;
    if (coll->want_callstacks && desc < coll->num_descriptors &&
        coll->descriptors[desc].callstack_size) {
        sc->callstack_offset = coll->descriptors[desc].callstack_offset;
        sc->callstack_depth = coll->descriptors[desc].callstack_size / 8;
    }
    /* Stack copies for the host's CFI unwinder (docs/sep-protocol.md 6.5). */
    if (ACA_WITH_STACK_COPY && desc < coll->num_descriptors && coll->descriptors[desc].reserved2) {
        sc->stack_copy_offset = coll->descriptors[desc].reserved2;
        sc->stack_copy_bytes = (uint32_t)coll->descriptors[desc].reserved3 - ACART_STACK_COPY_HEAD;
    }
#if ACA_WITH_LBR
    cmd_lbr_apply(coll, sc);
#endif
    /* Memory information of load-latency samples, where the descriptor places it (the
     * reference's latency_offset_in_sample; docs/sep-protocol.md 6.4). Only PEBS has it. */
    if (sc->source == SAMPLER_SOURCE_PMU && desc < coll->num_descriptors)
        sc->latency_offset = coll->descriptors[desc].latency_offset_in_sample;
    int err = sampler_setup(target.num_cpus, target.ring_memory, target.ring_bytes_per_cpu, sc);
    if (err == ACA_ERR_UNSUPPORTED && sampler_pebs_refusal()) {
        agent_log("acart: INIT_PMU: precise (PEBS) events refused: %s", sampler_pebs_refusal());
        return SEP_STATUS_PEBS_NOT_SUPPORTED;
    }
    if (err) {
        agent_log("acart: INIT_PMU: %s", aca_strerror(err));
        return err == ACA_ERR_NO_PMU ? SEP_STATUS_UNSUPPORTED_ARCH_TYPE
                                     : SEP_STATUS_INVALID_SAMP_INTERVAL;
    }
    coll->state = COLLECTION_CONFIGURED;
    return SEP_STATUS_SUCCESS;
}

static int data_channels_ready(const struct session *sess)
{
    if (sess->data_accepted < sess->data_expected)
        return 0;
    for (uint32_t i = 0; i < sess->data_expected; i++)
        if (!sess->links[i].ch || !sess->links[i].handshaken)
            return 0;
    return 1;
}

int32_t cmd_start(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    (void)req;
    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED)
        return SEP_STATUS_SAMPLING_ALREADY_STARTED;
    if (coll->state != COLLECTION_CONFIGURED)
        return SEP_STATUS_NOT_CONFIGURED;
    if (!data_channels_ready(req->session))
        return SEP_STATUS_COMM_DATA_CHANNEL_UNAVAILABLE;
    if (uncore_configured() &&
        uncore_start(target_now_ms(), coll->drv_config.unc_timer_interval) != 0)
        return SEP_STATUS_UNSUPPORTED_UNCORE_ARCH_TYPE;
    coll->start_tsc = rdtsc();
    module_records_queue_initial(coll->start_tsc);
    task_switches_start(sampler_num_cpus());
    int err = sampler_start();
    if (err) {
        task_switches_stop();
        uint32_t cpu = 0;
        const char *why = sampler_start_error(&cpu);
        uncore_reset();
        if (why)
            agent_log("acart: START: CPU %u cannot start: %s", (unsigned)cpu, why);
        else
            agent_log("acart: START: the event plan does not fit this CPU's PMU");
        return SEP_STATUS_NO_PMU_RESOURCES;
    }
    /* After the sampler, which routes the PMI that the trace unit's regions raise too. */
    pt_session_start();
    coll->state = COLLECTION_RUNNING;
    if (coll->drv_config.collection_config & SEP_DRV_CFG_START_PAUSED) {
        pt_session_pause();
        sampler_pause();
        coll->state = COLLECTION_PAUSED;
    }
    const struct sampler_event *ev = &coll->sampler.events[0];
    if (coll->sampler.counting)
        agent_log("acart: collection started: counting %u events in %u groups, no samples",
                  (unsigned)coll->sampler.num_events, (unsigned)coll->sampler.num_groups);
    else
        agent_log(
            "acart: collection started: %s sampling every %llu events (event %u), %s transfer",
            target.pmu_usable ? "PMU" : "time-based", (unsigned long long)ev->sample_after,
            (unsigned)ev->event_index,
            target.cfg.transfer == ACA_TRANSFER_DELAYED ? "delayed" : "immediate");
    if (coll->sampler.num_groups > 1 && !coll->sampler.counting)
        agent_log("acart: %u event groups take turns on the counters (%s)",
                  (unsigned)coll->sampler.num_groups,
                  coll->sampler.switch_tsc         ? "timer-based"
                  : coll->sampler.switch_overflows ? "event-based"
                                                   : "on SWITCH_GROUP");
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_stop(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    (void)req;
    if (coll->state != COLLECTION_RUNNING && coll->state != COLLECTION_PAUSED)
        return SEP_STATUS_SAMP_IN_STOP_STATE;
    pt_session_stop(); /* while the PMI is still routed: its last regions are taken */
    sampler_stop();
    task_switches_stop();
    uncore_stop();
    coll->stop_tsc = rdtsc();
    module_records_queue_changes(coll->start_tsc);
    coll->state = COLLECTION_STOPPED;
    uint32_t dropped = 0;
    /* A time-based collection long enough for 20 ticks on every CPU: a CPU that took
     * none has a sampling timer that never fires (a port's seam problem), which must
     * never pass for an empty profile. The host sees the zero in GET_SAMPLE_DROP_INFO. */
    uint64_t ticks_expected =
        coll->sampler.source == SAMPLER_SOURCE_TIMER
            ? (coll->stop_tsc - coll->start_tsc) / coll->sampler.events[0].sample_after
            : 0;
    for (uint32_t i = 0; i < target.num_cpus; i++) {
        struct sampler_cpu_counts c;
        sampler_counts(i, &c);
        dropped += c.dropped;
        if (c.tick_skipped)
            agent_log("acart: cpu %u: %u sampling windows passed without a tick (the port's tick "
                      "came late or is slower than the sample-after): not sampled",
                      (unsigned)i, (unsigned)c.tick_skipped);
        if (ticks_expected >= 20 && c.sampled == 0)
            agent_log("acart: cpu %u took no sample in a collection that should have given it "
                      "about %llu: its sampling timer never fired (see aca_selftest)",
                      (unsigned)i, (unsigned long long)ticks_expected);
        /* Never silent: the NMI path only counts; the console says it here. */
        static struct pmi_budget b;
        sampler_pmi_budget(i, &b);
        if (b.throttles)
            agent_log("acart: cpu %u: PMI budget exceeded (%u/s, %u%%): periods x%u after %u "
                      "raises; %u PMIs, the longest %llu TSC ticks",
                      (unsigned)i, (unsigned)target.pmi_max_rate_hz,
                      (unsigned)target.pmi_cpu_percent, 1u << b.shift, (unsigned)b.throttles,
                      (unsigned)b.pmis, (unsigned long long)b.max_took);
        /* NMIs acart's handler saw that found no overflow of its own: the board's other NMI
         * sources (every handler sees every NMI), or PMIs that came after their overflow
         * was taken (docs/pmu.md, first boot). */
        if (c.unclaimed)
            agent_log("acart: cpu %u: %u NMIs found no counter overflow of acart's (other NMI "
                      "sources, or PMIs arriving after their overflow was handled)",
                      (unsigned)i, (unsigned)c.unclaimed);
    }
    agent_log("acart: collection stopped: %llu samples kept, %u dropped",
              (unsigned long long)sampler_records_committed(), (unsigned)dropped);
    /* The drain starts at the next poll, once STOP's answer is queued ahead of it. */
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_pause(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    (void)req;
    if (coll->state != COLLECTION_RUNNING)
        return SEP_STATUS_INVALID_STATE_TRANS;
    pt_session_pause();
    sampler_pause();
    coll->state = COLLECTION_PAUSED;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_resume(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    (void)req;
    if (coll->state != COLLECTION_PAUSED)
        return SEP_STATUS_INVALID_STATE_TRANS;
    sampler_resume();
    pt_session_resume();
    coll->state = COLLECTION_RUNNING;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_get_num_samples(struct cmd_request *req)
{
    uint64_t n = sampler_records_committed();
    return cmd_reply(req, &n, sizeof(n));
}

int32_t cmd_get_sample_drop_info(struct cmd_request *req)
{
    struct sep_sample_drop_info info;
    memset(&info, 0, sizeof(info));
    uint32_t n = sampler_num_cpus();
    if (n > SEP_MAX_SAMPLE_DROP_NODES)
        n = SEP_MAX_SAMPLE_DROP_NODES;
    info.size = n;
    for (uint32_t i = 0; i < n; i++) {
        struct sampler_cpu_counts c;
        sampler_counts(i, &c);
        info.drop_info[i].os_id = 0;
        info.drop_info[i].cpu_id = i;
        info.drop_info[i].sampled = c.sampled - c.dropped;
        info.drop_info[i].dropped = c.dropped;
    }
    return cmd_reply(req, &info, sizeof(info));
}

/* Every CPU of the session fits: the reply never cuts CPUs off. */
_Static_assert(ACA_MAX_CPUS <= ACART_MAX_DROP_REASON_CPUS, "a drop-reason entry per CPU");

int32_t cmd_get_drop_reasons(struct cmd_request *req)
{
    uint32_t n = sampler_num_cpus();
    struct acart_drop_reasons *info = cmd_reply_space(
        req, (uint32_t)(offsetof(struct acart_drop_reasons, cpu) + n * sizeof(info->cpu[0])));
    if (!info)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    info->size = n;
    info->flags = ACART_DROP_REASONS_DELIVERED;
    for (uint32_t i = 0; i < n; i++) {
        struct sampler_cpu_counts c;
        sampler_counts(i, &c);
        struct acart_drop_reasons_cpu *e = &info->cpu[i];
        e->delivered = c.sampled - c.dropped;
        e->cpu_id = i;
        e->ring_full = c.ring_full;
        e->no_counter = c.no_counter;
        e->malformed = c.malformed;
        e->collision = c.collision;
        e->stuck = c.stuck;
        e->stuck_resets = c.stuck_resets;
    }
    return SEP_STATUS_SUCCESS;
}

_Static_assert(PMI_BUDGET_MAX_RAISES == ACART_MAX_BUDGET_RAISES, "every raise on the wire");

int32_t cmd_get_pmi_budget(struct cmd_request *req)
{
    uint32_t n = sampler_num_cpus();
    struct acart_pmi_budget *info = cmd_reply_space(
        req, (uint32_t)(offsetof(struct acart_pmi_budget, cpu) + n * sizeof(info->cpu[0])));
    if (!info)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    info->num_cpus = n;
    info->max_rate_hz = target.pmi_max_rate_hz;
    info->cpu_percent = target.pmi_cpu_percent;
    for (uint32_t i = 0; i < n; i++) {
        static struct pmi_budget b;
        sampler_pmi_budget(i, &b);
        struct acart_pmi_budget_cpu *e = &info->cpu[i];
        e->cpu_id = i;
        e->pmis = b.pmis;
        e->throttles = b.throttles;
        e->rate_lowered = b.rate_lowered;
        e->shift = b.shift;
        e->rate_hz = pmi_budget_rate_hz(&b);
        e->max_took_tsc = b.max_took;
        e->total_took_tsc = b.total_took;
        e->num_raises = b.num_raises;
        for (uint32_t k = 0; k < b.num_raises && k < ACART_MAX_BUDGET_RAISES; k++) {
            e->raises[k].tsc = b.raises[k].tsc;
            e->raises[k].shift = b.raises[k].shift;
        }
    }
    return SEP_STATUS_SUCCESS;
}

/* What each data connection of the session carried: the host's proof that a stream it
 * read to end of file is whole, whatever the end looked like on its side (a reset can reach
 * it as a FIN). */
int32_t cmd_get_channel_totals(struct cmd_request *req)
{
    const struct session *s = req->session;
    static struct acart_channel_totals info;
    memset(&info, 0, sizeof(info));
    uint32_t n = s->data_accepted;
    if (n > ACART_MAX_CHANNEL_TOTALS)
        n = ACART_MAX_CHANNEL_TOTALS;
    info.size = n;
    for (uint32_t i = 0; i < n; i++) {
        const struct data_link *l = &s->links[i];
        struct acart_channel_total *e = &info.channel[i];
        e->data_type = l->type;
        e->data_id = l->id;
        e->flags = l->finished ? ACART_CHANNEL_FINISHED : 0;
        e->bytes = l->queued_bytes;
    }
    return cmd_reply(
        req, &info,
        (uint32_t)(offsetof(struct acart_channel_totals, channel) + n * sizeof(info.channel[0])));
}

#if ACA_TASK_SWITCHES_PER_CPU
/* A page of one CPU's task switches, once the collection stopped (a CPU still running
 * would be writing its log). */
int32_t cmd_get_task_switches(struct cmd_request *req)
{
    struct acart_task_switch_read r;
    memcpy(&r, req->in, sizeof(r));
    if (req->coll->state == COLLECTION_RUNNING || req->coll->state == COLLECTION_PAUSED)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    uint32_t kept, lost;
    task_switches_counts(r.cpu, &kept, &lost);
    if (r.cpu >= sampler_num_cpus() || r.first > kept)
        return SEP_STATUS_BAD_PARAMETER;
    uint32_t n = kept - r.first;
    if (n > ACART_TASK_SWITCH_PAGE)
        n = ACART_TASK_SWITCH_PAGE;
    struct acart_task_switches *page = cmd_reply_space(
        req, (uint32_t)(offsetof(struct acart_task_switches, entry) + n * sizeof(page->entry[0])));
    if (!page)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    page->cpu = r.cpu;
    page->kept = kept;
    page->lost = lost;
    page->count = task_switches_copy(r.cpu, r.first, page->entry, n);
    return SEP_STATUS_SUCCESS;
}
#endif

/* SWITCH_GROUP: the next event group on every CPU, as the reference does it by hand;
 * like the reference, 0 and nothing done outside a running or paused collection. Each CPU
 * keeps counting or stays paused as it was. */
int32_t cmd_switch_group(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    (void)req;
    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED)
        sampler_switch_group();
    return SEP_STATUS_SUCCESS;
}

_Static_assert(SAMPLER_MAX_GROUPS == ACART_MAX_EVENT_GROUPS, "a time per group on the wire");

int32_t cmd_get_group_times(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    uint32_t n = sampler_num_cpus();
    struct acart_group_times *info = cmd_reply_space(
        req, (uint32_t)(offsetof(struct acart_group_times, cpu) + n * sizeof(info->cpu[0])));
    if (!info)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    info->num_cpus = n;
    info->num_groups = coll->have_ecb ? coll->event_config.num_groups : 0;
    for (uint32_t i = 0; i < n; i++) {
        struct sampler_group_times t;
        sampler_group_times(i, &t);
        struct acart_group_times_cpu *e = &info->cpu[i];
        e->cpu_id = i;
        e->enabled = t.enabled;
        e->switches = t.switches;
        for (uint32_t g = 0; g < SAMPLER_MAX_GROUPS; g++)
            e->running[g] = t.running[g];
    }
    return SEP_STATUS_SUCCESS;
}

/* READ_AND_RESET and READ_SWITCH_GROUP, as the reference: the reply is num_cpus u64 TSC
 * deltas (per CPU, since its last read or START), then the counts area: u64 counts at
 * cpu * num_events + core_event_id (num_events of INIT_DRIVER), the current group's
 * events only, the rest 0. Outside a running or paused collection: 0 and zeros. */
static int32_t read_counts(struct cmd_request *req, int next_group)
{
    struct collection *coll = req->coll;
    /* Where the CPUs write (the reply buffer has no u64 alignment): a row of
     * SAMPLER_MAX_EVENTS slots per CPU. */
    static uint64_t tsc[ACA_MAX_CPUS], counts[ACA_MAX_CPUS * SAMPLER_MAX_EVENTS];
    static uint32_t offset[ACA_MAX_CPUS];
    uint32_t n = sampler_num_cpus(), events = coll->drv_config.num_events;
    if (coll->state != COLLECTION_RUNNING && coll->state != COLLECTION_PAUSED)
        return SEP_STATUS_SUCCESS;
    if (!ACA_WITH_COUNTING || !coll->sampler.counting) {
        agent_log("acart: counts are read in counting mode only (INIT_DRIVER's collection "
                  "configuration); this collection samples");
        return SEP_STATUS_INVALID_STATE_TRANS;
    }
    if (req->out_cap < 8u * n)
        return SEP_STATUS_BUFFER_TOO_SMALL;
    for (uint32_t i = 0; i < n; i++)
        offset[i] = i * SAMPLER_MAX_EVENTS;
    memset(counts, 0, sizeof(counts));
    sampler_read_counts(tsc, counts, (uint32_t)(sizeof(counts) / sizeof(counts[0])), offset,
                        next_group);
    memcpy(req->out, tsc, 8u * n);
    uint64_t area = (req->out_cap - 8u * n) / 8u;
    for (uint32_t cpu = 0; cpu < n; cpu++)
        for (uint32_t slot = 0; slot < events && slot < SAMPLER_MAX_EVENTS; slot++)
            if ((uint64_t)cpu * events + slot < area)
                memcpy(req->out + 8u * (n + cpu * events + slot),
                       &counts[cpu * SAMPLER_MAX_EVENTS + slot], 8);
    req->out_len = req->out_cap;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_read_and_reset(struct cmd_request *req)
{
    return read_counts(req, 0);
}

int32_t cmd_read_switch_group(struct cmd_request *req)
{
    return read_counts(req, 1);
}

/* GET_INTERVAL_COUNTS: u64 per CPU and event, the sampling interrupts each event took
 * (the reference's interrupt_counts, cpu * num_events + event index). The reference keeps
 * them only in continuous-profiling mode; acart always does. */
int32_t cmd_get_interval_counts(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    static uint64_t per_cpu[SAMPLER_MAX_EVENTS];
    uint32_t n = sampler_num_cpus(), events = coll->drv_config.num_events;
    if (!coll->have_ecb || coll->sampler.counting || events == 0)
        return SEP_STATUS_INVALID_STATE_TRANS;
    for (uint32_t cpu = 0; cpu < n; cpu++) {
        uint64_t at = (uint64_t)cpu * events;
        sampler_interrupt_counts(cpu, per_cpu, SAMPLER_MAX_EVENTS);
        for (uint32_t i = 0; i < coll->sampler.num_events; i++) {
            uint64_t slot = at + coll->sampler.events[i].event_index;
            if (coll->sampler.events[i].event_index < events && 8 * (slot + 1) <= req->out_cap)
                memcpy(req->out + 8 * slot, &per_cpu[i], 8);
        }
    }
    req->out_len = req->out_cap;
    return SEP_STATUS_SUCCESS;
}

int32_t cmd_terminate(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    (void)req;
    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED) {
        pt_session_stop();
        sampler_stop();
        task_switches_stop();
    }
    return SEP_STATUS_SUCCESS;
}

/* The reference driver's state numbers (docs/sep-protocol.md section 4). */
int32_t cmd_get_driver_state(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    uint32_t state;
    switch (coll->state) {
    case COLLECTION_RUNNING:
        state = 5;
        break;
    case COLLECTION_PAUSED:
        state = 3;
        break;
    case COLLECTION_STOPPED:
        state = 4;
        break;
    default:
        state = coll->have_drv_config ? 2 : 1;
        break;
    }
    return cmd_reply(req, &state, sizeof(state));
}

int32_t cmd_set_cpu_mask(struct cmd_request *req)
{
    struct collection *coll = req->coll;
    if (coll->state == COLLECTION_RUNNING || coll->state == COLLECTION_PAUSED)
        return SEP_STATUS_SAMP_IN_RUNNING_STATE;
    if (req->in_len < target.num_cpus)
        return SEP_STATUS_INVALID_CPU_MASK;
    /* acart samples on every CPU; a mask that leaves any out is refused rather than
     * silently ignored. */
    for (uint32_t i = 0; i < target.num_cpus; i++)
        if (!req->in[i])
            return SEP_STATUS_INVALID_CPU_MASK;
    return SEP_STATUS_SUCCESS;
}
