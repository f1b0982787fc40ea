/* One host session: its control connection, its data connections and their handshakes.
 * Zeroed when the session ends; net context only, the sampling interrupt sees none of
 * this. */
#ifndef ACART_SESSION_H
#define ACART_SESSION_H

#include "acart_opts.h"
#include "acart_wire.h"
#include "channel.h"
#include "control_framing.h"

#include <stdint.h>

struct data_link {
    struct channel *ch;
    uint16_t type;            /* SEP_DATA_* */
    uint16_t id;              /* CPU number for CPU channels */
    int first_read;           /* the host's first message is in; its answer may wait for memory */
    int handshaken;           /* ... and the answer is queued */
    uint64_t window_start_ms; /* the drain-stall window: since when */
    uint32_t window_bytes;    /* ... and bytes queued in it */
    uint32_t records_held;    /* CPU channels: ring records lwIP sends from, unacknowledged */
    uint64_t queued_bytes;    /* queued in all (ACART_OP_GET_CHANNEL_TOTALS) */
    int finished;             /* closed by transfer.c with everything queued */
};

struct session {
    struct channel *control;
    int control_handshaken;    /* the first message on the control connection answered */
    int handshake_done;        /* ... and every data connection opened and greeted */
    uint64_t session_start_ms; /* when the control connection was accepted */
    uint32_t remote_ip;        /* the holder, network byte order */
    uint16_t remote_port;
    uint32_t data_expected, data_accepted;
    /* CPU channels, uncore, module, then the PT channel (ACART_DATA_PT) of a session that
     * configured PT. */
    struct data_link links[ACA_MAX_CPUS + SEP_NONCORE_DATA_CONNECTIONS + 1];
    int terminate_after_send; /* TERMINATE answered: end the session once it is queued */
    int report_ready;         /* log lwIP's counts once the session's connections are gone */
    struct control_framing framing;
    int extensions_negotiated; /* ACART_OP_EXTENSIONS sent: acart's file commands answer */
    int pt_link_expected;      /* PT_CONFIG done: one more data connection, the PT channel */
};

extern struct session session;

/* The one way a session ends (session.c): sampling stops, the rings are reset, every
 * connection of the session is closed, the session and its collection are zeroed, and the
 * agent listens again. */
void session_end(const char *why);

#endif
