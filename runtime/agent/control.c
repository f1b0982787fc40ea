/* The control channel: framing of requests, dispatch, and responses.
 *
 * A request is a 48-byte header and exactly to_target_data_size payload bytes. A header
 * with the wrong size or version, or a payload or reply larger than CONTROL_MAX_PAYLOAD,
 * is answered with an error header and ends the session: the byte stream can no longer
 * be trusted. An unknown command, or a payload size the command does not accept, gets an
 * error status (159 for an unknown command, as the reference answers) and the session
 * goes on. Command 0 is answered like any unknown command (the reference stays silent):
 * every well-framed message gets an answer, so a host never waits on the board.
 * TERMINATE's answer is the last thing read or written: the session ends as soon as it is
 * queued, and the control connection is closed behind it. */
#include "acart.h"
#include "collection.h"
#include "commands.h"
#include "control.h"
#include "session.h"
#include "commands.h"
#include "log.h"

#include <string.h>

/* Requests are kept only up to what some command accepts (CMD_MAX_REQUEST): a larger one
 * is answered like any size its command does not accept, so its bytes are read and
 * dropped rather than kept. */
static uint8_t request_payload[CMD_MAX_REQUEST];
/* Why the session ends once the response being sent is out (with terminate_after_send). */
static const char *end_after_send;
/* The reply as the handler wrote it. The host reads exactly the size it asked for, and
 * the tail beyond what a handler may write (ACA_CONTROL_REPLY_BYTES) is zeros, sent from
 * `zeros` rather than kept. */
#define RESPONSE_BYTES (sizeof(struct sep_ctrl_header) + ACA_CONTROL_REPLY_BYTES)
static uint8_t response[RESPONSE_BYTES] __attribute__((aligned(8))); /* cmd_reply_space */
static const uint8_t zeros[256];

static void response_pump(void)
{
    while (session.control && session.framing.response_sent < session.framing.response_len) {
        uint32_t room = channel_send_room(session.control);
        uint32_t at = session.framing.response_sent;
        uint32_t left = session.framing.response_len - at;
        const uint8_t *from = response + at;
        if (at >= RESPONSE_BYTES) {
            from = zeros;
            left = left < sizeof(zeros) ? left : (uint32_t)sizeof(zeros);
        } else if (left > RESPONSE_BYTES - at) {
            left = (uint32_t)(RESPONSE_BYTES - at);
        }
        uint32_t n = left < room ? left : room;
        if (n == 0)
            break;
        if (channel_send(session.control, from, n) != ACA_OK)
            break;
        session.framing.response_sent += n;
    }
    if (session.control)
        channel_flush(session.control);
    if (session.framing.response_sent == session.framing.response_len &&
        session.terminate_after_send && session.control)
        session_end(end_after_send);
}

static void respond(uint32_t command_id, int32_t status, uint32_t payload_len)
{
    struct sep_ctrl_header h = sep_ctrl_response(command_id, status, payload_len);
    memcpy(response, &h, sizeof(h));
    session.framing.response_len =
        (uint32_t)sizeof(h) + (status == SEP_STATUS_SUCCESS ? payload_len : 0);
    session.framing.response_sent = 0;
    response_pump();
}

static int32_t dispatch(const struct sep_ctrl_header *h, uint32_t *payload_len)
{
    const struct cmd_entry *e = cmd_lookup(h->command_id);
    uint32_t in_len = (uint32_t)h->to_target_data_size;
    uint32_t out_cap = (uint32_t)h->from_target_data_size;
    *payload_len = 0;
    if (!e) {
        agent_log("acart: command %u is not handled", (unsigned)h->command_id);
        return SEP_STATUS_DRIVER_COMM_FAILED; /* what SEP gets from the reference for these */
    }
    if (in_len < e->in_min || in_len > e->in_max) {
        agent_log("acart: %s with a %u-byte payload (accepts %u..%u)", e->name, (unsigned)in_len,
                  (unsigned)e->in_min, (unsigned)e->in_max);
        return SEP_STATUS_BAD_PARAMETER;
    }
    uint8_t *out = response + sizeof(struct sep_ctrl_header);
    uint32_t kept = out_cap < ACA_CONTROL_REPLY_BYTES ? out_cap : ACA_CONTROL_REPLY_BYTES;
    memset(out, 0, kept);
    struct cmd_request req = {h->command_id, &session, &collection, request_payload, in_len,
                              out,           kept,     0,           out_cap};
    int32_t status = e->fn(&req);
    if (status == SEP_STATUS_SUCCESS)
        *payload_len = out_cap; /* exactly what the host reads; the tail is zeros */
    return status;
}

void control_on_data(void)
{
    while (session.control && session.framing.response_sent == session.framing.response_len &&
           !session.terminate_after_send) {
        struct sep_ctrl_header *h = &session.framing.request;
        if (!session.framing.have_request) {
            if (channel_available(session.control) < sizeof(*h))
                return;
            channel_read(session.control, h, sizeof(*h));
            /* The error answer may not fit the send window at once: the session ends
             * once it is out, never with half a header sent. */
            if (h->header_size != sizeof(*h) || h->proto_version != SEP_PROTOCOL_VERSION) {
                end_after_send = "malformed control header";
                session.terminate_after_send = 1;
                respond(h->command_id, SEP_STATUS_COMM_NOT_COMPATIBLE, 0);
                return;
            }
            if (h->to_target_data_size > CONTROL_MAX_PAYLOAD ||
                h->from_target_data_size > CONTROL_MAX_PAYLOAD) {
                end_after_send = "control payload larger than the agent accepts";
                session.terminate_after_send = 1;
                respond(h->command_id, SEP_STATUS_UNSUPPORTED_DATA_SIZE, 0);
                return;
            }
            session.framing.have_request = 1;
        }
        uint32_t size = (uint32_t)h->to_target_data_size;
        if (size > sizeof(request_payload)) {
            /* No command accepts it (dispatch answers so before reading any of it). */
            while (session.framing.request_dropped < size) {
                uint32_t left = size - session.framing.request_dropped;
                uint32_t n = channel_read(
                    session.control, request_payload,
                    left < sizeof(request_payload) ? left : (uint32_t)sizeof(request_payload));
                if (n == 0)
                    return;
                session.framing.request_dropped += n;
            }
            session.framing.request_dropped = 0;
        } else {
            if (channel_available(session.control) < size)
                return;
            channel_read(session.control, request_payload, size);
        }
        session.framing.have_request = 0;
        uint32_t payload_len;
        int32_t status = dispatch(h, &payload_len);
        if (h->command_id == SEP_OP_TERMINATE && status == SEP_STATUS_SUCCESS) {
            end_after_send = "host terminated the session";
            session.terminate_after_send = 1;
        }
        respond(h->command_id, status, payload_len);
    }
}

/* Data channels share lwIP's memory with the control connection, and a response that
 * found none gets no SENT event to retry on (nothing of it is in flight). So a response
 * waiting to go out goes before any data: transfer_pump asks here first and sends no
 * data until it is queued, and the acknowledgements of data already in flight free the
 * memory it needs. */
int control_response_waiting(void)
{
    if (session.framing.response_sent == session.framing.response_len)
        return 0;
    response_pump();
    return session.control && session.framing.response_sent < session.framing.response_len;
}

void control_on_sent(void)
{
    response_pump();
    /* A request may have waited for the previous response to leave. */
    if (session.control && session.framing.response_sent == session.framing.response_len)
        control_on_data();
}
