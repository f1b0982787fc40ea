/* The connections of one SEP session, host side: the control channel with its handshake
 * and request/reply framing, and the data channels with theirs. Every reply is checked
 * (header size, protocol version, echoed command, status, payload size); a failure is a
 * diag message that names the command, its number and the target's status. */
#ifndef ACART_TOOLS_COLLECT_LINK_H
#define ACART_TOOLS_COLLECT_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "acart_wire.h"
#include "diag.h"

/* The diag code of a failure of the target or of the connection to it; `acart collect`
 * exits with ACART_EXIT_TARGET for it. */
#define COLLECT_DIAG_TARGET (-100)

struct collect_link {
    int control; /* the control connection; -1 when closed */
    char host[256], port[16];
    char address[64];                /* the numeric address connected to */
    double timeout_s;                /* longest wait for any reply */
    struct sep_target_status status; /* the handshake's answer */
    int32_t last_status;             /* the last reply's status (SEP_STATUS_*) */
    int lost; /* a request found the control connection ended (closed or reset) */
};

/* A data connection after its handshake: what the target says it carries. */
struct link_data {
    int fd;
    uint16_t type; /* SEP_DATA_* */
    uint16_t id;   /* CPU number of a CPU channel */
};

/* Splits "HOST[:PORT]" ("[v6]:PORT" for IPv6 literals) into l->host and l->port, the
 * port defaulting to SEP_DEFAULT_PORT. Returns 0 or DIAG_USAGE. */
int link_parse_target(struct collect_link *l, const char *target, struct diag *d);

/* Connects the control channel and performs the handshake. While the target is not
 * listening yet (it may still be booting), attempts are repeated for connect_s seconds. */
int link_open(struct collect_link *l, double connect_s, double timeout_s, struct diag *d);

/* Opens the target's num_cpus + 2 data connections and performs their handshakes. On
 * success data[0..n) are CPU 0..num_cpus-1, then the uncore and the module channel, in
 * that order whatever order the target assigned them in. */
int link_open_data(struct collect_link *l, struct link_data *data, size_t n, struct diag *d);

/* One control request: sends the header and in_len payload bytes, asks for want bytes
 * back, and checks the reply; on success *got (want .. min) reply bytes are in out. */
int link_request(struct collect_link *l, uint32_t op, const void *in, size_t in_len, void *out,
                 size_t want, size_t min, size_t *got, struct diag *d);

void link_close(struct collect_link *l);

/* "START", "GET_SAMPLE_DROP_INFO", ...; "?" for a number acart collect never sends. */
const char *link_op_name(uint32_t op);

/* "PMU_IN_USE", "COMMAND_NOT_HANDLED", ...; "unknown" for others. */
const char *link_status_name(int32_t status);

#endif
