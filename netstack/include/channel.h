/* Internal to libacart.a (not installed; neither the application nor a port includes it):
 * TCP channels over lwIP's raw API, what the protocol layer sees of the network.
 *
 * A channel is one accepted TCP connection with a receive queue the owner reads at its
 * own pace (the TCP window only reopens for bytes it has read) and all-or-nothing sends
 * (a message is either queued whole or refused, never cut). Everything runs in the net
 * context; callbacks come from inside lwIP. Same verbs as libipt's layers:
 * channel_listen / channel_read / channel_send / channel_close. */
#ifndef ACART_CHANNEL_H
#define ACART_CHANNEL_H

#include <stdint.h>

struct channel;

enum channel_event {
    CHANNEL_EVENT_DATA,   /* bytes are waiting: channel_available() > 0 */
    CHANNEL_EVENT_SENT,   /* send room grew */
    CHANNEL_EVENT_CLOSED, /* the peer closed or the connection failed; the channel is
                             released when the callback returns */
};

typedef void (*channel_event_fn)(struct channel *ch, void *arg, enum channel_event ev);

/* Called for each new connection; return 0 to keep it (then set its callback with
 * channel_set_callback) or non-zero to refuse it (it is closed). remote_ip is IPv4 in
 * network byte order. */
typedef int (*channel_accept_fn)(struct channel *ch, void *arg, uint32_t remote_ip);

/* ACA_ERR_LWIP when the linked lwIP's TCP_SND_BUF is below CHANNEL_SEND_MIN. */
int channel_listen(uint16_t port, channel_accept_fn on_accept, void *arg);
/* The TCP_SND_BUF of the lwIP the port linked (read from a pcb by channel_listen). */
uint32_t channel_lwip_snd_buf(void);
void channel_set_callback(struct channel *ch, channel_event_fn fn, void *arg);

/* The peer's TCP port (host byte order), 0 once the connection is gone. */
uint16_t channel_remote_port(const struct channel *ch);

uint32_t channel_available(const struct channel *ch);
/* Copies up to len bytes out (and reopens the window by that much); returns the count. */
uint32_t channel_read(struct channel *ch, void *buf, uint32_t len);

/* The most one channel_send takes: one tcp_write, so that it is all or nothing. */
#define CHANNEL_SEND_MAX 0xffffu
/* The largest message a caller needs to send whole (a sample record, at most 16 KiB with
 * the largest stack copy; a handshake answer). channel_send_room never stays below it for
 * lack of memory alone, and the linked lwIP's TCP_SND_BUF must be at least this
 * (channel_listen checks). */
#define CHANNEL_SEND_MIN 16384u

/* Bytes channel_send would accept now: at most CHANNEL_SEND_MAX, and less for a while
 * after lwIP ran out of memory for a send. */
uint32_t channel_send_room(const struct channel *ch);
/* Queues len bytes whole, or returns ACA_ERR_BUSY without queueing anything when there
 * is not room (or lwIP memory) for all of them; more than CHANNEL_SEND_MAX is
 * ACA_ERR_INVALID. Does not push: call channel_flush. */
int channel_send(struct channel *ch, const void *buf, uint32_t len);
/* channel_send without the copy: lwIP sends (and resends) from buf itself, so the caller
 * leaves those bytes untouched until channel_unacked() says the peer has them. */
int channel_send_ref(struct channel *ch, const void *buf, uint32_t len);
/* Bytes queued on the channel that the peer has not acknowledged yet: what channel_send
 * and channel_send_ref took, less what lwIP's sent callback reported acknowledged. */
uint32_t channel_unacked(const struct channel *ch);
void channel_flush(struct channel *ch);

/* TCP keepalive, so that a host that vanished without closing (power, cable) is noticed:
 * the channel gets CHANNEL_EVENT_CLOSED after idle_ms + count * interval_ms of silence. */
void channel_set_keepalive(struct channel *ch, uint32_t idle_ms, uint32_t interval_ms,
                           uint32_t count);

/* Graceful close after queued data; the channel is released at once (no more
 * callbacks). Unread bytes are dropped; bytes that arrive later get a reset. lwIP keeps
 * the connection until its FIN is acknowledged, at most ACA_CLOSE_LINGER_MS (see
 * channel_poll). */
void channel_close(struct channel *ch);
/* Reset the connection and release the channel at once. */
void channel_abort(struct channel *ch);

/* Net-context housekeeping: resets closed connections past their linger time and frees
 * those that reached TIME_WAIT. Returns how many closed connections lwIP still works
 * on. */
uint32_t channel_poll(void);

/* lwIP's resources in use, for checking that a session gave back all it took. */
struct channel_net_stats {
    uint32_t tcp_active;     /* pcbs on lwIP's active list (connections, not listeners) */
    uint32_t tcp_time_wait;  /* pcbs in TIME_WAIT (channels' own are freed at once) */
    int memory_known;        /* the port's aca_port_net_memory answered: the four below */
    uint32_t tcp_pcbs_used;  /* the TCP pcb pool (active + TIME_WAIT + bound) */
    uint32_t channels_open;  /* channel slots in use */
    uint32_t heap_used;      /* bytes of lwIP's heap (sent data waiting for acks) */
    uint32_t pbuf_pool_used; /* receive buffers */
    uint32_t tcp_segs_used;  /* queued TCP segments */
};
void channel_net_stats(struct channel_net_stats *out);

#endif
