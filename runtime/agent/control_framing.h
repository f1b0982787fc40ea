/* The state of the control channel's framing: the request being read and the response
 * being sent. Part of a session (session.h), zeroed when it ends. */
#ifndef ACART_CONTROL_FRAMING_H
#define ACART_CONTROL_FRAMING_H

#include "acart_wire.h"

#include <stdint.h>

/* The largest request or response payload a control message may carry. DRV_PLATFORM_INFO
 * (15440) and the system configuration are the largest replies acart produces. */
#define CONTROL_MAX_PAYLOAD (64 * 1024)

struct control_framing {
    struct sep_ctrl_header request;
    int have_request;
    /* Response being sent (header + payload), possibly over several sent callbacks. */
    uint32_t response_len, response_sent;
};

#endif
