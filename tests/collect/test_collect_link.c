/*
 * Control requests as `acart collect` sends them and checks their replies
 * (tools/collect/link/collect_link.c), against a peer on a socketpair that answers each request the
 * way a scenario says: a good reply, a failure status, a wrong protocol version, another
 * command's reply, a payload of the wrong size, silence, a closed connection. Each bad
 * reply must fail with a message naming the command, its number and what was wrong;
 * the peer checks the request header the host sent. Also: --target parsing.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "acart_check.h"
#include "collect_link.h"
#include "collect_net.h"

enum scenario {
    REPLY_OK,
    REPLY_SHORT_OK, /* fewer bytes than asked, allowed by min */
    REPLY_STATUS,
    REPLY_VERSION,
    REPLY_OTHER_COMMAND,
    REPLY_TOO_LONG,
    REPLY_HEADER_SIZE,
    REPLY_NOTHING,
    REPLY_CLOSE,
};

struct peer {
    int fd;
    enum scenario scenario;
    struct sep_ctrl_header seen; /* the request as the peer received it */
    uint8_t payload[64];
    int bad; /* the peer could not read a whole request */
};

static int read_all(int fd, void *buf, size_t len)
{
    return net_recv_exact(fd, buf, len, 5, NULL);
}

static void *peer_main(void *arg)
{
    struct peer *p = arg;
    if (read_all(p->fd, &p->seen, sizeof p->seen) != NET_OK ||
        p->seen.to_target_data_size > sizeof p->payload ||
        read_all(p->fd, p->payload, (size_t)p->seen.to_target_data_size) != NET_OK) {
        p->bad = 1;
        return NULL;
    }
    if (p->scenario == REPLY_NOTHING)
        return NULL;
    if (p->scenario == REPLY_CLOSE) {
        shutdown(p->fd, SHUT_RDWR);
        return NULL;
    }
    uint64_t n = p->seen.from_target_data_size;
    struct sep_ctrl_header r = sep_ctrl_response(p->seen.command_id, SEP_STATUS_SUCCESS, n);
    switch (p->scenario) {
    case REPLY_SHORT_OK:
        r.from_target_data_size = n = n / 2;
        break;
    case REPLY_STATUS:
        r = sep_ctrl_response(p->seen.command_id, SEP_STATUS_COMMAND_NOT_HANDLED, 0);
        n = 0;
        break;
    case REPLY_VERSION:
        r.proto_version = 5;
        break;
    case REPLY_OTHER_COMMAND:
        r.command_id = SEP_OP_STOP;
        break;
    case REPLY_TOO_LONG:
        r.from_target_data_size = n = n + 8;
        break;
    case REPLY_HEADER_SIZE:
        r.header_size = 40;
        break;
    default:
        break;
    }
    uint8_t body[128];
    for (size_t i = 0; i < sizeof body; i++)
        body[i] = (uint8_t)(0xC0 + i);
    net_send_all(p->fd, &r, sizeof r, 5);
    net_send_all(p->fd, body, (size_t)n, 5);
    return NULL;
}

/* Runs one request of `op` (4 payload bytes out, `want` asked back, at least `min`)
 * against a peer playing `scenario`; returns link_request's result. */
static int run(enum scenario scenario, uint32_t op, size_t want, size_t min, uint8_t *out,
               size_t *got, struct diag *d, struct peer *p)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("socketpair");
        exit(2);
    }
    struct collect_link l;
    memset(&l, 0, sizeof l);
    l.control = sv[0];
    l.timeout_s = scenario == REPLY_NOTHING ? 0.2 : 5;
    memset(p, 0, sizeof *p);
    p->fd = sv[1];
    p->scenario = scenario;
    pthread_t t;
    pthread_create(&t, NULL, peer_main, p);
    uint32_t in = 0x11223344;
    memset(d, 0, sizeof *d);
    int rc = link_request(&l, op, &in, sizeof in, out, want, min, got, d);
    pthread_join(t, NULL);
    link_close(&l);
    close(sv[1]);
    CHECK(!p->bad);
    CHECK_EQ(p->seen.header_size, 48);
    CHECK_EQ(p->seen.proto_version, SEP_PROTOCOL_VERSION);
    CHECK_EQ(p->seen.command_id, op);
    CHECK_EQ(p->seen.status, 0);
    CHECK_EQ(p->seen.to_target_data_size, sizeof in);
    CHECK_EQ(p->seen.from_target_data_size, want);
    CHECK(memcmp(p->payload, &in, sizeof in) == 0);
    return rc;
}

static void expect_message(const struct diag *d, const char *a, const char *b)
{
    CHECK_EQ(d->code, COLLECT_DIAG_TARGET);
    if (!strstr(d->msg, a) || (b && !strstr(d->msg, b))) {
        fprintf(stderr, "message \"%s\" lacks \"%s\"%s%s\n", d->msg, a, b ? " or " : "",
                b ? b : "");
        check_failures++;
    }
}

static void test_replies(void)
{
    uint8_t out[64];
    size_t got = 0;
    struct diag d;
    struct peer p;

    CHECK_EQ(run(REPLY_OK, SEP_OP_VERSION, 16, 16, out, &got, &d, &p), 0);
    CHECK_EQ(got, 16);
    CHECK_EQ(out[0], 0xC0);
    CHECK_EQ(out[15], 0xCF);
    CHECK_EQ(run(REPLY_OK, SEP_OP_START, 0, 0, NULL, NULL, &d, &p), 0);
    CHECK_EQ(run(REPLY_SHORT_OK, SEP_OP_GET_THREAD_INFO, 48, 0, out, &got, &d, &p), 0);
    CHECK_EQ(got, 24);

    CHECK(run(REPLY_SHORT_OK, SEP_OP_GET_NUM_SAMPLES, 8, 8, out, &got, &d, &p) != 0);
    expect_message(&d, "GET_NUM_SAMPLES (76)", "reply of 4 bytes");
    CHECK(run(REPLY_STATUS, SEP_OP_GET_THREAD_INFO, 48, 0, out, &got, &d, &p) != 0);
    expect_message(&d, "GET_THREAD_INFO (89) failed on the target: status 156",
                   "COMMAND_NOT_HANDLED");
    CHECK(run(REPLY_VERSION, SEP_OP_NUM_CORES, 4, 4, out, &got, &d, &p) != 0);
    expect_message(&d, "NUM_CORES (28)", "protocol version 5, expected 6");
    CHECK(run(REPLY_OTHER_COMMAND, SEP_OP_START, 0, 0, NULL, NULL, &d, &p) != 0);
    expect_message(&d, "START (1)", "reply is for command 2 (STOP)");
    CHECK(run(REPLY_TOO_LONG, SEP_OP_GET_SAMPLE_DROP_INFO, 16, 16, out, &got, &d, &p) != 0);
    expect_message(&d, "GET_SAMPLE_DROP_INFO (85)", "reply of 24 bytes");
    CHECK(run(REPLY_HEADER_SIZE, SEP_OP_TERMINATE, 0, 0, NULL, NULL, &d, &p) != 0);
    expect_message(&d, "TERMINATE (35)", "40 bytes");
    CHECK(run(REPLY_NOTHING, SEP_OP_STOP, 0, 0, NULL, NULL, &d, &p) != 0);
    expect_message(&d, "STOP (2)", "no reply within");
    CHECK(run(REPLY_CLOSE, SEP_OP_INIT_PMU, 0, 0, NULL, NULL, &d, &p) != 0);
    expect_message(&d, "INIT_PMU (3)", "closed");
}

static void check_target(const char *arg, int ok, const char *host, const char *port)
{
    struct collect_link l;
    struct diag d = {0};
    memset(&l, 0, sizeof l);
    int rc = link_parse_target(&l, arg, &d);
    if (!ok) {
        CHECK_EQ(rc, DIAG_USAGE);
        if (rc != DIAG_USAGE)
            fprintf(stderr, "  accepted --target %s\n", arg);
        return;
    }
    CHECK_EQ(rc, 0);
    if (strcmp(l.host, host) != 0 || strcmp(l.port, port) != 0) {
        fprintf(stderr, "--target %s: host \"%s\" port \"%s\"\n", arg, l.host, l.port);
        check_failures++;
    }
}

static void test_targets(void)
{
    check_target("board", 1, "board", "9321");
    check_target("10.0.0.2:23000", 1, "10.0.0.2", "23000");
    check_target("[::1]:9400", 1, "::1", "9400");
    check_target("[fe80::1]", 1, "fe80::1", "9321");
    check_target("fe80::1", 1, "fe80::1", "9321");
    check_target("board:0", 0, NULL, NULL);
    check_target("board:65536", 0, NULL, NULL);
    check_target("board:", 0, NULL, NULL);
    check_target("board:12x", 0, NULL, NULL);
    check_target("board:-1", 0, NULL, NULL);
    check_target(":9321", 0, NULL, NULL);
    check_target("", 0, NULL, NULL);
    check_target("[::1", 0, NULL, NULL);
    check_target("[::1]x", 0, NULL, NULL);
}

static void test_names(void)
{
    CHECK(strcmp(link_op_name(SEP_OP_EM_CONFIG_NEXT), "EM_CONFIG_NEXT") == 0);
    CHECK(strcmp(link_op_name(999), "?") == 0);
    CHECK(strcmp(link_status_name(SEP_STATUS_PMU_IN_USE), "PMU_IN_USE") == 0);
    CHECK(strcmp(link_status_name(SEP_STATUS_INVALID_PROG_INFO), "INVALID_PROG_INFO") == 0);
    CHECK(strcmp(link_status_name(12345), "unknown") == 0);
}

int main(void)
{
    test_replies();
    test_targets();
    test_names();
    return check_report("test_collect_link");
}
