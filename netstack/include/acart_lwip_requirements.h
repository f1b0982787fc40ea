/* For a port (installed; its lwipopts.h includes it): What acart's channel layer
 * (netstack/channel.c, inside libacart.a) needs from the lwIP it is linked with. libacart.a is
 * compiled against lwIP's headers with acart's lwipopts.h; the port's lwIP must agree on every
 * option below, because channel.c reads and writes struct tcp_pcb fields through lwIP's own macros
 * (tcp_sndbuf, keepalive settings, the remote address) whose offsets these options decide. Include
 * this header at the end of the port's lwipopts.h: a mismatch is then a compile error in the port,
 * never a silent corruption at run time. */
#ifndef ACART_LWIP_REQUIREMENTS_H
#define ACART_LWIP_REQUIREMENTS_H

/* Included at the end of lwipopts.h, before lwIP's opt.h fills in its defaults: an option
 * whose default is what acart needs may be left undefined, one whose default is not must
 * be set. */
#if defined(LWIP_TCP) && !LWIP_TCP
#error "acart needs LWIP_TCP 1"
#endif
#if defined(LWIP_EVENT_API) && LWIP_EVENT_API
#error "acart uses lwIP's callback API: LWIP_EVENT_API must be 0"
#endif
#if (defined(LWIP_IPV4) && !LWIP_IPV4) || (defined(LWIP_IPV6) && LWIP_IPV6)
#error "acart needs an IPv4-only lwIP (LWIP_IPV4 1, LWIP_IPV6 0): ip_addr_t is 4 bytes"
#endif
#if !defined(LWIP_TCP_KEEPALIVE) || LWIP_TCP_KEEPALIVE != 1
#error "acart needs LWIP_TCP_KEEPALIVE 1 (dead hosts are dropped through keepalive)"
#endif
#if !defined(LWIP_WND_SCALE) || LWIP_WND_SCALE != 1
#error "acart needs LWIP_WND_SCALE 1 (tcpwnd_size_t is 32 bits in libacart.a)"
#endif
#if !defined(TCP_LISTEN_BACKLOG) || TCP_LISTEN_BACKLOG != 1
#error "acart needs TCP_LISTEN_BACKLOG 1"
#endif
#if defined(LWIP_TCP_TIMESTAMPS) && LWIP_TCP_TIMESTAMPS
#error "acart needs LWIP_TCP_TIMESTAMPS 0 (struct tcp_pcb layout)"
#endif
#if defined(LWIP_TCP_SACK_OUT) && LWIP_TCP_SACK_OUT
#error "acart needs LWIP_TCP_SACK_OUT 0 (struct tcp_pcb layout)"
#endif
#if defined(LWIP_TCP_PCB_NUM_EXT_ARGS) && LWIP_TCP_PCB_NUM_EXT_ARGS
#error "acart needs LWIP_TCP_PCB_NUM_EXT_ARGS 0 (struct tcp_pcb layout)"
#endif
#if defined(TCP_OVERSIZE) && !TCP_OVERSIZE
#error "acart needs TCP_OVERSIZE on (struct tcp_pcb layout)"
#endif
#if defined(LWIP_NETIF_USE_HINTS) && LWIP_NETIF_USE_HINTS
#error "acart needs LWIP_NETIF_USE_HINTS 0 (struct tcp_pcb layout)"
#endif

#endif
