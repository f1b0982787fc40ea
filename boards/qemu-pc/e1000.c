/* 82540EM driver: legacy descriptors, one 2 KiB buffer per descriptor, copies in and out
 * of pbufs. Register numbers are from Intel's PCI/PCI-X Family of Gigabit Ethernet
 * Controllers Software Developer's Manual. */
#include "e1000.h"
#include "io.h"
#include "pci.h"
#include "tsc.h"

#include "lwip/etharp.h"
#include "lwip/pbuf.h"
#include "netif/ethernet.h"

#include <string.h>

#define REG_CTRL   0x0000
#define REG_STATUS 0x0008
#define REG_ICR    0x00c0
#define REG_IMS    0x00d0
#define REG_IMC    0x00d8
#define REG_RCTL   0x0100
#define REG_TCTL   0x0400
#define REG_TIPG   0x0410
#define REG_RDBAL  0x2800
#define REG_RDBAH  0x2804
#define REG_RDLEN  0x2808
#define REG_RDH    0x2810
#define REG_RDT    0x2818
#define REG_RDTR   0x2820
#define REG_TDBAL  0x3800
#define REG_TDBAH  0x3804
#define REG_TDLEN  0x3808
#define REG_TDH    0x3810
#define REG_TDT    0x3818
#define REG_MTA    0x5200
#define REG_RAL0   0x5400
#define REG_RAH0   0x5404

#define CTRL_SLU  (1u << 6)
#define CTRL_ASDE (1u << 5)
#define CTRL_RST  (1u << 26)

#define RCTL_EN    (1u << 1)
#define RCTL_BAM   (1u << 15)
#define RCTL_SECRC (1u << 26)

#define TCTL_EN  (1u << 1)
#define TCTL_PSP (1u << 3)

#define INT_LSC   (1u << 2)
#define INT_RXDMT (1u << 4)
#define INT_RXO   (1u << 6)
#define INT_RXT0  (1u << 7)

#define TXCMD_EOP  0x01
#define TXCMD_IFCS 0x02
#define TXCMD_RS   0x08

#define DESC_DD  0x01
#define DESC_EOP 0x02

#define NUM_RX   256
#define NUM_TX   256
#define BUF_SIZE 2048

struct rx_desc {
    uint64_t addr;
    uint16_t length;
    uint16_t checksum;
    uint8_t status;
    uint8_t errors;
    uint16_t special;
};

struct tx_desc {
    uint64_t addr;
    uint16_t length;
    uint8_t cso;
    uint8_t cmd;
    uint8_t status;
    uint8_t css;
    uint16_t special;
};

_Static_assert(sizeof(struct rx_desc) == 16, "82540EM receive descriptor is 16 bytes");
_Static_assert(sizeof(struct tx_desc) == 16, "82540EM transmit descriptor is 16 bytes");

static struct rx_desc rx_ring[NUM_RX] __attribute__((aligned(128)));
static struct tx_desc tx_ring[NUM_TX] __attribute__((aligned(128)));
static uint8_t rx_buf[NUM_RX][BUF_SIZE] __attribute__((aligned(16)));
static uint8_t tx_buf[NUM_TX][BUF_SIZE] __attribute__((aligned(16)));
static volatile uint32_t *mmio;
static uint32_t rx_next, tx_next;

static uint32_t reg_read(uint32_t reg)
{
    return mmio[reg / 4];
}

static void reg_write(uint32_t reg, uint32_t value)
{
    mmio[reg / 4] = value;
}

int e1000_probe(void)
{
    struct pci_device dev;
    if (pci_find(0x8086, 0x100e, &dev) != 0)
        return -1;
    uint32_t bar0 = pci_read32(&dev, 0x10);
    if (bar0 & 1)
        return -1; /* an I/O BAR: not how QEMU or real 82540EMs are set up */
    mmio = (volatile uint32_t *)(uintptr_t)(bar0 & ~0xfu);
    pci_write32(&dev, 0x04, pci_read32(&dev, 0x04) | 0x6); /* memory space, bus master */

    reg_write(REG_IMC, 0xffffffffu);
    reg_write(REG_CTRL, reg_read(REG_CTRL) | CTRL_RST);
    tsc_delay_us(1000);
    while (reg_read(REG_CTRL) & CTRL_RST)
        cpu_relax();
    reg_write(REG_IMC, 0xffffffffu);
    (void)reg_read(REG_ICR);
    return (int)(pci_read32(&dev, 0x3c) & 0xff);
}

static err_t e1000_linkoutput(struct netif *netif, struct pbuf *p)
{
    (void)netif;
    if (p->tot_len > BUF_SIZE)
        return ERR_BUF;
    struct tx_desc *d = &tx_ring[tx_next];
    /* A descriptor is free once the NIC has written it back (QEMU completes transmits
     * synchronously on the tail write, hardware within microseconds). */
    uint64_t t0 = rdtsc(), limit = tsc_hz() / 10;
    while (d->cmd && !(d->status & DESC_DD)) {
        if (rdtsc() - t0 > limit)
            return ERR_MEM;
        cpu_relax();
    }
    pbuf_copy_partial(p, tx_buf[tx_next], p->tot_len, 0);
    d->addr = (uint32_t)(uintptr_t)tx_buf[tx_next];
    d->length = p->tot_len;
    d->status = 0;
    d->cmd = TXCMD_EOP | TXCMD_IFCS | TXCMD_RS;
    tx_next = (tx_next + 1) % NUM_TX;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    reg_write(REG_TDT, tx_next);
    return ERR_OK;
}

err_t e1000_netif_init(struct netif *netif)
{
    uint32_t ral = reg_read(REG_RAL0), rah = reg_read(REG_RAH0);
    for (int i = 0; i < 4; i++)
        netif->hwaddr[i] = (uint8_t)(ral >> (8 * i));
    netif->hwaddr[4] = (uint8_t)rah;
    netif->hwaddr[5] = (uint8_t)(rah >> 8);
    netif->hwaddr_len = 6;
    netif->mtu = 1500;
    netif->name[0] = 'e';
    netif->name[1] = 'n';
    netif->flags =
        NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET | NETIF_FLAG_LINK_UP;
    netif->output = etharp_output;
    netif->linkoutput = e1000_linkoutput;

    for (int i = 0; i < 128; i++)
        reg_write(REG_MTA + 4 * i, 0);

    memset(rx_ring, 0, sizeof(rx_ring));
    for (int i = 0; i < NUM_RX; i++)
        rx_ring[i].addr = (uint32_t)(uintptr_t)rx_buf[i];
    reg_write(REG_RDBAL, (uint32_t)(uintptr_t)rx_ring);
    reg_write(REG_RDBAH, 0);
    reg_write(REG_RDLEN, sizeof(rx_ring));
    reg_write(REG_RDH, 0);
    reg_write(REG_RDT, NUM_RX - 1);
    reg_write(REG_RDTR, 0);
    rx_next = 0;
    reg_write(REG_RCTL, RCTL_EN | RCTL_BAM | RCTL_SECRC); /* 2 KiB buffers */

    memset(tx_ring, 0, sizeof(tx_ring));
    reg_write(REG_TDBAL, (uint32_t)(uintptr_t)tx_ring);
    reg_write(REG_TDBAH, 0);
    reg_write(REG_TDLEN, sizeof(tx_ring));
    reg_write(REG_TDH, 0);
    reg_write(REG_TDT, 0);
    tx_next = 0;
    reg_write(REG_TCTL, TCTL_EN | TCTL_PSP | (0x10u << 4) | (0x40u << 12));
    reg_write(REG_TIPG, 0x0060200a);

    reg_write(REG_CTRL, reg_read(REG_CTRL) | CTRL_SLU | CTRL_ASDE);
    reg_write(REG_IMS, INT_RXT0 | INT_RXO | INT_RXDMT | INT_LSC);
    return ERR_OK;
}

int e1000_poll(struct netif *netif)
{
    int n = 0;
    for (;;) {
        struct rx_desc *d = &rx_ring[rx_next];
        if (!(d->status & DESC_DD))
            break;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint16_t len = d->length;
        /* Frames larger than one buffer cannot happen with a 1500 MTU; drop any that
         * arrive split rather than deliver half a frame. */
        if ((d->status & DESC_EOP) && d->errors == 0 && len > 0) {
            struct pbuf *p = pbuf_alloc(PBUF_RAW, len, PBUF_POOL);
            if (p) {
                pbuf_take(p, rx_buf[rx_next], len);
                if (netif->input(p, netif) != ERR_OK)
                    pbuf_free(p);
            }
        }
        d->status = 0;
        reg_write(REG_RDT, rx_next);
        rx_next = (rx_next + 1) % NUM_RX;
        n++;
    }
    return n;
}

uint32_t e1000_ack_interrupt(void)
{
    return reg_read(REG_ICR);
}
