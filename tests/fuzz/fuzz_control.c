/* libFuzzer target: the runtime's control channel against a hostile host. The runtime
 * (agent.c, control.c, commands.c, cmd_*.c and everything they call: ECB decoding, MSR
 * policy, sampler, rings, transfer) is built for the host with the platform faked: the
 * simulated CPUs and the board of tests/sim (sim_cpu.c, sampler_shim_board.c; the CPUs run
 * at once, sampler_shim_threads.c) behind acart_platform.h,
 * tests/sim/host/io.h for port I/O, interrupts and the TSC, and here a fake channel layer
 * (channel.h) that hands the runtime the input as what the host sent.
 *
 * Input: byte 0 chooses how the bytes arrive (bit 0: a small send window after the
 * handshake, so responses go out over several SENT events; bit 1: in pieces of byte 1 + 1
 * bytes, with the runtime's poll in between; bit 2: the host opens the data connections
 * after the handshake; bit 3: the input starts with the host's first message instead of a
 * valid one; bit 4: the send window is small from the start, as when lwIP is out of
 * memory; bit 5: every connection's sends also come out of one small shared pool, in
 * whole segments, given back only by the acknowledgements of what a connection has in
 * flight, as lwIP's heap is: the send room a connection sees does not show it, and a send
 * it cannot hold fails as tcp_write's ERR_MEM does). The rest is the control
 * connection's byte stream.
 *
 * Checked on every input: everything the runtime sends on the control connection is a
 * target status followed by well-framed responses (header size, protocol version,
 * payload no larger than the agent's limit, nothing after the session's end); once
 * every connection's bytes are acknowledged, no response is left waiting to go out; when
 * the host goes away the session ends, every connection it accepted is released and the
 * agent is idle and listening again. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collection.h"
#include "session.h"
#include "target.h"
#include "sampler_shim.h"

/* The TSC (tests/sim/host/io.h): a counter each read advances, so runs repeat. */
static uint64_t fuzz_tsc = 1;

uint64_t host_tsc(void)
{
    return fuzz_tsc += 1000;
}

/* ---- the channel layer ---- */

#define MAX_CHANNELS (ACA_MAX_CPUS + SEP_NONCORE_DATA_CONNECTIONS + 2)

struct channel {
    int in_use;   /* accepted by the agent and not yet released */
    int released; /* closed or aborted by the agent */
    const uint8_t *in;
    size_t in_len, in_pos, in_limit; /* in_limit: what has "arrived" so far */
    uint32_t room, window;           /* send room now, and after each SENT */
    uint32_t pooled;                 /* in flight, taken from the shared pool */
    uint32_t cap;                    /* channel.c's send cap: halved by ERR_MEM */
    channel_event_fn fn;
    void *arg;
    /* Framing check of what the runtime sends (control connection only). */
    int is_control;
    uint8_t hdr[sizeof(struct sep_target_status)];
    size_t hdr_fill;
    uint64_t payload_left;
    int status_seen;
};

static struct channel channels[MAX_CHANNELS];
/* Mode bit 5: lwIP's heap, shared by every connection (small, so data fills it). */
#define POOL_SEGMENT 512
#define SHARED_POOL  (4 * POOL_SEGMENT)
static int pool_shared;
static uint32_t pool_room;
static channel_accept_fn accept_fn;
static void *accept_arg;
static int verbose = -1;
static uint64_t bytes_sent; /* by every connection: acknowledge_all's progress */

int channel_listen(uint16_t port, channel_accept_fn on_accept, void *arg)
{
    (void)port;
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
    return ch->released ? 0 : 40000;
}

uint32_t channel_available(const struct channel *ch)
{
    if (ch->released)
        abort(); /* used after release */
    return (uint32_t)(ch->in_limit - ch->in_pos);
}

uint32_t channel_read(struct channel *ch, void *buf, uint32_t len)
{
    uint32_t n = channel_available(ch);
    if (n > len)
        n = len;
    memcpy(buf, ch->in + ch->in_pos, n);
    ch->in_pos += n;
    return n;
}

uint32_t channel_send_room(const struct channel *ch)
{
    return pool_shared && ch->cap < ch->room ? ch->cap : ch->room;
}

/* The control connection's bytes must be a target status, then responses. */
static void check_sent(struct channel *ch, const uint8_t *p, uint32_t len)
{
    while (len) {
        if (ch->payload_left) {
            uint32_t n = ch->payload_left < len ? (uint32_t)ch->payload_left : len;
            ch->payload_left -= n;
            p += n, len -= n;
            continue;
        }
        size_t want =
            ch->status_seen ? sizeof(struct sep_ctrl_header) : sizeof(struct sep_target_status);
        size_t n = want - ch->hdr_fill < len ? want - ch->hdr_fill : len;
        memcpy(ch->hdr + ch->hdr_fill, p, n);
        ch->hdr_fill += n, p += n, len -= (uint32_t)n;
        if (ch->hdr_fill < want)
            continue;
        ch->hdr_fill = 0;
        if (!ch->status_seen) {
            struct sep_target_status st;
            memcpy(&st, ch->hdr, sizeof st);
            if (st.msg_size != sizeof st || st.proto_version != SEP_PROTOCOL_VERSION)
                abort();
            ch->status_seen = 1;
            continue;
        }
        struct sep_ctrl_header h;
        memcpy(&h, ch->hdr, sizeof h);
        if (h.header_size != sizeof h || h.proto_version != SEP_PROTOCOL_VERSION ||
            h.from_target_data_size > CONTROL_MAX_PAYLOAD ||
            (h.status != SEP_STATUS_SUCCESS && h.from_target_data_size != 0)) {
            fprintf(stderr,
                    "fuzz_control: bad response header: size %u version %u command %u "
                    "status %d payload %llu\n",
                    h.header_size, h.proto_version, h.command_id, h.status,
                    (unsigned long long)h.from_target_data_size);
            abort();
        }
        ch->payload_left = h.from_target_data_size;
    }
}

int channel_send(struct channel *ch, const void *buf, uint32_t len)
{
    if (ch->released)
        abort();
    if (len > CHANNEL_SEND_MAX)
        return ACA_ERR_INVALID;
    if (len > channel_send_room(ch))
        return ACA_ERR_BUSY;
    if (pool_shared) {
        uint32_t cost = (len + POOL_SEGMENT - 1) / POOL_SEGMENT * POOL_SEGMENT;
        if (cost > pool_room) {
            ch->cap = len / 2 > POOL_SEGMENT ? len / 2 : POOL_SEGMENT;
            return ACA_ERR_BUSY;
        }
        pool_room -= cost;
        ch->pooled += cost;
        ch->cap = 2 * ch->cap < ch->window ? 2 * ch->cap : ch->window;
    }
    ch->room -= len;
    bytes_sent += len;
    if (ch->is_control)
        check_sent(ch, buf, len);
    return ACA_OK;
}

int channel_send_ref(struct channel *ch, const void *buf, uint32_t len)
{
    return channel_send(ch, buf, len);
}

void channel_flush(struct channel *ch)
{
    if (ch->released)
        abort();
}

uint32_t channel_unacked(const struct channel *ch)
{
    return ch->window - ch->room;
}

void channel_set_keepalive(struct channel *ch, uint32_t idle_ms, uint32_t interval_ms,
                           uint32_t count)
{
    (void)ch, (void)idle_ms, (void)interval_ms, (void)count;
}

static void release(struct channel *ch)
{
    if (!ch->in_use || ch->released)
        abort(); /* released twice, or never accepted */
    ch->released = 1;
    ch->in_use = 0;
    pool_room += ch->pooled;
    ch->pooled = 0;
}

void channel_close(struct channel *ch)
{
    release(ch);
}

void channel_abort(struct channel *ch)
{
    release(ch);
}

uint32_t channel_poll(void)
{
    return 0;
}

void channel_net_stats(struct channel_net_stats *out)
{
    memset(out, 0, sizeof *out);
}

/* ---- the port ---- */

int aca_port_module_list(struct aca_module_info *out, int max)
{
    if (max > 0) {
        memset(out, 0, sizeof *out);
        strcpy(out[0].name, "fuzz-image.elf");
        out[0].start = 0x100000;
        out[0].length = 0x40000;
    }
    return 1;
}

void aca_port_log(const char *line)
{
    if (verbose)
        fprintf(stderr, "%s\n", line);
}

/* ---- one session per input ---- */

static struct channel *connect(const uint8_t *in, size_t len, uint32_t window, int control)
{
    for (size_t i = 0; i < MAX_CHANNELS; i++) {
        struct channel *ch = &channels[i];
        if (ch->in_use || ch->fn)
            continue;
        memset(ch, 0, sizeof *ch);
        ch->in = in, ch->in_len = len, ch->in_limit = len;
        ch->room = ch->window = ch->cap = window;
        ch->is_control = control;
        ch->in_use = 1;
        if (accept_fn(ch, accept_arg, 0x0100000a) != 0) {
            ch->in_use = 0; /* refused: the channel layer closes it */
            ch->fn = NULL;
            return NULL;
        }
        return ch;
    }
    abort();
}

static void event(struct channel *ch, enum channel_event ev)
{
    if (ch && ch->in_use && !ch->released && ch->fn)
        ch->fn(ch, ch->arg, ev);
}

/* Lets every connection's window open again, as acknowledgements would, for as long as
 * something is in flight or a response waits: the input's requests may all have arrived
 * at once, and each waits for the previous response to leave, so the rounds needed grow
 * with the input. A response that found no memory with nothing of its connection in
 * flight gets no SENT event: only the poll retries it, halving its send cap each time, so
 * a few rounds in a row may send nothing; many in a row mean the runtime stalls. */
#define MAX_ROUNDS_WITHOUT_PROGRESS 64

static void acknowledge_all(void)
{
    for (int idle = 0; idle < MAX_ROUNDS_WITHOUT_PROGRESS;) {
        uint64_t before = bytes_sent;
        int any = 0;
        for (size_t i = 0; i < MAX_CHANNELS; i++) {
            struct channel *ch = &channels[i];
            /* Pooled bytes are in flight even after mode bit 0 shrank the window. */
            if (ch->in_use && !ch->released && (ch->room < ch->window || ch->pooled)) {
                ch->room = ch->window;
                pool_room += ch->pooled;
                ch->pooled = 0;
                event(ch, CHANNEL_EVENT_SENT);
                any = 1;
            }
        }
        aca_poll();
        if (!any &&
            !(session.control && session.framing.response_sent < session.framing.response_len))
            break;
        idle = bytes_sent == before ? idle + 1 : 0;
    }
}

/* Mode bit 5: while a collection runs, every CPU takes PMIs between the host's pieces,
 * so the rings hold more than the shared pool and the drain competes with responses. */
static void run_cpus(void)
{
    if (!pool_shared || collection.state != COLLECTION_RUNNING)
        return;
    for (uint32_t cpu = 0; cpu < target.num_cpus && cpu < SHIM_CPUS; cpu++)
        for (int k = 0; k < 8; k++) {
            struct sim_events ev = {
                .instructions = 4000000, .cycles = 4000000, .ref_cycles = 4000000};
            shim_sim(cpu)->retire(&ev);
            struct trap_frame f;
            memset(&f, 0, sizeof f);
            f.ip = 0x100100;
            f.cs = 0x08;
            shim_raise_pmi(cpu, &f);
        }
    shim_set_current_cpu(0);
}

static void start_once(void)
{
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (accept_fn)
        return;
    shim_power_on(&sim_skylake);
    struct aca_config cfg;
    aca_config_init(&cfg);
    if (aca_start(&cfg) != ACA_OK)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t stream[sizeof(struct sep_first_msg) + 65536];
    if (size < 2 || size > 65536)
        return 0;
    start_once();
    uint8_t mode = data[0], piece = data[1];
    data += 2, size -= 2;

    /* The host's first message, unless the input brings its own. */
    size_t len = 0;
    if (!(mode & 8)) {
        struct sep_first_msg first;
        memset(&first, 0, sizeof first);
        first.msg_size = sizeof first;
        first.proto_version = SEP_PROTOCOL_VERSION;
        memcpy(stream, &first, sizeof first);
        len = sizeof first;
    }
    memcpy(stream + len, data, size);
    len += size;

    memset(channels, 0, sizeof channels);
    pool_shared = (mode & 32) != 0;
    pool_room = SHARED_POOL;
    struct channel *control = connect(stream, len, mode & 16 ? 100 : 65535, 1);
    if (!control)
        abort(); /* the agent must take a host when it has none */
    control->in_limit = mode & 2 ? (len < (size_t)piece + 1 ? len : (size_t)piece + 1) : len;
    event(control, CHANNEL_EVENT_DATA);
    if ((mode & 1) && control->in_use && !control->released)
        control->room = control->window = 100;
    if ((mode & 4) && session.control_handshaken) {
        static struct sep_first_msg first;
        first.msg_size = sizeof first;
        first.proto_version = SEP_PROTOCOL_VERSION;
        /* Until the session ends (a handshake answer that finds no memory ends it). */
        for (uint32_t i = 0;
             session.control_handshaken && i < target.num_cpus + SEP_NONCORE_DATA_CONNECTIONS;
             i++) {
            struct channel *d = connect((const uint8_t *)&first, sizeof first, 65535, 0);
            event(d, CHANNEL_EVENT_DATA);
        }
    }
    while (control->in_use && !control->released && control->in_limit < len) {
        control->in_limit += (size_t)piece + 1;
        if (control->in_limit > len)
            control->in_limit = len;
        event(control, CHANNEL_EVENT_DATA);
        run_cpus();
        acknowledge_all();
    }
    acknowledge_all();
    if (control->in_use && !control->released && session.control &&
        session.framing.response_sent < session.framing.response_len) {
        fprintf(stderr, "fuzz_control: a response waits to go out with nothing in flight\n");
        abort();
    }

    /* The host goes away. Responses are whole unless it went away first. */
    int host_left = control->in_use && !control->released;
    if (host_left) {
        control->in_use = 0;
        control->released = 1;
        control->fn(control, control->arg, CHANNEL_EVENT_CLOSED);
    }
    if (session.control || collection.state != COLLECTION_IDLE)
        abort(); /* the session did not end */
    for (size_t i = 0; i < MAX_CHANNELS; i++)
        if (channels[i].in_use && !channels[i].released)
            abort(); /* a connection the agent accepted and never let go */
    if (!host_left && (control->payload_left || control->hdr_fill))
        abort(); /* the agent ended the session with a response cut short */
    return 0;
}
