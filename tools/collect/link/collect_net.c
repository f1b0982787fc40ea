/* TCP with deadlines (see collect_net.h). Sockets stay blocking; every wait is a poll()
 * with what is left of the caller's time, so no call can hang on a silent target. */
#include "collect_net.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Pause between connection attempts while the target is not listening yet. */
#define RETRY_PAUSE_S 0.25

const char *net_strerror(int err)
{
    switch (err) {
    case NET_OK:
        return "success";
    case NET_ERR_CLOSED:
        return "connection closed by the target";
    case NET_ERR_TIMEOUT:
        return "timed out";
    case NET_ERR_SYSTEM:
        return strerror(errno);
    case NET_ERR_RESOLVE:
        return "unknown host";
    default:
        return "unknown network error";
    }
}

double net_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Waits until fd is ready for `events` or the deadline passes. */
static int wait_ready(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - net_now();
        if (left <= 0)
            return NET_ERR_TIMEOUT;
        struct pollfd p = {fd, events, 0};
        int n = poll(&p, 1, (int)ceil(left * 1000));
        if (n > 0)
            return NET_OK;
        if (n < 0 && errno != EINTR)
            return NET_ERR_SYSTEM;
    }
}

static int try_connect(const struct addrinfo *ai, double timeout_s, int *out)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NET_ERR_SYSTEM;
    int flags = fcntl(fd, F_GETFL);
    int rc = NET_OK;
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        rc = NET_ERR_SYSTEM;
    } else if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        if (errno != EINPROGRESS) {
            rc = NET_ERR_SYSTEM;
        } else if ((rc = wait_ready(fd, POLLOUT, net_now() + timeout_s)) == NET_OK) {
            int soerr = 0;
            socklen_t len = sizeof soerr;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
                rc = NET_ERR_SYSTEM;
            else if (soerr != 0) {
                errno = soerr;
                rc = NET_ERR_SYSTEM;
            }
        }
    }
    int one = 1;
    if (rc == NET_OK && (fcntl(fd, F_SETFL, flags) < 0 ||
                         setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0))
        rc = NET_ERR_SYSTEM;
    if (rc != NET_OK) {
        int saved = errno;
        close(fd);
        errno = saved;
        return rc;
    }
    *out = fd;
    return NET_OK;
}

/* Failures that go away once the target is up and listening. */
static int worth_retrying(int rc)
{
    if (rc == NET_ERR_TIMEOUT)
        return 1;
    return rc == NET_ERR_SYSTEM &&
           (errno == ECONNREFUSED || errno == ECONNRESET || errno == EHOSTUNREACH ||
            errno == ENETUNREACH || errno == ETIMEDOUT || errno == EHOSTDOWN);
}

int net_connect(const char *host, const char *port, double retry_s, double attempt_s, int *fd,
                char *address, size_t address_size)
{
    double deadline = net_now() + retry_s;
    for (;;) {
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        int g = getaddrinfo(host, port, &hints, &res);
        int rc = NET_ERR_RESOLVE;
        if (g == 0) {
            int saved = 0;
            for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
                double left = deadline - net_now();
                rc = try_connect(ai, left < attempt_s ? (left > 0.5 ? left : 0.5) : attempt_s, fd);
                if (rc == NET_OK) {
                    if (getnameinfo(ai->ai_addr, ai->ai_addrlen, address, (socklen_t)address_size,
                                    NULL, 0, NI_NUMERICHOST) != 0)
                        snprintf(address, address_size, "%s", host);
                    freeaddrinfo(res);
                    return NET_OK;
                }
                saved = errno;
            }
            freeaddrinfo(res);
            errno = saved;
        } else if (g == EAI_AGAIN) {
            rc = NET_ERR_TIMEOUT;
        } else if (g == EAI_SYSTEM) {
            rc = NET_ERR_SYSTEM;
        }
        if (!worth_retrying(rc) || net_now() + RETRY_PAUSE_S >= deadline)
            return rc;
        int saved = errno;
        pause_s(RETRY_PAUSE_S);
        errno = saved;
    }
}

int net_send_all(int fd, const void *buf, size_t len, double timeout_s)
{
    const unsigned char *p = buf;
    double deadline = net_now() + timeout_s;
    while (len > 0) {
        int rc = wait_ready(fd, POLLOUT, deadline);
        if (rc != NET_OK)
            return rc;
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return errno == EPIPE || errno == ECONNRESET ? NET_ERR_CLOSED : NET_ERR_SYSTEM;
        }
        p += n;
        len -= (size_t)n;
    }
    return NET_OK;
}

int net_recv_exact(int fd, void *buf, size_t len, double timeout_s, size_t *got)
{
    unsigned char *p = buf;
    size_t done = 0;
    double deadline = net_now() + timeout_s;
    int rc = NET_OK;
    while (done < len) {
        if ((rc = wait_ready(fd, POLLIN, deadline)) != NET_OK)
            break;
        ssize_t n = recv(fd, p + done, len - done, MSG_DONTWAIT);
        if (n == 0) {
            rc = NET_ERR_CLOSED;
            break;
        }
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            rc = errno == ECONNRESET ? NET_ERR_CLOSED : NET_ERR_SYSTEM;
            break;
        }
        done += (size_t)n;
    }
    if (got)
        *got = done;
    return rc;
}
