/* All-or-nothing sends through the real lwIP (2.2.1, built for the host with a heap a
 * third the size of the send buffer): a channel on the board side, a raw pcb as the host,
 * over lwIP's loopback in one process.
 *
 * The sender drains a numbered record stream the way transfer.c drains a ring: as many
 * whole records as channel_send_room() allows, consumed only when channel_send says
 * ACA_OK, resent otherwise. Before most sends the test takes lwIP's heap down to a random
 * amount of free memory (a real allocation from that heap, given back after the send),
 * so tcp_write runs out of memory at every point of a send: before its first segment or
 * after building some of its up to 45. The receiver must get every record exactly once
 * and in order, and a refused send must leave the connection's send queue exactly as it
 * was.
 *
 * With --ref the sender drains a ring the way transfer.c drains a CPU's ring: without a
 * copy (channel_send_ref), a slot released only once channel_unacked() shows the host
 * has it, and a released slot refilled at once with a later record. A slot released
 * while lwIP still sends or resends from it reaches the host as a wrong record.
 *
 * (Before one send became one tcp_write, channel_send split a send into 64 KiB writes; it
 * never got more than tcp_sndbuf(), which lwIP caps at 0xffff, so that split was never
 * reached. One tcp_write per send makes all-or-nothing a property of the code, checked
 * here, rather than of a cap elsewhere.) */
#include "acart.h"
#include "acart_check.h"
#include "acart_platform.h"
#include "channel.h"

#include "lwip/init.h"
#include "lwip/mem.h"
#include "lwip/netif.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PORT    9321
#define RECORD  48 /* a sample record: 65535 is not a multiple of it */
#define RECORDS 300000u

static u32_t now_ms;

/* The port's hook for lwIP's memory use (acart.h), as the qemu-pc board implements it. */
int aca_port_net_memory(struct aca_net_memory *out)
{
    out->heap_used = (uint32_t)lwip_stats.mem.used;
    out->pbuf_pool_used = (uint32_t)lwip_stats.memp[MEMP_PBUF_POOL]->used;
    out->tcp_segs_used = (uint32_t)lwip_stats.memp[MEMP_TCP_SEG]->used;
    out->tcp_pcbs_used = (uint32_t)lwip_stats.memp[MEMP_TCP_PCB]->used;
    return 0;
}

u32_t sys_now(void)
{
    return now_ms;
}

uint32_t netstack_random(void)
{
    static uint32_t state = 0x12345678u;
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

void netstack_assert_failed(const char *msg, const char *file, int line)
{
    printf("lwIP assertion \"%s\" failed at %s:%d\n", msg, file, line);
    abort();
}

/* ---- The board side: one accepted channel, drained like a ring. ---- */
static struct channel *board;
static uint64_t next_to_send; /* records consumed from the "ring" */
static uint64_t sends_ok, sends_busy_memory, sends_busy_room, sends_failed_midway;
static int pump_on_ack;
static int by_reference;

/* --ref: the ring. Record s lives in slot s % RING_RECORDS from when it is produced
 * until the host acknowledges it. */
#define RING_RECORDS 3000 /* not a divisor of anything in lwIP */
static uint8_t ring[RING_RECORDS * RECORD];
static uint64_t ring_tail, ring_held, ring_produced; /* records */

/* The board pcb's free send buffer, from lwIP's own list: a refused send must not move it. */
static uint16_t host_port;
static uint32_t tcp_sndbuf_of_board(void)
{
    for (struct tcp_pcb *p = tcp_active_pcbs; p; p = p->next)
        if (p->local_port == PORT && p->remote_port == host_port)
            return (uint32_t)tcp_sndbuf(p) + 0x100000u * tcp_sndqueuelen(p);
    return 0;
}

static void make_record(uint64_t seq, uint8_t *out)
{
    for (unsigned i = 0; i < RECORD; i += 8) {
        uint64_t v = seq * 0x9e3779b97f4a7c15ull + i;
        memcpy(out + i, &v, 8);
    }
    memcpy(out, &seq, 8);
}

/* Leaves between 1 and 160 KiB of lwIP's heap free (3 sends in 4), the rest taken by
 * one allocation the caller frees; a send of up to 64 KiB needs about 70 KiB. */
static void *squeeze_heap(void)
{
    if (netstack_random() % 4 == 0)
        return NULL;
    uint32_t used = (uint32_t)lwip_stats.mem.used;
    uint32_t leave = 1024 + netstack_random() % (160 * 1024);
    if (used + leave + 64 >= MEM_SIZE)
        return NULL;
    return mem_malloc((mem_size_t)(MEM_SIZE - used - leave));
}

static void produce(void)
{
    for (; ring_produced < RECORDS && ring_produced < ring_tail + RING_RECORDS; ring_produced++)
        make_record(ring_produced, ring + (ring_produced % RING_RECORDS) * RECORD);
}

static void drain_ring(void)
{
    uint32_t unacked = channel_unacked(board);
    if (unacked < ring_held * RECORD) {
        uint64_t acked = (ring_held * RECORD - unacked) / RECORD;
        ring_tail += acked;
        ring_held -= acked;
    }
    produce();
    for (;;) {
        uint64_t next = ring_tail + ring_held;
        uint64_t n = ring_produced - next;
        uint64_t contiguous = RING_RECORDS - next % RING_RECORDS;
        uint32_t room = channel_send_room(board);
        if (n > contiguous)
            n = contiguous;
        if (n > room / RECORD)
            n = room / RECORD;
        if (n == 0) {
            sends_busy_room++;
            break;
        }
        uint32_t unacked_before = channel_unacked(board);
        void *ballast = squeeze_heap();
        uint32_t heap_free = MEM_SIZE - (uint32_t)lwip_stats.mem.used;
        int rc =
            channel_send_ref(board, ring + (next % RING_RECORDS) * RECORD, (uint32_t)(n * RECORD));
        if (ballast)
            mem_free(ballast);
        if (rc == ACA_ERR_BUSY && heap_free > 4 * 200)
            sends_failed_midway++;
        if (rc != ACA_OK) {
            CHECK_MSG(rc == ACA_ERR_BUSY, "channel_send_ref: %d", rc);
            CHECK_MSG(channel_unacked(board) == unacked_before, "a refused send queued something");
            sends_busy_memory++;
            break;
        }
        CHECK_MSG(channel_unacked(board) == unacked_before + n * RECORD,
                  "unacknowledged bytes %" PRIu32 " after queueing %" PRIu64 " on %" PRIu32,
                  channel_unacked(board), n * RECORD, unacked_before);
        ring_held += n;
        sends_ok++;
    }
    channel_flush(board);
}

static void drain(void)
{
    if (by_reference) {
        if (board && ring_tail < RECORDS)
            drain_ring();
        return;
    }
    static uint8_t buf[CHANNEL_SEND_MAX];
    while (board && next_to_send < RECORDS) {
        uint32_t room = channel_send_room(board);
        uint64_t n = room / RECORD;
        if (n > RECORDS - next_to_send)
            n = RECORDS - next_to_send;
        if (n == 0) {
            sends_busy_room++;
            break;
        }
        for (uint64_t i = 0; i < n; i++)
            make_record(next_to_send + i, buf + i * RECORD);
        uint32_t sndbuf = tcp_sndbuf_of_board();
        void *ballast = squeeze_heap();
        uint32_t heap_free = MEM_SIZE - (uint32_t)lwip_stats.mem.used;
        int rc = channel_send(board, buf, (uint32_t)(n * RECORD));
        if (ballast)
            mem_free(ballast);
        /* Room for a few segments but not for all: tcp_write built some, then failed. */
        if (rc == ACA_ERR_BUSY && heap_free > 4 * (TCP_MSS + 200))
            sends_failed_midway++;
        if (rc != ACA_OK) {
            CHECK_MSG(rc == ACA_ERR_BUSY, "channel_send: %d", rc);
            /* lwIP said ERR_MEM although the room was there: nothing may have been queued
             * (the room may only shrink: the channel offers less after ERR_MEM). */
            CHECK_MSG(channel_send_room(board) <= room && tcp_sndbuf_of_board() == sndbuf,
                      "a refused send queued something: send buffer %" PRIu32 " -> %" PRIu32,
                      sndbuf, tcp_sndbuf_of_board());
            sends_busy_memory++;
            break;
        }
        next_to_send += n;
        sends_ok++;
    }
    if (board)
        channel_flush(board);
}

static void on_board_event(struct channel *ch, void *arg, enum channel_event ev)
{
    (void)arg;
    if (ev == CHANNEL_EVENT_SENT) {
        /* Like the agent, which pumps on every acknowledgement and on every poll; the test
         * pumps on its 25 ms steps too (run()), so that room piles up and a drain starts
         * with a full send buffer, as it does at STOP. */
        if (pump_on_ack)
            drain();
    } else if (ev == CHANNEL_EVENT_CLOSED)
        board = NULL;
    else {
        uint8_t sink[64];
        while (channel_read(ch, sink, sizeof sink))
            ;
    }
}

static int on_board_accept(struct channel *ch, void *arg, uint32_t remote_ip)
{
    (void)arg;
    (void)remote_ip;
    if (board)
        return -1;
    board = ch;
    channel_set_callback(ch, on_board_event, NULL);
    return 0;
}

/* ---- The host side: a raw pcb that checks the stream record by record. ---- */
static uint8_t partial[RECORD];
static uint32_t partial_len;
static uint64_t next_expected, bad_records;
static int host_connected;

static void take(const uint8_t *p, uint32_t len)
{
    while (len) {
        uint32_t n = RECORD - partial_len < len ? RECORD - partial_len : len;
        memcpy(partial + partial_len, p, n);
        partial_len += n;
        p += n;
        len -= n;
        if (partial_len == RECORD) {
            uint8_t want[RECORD];
            make_record(next_expected, want);
            if (memcmp(partial, want, RECORD) != 0) {
                uint64_t got;
                memcpy(&got, partial, 8);
                if (bad_records++ < 5)
                    printf("record %" PRIu64 ": got sequence %" PRIu64 "\n", next_expected, got);
            }
            next_expected++;
            partial_len = 0;
        }
    }
}

static err_t on_host_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    (void)arg;
    (void)err;
    if (!p)
        return ERR_OK;
    for (struct pbuf *q = p; q; q = q->next)
        take(q->payload, q->len);
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    return ERR_OK;
}

static err_t on_host_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    (void)pcb;
    host_connected = err == ERR_OK;
    return ERR_OK;
}

/* The wire: every packet the stack sends is copied into pool buffers (the heap stays the
 * senders' alone, as on the board, whose NIC sends from the segment itself) and fed back
 * to the stack's input on the next step, so both pcbs of the one stack hear each other. */
#define WIRE_SLOTS 512
static struct pbuf *wire[WIRE_SLOTS];
static unsigned wire_head, wire_len;
static uint64_t wire_dropped;

static err_t wire_output(struct netif *netif, struct pbuf *p, const ip4_addr_t *dst)
{
    (void)netif;
    (void)dst;
    /* --ref: a lossy link, so that lwIP resends from the ring. */
    if (by_reference && netstack_random() % 50 == 0) {
        wire_dropped++;
        return ERR_OK;
    }
    struct pbuf *q = wire_len < WIRE_SLOTS ? pbuf_alloc(PBUF_RAW, p->tot_len, PBUF_POOL) : NULL;
    if (!q || pbuf_copy(q, p) != ERR_OK) {
        if (q)
            pbuf_free(q);
        wire_dropped++; /* TCP retransmits it, as it would on a lossy link */
        return ERR_OK;
    }
    wire[(wire_head + wire_len++) % WIRE_SLOTS] = q;
    return ERR_OK;
}

static void wire_deliver(struct netif *netif)
{
    for (unsigned n = wire_len; n; n--) {
        struct pbuf *q = wire[wire_head];
        wire_head = (wire_head + 1) % WIRE_SLOTS;
        wire_len--;
        if (netif->input(q, netif) != ERR_OK)
            pbuf_free(q);
    }
}

static err_t netif_setup(struct netif *netif)
{
    netif->output = wire_output;
    netif->mtu = 1500;
    return ERR_OK;
}

static struct netif nif;

static void run(unsigned ms)
{
    for (unsigned i = 0; i < ms; i++) {
        now_ms++;
        wire_deliver(&nif);
        sys_check_timeouts();
        pump_on_ack = (now_ms / 1000) % 2; /* alternate seconds: on acks, or every 25 ms */
        if (pump_on_ack || now_ms % 25 == 0)
            drain();
    }
}

int main(int argc, char **argv)
{
    by_reference = argc > 1 && strcmp(argv[1], "--ref") == 0;
    ip4_addr_t ip, mask, gw;
    lwip_init();
    IP4_ADDR(&ip, 10, 0, 0, 1);
    IP4_ADDR(&mask, 255, 255, 255, 0);
    IP4_ADDR(&gw, 0, 0, 0, 0);
    netif_add(&nif, &ip, &mask, &gw, NULL, netif_setup, ip4_input);
    netif_set_default(&nif);
    netif_set_link_up(&nif);
    netif_set_up(&nif);

    struct channel_net_stats before;
    channel_net_stats(&before);
    CHECK_MSG(channel_listen(PORT, on_board_accept, NULL) == ACA_OK, "listen");
    struct tcp_pcb *host = tcp_new();
    tcp_recv(host, on_host_recv);
    CHECK_MSG(tcp_connect(host, &ip, PORT, on_host_connected) == ERR_OK, "connect");
    run(50);
    host_port = host->local_port;
    CHECK_MSG(host_connected && board, "no connection (host %d, board %p)", host_connected,
              (void *)board);
    if (!board)
        return 1;

    /* More than one tcp_write's worth is refused outright, and queues nothing. */
    static uint8_t big[CHANNEL_SEND_MAX + RECORD];
    uint32_t room = channel_send_room(board);
    CHECK_MSG(room <= CHANNEL_SEND_MAX, "room %" PRIu32 " above one tcp_write", room);
    CHECK_MSG(channel_send(board, big, sizeof big) == ACA_ERR_INVALID, "oversized send accepted");
    CHECK_MSG(channel_send_room(board) == room, "an oversized send changed the room");

    for (unsigned round = 0; round < 600000 && next_expected < RECORDS; round++)
        run(1);
    printf("%" PRIu64 " of %u records received in order, %" PRIu64 " bad; %" PRIu64
           " sends queued, %" PRIu64 " refused for lack of lwIP memory (%" PRIu64
           " of them after building several segments), %" PRIu64 " waited for room; %" PRIu64
           " packets lost on the wire\n",
           next_expected, RECORDS, bad_records, sends_ok, sends_busy_memory, sends_failed_midway,
           sends_busy_room, wire_dropped);
    CHECK_MSG(next_expected == RECORDS && partial_len == 0,
              "received %" PRIu64 " records + %" PRIu32 " bytes", next_expected, partial_len);
    CHECK_MSG(bad_records == 0, "%" PRIu64 " records out of order, duplicated or corrupt",
              bad_records);
    if (by_reference) {
        run(1000); /* the last acknowledgements */
        CHECK_MSG(channel_unacked(board) == 0 && ring_tail == RECORDS && ring_held == 0,
                  "after the host has everything: %" PRIu32 " bytes unacknowledged, %" PRIu64
                  " records released, %" PRIu64 " held",
                  channel_unacked(board), ring_tail, ring_held);
        /* Resends from the ring are what the test is about. */
        CHECK_MSG(wire_dropped > 0, "no packet was lost on the wire, so nothing was resent");
    }
    /* The test means nothing unless lwIP really ran out of memory mid-send. */
    CHECK_MSG(sends_failed_midway >= 10, "only %" PRIu64 " sends hit ERR_MEM half way",
              sends_failed_midway);

    /* Close both ends; lwIP gives back all it took. */
    channel_close(board);
    board = NULL;
    tcp_close(host);
    run(5000);
    uint32_t lingering = channel_poll();
    struct channel_net_stats after;
    channel_net_stats(&after);
    CHECK_MSG(lingering == 0, "%" PRIu32 " closed connections still lingering", lingering);
    CHECK_MSG(after.tcp_active == before.tcp_active && after.heap_used == before.heap_used &&
                  after.tcp_segs_used == before.tcp_segs_used && after.channels_open == 0,
              "after: %" PRIu32 " active pcbs, %" PRIu32 " heap bytes, %" PRIu32
              " segments; before: %" PRIu32 ", %" PRIu32 ", %" PRIu32,
              after.tcp_active, after.heap_used, after.tcp_segs_used, before.tcp_active,
              before.heap_used, before.tcp_segs_used);
    printf("%s\n", check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
