/* The state of the control channel's framing: the request being read and the response
 * being sent. Part of a session (session.h), zeroed when it ends. */
#ifndef ACART_CONTROL_FRAMING_H
#define ACART_CONTROL_FRAMING_H

#include "acart_wire.h"

#include <stdint.h>

/* The largest request or response payload a control message may carry; a header that
 * announces more ends the session. What acart keeps of them is smaller (control.c): a
 * request no command accepts is read and dropped, and a reply's zero tail beyond
 * ACA_CONTROL_REPLY_BYTES is sent without being kept. */
#define CONTROL_MAX_PAYLOAD (64 * 1024)

struct control_framing {
    struct sep_ctrl_header request;
    int have_request;
    uint32_t request_dropped; /* bytes of a too-large request payload read so far */
    /* Response being sent (header + payload), possibly over several sent callbacks. */
    uint32_t response_len, response_sent;
};

#endif
