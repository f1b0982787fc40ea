/* The simulated board's channel layer: netstack/channel.h over the host's sockets. */
#ifndef ACART_TESTS_SIM_SIM_CHANNEL_H
#define ACART_TESTS_SIM_SIM_CHANNEL_H

#include "channel.h"

/* Accepts, sends what is queued, receives, and delivers the events. Returns 1 when bytes
 * moved. */
int sim_channel_poll(void);

#endif
