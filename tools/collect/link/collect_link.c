/* Control and data connections of a SEP session, host side (see collect_link.h). */
#include "collect_link.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect_net.h"

/* A target that is still booting may accept a connection and drop it at once (QEMU's
 * user-mode network forwards the port before the board listens): such a connection is
 * tried again, after this pause, until the connect window closes. */
#define HANDSHAKE_RETRY_PAUSE_S 0.25

#define NAME(prefix, x)                                                                            \
    {                                                                                              \
        prefix##x, #x                                                                              \
    }

static const struct {
    uint32_t op;
    const char *name;
} op_names[] = {
    NAME(SEP_OP_, START),
    NAME(SEP_OP_, STOP),
    NAME(SEP_OP_, INIT_PMU),
    NAME(SEP_OP_, INIT),
    NAME(SEP_OP_, EM_GROUPS),
    NAME(SEP_OP_, GET_NORMALIZED_TSC),
    NAME(SEP_OP_, EM_CONFIG_NEXT),
    NAME(SEP_OP_, TSC_SKEW_INFO),
    NAME(SEP_OP_, NUM_CORES),
    NAME(SEP_OP_, COLLECT_SYS_CONFIG),
    NAME(SEP_OP_, GET_SYS_CONFIG),
    NAME(SEP_OP_, TERMINATE),
    NAME(SEP_OP_, RESERVE),
    NAME(SEP_OP_, VERSION),
    NAME(SEP_OP_, NUM_DESCRIPTOR),
    NAME(SEP_OP_, DESC_NEXT),
    NAME(SEP_OP_, GET_PLATFORM_INFO),
    NAME(SEP_OP_, SET_CPU_TOPOLOGY),
    NAME(SEP_OP_, GET_NUM_SAMPLES),
    NAME(SEP_OP_, SET_DEVICE_NUM_UNITS),
    NAME(SEP_OP_, GET_SAMPLE_DROP_INFO),
    NAME(ACART_OP_, GET_DROP_REASONS),
    NAME(ACART_OP_, GET_PMI_BUDGET),
    NAME(ACART_OP_, GET_CHANNEL_TOTALS),
    NAME(ACART_OP_, GET_TASK_SWITCHES),
    NAME(ACART_OP_, EXTENSIONS),
    NAME(ACART_OP_, PT_INFO),
    NAME(ACART_OP_, PT_CONFIG),
    NAME(ACART_OP_, PT_FREEZE),
    NAME(ACART_OP_, PT_STATUS),
    NAME(SEP_OP_, GET_DRV_SETUP_INFO),
    NAME(SEP_OP_, GET_THREAD_COUNT),
    NAME(SEP_OP_, GET_THREAD_INFO),
    NAME(SEP_OP_, SET_OSID),
    NAME(SEP_OP_, INIT_DRIVER),
    NAME(SEP_OP_, INIT_NUM_DEV),
    NAME(SEP_OP_, INIT_UNC),
    NAME(SEP_OP_, EM_GROUPS_UNC),
    NAME(SEP_OP_, EM_CONFIG_NEXT_UNC),
};

static const struct {
    int32_t status;
    const char *name;
} status_names[] = {
    NAME(SEP_STATUS_, FAILURE),
    NAME(SEP_STATUS_, INVALID_SAMP_INTERVAL),
    NAME(SEP_STATUS_, INVALID_NUM_EVENTS),
    NAME(SEP_STATUS_, INTERNAL_ERROR),
    NAME(SEP_STATUS_, NO_EVENTS),
    NAME(SEP_STATUS_, SAMPLING_ALREADY_STARTED),
    NAME(SEP_STATUS_, INVALID_EVENT_SIZE),
    NAME(SEP_STATUS_, NO_MEMORY),
    NAME(SEP_STATUS_, BUFFER_OVERFLOW),
    NAME(SEP_STATUS_, BUFFER_NULL),
    NAME(SEP_STATUS_, UNEXPECTED_NULL_PTR),
    NAME(SEP_STATUS_, INCOMPATIBLE_PARAMS),
    NAME(SEP_STATUS_, TIMEOUT_RETURN),
    NAME(SEP_STATUS_, DRIVER_RUNNING),
    NAME(SEP_STATUS_, DRIVER_STOPPED),
    NAME(SEP_STATUS_, DRIVER_INIT_FAILED),
    NAME(SEP_STATUS_, INVALID_CPU_MASK),
    NAME(SEP_STATUS_, SAMP_IN_RUNNING_STATE),
    NAME(SEP_STATUS_, SAMP_IN_PAUSE_STATE),
    NAME(SEP_STATUS_, SAMP_IN_STOP_STATE),
    NAME(SEP_STATUS_, SAMP_NO_SESSION),
    NAME(SEP_STATUS_, NOT_CONFIGURED),
    NAME(SEP_STATUS_, BAD_PARAMETER),
    NAME(SEP_STATUS_, INVALID_STATE_TRANS),
    NAME(SEP_STATUS_, UNEXPECTED_VALUE),
    NAME(SEP_STATUS_, NOT_IMPLEMENTED),
    NAME(SEP_STATUS_, INCOMPATIBLE_VERSION),
    NAME(SEP_STATUS_, DRIVER_IOCTL_FAILED),
    NAME(SEP_STATUS_, UNSUPPORTED_DATA_SIZE),
    NAME(SEP_STATUS_, BUFFER_TOO_SMALL),
    NAME(SEP_STATUS_, NO_SAMPLES_COLLECTED),
    NAME(SEP_STATUS_, UNSUPPORTED_ARCH_TYPE),
    NAME(SEP_STATUS_, EM_TOO_MANY_EVENT_GROUPS),
    NAME(SEP_STATUS_, EM_NOT_SUPPORTED),
    NAME(SEP_STATUS_, PMU_IN_USE),
    NAME(SEP_STATUS_, TOO_MANY_INTERRUPTS),
    NAME(SEP_STATUS_, MAX_SAMPLES_REACHED),
    NAME(SEP_STATUS_, MODULE_COLLECTION_FAILED),
    NAME(SEP_STATUS_, INCOMPATIBLE_DRIVER),
    NAME(SEP_STATUS_, UNABLE_LOCATE_TRIGGER_EVENT),
    NAME(SEP_STATUS_, COMMAND_NOT_HANDLED),
    NAME(SEP_STATUS_, DRIVER_VERSION_MISMATCH),
    NAME(SEP_STATUS_, DRIVER_COMM_FAILED),
    NAME(ACART_STATUS_, NO_PT),
    NAME(SEP_STATUS_, UNSUPPORTED_UNCORE_ARCH_TYPE),
    NAME(SEP_STATUS_, EXCEEDED_MAX_EVENTS),
    NAME(SEP_STATUS_, INVALID_EVENT),
    NAME(SEP_STATUS_, INVALID_DEVICE),
    NAME(SEP_STATUS_, NO_PMU_RESOURCES),
    NAME(SEP_STATUS_, FREEZE_ON_PMI_NOT_AVAIL),
    NAME(SEP_STATUS_, MSR_ACCESS_ERROR),
    NAME(SEP_STATUS_, PEBS_NOT_SUPPORTED),
    NAME(SEP_STATUS_, COMM_CONNECTION_CLOSED),
    NAME(SEP_STATUS_, COMM_LISTEN_ERROR),
    NAME(SEP_STATUS_, COMM_BIND_ERROR),
    NAME(SEP_STATUS_, COMM_ACCEPT_ERROR),
    NAME(SEP_STATUS_, COMM_SEND_ERROR),
    NAME(SEP_STATUS_, COMM_RECV_ERROR),
    NAME(SEP_STATUS_, COMM_SOCKET_ERROR),
    NAME(SEP_STATUS_, COMM_CONNECT_ERROR),
    NAME(SEP_STATUS_, TARGET_COLLECTION_MISMATCH),
    NAME(SEP_STATUS_, COMM_PROTOCOL_NOT_SUPPORTED),
    NAME(SEP_STATUS_, SAMP_IN_UNEXPECTED_STATE),
    NAME(SEP_STATUS_, CORE_EVT_MUX_NOT_SUPPORTED),
    NAME(SEP_STATUS_, COMM_RECV_TIMEOUT),
    NAME(SEP_STATUS_, COMM_NOT_COMPATIBLE),
    NAME(SEP_STATUS_, COMM_DATA_CHANNEL_UNAVAILABLE),
    NAME(SEP_STATUS_, COMM_INVALID_TARGET_OS_INFO),
    NAME(SEP_STATUS_, COMM_INVALID_TARGET_HW_INFO),
    NAME(SEP_STATUS_, COMM_INVALID_COLLECT_SWITCH),
    NAME(SEP_STATUS_, COMM_INVALID_NUM_CORE_EVENTS),
    NAME(SEP_STATUS_, INVALID_PROG_INFO),
    NAME(SEP_STATUS_, UNSUPPORTED_CPU_TOPOLOGY),
};

const char *link_op_name(uint32_t op)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (op_names[i].op == op)
            return op_names[i].name;
    return "?";
}

const char *link_status_name(int32_t status)
{
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        if (status_names[i].status == status)
            return status_names[i].name;
    return "unknown";
}

static int fail(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    d->code = COLLECT_DIAG_TARGET;
    return COLLECT_DIAG_TARGET;
}

int link_parse_target(struct collect_link *l, const char *target, struct diag *d)
{
    const char *host = target, *port = NULL;
    size_t host_len;
    if (target[0] == '[') {
        const char *close = strchr(target, ']');
        if (!close || (close[1] != '\0' && close[1] != ':'))
            return diag_fail(d, DIAG_USAGE, "--target %s: expected [ADDRESS]:PORT", target);
        host = target + 1;
        host_len = (size_t)(close - host);
        port = close[1] == ':' ? close + 2 : NULL;
    } else {
        const char *colon = strchr(target, ':');
        /* Two colons or more: a bare IPv6 address, no port. */
        if (colon && strchr(colon + 1, ':'))
            colon = NULL;
        host_len = colon ? (size_t)(colon - target) : strlen(target);
        port = colon ? colon + 1 : NULL;
    }
    if (host_len == 0 || host_len >= sizeof l->host)
        return diag_fail(d, DIAG_USAGE, "--target %s: expected HOST[:PORT]", target);
    memcpy(l->host, host, host_len);
    l->host[host_len] = '\0';
    if (!port) {
        snprintf(l->port, sizeof l->port, "%d", SEP_DEFAULT_PORT);
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long p = strtoul(port, &end, 10);
    if (!port[0] || *end || errno || p == 0 || p > 65535 || port[0] == '-' || port[0] == '+')
        return diag_fail(d, DIAG_USAGE, "--target %s: port must be 1 to 65535", target);
    snprintf(l->port, sizeof l->port, "%lu", p);
    return 0;
}

static struct sep_first_msg first_message(void)
{
    struct sep_first_msg m;
    memset(&m, 0, sizeof m);
    m.msg_size = sizeof m;
    m.proto_version = SEP_PROTOCOL_VERSION;
    return m;
}

/* acart boards follow a busy status with a note naming the holder (docs/sep-protocol.md
 * 3.1); other targets close instead. Writes "" when there is no note. */
static void read_busy_note(struct collect_link *l, char *out, size_t size)
{
    static const char *const states[] = {"is opening its data connections", "is connected",
                                         "is collecting", "is receiving its records"};
    struct acart_busy_note n;
    size_t got = 0;
    out[0] = '\0';
    if (net_recv_exact(l->control, &n, sizeof n, l->timeout_s < 2 ? l->timeout_s : 2, &got) !=
            NET_OK ||
        memcmp(n.magic, ACART_BUSY_NOTE_MAGIC, sizeof ACART_BUSY_NOTE_MAGIC) != 0)
        return;
    const uint8_t *ip = (const uint8_t *)&n.holder_ip;
    uint64_t held_s = n.held_ms / 1000, since_s = n.since_boot_ms / 1000;
    snprintf(out, size,
             ": %u.%u.%u.%u:%u has held it for %" PRIu64 " min %02" PRIu64 " s (since %" PRIu64
             " s after the board booted) and %s",
             ip[0], ip[1], ip[2], ip[3], n.holder_port, held_s / 60, held_s % 60, since_s,
             n.holder_state < sizeof states / sizeof states[0] ? states[n.holder_state]
                                                               : "is in an unknown state");
}

static int check_target_status(struct collect_link *l, struct diag *d)
{
    const struct sep_target_status *st = &l->status;
    if (st->msg_size != sizeof *st)
        return fail(d, "%s:%s: handshake answer says it is %" PRIu32 " bytes, expected %zu",
                    l->host, l->port, st->msg_size, sizeof *st);
    if (st->proto_version != SEP_PROTOCOL_VERSION)
        return fail(d, "%s:%s speaks SEP protocol version %" PRIu32 "; acart speaks %d", l->host,
                    l->port, st->proto_version, SEP_PROTOCOL_VERSION);
    if (st->status == SEP_STATUS_PMU_IN_USE) {
        char holder[160];
        read_busy_note(l, holder, sizeof holder);
        return fail(d, "%s:%s is busy: another host has a session with it%s (status %d, %s)",
                    l->host, l->port, holder, st->status, link_status_name(st->status));
    }
    if (st->status != SEP_STATUS_SUCCESS)
        return fail(d, "%s:%s refused the session: status %d (%s)", l->host, l->port, st->status,
                    link_status_name(st->status));
    if (st->os_info_offset != offsetof(struct sep_target_status, os_info) ||
        st->collect_switch_offset != offsetof(struct sep_target_status, collect_switch) ||
        st->hardware_info_offset != offsetof(struct sep_target_status, hardware_info))
        return fail(d,
                    "%s:%s: handshake answer places its parts at offsets %" PRIu32 "/%" PRIu32
                    "/%" PRIu32 ", expected 48/248/256",
                    l->host, l->port, st->os_info_offset, st->collect_switch_offset,
                    st->hardware_info_offset);
    if (st->hardware_info.tsc_freq == 0)
        return fail(d, "%s:%s reports a TSC rate of 0 Hz", l->host, l->port);
    if (st->hardware_info.num_cpus == 0 || st->hardware_info.num_cpus > SEP_SAMPLE_CPU_NUM_MASK + 1)
        return fail(d, "%s:%s reports %" PRIu32 " CPUs (samples can name 1 to %u)", l->host,
                    l->port, st->hardware_info.num_cpus, SEP_SAMPLE_CPU_NUM_MASK + 1);
    return 0;
}

int link_open(struct collect_link *l, double connect_s, double timeout_s, struct diag *d)
{
    double deadline = net_now() + connect_s;
    l->control = -1;
    l->timeout_s = timeout_s;
    for (;;) {
        double left = deadline - net_now();
        int rc = net_connect(l->host, l->port, left > 0 ? left : 0, timeout_s, &l->control,
                             l->address, sizeof l->address);
        if (rc == NET_ERR_RESOLVE)
            return fail(d, "cannot connect to %s:%s: unknown host", l->host, l->port);
        if (rc != NET_OK)
            return fail(d, "cannot connect to %s:%s: %s (tried for %.0f s)", l->host, l->port,
                        net_strerror(rc), connect_s);
        struct sep_first_msg first = first_message();
        size_t got = 0;
        rc = net_send_all(l->control, &first, sizeof first, timeout_s);
        if (rc == NET_OK)
            rc = net_recv_exact(l->control, &l->status, sizeof l->status, timeout_s, &got);
        if (rc == NET_OK)
            return check_target_status(l, d);
        link_close(l);
        if (rc == NET_ERR_CLOSED && got == 0 && net_now() + HANDSHAKE_RETRY_PAUSE_S < deadline) {
            usleep((useconds_t)(HANDSHAKE_RETRY_PAUSE_S * 1e6));
            continue;
        }
        if (rc == NET_ERR_TIMEOUT)
            return fail(d,
                        "%s:%s accepted the connection but did not answer the handshake "
                        "within %.0f s (%zu of %zu bytes)",
                        l->host, l->port, timeout_s, got, sizeof l->status);
        return fail(d, "%s:%s: handshake failed after %zu of %zu bytes: %s", l->host, l->port, got,
                    sizeof l->status, net_strerror(rc));
    }
}

static const char *data_type_name(uint16_t type)
{
    switch (type) {
    case SEP_DATA_CPU:
        return "CPU";
    case SEP_DATA_MODULE:
        return "module";
    case SEP_DATA_UNCORE:
        return "uncore";
    case SEP_DATA_SIDEBAND:
        return "sideband";
    case ACART_DATA_PT:
        return "Intel PT";
    default:
        return "unknown";
    }
}

/* Puts the handshaken connections in[0..n) in their places in out: CPUs by number, then
 * uncore, then module. */
static int place_data(struct collect_link *l, const struct link_data *in, struct link_data *out,
                      size_t n, struct diag *d)
{
    size_t ncpu = n - SEP_NONCORE_DATA_CONNECTIONS;
    for (size_t i = 0; i < n; i++)
        out[i].fd = -1;
    for (size_t i = 0; i < n; i++) {
        size_t slot;
        if (in[i].type == SEP_DATA_CPU && in[i].id < ncpu)
            slot = in[i].id;
        else if (in[i].type == SEP_DATA_UNCORE && in[i].id == 0)
            slot = ncpu;
        else if (in[i].type == SEP_DATA_MODULE && in[i].id == 0)
            slot = ncpu + 1;
        else
            return fail(d,
                        "%s:%s: data connection %zu is %s channel %u, which a target with %zu "
                        "CPUs does not have",
                        l->host, l->port, i, data_type_name(in[i].type), in[i].id, ncpu);
        if (out[slot].fd >= 0)
            return fail(d, "%s:%s: two data connections are %s channel %u", l->host, l->port,
                        data_type_name(in[i].type), in[i].id);
        out[slot] = in[i];
    }
    return 0;
}

int link_open_data(struct collect_link *l, struct link_data *data, size_t n, struct diag *d)
{
    struct link_data *tmp = calloc(n, sizeof *tmp);
    if (!tmp)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        tmp[i].fd = -1;
    int rc = 0;
    struct sep_first_msg first = first_message();
    char address[64];
    for (size_t i = 0; i < n && !rc; i++) {
        int nrc = net_connect(l->host, l->port, l->timeout_s, l->timeout_s, &tmp[i].fd, address,
                              sizeof address);
        if (nrc == NET_OK)
            nrc = net_send_all(tmp[i].fd, &first, sizeof first, l->timeout_s);
        if (nrc != NET_OK)
            rc = fail(d, "%s:%s: data connection %zu of %zu: %s%s", l->host, l->port, i + 1, n,
                      net_strerror(nrc),
                      nrc == NET_ERR_SYSTEM && errno == EMFILE ? " (raise `ulimit -n`)" : "");
    }
    for (size_t i = 0; i < n && !rc; i++) {
        struct sep_data_first_msg m;
        size_t got = 0;
        int nrc = net_recv_exact(tmp[i].fd, &m, sizeof m, l->timeout_s, &got);
        if (nrc != NET_OK)
            rc = fail(d,
                      "%s:%s: data connection %zu of %zu: handshake answer: %s after %zu of "
                      "%zu bytes",
                      l->host, l->port, i + 1, n, net_strerror(nrc), got, sizeof m);
        else if (m.proto_version != SEP_PROTOCOL_VERSION)
            rc = fail(d,
                      "%s:%s: data connection %zu answered with protocol version %" PRIu32
                      ", expected %d",
                      l->host, l->port, i + 1, m.proto_version, SEP_PROTOCOL_VERSION);
        tmp[i].type = m.data_type;
        tmp[i].id = m.data_id;
    }
    if (!rc)
        rc = place_data(l, tmp, data, n, d);
    if (rc)
        for (size_t i = 0; i < n; i++)
            if (tmp[i].fd >= 0)
                close(tmp[i].fd);
    free(tmp);
    return rc;
}

int link_request(struct collect_link *l, uint32_t op, const void *in, size_t in_len, void *out,
                 size_t want, size_t min, size_t *got, struct diag *d)
{
    const char *name = link_op_name(op);
    struct sep_ctrl_header h;
    memset(&h, 0, sizeof h);
    h.header_size = sizeof h;
    h.proto_version = SEP_PROTOCOL_VERSION;
    h.command_id = op;
    h.to_target_data_size = in_len;
    h.from_target_data_size = want;
    int rc = net_send_all(l->control, &h, sizeof h, l->timeout_s);
    if (rc == NET_OK && in_len)
        rc = net_send_all(l->control, in, in_len, l->timeout_s);
    if (rc != NET_OK) {
        l->lost = rc == NET_ERR_CLOSED || rc == NET_ERR_SYSTEM;
        return fail(d, "%s (%" PRIu32 "): sending the request: %s", name, op, net_strerror(rc));
    }

    struct sep_ctrl_header r;
    rc = net_recv_exact(l->control, &r, sizeof r, l->timeout_s, NULL);
    if (rc == NET_ERR_TIMEOUT)
        return fail(d, "%s (%" PRIu32 "): no reply within %.0f s (see --timeout)", name, op,
                    l->timeout_s);
    if (rc != NET_OK) {
        l->lost = rc == NET_ERR_CLOSED || rc == NET_ERR_SYSTEM;
        return fail(d, "%s (%" PRIu32 "): waiting for the reply: %s", name, op, net_strerror(rc));
    }
    if (r.header_size != sizeof r)
        return fail(d, "%s (%" PRIu32 "): reply header says it is %" PRIu32 " bytes, expected %zu",
                    name, op, r.header_size, sizeof r);
    if (r.proto_version != SEP_PROTOCOL_VERSION)
        return fail(d, "%s (%" PRIu32 "): reply has protocol version %" PRIu32 ", expected %d",
                    name, op, r.proto_version, SEP_PROTOCOL_VERSION);
    if (r.command_id != op)
        return fail(d, "%s (%" PRIu32 "): reply is for command %" PRIu32 " (%s)", name, op,
                    r.command_id, link_op_name(r.command_id));
    l->last_status = r.status;
    if (r.status != SEP_STATUS_SUCCESS)
        return fail(d, "%s (%" PRIu32 ") failed on the target: status %d (%s)", name, op, r.status,
                    link_status_name(r.status));
    if (r.from_target_data_size > want || r.from_target_data_size < min)
        return fail(d, "%s (%" PRIu32 "): reply of %" PRIu64 " bytes, expected %zu to %zu", name,
                    op, (uint64_t)r.from_target_data_size, min, want);
    size_t n = (size_t)r.from_target_data_size;
    size_t have = 0;
    rc = net_recv_exact(l->control, out, n, l->timeout_s, &have);
    if (rc != NET_OK)
        return fail(d, "%s (%" PRIu32 "): reply payload: %s after %zu of %zu bytes", name, op,
                    net_strerror(rc), have, n);
    if (got)
        *got = n;
    return 0;
}

void link_close(struct collect_link *l)
{
    if (l->control >= 0)
        close(l->control);
    l->control = -1;
}
