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
#include "uncore.h"

#include <string.h>

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
        l->queued_bytes += n * r->record_size;
    }
    channel_flush(l->ch);
    if (closing && ring_used(r) == 0) {
        struct channel *c = l->ch;
        l->ch = 0;
        l->finished = 1;
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
        l->queued_bytes += n;
    }
    channel_flush(l->ch);
    if (closing && m->sent == m->len) {
        struct channel *c = l->ch;
        l->ch = 0;
        l->finished = 1;
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
                l->queued_bytes += queued;
                if (closing && ended) {
                    struct channel *c = l->ch;
                    l->ch = 0;
                    l->finished = 1;
                    channel_close(c);
                }
            }
            break;
        default: /* uncore */
            if (streaming) {
                uint32_t queued = 0;
                int done = uncore_drain(l->ch, &queued);
                l->window_bytes += queued;
                l->queued_bytes += queued;
                if (closing && done) {
                    struct channel *c = l->ch;
                    l->ch = 0;
                    l->finished = 1;
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
