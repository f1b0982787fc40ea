/* The consumer's own lwIP options: NO_SYS, raw API, IPv4 TCP, and what acart requires. */
#ifndef CONSUMER_LWIPOPTS_H
#define CONSUMER_LWIPOPTS_H

#define NO_SYS               1
#define SYS_LIGHTWEIGHT_PROT 0
#define LWIP_NETCONN         0
#define LWIP_SOCKET          0
#define LWIP_IPV4            1
#define LWIP_IPV6            0
#define LWIP_TCP             1
#define LWIP_UDP             0
#define LWIP_ICMP            1
#define LWIP_RAW             0
#define LWIP_WND_SCALE       1
#define TCP_RCV_SCALE        2
#define TCP_WND              (64 * 1024)
#define TCP_SND_BUF          (64 * 1024)
#define TCP_SND_QUEUELEN     (4 * TCP_SND_BUF / TCP_MSS)
#define TCP_MSS              1460
#define LWIP_TCP_KEEPALIVE   1
#define TCP_LISTEN_BACKLOG   1
#define MEM_ALIGNMENT        4
#define MEM_SIZE             (256 * 1024)
#define MEMP_NUM_TCP_PCB     40
#define MEMP_NUM_TCP_SEG     256
#define PBUF_POOL_SIZE       64

#include "acart_lwip_requirements.h"

#endif
