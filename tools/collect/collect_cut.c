/* Cut is cut (see collect_internal.h): whether a collection that failed after START lost
 * records on its data channels, the message that names each channel the target never
 * confirmed, and the check of a finished collection's channels against what the target
 * says it queued on each.
 *
 * A data channel's end of file proves nothing. The target resets a data connection that
 * still holds records when its session ends (a host that stopped reading, a dead link, a
 * handshake or keepalive timeout), but QEMU's user network, and any NAT or proxy that
 * ends the connection on the target's behalf, hands that reset on to the host as a plain
 * FIN. So the host never takes an end of file as a whole stream: a channel is whole only
 * when the target, on a control connection still up after the drain, says it sent what
 * the host holds (collect_check_counts: GET_SAMPLE_DROP_INFO per CPU, GET_NUM_SAMPLES in
 * all; collect_check_channels: ACART_OP_GET_CHANNEL_TOTALS, every channel, the module
 * channel's only check). Without that word, because the control connection ended first,
 * or the host gave up on a silent channel, or a channel was reset or ended inside a
 * record, every channel of the collection is cut, and collect says so instead of the step
 * that noticed. */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "collect_internal.h"
#include "collect_net.h"

/* How long a collection cut short still reads its data connections, and the silence that
 * ends that sooner. */
#define LINGER_S 5.0
#define QUIET_S  1.0

int collect_control_lost(const struct collection *c)
{
    char byte;
    if (c->link.control < 0)
        return 0; /* closed by the host itself */
    struct pollfd p = {c->link.control, POLLIN, 0};
    return poll(&p, 1, 0) > 0 && recv(c->link.control, &byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

/* The channels that carry this collection's data: every CPU channel and the module
 * channel; the uncore and PT channels only when the collection uses them (else the
 * target closes them empty at STOP). */
static int carries(const struct collection *c, const struct data_channel *ch)
{
    if (ch->link.type == SEP_DATA_UNCORE)
        return c->opt.uncore.num_events != 0;
    if (ch->link.type == ACART_DATA_PT)
        return c->opt.pt.enabled;
    return 1;
}

/* The target is gone, but what its data connections still hold on the way (the host's
 * socket buffers, a NAT's) is theirs: read to the end, for at most LINGER_S and while it
 * keeps coming, so that the files keep every record that arrived and the message says what
 * the host holds. */
static void read_what_is_left(struct collection *c)
{
    double start = net_now(), last = start;
    uint64_t seen = atomic_load(&c->reader.bytes);
    while (c->reader.running && atomic_load(&c->reader.open) > 0 &&
           !atomic_load(&c->reader.failed) && net_now() - start < LINGER_S &&
           net_now() - last < QUIET_S) {
        poll(NULL, 0, 50);
        uint64_t bytes = atomic_load(&c->reader.bytes);
        if (bytes != seen) {
            seen = bytes;
            last = net_now();
        }
    }
}

int collect_channels_cut(struct collection *c)
{
    /* Before START went through no record was on its way. */
    if (!c->started || !c->reader.ch)
        return 0;
    int lost = c->link.lost || collect_control_lost(c);
    if (lost)
        read_what_is_left(c);
    data_reader_join(&c->reader); /* its counts are final from here */
    if (lost || c->drain_gave_up)
        return 1;
    for (size_t i = 0; i < c->reader.n; i++) {
        const struct data_channel *ch = &c->reader.ch[i];
        if (ch->reset || (ch->scanned && ch->eof && ch->scan.carry_len))
            return 1;
    }
    return 0;
}

/* One channel's part of the message: "data channel of CPU 1 was cut after 37 records and
 * 212 bytes of a record (reset)". */
static size_t describe(const struct collection *c, const struct data_channel *ch, int first,
                       char *buf, size_t size)
{
    char name[32];
    int n;
    data_channel_name(ch, name, sizeof name);
    const char *how = ch->reset ? " (reset)" : !ch->eof ? " (still open)" : "";
    if (ch->link.type == ACART_DATA_PT)
        n = snprintf(buf, size, "%s%s%s after %" PRIu64 " bytes%s", first ? "" : ", ", name,
                     first ? " was cut" : "", (uint64_t)atomic_load(&c->reader.pt_bytes), how);
    else if (!ch->scanned)
        n = snprintf(buf, size, "%s%s%s after %" PRIu64 " bytes%s", first ? "" : ", ", name,
                     first ? " was cut" : "", ch->bytes, how);
    else if (ch->scan.carry_len)
        n = snprintf(buf, size, "%s%s%s after %" PRIu64 " records and %zu bytes of a record%s",
                     first ? "" : ", ", name, first ? " was cut" : "", ch->scan.records,
                     ch->scan.carry_len, how);
    else
        n = snprintf(buf, size, "%s%s%s after %" PRIu64 " records%s", first ? "" : ", ", name,
                     first ? " was cut" : "", ch->scan.records, how);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

int collect_report_cut(struct collection *c, struct diag *d)
{
    char msg[sizeof d->msg];
    size_t len = 0;
    int first = 1;
    data_reader_join(&c->reader);
    /* The channels with the evidence first (reset, still open, ended inside a record),
     * then those that ended on a record boundary: a FIN that may have been a reset. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < c->reader.n; i++) {
            const struct data_channel *ch = &c->reader.ch[i];
            int evident = ch->reset || !ch->eof || (ch->scanned && ch->scan.carry_len);
            if (!carries(c, ch) || evident != (pass == 0))
                continue;
            len += describe(c, ch, first, msg + len, sizeof msg - len);
            first = 0;
        }
    }
    const char *cause = d->msg[0] ? d->msg : "the collection failed";
    snprintf(msg + len, sizeof msg - len,
             ": the target never confirmed what it sent, so the collection is incomplete (%s)",
             cause);
    return diag_fail(d, COLLECT_DIAG_TARGET, "%s", msg);
}

/* The reader's channel the target's entry speaks of, or NULL. */
static const struct data_channel *channel_of(const struct collection *c,
                                             const struct acart_channel_total *e)
{
    for (size_t i = 0; i < c->reader.n; i++) {
        const struct data_channel *ch = &c->reader.ch[i];
        if (ch->link.type == e->data_type &&
            (e->data_type != SEP_DATA_CPU || ch->link.id == e->data_id))
            return ch;
    }
    return NULL;
}

int collect_check_channels(const struct collection *c, struct diag *d)
{
    for (uint32_t i = 0; c->have_totals && i < c->totals.size; i++) {
        const struct acart_channel_total *e = &c->totals.channel[i];
        const struct data_channel *ch = channel_of(c, e);
        if (!ch)
            continue; /* a channel of the session this collection does not read */
        char name[32];
        data_channel_name(ch, name, sizeof name);
        uint64_t got =
            ch->link.type == ACART_DATA_PT ? (uint64_t)atomic_load(&c->reader.pt_bytes) : ch->bytes;
        uint32_t size = c->layout.sample_size;
        if (!(e->flags & ACART_CHANNEL_FINISHED))
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "%s was cut after %" PRIu64 " bytes: the target never finished it "
                             "(GET_CHANNEL_TOTALS: %" PRIu64 " bytes queued), so the collection "
                             "is incomplete",
                             name, got, (uint64_t)e->bytes);
        if (got == e->bytes)
            continue;
        if (got < e->bytes && ch->link.type == SEP_DATA_CPU && size)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "%s was cut after %" PRIu64 " of %" PRIu64 " records (GET_CHANNEL_"
                             "TOTALS: %" PRIu64 " of %" PRIu64 " bytes), so the collection is "
                             "incomplete",
                             name, got / size, (uint64_t)e->bytes / size, got, (uint64_t)e->bytes);
        if (got < e->bytes)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "%s was cut after %" PRIu64 " of %" PRIu64 " bytes (GET_CHANNEL_"
                             "TOTALS), so the collection is incomplete",
                             name, got, (uint64_t)e->bytes);
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "%s: received %" PRIu64 " bytes, the target reports %" PRIu64
                         " queued (GET_CHANNEL_TOTALS)",
                         name, got, (uint64_t)e->bytes);
    }
    return 0;
}
