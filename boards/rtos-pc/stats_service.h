/* The kernel's accounting as text on a TCP port (9323): a client connects, reads until
 * the board closes. Tests compare it with what acart sampled. Net task only. */
#ifndef RTOS_PC_STATS_SERVICE_H
#define RTOS_PC_STATS_SERVICE_H

#include <stdint.h>

#define STATS_PORT 9323

int stats_service_start(uint16_t port);

#endif
