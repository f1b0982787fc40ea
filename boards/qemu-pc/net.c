#include "net.h"
#include "acart.h"
#include "acart_platform.h"
#include "console.h"
#include "e1000.h"
#include "pic.h"
#include "io.h"
#include "pit.h"
#include "tasks.h"
#include "trap.h"
#include "tsc.h"

#include "lwip/dhcp.h"
#include "lwip/init.h"
#include "lwip/ip4_addr.h"
#include "lwip/stats.h"
#include "lwip/netif.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"

#define NET_TICK_HZ 1000

static struct netif netif;
static int nic_irq = -1;
static net_up_fn up_callback;
static net_poll_fn poll_callback;
static int announced;
/* The interrupted code may be in the middle of SSE work (picolibc is built with SSE2);
 * lwIP and printf may use SSE too, so the net interrupt saves and restores it. */
static uint8_t fx_area[512] __attribute__((aligned(16)));

static void net_service(void)
{
    e1000_poll(&netif);
    sys_check_timeouts();
    if (!announced && !ip4_addr_isany_val(*netif_ip4_addr(&netif))) {
        announced = 1;
        if (up_callback)
            up_callback(lwip_ntohl(ip4_addr_get_u32(netif_ip4_addr(&netif))));
    }
    if (poll_callback)
        poll_callback();
}

/* The PIT tick's extra work for the `irq-busy-us=N` option: N µs with interrupts on, so
 * that samples can land in the handler. Before EOI, so the PIC holds back the e1000's IRQ
 * and lwIP is never entered twice. A timer-based sample that falls due between the
 * handler's entry and the end of that window is taken inside the handler (the sti lets
 * the pending one in); one due later waits for the IRET and lands in the task. So the
 * board counts exactly that span against the TSC (net_irq_busy). */
static uint64_t busy_tsc, busy_total_tsc, busy_since_tsc;

static void spin_in_tick(uint64_t entered)
{
    uint64_t start = rdtsc();
    irq_enable();
    while (rdtsc() - start < busy_tsc)
        cpu_relax();
    irq_disable();
    busy_total_tsc += rdtsc() - entered;
}

static void net_interrupt(struct trap_frame *frame)
{
    uint64_t entered = rdtsc();
    uint8_t irq = (uint8_t)(frame->vector - TRAP_VECTOR_PIC_BASE);
    aca_irq_enter((uint8_t)frame->vector);
    __asm__ volatile("fxsave %0" : "=m"(fx_area));
    if (irq == 0 && busy_tsc)
        spin_in_tick(entered);
    if (irq == nic_irq)
        e1000_ack_interrupt();
    net_service();
    pic_eoi(irq);
    __asm__ volatile("fxrstor %0" ::"m"(fx_area));
    aca_irq_exit();
}

void net_set_irq_busy(uint32_t us)
{
    busy_tsc = tsc_hz() / 1000000u * us;
    busy_since_tsc = rdtsc();
}

void net_irq_busy(uint64_t *in_handler_tsc, uint64_t *since_tsc)
{
    *in_handler_tsc = busy_total_tsc;
    *since_tsc = busy_since_tsc;
}

void net_set_poll(net_poll_fn fn)
{
    poll_callback = fn;
}

int net_init(const struct net_config *cfg, net_up_fn on_up)
{
    ip4_addr_t ip, mask, gw;

    up_callback = on_up;
    nic_irq = e1000_probe();
    if (nic_irq < 0 || nic_irq > 15) {
        console_printf("net: no e1000 NIC found\n");
        return -1;
    }
    /* Time in these handlers is theirs, not the interrupted task's. */
    aca_irq_named(TRAP_VECTOR_PIC_BASE + 0, "pit");
    aca_irq_named((uint8_t)(TRAP_VECTOR_PIC_BASE + nic_irq), "e1000");
    lwip_init();
    if (cfg->use_dhcp) {
        ip4_addr_set_zero(&ip);
        ip4_addr_set_zero(&mask);
        ip4_addr_set_zero(&gw);
    } else {
        ip4_addr_set_u32(&ip, lwip_htonl(cfg->ip));
        ip4_addr_set_u32(&mask, lwip_htonl(cfg->netmask));
        ip4_addr_set_u32(&gw, lwip_htonl(cfg->gateway));
    }
    if (!netif_add(&netif, &ip, &mask, &gw, NULL, e1000_netif_init, ethernet_input)) {
        console_printf("net: netif_add failed\n");
        return -1;
    }
    netif_set_default(&netif);
    netif_set_up(&netif);
    if (cfg->use_dhcp)
        dhcp_start(&netif);
    console_printf("net: e1000 %02x:%02x:%02x:%02x:%02x:%02x irq %d, %s\n", netif.hwaddr[0],
                   netif.hwaddr[1], netif.hwaddr[2], netif.hwaddr[3], netif.hwaddr[4],
                   netif.hwaddr[5], nic_irq, cfg->use_dhcp ? "DHCP" : "static address");

    pic_init();
    trap_set_handler((uint8_t)(TRAP_VECTOR_PIC_BASE + 0), net_interrupt);
    trap_set_handler((uint8_t)(TRAP_VECTOR_PIC_BASE + nic_irq), net_interrupt);
    pit_start_periodic(NET_TICK_HZ);
    pic_unmask(0);
    pic_unmask((uint8_t)nic_irq);
    return 0;
}

/* This board's lwIP keeps MEM_STATS and MEMP_STATS (boards/qemu-pc/lwip/lwipopts.h). The
 * hook is optional: the "field" variant (CMakeLists.txt) leaves it out, as a port may. */
#ifndef BOARD_NO_NET_MEMORY
int aca_port_net_memory(struct aca_net_memory *out)
{
    out->heap_used = (uint32_t)lwip_stats.mem.used;
    out->pbuf_pool_used = (uint32_t)lwip_stats.memp[MEMP_PBUF_POOL]->used;
    out->tcp_segs_used = (uint32_t)lwip_stats.memp[MEMP_TCP_SEG]->used;
    out->tcp_pcbs_used = (uint32_t)lwip_stats.memp[MEMP_TCP_PCB]->used;
    return 0;
}
#endif
