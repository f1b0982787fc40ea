/* Intel 82540EM (e1000), QEMU's default NIC on the pc machine, as an lwIP netif.
 * Receive is polled (e1000_poll) from the net context; the IRQ only wakes that context. */
#ifndef QEMU_PC_E1000_H
#define QEMU_PC_E1000_H

#include "lwip/netif.h"

#include <stdint.h>

/* Finds and resets the NIC; returns its legacy IRQ line, or a negative value when there
 * is no e1000. Call before netif_add. */
int e1000_probe(void);

/* lwIP netif init callback for netif_add(). */
err_t e1000_netif_init(struct netif *netif);

/* Hands every received frame to lwIP; returns how many. Net context only. */
int e1000_poll(struct netif *netif);

/* Reads and clears the interrupt cause (deasserts the level-triggered line). */
uint32_t e1000_ack_interrupt(void);

#endif
