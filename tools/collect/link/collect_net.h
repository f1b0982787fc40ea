/* Blocking TCP with deadlines, for `acart collect`: every wait on the target is bounded.
 * Functions return NET_OK or a negative NET_ERR_*; after NET_ERR_SYSTEM errno says why. */
#ifndef ACART_TOOLS_COLLECT_NET_H
#define ACART_TOOLS_COLLECT_NET_H

#include <stddef.h>

enum net_error {
    NET_OK = 0,
    NET_ERR_CLOSED = -1,  /* the peer closed the connection (end of file, or reset) */
    NET_ERR_TIMEOUT = -2, /* the deadline passed */
    NET_ERR_SYSTEM = -3,  /* a system call failed: see errno */
    NET_ERR_RESOLVE = -4, /* the host name did not resolve */
};

/* "connection closed by the target", "timed out", strerror(errno), ... */
const char *net_strerror(int err);

/* Seconds on a monotonic clock. */
double net_now(void);

/* Connects to host:port (a name or a numeric IPv4/IPv6 address), trying again while the
 * target refuses or is unreachable, until retry_s seconds have passed. Each attempt waits
 * at most attempt_s. On success *fd is a blocking socket with TCP_NODELAY and address
 * holds the numeric address connected to. */
int net_connect(const char *host, const char *port, double retry_s, double attempt_s, int *fd,
                char *address, size_t address_size);

/* Sends all len bytes, or fails once timeout_s have passed. */
int net_send_all(int fd, const void *buf, size_t len, double timeout_s);

/* Receives exactly len bytes, or fails once timeout_s have passed; *got (may be NULL) tells
 * how many arrived before a failure. */
int net_recv_exact(int fd, void *buf, size_t len, double timeout_s, size_t *got);

#endif
