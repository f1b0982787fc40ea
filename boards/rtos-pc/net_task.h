/* The kernel's network: lwIP (NO_SYS=1, raw API) on the e1000, run entirely by one task,
 * "net". This is the "lwIP polled from a task" set-up: the task polls the NIC and lwIP's
 * timers, then sleeps until the next scheduler tick or the NIC's interrupt wakes it. The
 * interrupt only acknowledges the NIC and wakes the task; lwIP is never entered from an
 * interrupt, so it needs no locking. acart's aca_start() and aca_poll() run here too:
 * this task is acart's "net context". */
#ifndef RTOS_PC_NET_TASK_H
#define RTOS_PC_NET_TASK_H

#include <stdint.h>

struct net_config {
    uint32_t ip, netmask, gateway; /* host byte order */
};

/* Called once in the net task when the interface is up, with its address. */
typedef void (*net_up_fn)(uint32_t ip);

/* Work done in the net task on every pass (acart's aca_poll). */
typedef void (*net_poll_fn)(void);

/* Creates the net task; returns its task id or -1 (no NIC, no task). */
int net_task_start(const struct net_config *cfg, net_up_fn on_up);

/* From the net task (the up callback): work for every later pass. */
void net_set_poll(net_poll_fn fn);

#endif
