/* lwIP options for the host test of the channel layer: the board's TCP settings
 * (boards/qemu-pc/lwip/lwipopts.h) with smaller pools. The test squeezes the heap itself so
 * that tcp_write runs out of memory at every point of a send. */
#ifndef ACART_TEST_LWIPOPTS_H
#define ACART_TEST_LWIPOPTS_H

#define NO_SYS               1
#define SYS_LIGHTWEIGHT_PROT 0
#define LWIP_NETCONN         0
#define LWIP_SOCKET          0
#define LWIP_IPV4            1
#define LWIP_IPV6            0
#define LWIP_TCP             1
#define LWIP_UDP             0
#define LWIP_DHCP            0
#define LWIP_ARP             0
#define LWIP_ICMP            0
#define LWIP_RAW             0
#define LWIP_SINGLE_NETIF    1
#define LWIP_NETIF_LOOPBACK  0 /* the test's own wire copies into pool buffers */
#define LWIP_HAVE_LOOPIF     0

#define LWIP_STATS         1
#define LWIP_STATS_DISPLAY 0
#define MEM_STATS          1
#define MEMP_STATS         1
#define LINK_STATS         0
#define IP_STATS           0
#define IPFRAG_STATS       0
#define TCP_STATS          0
#define SYS_STATS          0

#define MEM_ALIGNMENT           8
#define MEM_SIZE                (256 * 1024)
#define MEMP_NUM_TCP_PCB        80
#define MEMP_NUM_TCP_PCB_LISTEN 4
#define MEMP_NUM_TCP_SEG        96
#define MEMP_NUM_PBUF           64
#define PBUF_POOL_SIZE          256
#define PBUF_POOL_BUFSIZE       1536

#define TCP_MSS            1460
#define LWIP_WND_SCALE     1
#define TCP_RCV_SCALE      2
#define TCP_WND            (128 * 1024)
#define TCP_SND_BUF        (128 * 1024)
#define TCP_SND_QUEUELEN   (4 * TCP_SND_BUF / TCP_MSS)
#define TCP_SNDLOWAT       (TCP_SND_BUF / 4)
#define TCP_OVERSIZE       TCP_MSS
#define LWIP_TCP_KEEPALIVE 1
#define TCP_LISTEN_BACKLOG 1
/* Pools smaller than the send buffer and the window are the point of this test. */
#define LWIP_DISABLE_TCP_SANITY_CHECKS 1

#endif
