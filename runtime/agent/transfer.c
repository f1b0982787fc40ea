/* Moving records from RAM to the host: per-CPU rings to the CPU data channels, module
 * records to the module channel, Intel PT trace to the PT channel (pt_session.c).
 *
 * Delayed transfer drains only after STOP; immediate transfer drains while collecting
 * too. Only whole records are sent (a channel takes a run of records or none), so the
 * host never sees half a record and the count delivered is the count consumed, which
 * is the count the host acknowledged. After
 * STOP, each data channel is closed once everything it carries is queued: the host reads
 * until end of file. */
#include "collection.h"
#include "control.h"
#include "target.h"
#include "transfer.h"
#include "pt_session.h"
#include "task_events.h"
#include "uncore.h"

#include <string.h>

#define MAX_PORT_MODULES 32

static struct aca_module_info port_modules[MAX_PORT_MODULES];
static struct module_event module_events[ACA_MAX_MODULE_EVENTS];

/* Records go out without a copy: lwIP sends, and resends, from the ring itself, so a
 * record's slot goes back to the sampler only once the host has acknowledged it. */
static void drain_cpu(struct data_link *l, int closing)
{
    struct ring *r = sampler_ring(l->id);
    if (!r)
        return;
    uint32_t unacked = channel_unacked(l->ch);
    uint32_t held_bytes = l->records_held * r->record_size;
    if (unacked < held_bytes) {
        uint32_t acked = (held_bytes - unacked) / r->record_size;
        ring_consume(r, acked);
        l->records_held -= acked;
    }
    for (;;) {
        const void *data;
        uint32_t n = ring_peek_after(r, l->records_held, &data);
        uint32_t fit = channel_send_room(l->ch) / r->record_size;
        if (n > fit)
            n = fit;
        if (n == 0)
            break;
        if (channel_send_ref(l->ch, data, n * r->record_size) != ACA_OK)
            break;
        l->records_held += n;
        l->window_bytes += n * r->record_size;
    }
    channel_flush(l->ch);
    if (closing && ring_used(r) == 0) {
        struct channel *c = l->ch;
        l->ch = 0;
        channel_close(c);
    }
}

static void drain_modules(struct data_link *l, int closing)
{
    struct module_stream *m = &collection.modules;
    uint32_t left = m->len - m->sent;
    uint32_t room = channel_send_room(l->ch);
    uint32_t n = left < room ? left : room;
    if (n && channel_send(l->ch, m->bytes + m->sent, n) == ACA_OK) {
        m->sent += n;
        l->window_bytes += n;
    }
    channel_flush(l->ch);
    if (closing && m->sent == m->len) {
        struct channel *c = l->ch;
        l->ch = 0;
        channel_close(c);
    }
}

void transfer_pump(void)
{
    if (collection.state == COLLECTION_RUNNING && uncore_running())
        uncore_poll(target_now_ms());
    if (control_response_waiting())
        return;
    if (!session.control_handshaken)
        return;
    int closing = collection.state == COLLECTION_STOPPED;
    int streaming =
        closing ||
        ((collection.state == COLLECTION_RUNNING || collection.state == COLLECTION_PAUSED) &&
         target.cfg.transfer == ACA_TRANSFER_IMMEDIATE);
    int collecting =
        closing || collection.state == COLLECTION_RUNNING || collection.state == COLLECTION_PAUSED;
    for (uint32_t i = 0; i < session.data_accepted; i++) {
        struct data_link *l = &session.links[i];
        if (!l->ch || !l->handshaken)
            continue;
        switch (l->type) {
        case SEP_DATA_CPU:
            if (streaming)
                drain_cpu(l, closing);
            break;
        case SEP_DATA_MODULE:
            if (collecting)
                drain_modules(l, closing);
            break;
        case ACART_DATA_PT:
            if (streaming) {
                uint32_t queued = 0;
                int ended = pt_session_drain(l->ch, &queued);
                l->window_bytes += queued;
                if (closing && ended) {
                    struct channel *c = l->ch;
                    l->ch = 0;
                    channel_close(c);
                }
            }
            break;
        default: /* uncore */
            if (streaming) {
                uint32_t queued = 0;
                int done = uncore_drain(l->ch, &queued);
                l->window_bytes += queued;
                if (closing && done) {
                    struct channel *c = l->ch;
                    l->ch = 0;
                    channel_close(c);
                }
            }
            break;
        }
    }
}

/* Records wait for this link and its send buffer cannot take the next one. */
static int blocked(const struct data_link *l)
{
    uint32_t room = channel_send_room(l->ch);
    if (l->type == SEP_DATA_CPU) {
        struct ring *r = sampler_ring(l->id);
        return r && ring_used(r) != 0 && room < r->record_size;
    }
    if (l->type == SEP_DATA_MODULE)
        return collection.modules.sent < collection.modules.len && room == 0;
    if (l->type == ACART_DATA_PT)
        return pt_session_blocked(l->ch);
    if (l->type == SEP_DATA_UNCORE)
        return uncore_blocked(l->ch);
    return 0;
}

/* Checked once per window of drain_stall_ms: a link blocked at the end of a window in
 * which it took fewer than drain_min_bytes has a host that stopped reading. */
const struct data_link *transfer_stalled(uint64_t now_ms)
{
    if (!session.handshake_done)
        return 0;
    for (uint32_t i = 0; i < session.data_accepted; i++) {
        struct data_link *l = &session.links[i];
        if (!l->ch || now_ms - l->window_start_ms < target.drain_stall_ms)
            continue;
        if (blocked(l) && l->window_bytes < target.drain_min_bytes)
            return l;
        l->window_start_ms = now_ms;
        l->window_bytes = 0;
    }
    return 0;
}

/* One ModuleRecord and its path; the record length is kept a multiple of 8 as the
 * reference does. A load record carries the load TSC (0: loaded before anything, like the
 * image) and an all-ones unload TSC; an unload record has SEP_MODREC_SEG_UNLOAD and the
 * unload TSC (docs/sep-protocol.md section 6). */
static void append_module(uint32_t pid, uint64_t start, uint64_t length, const char *name,
                          int unload, uint64_t tsc)
{
    struct module_stream *m = &collection.modules;
    uint32_t path_len = (uint32_t)strlen(name) + 1;
    if (path_len > 0xffff - sizeof(struct sep_module_record) - 8)
        path_len = 0xffff - sizeof(struct sep_module_record) - 8;
    uint32_t rec_len = ((uint32_t)sizeof(struct sep_module_record) + path_len + 7) & ~7u;
    if (m->len + rec_len > sizeof(m->bytes)) {
        m->overflow++;
        return;
    }
    struct sep_module_record r;
    memset(&r, 0, sizeof(r));
    r.rec_length = (uint16_t)rec_len;
    r.segment_bits = SEP_MODE_32BIT & SEP_MODREC_SEG_TYPE_MASK;
    if (unload)
        r.segment_bits |= SEP_MODREC_SEG_UNLOAD;
    r.selector = 0x08;    /* the board's one code segment */
    r.segment_number = 2; /* what the reference records on a 32-bit kernel */
    r.flags = SEP_MODREC_EXE | SEP_MODREC_PID_RAW | SEP_MODREC_TSC_USED;
    if (pid == 0)
        r.flags |= SEP_MODREC_GLOBAL_MODULE | SEP_MODREC_GLOBAL_MODULE_TB5;
    r.length64 = length;
    r.load_addr64 = start;
    r.pid_rec_index = pid;
    r.unload_tsc = unload ? tsc : ~0ull;
    r.path_length = (uint16_t)path_len;
    const char *base = strrchr(name, '/');
    r.filename_offset = (uint16_t)(base ? base + 1 - name : 0);
    r.tsc = tsc;
    memcpy(m->bytes + m->len, &r, sizeof(r));
    memset(m->bytes + m->len + sizeof(r), 0, rec_len - sizeof(r));
    memcpy(m->bytes + m->len + sizeof(r), name, path_len - 1);
    m->len += rec_len;
}

void transfer_queue_modules(void)
{
    struct module_stream *m = &collection.modules;
    m->len = m->sent = m->overflow = 0;
    int n = aca_port_module_list(port_modules, MAX_PORT_MODULES);
    if (n > MAX_PORT_MODULES)
        n = MAX_PORT_MODULES;
    for (int i = 0; i < n; i++) {
        port_modules[i].name[sizeof(port_modules[i].name) - 1] = 0;
        append_module(port_modules[i].pid, port_modules[i].start, port_modules[i].length,
                      port_modules[i].name, 0, 0);
    }
    /* Modules the port loaded at run time and that are still there. */
    int e = task_events_modules(module_events, ACA_MAX_MODULE_EVENTS);
    for (int i = 0; i < e; i++)
        if (module_events[i].unload_tsc == 0)
            append_module(module_events[i].pid, module_events[i].start, module_events[i].length,
                          module_events[i].name, 0, module_events[i].load_tsc);
}

void transfer_queue_module_changes(uint64_t since_tsc)
{
    int e = task_events_modules(module_events, ACA_MAX_MODULE_EVENTS);
    for (int i = 0; i < e; i++) {
        const struct module_event *ev = &module_events[i];
        if (ev->load_tsc >= since_tsc)
            append_module(ev->pid, ev->start, ev->length, ev->name, 0, ev->load_tsc);
        if (ev->unload_tsc && ev->unload_tsc >= since_tsc)
            append_module(ev->pid, ev->start, ev->length, ev->name, 1, ev->unload_tsc);
    }
}

uint64_t transfer_records_committed(void)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < sampler_num_cpus(); i++) {
        struct sampler_cpu_counts c;
        sampler_counts(i, &c);
        total += c.sampled - c.dropped;
    }
    return total;
}
