/* The qemu-pc board's lwIP options: NO_SYS with the raw API only, IPv4 and TCP, all
 * memory in static pools sized here. libacart.a of this tree is compiled against them
 * (ACART_LWIPOPTS_DIR). The values are docs/porting.md's template (why each: there),
 * its "yours" ones chosen for this board. */
#ifndef ACART_LWIPOPTS_H
#define ACART_LWIPOPTS_H

#define NO_SYS                     1
#define SYS_LIGHTWEIGHT_PROT       0
#define LWIP_NETCONN               0
#define LWIP_SOCKET                0
#define LWIP_IPV4                  1
#define LWIP_IPV6                  0
#define LWIP_TCP                   1
#define LWIP_UDP                   1 /* DHCP */
#define LWIP_DHCP                  1
#define LWIP_ARP                   1
#define LWIP_ICMP                  1
#define LWIP_RAW                   0
#define LWIP_NETIF_STATUS_CALLBACK 1
#define LWIP_SINGLE_NETIF          1

/* Only the memory statistics: the agent reports them, so a test can see that a session
 * gave back everything it took. */
#define LWIP_STATS         1
#define LWIP_STATS_DISPLAY 0
#define MEM_STATS          1
#define MEMP_STATS         1
#define LINK_STATS         0
#define ETHARP_STATS       0
#define IP_STATS           0
#define IPFRAG_STATS       0
#define ICMP_STATS         0
#define UDP_STATS          0
#define TCP_STATS          0
#define SYS_STATS          0

#define MEM_ALIGNMENT 4
#ifndef MEM_SIZE
#define MEM_SIZE (2 * 1024 * 1024)
#endif
#define MEMP_NUM_TCP_PCB        80 /* a session: control + up to 64 CPUs + 2; echo and bench */
#define MEMP_NUM_TCP_PCB_LISTEN 4
#define MEMP_NUM_TCP_SEG        1024
#define MEMP_NUM_PBUF           1024 /* one per segment sent from a ring, without a copy */
#define PBUF_POOL_SIZE          512
#define PBUF_POOL_BUFSIZE       1536

#define TCP_MSS        1460
#define LWIP_WND_SCALE 1
#define TCP_RCV_SCALE  2
#define TCP_WND        (128 * 1024)
#ifndef TCP_SND_BUF /* the board's variants (CMakeLists.txt) set another */
#define TCP_SND_BUF (128 * 1024)
#endif
#define TCP_SND_QUEUELEN   (4 * TCP_SND_BUF / TCP_MSS)
#define TCP_SNDLOWAT       (TCP_SND_BUF / 4 < 32768 ? TCP_SND_BUF / 4 : 32768)
#define TCP_OVERSIZE       TCP_MSS
#define LWIP_TCP_KEEPALIVE 1
#define TCP_LISTEN_BACKLOG 1

#define LWIP_CHKSUM_ALGORITHM 3

/* Checked here so that this build and every port's agree on what channel.c relies on. */
#include "acart_lwip_requirements.h"

#endif
