/* netstack/channel.h over the host's TCP sockets, for the simulated board: the agent's
 * connections are real loopback connections a real `acart collect` talks to. Same contract
 * as the lwIP channel layer: a receive queue read at the agent's pace, all-or-nothing
 * sends into a send queue that the board's loop pushes into the socket, events from
 * sim_channel_poll(), a graceful close that still delivers what was queued. */
#include "sim_channel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "acart.h"

#define MAX_CHANNELS 24
#define RX_BYTES     (64u * 1024u)
#define TX_BYTES     (1024u * 1024u)

struct channel {
    int fd;       /* -1: slot free */
    int released; /* the agent let go (close or abort): only the send queue remains */
    channel_event_fn fn;
    void *arg;
    uint16_t remote_port;
    uint8_t rx[RX_BYTES];
    uint32_t rx_len;
    uint8_t *tx;
    uint32_t tx_len;
};

static struct channel channels[MAX_CHANNELS];
static int listener = -1;
static channel_accept_fn accept_fn;
static void *accept_arg;

static void set_nonblocking(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int channel_listen(uint16_t port, channel_accept_fn on_accept, void *arg)
{
    struct sockaddr_in a;
    int one = 1;

    for (int i = 0; i < MAX_CHANNELS; i++)
        channels[i].fd = -1;
    listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0)
        return ACA_ERR_NET;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&a, sizeof a) || listen(listener, 16))
        return ACA_ERR_NET;
    set_nonblocking(listener);
    accept_fn = on_accept;
    accept_arg = arg;
    return ACA_OK;
}

/* Sockets have no lwIP send buffer: the size the board's lwIP has. */
uint32_t channel_lwip_snd_buf(void)
{
    return 128 * 1024;
}

void channel_set_callback(struct channel *ch, channel_event_fn fn, void *arg)
{
    ch->fn = fn;
    ch->arg = arg;
}

uint16_t channel_remote_port(const struct channel *ch)
{
    return ch->released ? 0 : ch->remote_port;
}

uint32_t channel_available(const struct channel *ch)
{
    return ch->rx_len;
}

uint32_t channel_read(struct channel *ch, void *buf, uint32_t len)
{
    if (len > ch->rx_len)
        len = ch->rx_len;
    memcpy(buf, ch->rx, len);
    memmove(ch->rx, ch->rx + len, ch->rx_len - len);
    ch->rx_len -= len;
    return len;
}

uint32_t channel_send_room(const struct channel *ch)
{
    uint32_t room = TX_BYTES - ch->tx_len;
    return room < CHANNEL_SEND_MAX ? room : CHANNEL_SEND_MAX;
}

int channel_send(struct channel *ch, const void *buf, uint32_t len)
{
    if (len > CHANNEL_SEND_MAX)
        return ACA_ERR_INVALID;
    if (len > TX_BYTES - ch->tx_len)
        return ACA_ERR_BUSY;
    memcpy(ch->tx + ch->tx_len, buf, len);
    ch->tx_len += len;
    return ACA_OK;
}

/* The socket takes a copy, as lwIP would keep a reference until the acknowledgement. */
int channel_send_ref(struct channel *ch, const void *buf, uint32_t len)
{
    return channel_send(ch, buf, len);
}

/* What the socket has not taken yet: the kernel has the rest. */
uint32_t channel_unacked(const struct channel *ch)
{
    return ch->tx_len;
}

/* Pushes the send queue into the socket; returns the bytes it took, -1 when it failed. */
static int push(struct channel *ch)
{
    ssize_t n = ch->tx_len ? send(ch->fd, ch->tx, ch->tx_len, MSG_DONTWAIT | MSG_NOSIGNAL) : 0;
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    memmove(ch->tx, ch->tx + n, ch->tx_len - (uint32_t)n);
    ch->tx_len -= (uint32_t)n;
    return (int)n;
}

void channel_flush(struct channel *ch)
{
    push(ch);
}

void channel_set_keepalive(struct channel *ch, uint32_t idle_ms, uint32_t interval_ms,
                           uint32_t count)
{
    (void)ch, (void)idle_ms, (void)interval_ms, (void)count;
}

static void free_slot(struct channel *ch)
{
    close(ch->fd);
    free(ch->tx);
    memset(ch, 0, sizeof *ch);
    ch->fd = -1;
}

void channel_close(struct channel *ch)
{
    ch->released = 1;
    ch->fn = NULL;
    ch->rx_len = 0;
}

void channel_abort(struct channel *ch)
{
    struct linger l = {1, 0}; /* a reset, as the lwIP layer's tcp_abort */
    setsockopt(ch->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    free_slot(ch);
}

uint32_t channel_poll(void)
{
    uint32_t lingering = 0;
    for (int i = 0; i < MAX_CHANNELS; i++)
        lingering += channels[i].fd >= 0 && channels[i].released;
    return lingering;
}

void channel_net_stats(struct channel_net_stats *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < MAX_CHANNELS; i++)
        out->channels_open += channels[i].fd >= 0 && !channels[i].released;
}

static void event(struct channel *ch, enum channel_event ev)
{
    if (ch->fd >= 0 && !ch->released && ch->fn)
        ch->fn(ch, ch->arg, ev);
}

static void accept_new(void)
{
    for (;;) {
        struct sockaddr_in a;
        socklen_t len = sizeof a;
        int fd = accept(listener, (struct sockaddr *)&a, &len), one = 1, slot = -1;
        if (fd < 0)
            return;
        for (int i = 0; i < MAX_CHANNELS && slot < 0; i++)
            if (channels[i].fd < 0)
                slot = i;
        struct channel *ch = slot >= 0 ? &channels[slot] : NULL;
        if (!ch || !(ch->tx = malloc(TX_BYTES))) {
            close(fd);
            continue;
        }
        set_nonblocking(fd);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ch->fd = fd;
        ch->remote_port = ntohs(a.sin_port);
        if (accept_fn(ch, accept_arg, a.sin_addr.s_addr) != 0)
            free_slot(ch);
    }
}

int sim_channel_poll(void)
{
    int moved = 0;

    accept_new();
    for (int i = 0; i < MAX_CHANNELS; i++) {
        struct channel *ch = &channels[i];
        if (ch->fd < 0)
            continue;
        int sent = push(ch);
        if (ch->released) {
            /* Closed by the agent: the queue goes out, then a FIN. */
            if (sent < 0 || ch->tx_len == 0) {
                shutdown(ch->fd, SHUT_WR);
                free_slot(ch);
            }
            continue;
        }
        if (sent < 0) {
            event(ch, CHANNEL_EVENT_CLOSED);
            if (ch->fd >= 0)
                free_slot(ch);
            continue;
        }
        if (sent > 0) {
            moved = 1;
            event(ch, CHANNEL_EVENT_SENT);
        }
        if (ch->fd < 0 || ch->released)
            continue;
        ssize_t n = ch->rx_len < RX_BYTES
                        ? recv(ch->fd, ch->rx + ch->rx_len, RX_BYTES - ch->rx_len, MSG_DONTWAIT)
                        : -1;
        if (n == 0 || (n < 0 && ch->rx_len < RX_BYTES && errno != EAGAIN && errno != EWOULDBLOCK &&
                       errno != EINTR)) {
            event(ch, CHANNEL_EVENT_CLOSED);
            if (ch->fd >= 0)
                free_slot(ch);
            continue;
        }
        if (n > 0) {
            ch->rx_len += (uint32_t)n;
            moved = 1;
        }
        if (ch->rx_len)
            event(ch, CHANNEL_EVENT_DATA);
    }
    return moved;
}
