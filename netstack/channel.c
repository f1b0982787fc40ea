/* Channels: a fixed pool of connection slots, no allocation beyond lwIP's own pools. */
#include "channel.h"
#include "acart.h"
#include "acart_platform.h"
#include "acart_opts.h"

#include "lwip/priv/tcp_priv.h"
#include "lwip/sys.h"
#include "lwip/tcp.h"

#include <string.h>

/* Connections opened, closed and counted (accept, listen, close, abort, errors, keepalive,
 * statistics): a few times per session, cold, so GCC builds them for size as the runtime's
 * control plane (-Os); reads, sends and the poll, which move the records, stay at -O2. */
#define CONTROL_PLANE __attribute__((cold))

/* Control + (CPUs + 2) data channels, plus room for a refused second host. */
#define CHANNEL_POOL (ACA_MAX_CPUS + 8)
_Static_assert(MEMP_NUM_TCP_PCB >= CHANNEL_POOL + 4,
               "lwIP needs a pcb per channel, plus the listeners and the board's services");

#define LISTEN_BACKLOG (ACA_MAX_CPUS + 4)
_Static_assert(LISTEN_BACKLOG <= 255, "lwIP's backlog is a u8");

struct channel {
    struct tcp_pcb *pcb;
    struct pbuf *rx;    /* received, not yet read (tot_len is u16: not used) */
    uint32_t rx_offset; /* bytes of rx->payload already read */
    uint32_t rx_bytes;  /* unread bytes in rx */
    channel_event_fn fn;
    void *arg;
    int in_use;
    uint32_t send_cap; /* largest send offered now: halved by ERR_MEM, doubled by success
                          and by acknowledgements */
    /* Bytes tcp_write took and bytes the peer acknowledged (lwIP's sent callback), both
     * modulo 2^32: their difference is what lwIP may still send or resend. Counted here
     * rather than derived from snd_buf, which would need the TCP_SND_BUF of the lwIP the
     * port links, not the one libacart.a was compiled against. */
    uint32_t bytes_written;
    uint32_t bytes_acked;
};

/* The linked lwIP's TCP_SND_BUF, read from a new pcb by channel_listen (tcp_alloc sets
 * snd_buf to it): the value the port compiled its lwIP with, whatever this file saw. */
static uint32_t linked_snd_buf;

static struct channel pool[CHANNEL_POOL];

/* Connections the board closed and lwIP still works on (last bytes, FIN): each gets
 * ACA_CLOSE_LINGER_MS, then it is reset. A pcb is named by its pointer and its ports, as
 * lwIP may give a freed pcb's memory to a new connection. */
struct closing {
    struct tcp_pcb *pcb;
    u16_t local_port, remote_port;
    u32_t remote_ip;
    u32_t deadline_ms;
    int used;
};
static struct closing closing[CHANNEL_POOL];

/* lwIP requires a callback to return ERR_ABRT when its pcb was aborted during the
 * callback; owners may abort any channel from inside any event, so remember the last
 * pcb aborted and compare on the way out. */
static struct tcp_pcb *last_aborted;

static void abort_pcb(struct tcp_pcb *pcb)
{
    last_aborted = pcb;
    tcp_abort(pcb);
}

struct listener {
    channel_accept_fn on_accept;
    void *arg;
};
static struct listener listener;

/* Bytes received and never read are acknowledged to lwIP before a close: lwIP resets a
 * connection closed with unread data, which would throw away a reply still queued. */
static void give_back_window(struct channel *ch)
{
    for (uint32_t left = ch->rx_bytes; left && ch->pcb;) {
        u16_t chunk = left > 0xffff ? 0xffff : (u16_t)left;
        tcp_recved(ch->pcb, chunk);
        left -= chunk;
    }
}

static void release(struct channel *ch)
{
    if (ch->rx)
        pbuf_free(ch->rx);
    ch->rx = NULL;
    ch->rx_offset = 0;
    ch->rx_bytes = 0;
    ch->pcb = NULL;
    ch->fn = NULL;
    ch->in_use = 0;
}

static void detach(struct channel *ch)
{
    tcp_arg(ch->pcb, NULL);
    tcp_recv(ch->pcb, NULL);
    tcp_sent(ch->pcb, NULL);
    tcp_err(ch->pcb, NULL);
}

static void notify(struct channel *ch, enum channel_event ev)
{
    if (ch->fn)
        ch->fn(ch, ch->arg, ev);
}

// cppcheck-suppress constParameter ; lwIP's tcp_recv_fn signature
static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct channel *ch = arg;

    if (!ch) {
        if (p)
            pbuf_free(p);
        return ERR_OK;
    }
    if (!p || err != ERR_OK) {
        if (p)
            pbuf_free(p);
        detach(ch);
        last_aborted = NULL;
        notify(ch, CHANNEL_EVENT_CLOSED);
        if (last_aborted != pcb && ch->in_use && ch->pcb == pcb)
            channel_close(ch); /* our half too: the host is gone */
        return last_aborted == pcb ? ERR_ABRT : ERR_OK;
    }
    ch->rx_bytes += p->tot_len;
    if (ch->rx)
        pbuf_cat(ch->rx, p);
    else
        ch->rx = p;
    last_aborted = NULL;
    notify(ch, CHANNEL_EVENT_DATA);
    return last_aborted == pcb ? ERR_ABRT : ERR_OK;
}

// cppcheck-suppress constParameter ; lwIP's tcp_sent_fn signature
static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct channel *ch = arg;
    last_aborted = NULL;
    if (ch) {
        /* lwIP reports acknowledged data only (never the SYN or FIN), in u16 pieces. */
        ch->bytes_acked += len;
        /* Acknowledged segments left lwIP's send queue: a send refused for memory (the
         * queue's length limit, TCP_SND_QUEUELEN of the linked lwIP, which no pcb field
         * tells) may fit again. */
        ch->send_cap = ch->send_cap < CHANNEL_SEND_MAX / 2 ? ch->send_cap * 2 : CHANNEL_SEND_MAX;
        notify(ch, CHANNEL_EVENT_SENT);
    }
    return last_aborted == pcb ? ERR_ABRT : ERR_OK;
}

CONTROL_PLANE static void on_err(void *arg, err_t err)
{
    struct channel *ch = arg;
    (void)err;
    if (!ch)
        return;
    /* lwIP has already freed the pcb. */
    ch->pcb = NULL;
    notify(ch, CHANNEL_EVENT_CLOSED);
    release(ch);
}

CONTROL_PLANE static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    struct channel *ch = NULL;
    for (int i = 0; i < CHANNEL_POOL; i++) {
        if (!pool[i].in_use) {
            ch = &pool[i];
            break;
        }
    }
    if (!ch) {
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    memset(ch, 0, sizeof(*ch));
    ch->in_use = 1;
    ch->send_cap = CHANNEL_SEND_MAX;
    ch->pcb = pcb;
    tcp_arg(pcb, ch);
    tcp_recv(pcb, on_recv);
    tcp_sent(pcb, on_sent);
    tcp_err(pcb, on_err);
    tcp_nagle_disable(pcb);
    if (listener.on_accept(ch, listener.arg, ip4_addr_get_u32(&pcb->remote_ip)) != 0) {
        if (ch->in_use) {
            detach(ch);
            release(ch);
            tcp_abort(pcb);
        }
        return ERR_ABRT;
    }
    return ERR_OK;
}

CONTROL_PLANE int channel_listen(uint16_t port, channel_accept_fn fn, void *arg)
{
    struct tcp_pcb *pcb = tcp_new();
    if (!pcb)
        return ACA_ERR_NO_MEMORY;
    linked_snd_buf = pcb->snd_buf;
    if (linked_snd_buf < CHANNEL_SEND_MIN) {
        tcp_abort(pcb);
        return ACA_ERR_LWIP;
    }
    if (tcp_bind(pcb, IP_ADDR_ANY, port) != ERR_OK) {
        tcp_abort(pcb);
        return ACA_ERR_NET;
    }
    /* A host opens a session's data connections in one burst (CPUs + 2); a SYN beyond the
     * backlog is dropped and its sender retries only after a growing timeout, which on a
     * 64-CPU board outlasted the handshake timeout. */
    struct tcp_pcb *lpcb = tcp_listen_with_backlog(pcb, LISTEN_BACKLOG);
    if (!lpcb) {
        tcp_abort(pcb);
        return ACA_ERR_NO_MEMORY;
    }
    listener.on_accept = fn;
    listener.arg = arg;
    tcp_accept(lpcb, on_accept);
    return ACA_OK;
}

void channel_set_callback(struct channel *ch, channel_event_fn fn, void *arg)
{
    ch->fn = fn;
    ch->arg = arg;
}

uint16_t channel_remote_port(const struct channel *ch)
{
    return ch->pcb ? ch->pcb->remote_port : 0;
}

uint32_t channel_available(const struct channel *ch)
{
    return ch->rx_bytes;
}

uint32_t channel_read(struct channel *ch, void *buf, uint32_t len)
{
    uint32_t done = 0;
    uint8_t *out = buf;
    while (done < len && ch->rx) {
        struct pbuf *p = ch->rx;
        uint32_t left = p->len - ch->rx_offset;
        uint32_t n = len - done < left ? len - done : left;
        memcpy(out + done, (const uint8_t *)p->payload + ch->rx_offset, n);
        done += n;
        ch->rx_offset += n;
        if (ch->rx_offset == p->len) {
            /* Unlink the head: the chain's one reference to the rest passes to ch->rx, so
             * no pbuf_ref here (an extra reference would leak every buffer after the
             * first of a chain). */
            ch->rx = p->next;
            p->next = NULL;
            pbuf_free(p);
            ch->rx_offset = 0;
        }
    }
    ch->rx_bytes -= done;
    for (uint32_t left = done; left && ch->pcb;) {
        u16_t chunk = left > 0xffff ? 0xffff : (u16_t)left;
        tcp_recved(ch->pcb, chunk);
        left -= chunk;
    }
    return done;
}

uint32_t channel_lwip_snd_buf(void)
{
    return linked_snd_buf;
}

/* Free space of the send buffer as the linked lwIP counts it (its TCP_SND_BUF less the
 * bytes not yet acknowledged), capped by send_cap. lwIP's other limit, the segments and
 * pbufs a connection may queue (TCP_SND_QUEUELEN), is in no pcb field: a send beyond it
 * fails whole with ERR_MEM like any lack of memory, and send_cap backs off until
 * acknowledgements shorten the queue. */
uint32_t channel_send_room(const struct channel *ch)
{
    if (!ch->pcb)
        return 0;
    uint32_t room = tcp_sndbuf(ch->pcb);
    return room < ch->send_cap ? room : ch->send_cap;
}

/* One tcp_write per send: lwIP applies a tcp_write only once every pbuf and segment it
 * needs is allocated, so an ERR_MEM leaves nothing queued. Two writes could not be
 * undone when the second fails. */
static int send_whole(struct channel *ch, const void *buf, uint32_t len, u8_t flags)
{
    if (!ch->pcb)
        return ACA_ERR_NET;
    if (len > CHANNEL_SEND_MAX)
        return ACA_ERR_INVALID;
    if (len > channel_send_room(ch))
        return ACA_ERR_BUSY;
    if (len == 0)
        return ACA_OK;
    err_t e = tcp_write(ch->pcb, buf, (u16_t)len, flags);
    if (e == ERR_MEM) {
        /* The heap is shared by every connection, and the queue is limited: offer less
         * until sends fit again, never less than the largest message a caller must send
         * whole, so that one always goes once lwIP has the memory. */
        uint32_t half = len / 2;
        ch->send_cap = half > CHANNEL_SEND_MIN ? half : CHANNEL_SEND_MIN;
        return ACA_ERR_BUSY;
    }
    if (e != ERR_OK)
        return ACA_ERR_NET;
    ch->bytes_written += len;
    ch->send_cap = ch->send_cap < CHANNEL_SEND_MAX / 2 ? ch->send_cap * 2 : CHANNEL_SEND_MAX;
    return ACA_OK;
}

int channel_send(struct channel *ch, const void *buf, uint32_t len)
{
    return send_whole(ch, buf, len, TCP_WRITE_FLAG_COPY);
}

int channel_send_ref(struct channel *ch, const void *buf, uint32_t len)
{
    return send_whole(ch, buf, len, 0);
}

uint32_t channel_unacked(const struct channel *ch)
{
    return ch->pcb ? ch->bytes_written - ch->bytes_acked : 0;
}

CONTROL_PLANE void channel_set_keepalive(struct channel *ch, uint32_t idle_ms, uint32_t interval_ms,
                                         uint32_t count)
{
    if (!ch->pcb)
        return;
    ip_set_option(ch->pcb, SOF_KEEPALIVE);
    ch->pcb->keep_idle = idle_ms;
    ch->pcb->keep_intvl = interval_ms;
    ch->pcb->keep_cnt = count;
}

void channel_flush(struct channel *ch)
{
    if (ch->pcb)
        tcp_output(ch->pcb);
}

/* Returns the slot that will track pcb once it is closed, or NULL when all are taken. */
static struct closing *track_closing(struct tcp_pcb *pcb)
{
    for (int i = 0; i < CHANNEL_POOL; i++) {
        if (!closing[i].used) {
            closing[i].pcb = pcb;
            closing[i].local_port = pcb->local_port;
            closing[i].remote_port = pcb->remote_port;
            closing[i].remote_ip = ip4_addr_get_u32(&pcb->remote_ip);
            closing[i].deadline_ms = sys_now() + ACA_CLOSE_LINGER_MS;
            return &closing[i];
        }
    }
    return NULL;
}

CONTROL_PLANE void channel_close(struct channel *ch)
{
    if (ch->pcb) {
        struct tcp_pcb *pcb = ch->pcb;
        give_back_window(ch);
        detach(ch);
        release(ch);
        /* Named before the close: lwIP may free the pcb inside tcp_close (a reset instead
         * of a FIN), after which only the active list can say whether it lives. */
        struct closing *c = track_closing(pcb);
        if (!c) {
            abort_pcb(pcb); /* nowhere to track it: reset rather than linger unbounded */
            return;
        }
        tcp_output(pcb);
        if (tcp_close(pcb) != ERR_OK)
            abort_pcb(pcb);
        else
            c->used = 1; /* channel_poll drops it once it has left the active list */
        return;
    }
    release(ch);
}

CONTROL_PLANE void channel_abort(struct channel *ch)
{
    if (ch->pcb) {
        struct tcp_pcb *pcb = ch->pcb;
        detach(ch);
        release(ch);
        abort_pcb(pcb);
        return;
    }
    release(ch);
}

static struct tcp_pcb *find(struct tcp_pcb *list, const struct closing *c)
{
    for (struct tcp_pcb *p = list; p; p = p->next)
        if (p == c->pcb && p->local_port == c->local_port && p->remote_port == c->remote_port &&
            ip4_addr_get_u32(&p->remote_ip) == c->remote_ip)
            return p;
    return NULL;
}

uint32_t channel_poll(void)
{
    uint32_t left = 0;
    u32_t now = sys_now();
    for (int i = 0; i < CHANNEL_POOL; i++) {
        struct closing *c = &closing[i];
        if (!c->used)
            continue;
        struct tcp_pcb *tw = find(tcp_tw_pcbs, c);
        if (tw) {
            /* Done; and not left in TIME_WAIT for lwIP's 2 x MSL (two minutes): a host
             * that reuses the port (through a NAT that is likely) would get its SYN
             * answered by the old connection's ACK, and no connection, for that long. */
            c->used = 0;
            tcp_abort(tw); /* a TIME_WAIT pcb is freed without a reset */
            continue;
        }
        if (!find(tcp_active_pcbs, c)) {
            c->used = 0; /* finished */
            continue;
        }
        if ((int32_t)(now - c->deadline_ms) >= 0) {
            c->used = 0;
            tcp_abort(c->pcb);
            continue;
        }
        left++;
    }
    return left;
}

static uint32_t count_pcbs(const struct tcp_pcb *p)
{
    uint32_t n = 0;
    for (; p; p = p->next)
        n++;
    return n;
}

__attribute__((weak)) int aca_port_net_memory(struct aca_net_memory *out)
{
    (void)out;
    return -1;
}

CONTROL_PLANE void channel_net_stats(struct channel_net_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->tcp_active = count_pcbs(tcp_active_pcbs);
    out->tcp_time_wait = count_pcbs(tcp_tw_pcbs);
    for (int i = 0; i < CHANNEL_POOL; i++)
        out->channels_open += pool[i].in_use ? 1u : 0u;
    struct aca_net_memory m;
    if (aca_port_net_memory(&m) == 0) {
        out->memory_known = 1;
        out->heap_used = m.heap_used;
        out->pbuf_pool_used = m.pbuf_pool_used;
        out->tcp_segs_used = m.tcp_segs_used;
        out->tcp_pcbs_used = m.tcp_pcbs_used;
    }
}
