/* The board's network: lwIP on the e1000, serviced in interrupt context on CPU 0 (the
 * "net context" of acart.h): the NIC's IRQ and a 1 kHz PIT tick both run net_service(),
 * so the network works whatever task the CPU runs. */
#ifndef QEMU_PC_NET_H
#define QEMU_PC_NET_H

#include <stdint.h>

struct net_config {
    int use_dhcp;
    uint32_t ip, netmask, gateway; /* host byte order, for static addressing */
};

/* Called once the interface has an address (at once for static, on lease for DHCP),
 * in net context. */
typedef void (*net_up_fn)(uint32_t ip);

int net_init(const struct net_config *cfg, net_up_fn on_up);

/* Work the board does in net context on every service pass (the agent's aca_poll). */
typedef void (*net_poll_fn)(void);
void net_set_poll(net_poll_fn fn);

/* The irq-busy-us=N option (boot command line): N µs of every PIT tick spent in the handler
 * with interrupts on, and the TSC spent so, since the option was set. */
void net_set_irq_busy(uint32_t us);
void net_irq_busy(uint64_t *in_handler_tsc, uint64_t *since_tsc);

#endif
