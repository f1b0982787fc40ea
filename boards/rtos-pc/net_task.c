#include "net_task.h"
#include "console.h"
#include "e1000.h"
#include "echo.h"
#include "idt.h"
#include "pic.h"
#include "sched.h"
#include "stats_service.h"

#include "lwip/init.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"

#define ECHO_PORT       9322
#define NET_STACK_BYTES (32 * 1024)
/* Passes in a row that found frames before the task sleeps anyway, so a flood cannot
 * starve the workers (it is the highest-priority task). */
#define NET_BUSY_PASSES 64

static struct net_config config;
static struct netif netif;
static int nic_irq = -1;
static int net_tid = -1;
static net_up_fn up_callback;
static net_poll_fn poll_callback;

static void nic_interrupt(struct trap_frame *frame)
{
    (void)frame;
    e1000_ack_interrupt(); /* deasserts the level-triggered line */
    pic_eoi((uint8_t)nic_irq);
    sched_wake(net_tid);
    sched_preempt();
}

static int bring_up(void)
{
    ip4_addr_t ip, mask, gw;
    lwip_init();
    ip4_addr_set_u32(&ip, lwip_htonl(config.ip));
    ip4_addr_set_u32(&mask, lwip_htonl(config.netmask));
    ip4_addr_set_u32(&gw, lwip_htonl(config.gateway));
    if (!netif_add(&netif, &ip, &mask, &gw, NULL, e1000_netif_init, ethernet_input)) {
        console_printf("net: netif_add failed\n");
        return -1;
    }
    netif_set_default(&netif);
    netif_set_up(&netif);
    console_printf("net: e1000 %02x:%02x:%02x:%02x:%02x:%02x irq %d, polled by task %d\n",
                   netif.hwaddr[0], netif.hwaddr[1], netif.hwaddr[2], netif.hwaddr[3],
                   netif.hwaddr[4], netif.hwaddr[5], nic_irq, net_tid);
    uint32_t a = config.ip;
    unsigned long a0 = a >> 24, a1 = (a >> 16) & 0xff, a2 = (a >> 8) & 0xff, a3 = a & 0xff;
    if (echo_start(ECHO_PORT) == 0)
        console_printf("echo: listening on %lu.%lu.%lu.%lu:%u\n", a0, a1, a2, a3, ECHO_PORT);
    else
        console_printf("echo: cannot listen on port %u\n", ECHO_PORT);
    if (stats_service_start(STATS_PORT) == 0)
        console_printf("stats: listening on %lu.%lu.%lu.%lu:%u\n", a0, a1, a2, a3, STATS_PORT);
    else
        console_printf("stats: cannot listen on port %u\n", STATS_PORT);
    idt_set_handler((uint8_t)(VEC_PIC_BASE + nic_irq), nic_interrupt);
    pic_unmask((uint8_t)nic_irq);
    return 0;
}

static void net_main(void *arg)
{
    (void)arg;
    if (bring_up() != 0)
        return;
    if (up_callback)
        up_callback(config.ip);
    for (uint32_t busy = 0;;) {
        int frames = e1000_poll(&netif);
        sys_check_timeouts();
        if (poll_callback)
            poll_callback();
        if (frames > 0 && ++busy < NET_BUSY_PASSES)
            continue;
        busy = 0;
        sched_sleep(1);
    }
}

void net_set_poll(net_poll_fn fn)
{
    poll_callback = fn;
}

int net_task_start(const struct net_config *cfg, net_up_fn on_up)
{
    config = *cfg;
    up_callback = on_up;
    nic_irq = e1000_probe();
    if (nic_irq < 0 || nic_irq > 15) {
        console_printf("net: no e1000 NIC found\n");
        return -1;
    }
    net_tid = sched_create("net", net_main, NULL, PRIO_NET, 1, NET_STACK_BYTES);
    return net_tid;
}
