/* libFuzzer target: `acart collect` against a hostile target. The collector's own code
 * (the steps of tools/collect/collect_internal.h, and link/collect_link.c, included here so that
 * its static handshake check can be driven without a TCP listener) talks to a peer on a
 * socketpair that answers with the input:
 *
 *   byte 0 even: the control conversation. The rest is everything the target sends on
 *     the control connection: the handshake answer, then the replies, in order. The
 *     collector runs its whole sequence (handshake check, target description, system
 *     configuration, driver and event set-up, task list, INIT_PMU, START, STOP, results)
 *     and stops at the first reply it rejects. The peer also reads and drops what the
 *     collector sends, so neither side can block. Bits 1-2 of byte 0 pick the options, so
 *     every kind of collection's replies are parsed: sampling one event with call stacks;
 *     counting mode (two groups, two reads of READ_SWITCH_GROUP between START and STOP);
 *     multiplexed groups with LBRs (LBR planning from GET_PERF_CAPAB, GET_GROUP_TIMES);
 *     uncore counts (INIT_UNC, EM_GROUPS_UNC, EM_CONFIG_NEXT_UNC).
 *   byte 0 odd: a data channel. Byte 1 picks a CPU channel (sample records, with or without
 *     call stacks) or the module channel; the rest is the stream, fed to the record
 *     scanner in pieces whose sizes come from byte 2. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collect_internal.h"
#include "collect_link.c"

struct peer {
    int fd;
    const uint8_t *data;
    size_t size;
};

static void *peer_main(void *arg)
{
    struct peer *p = arg;
    uint8_t sink[65536];
    size_t sent = 0;
    int wrote_all = p->size == 0;
    if (wrote_all)
        shutdown(p->fd, SHUT_WR);
    for (;;) {
        struct pollfd pfd = {p->fd, (short)(POLLIN | (wrote_all ? 0 : POLLOUT)), 0};
        if (poll(&pfd, 1, -1) < 0)
            break;
        if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(p->fd, sink, sizeof sink, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && (pfd.revents & (POLLHUP | POLLERR))))
                break; /* the collector closed its end */
        }
        if (!wrote_all && (pfd.revents & POLLOUT)) {
            ssize_t n = send(p->fd, p->data + sent, p->size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n > 0)
                sent += (size_t)n;
            else if (n < 0 && errno != EAGAIN)
                break;
            if (sent == p->size) {
                shutdown(p->fd, SHUT_WR);
                wrote_all = 1;
            }
        }
    }
    return NULL;
}

/* One peer thread for the whole campaign: creating a thread per execution cost ASan more
 * than the conversation itself (its stack and TLS set-up and teardown). */
static struct peer peer_job;
static sem_t peer_ready, peer_done;

static void *peer_worker(void *arg)
{
    (void)arg;
    for (;;) {
        while (sem_wait(&peer_ready) != 0)
            ;
        peer_main(&peer_job);
        sem_post(&peer_done);
    }
    return NULL;
}

static void peer_start(int fd, const uint8_t *data, size_t size)
{
    static pthread_t worker;
    static int started;
    if (!started) {
        if (sem_init(&peer_ready, 0, 0) || sem_init(&peer_done, 0, 0) ||
            pthread_create(&worker, NULL, peer_worker, NULL))
            abort();
        started = 1;
    }
    peer_job = (struct peer){fd, data, size};
    sem_post(&peer_ready);
}

static void peer_wait(void)
{
    while (sem_wait(&peer_done) != 0)
        ;
}

static int handshake(struct collection *c, struct diag *d)
{
    size_t got = 0;
    int rc = net_recv_exact(c->link.control, &c->link.status, sizeof c->link.status, 1, &got);
    if (rc != NET_OK)
        return diag_fail(d, COLLECT_DIAG_TARGET, "handshake: %s", net_strerror(rc));
    if ((rc = check_target_status(&c->link, d)))
        return rc;
    /* As connect_target() goes on after link_open(). */
    c->num_cpus = c->link.status.hardware_info.num_cpus;
    c->transfer = (c->link.status.collect_switch.bits & SEP_SWITCH_DATA_TRANSFER_MODE)
                      ? SESSION_TRANSFER_DELAYED
                      : SESSION_TRANSFER_IMMEDIATE;
    return 0;
}

static int verbose = -1; /* FUZZ_VERBOSE=1: say where each conversation ended */

/* The collector's options for each kind of conversation (bits 1-2 of byte 0), after
 * "collect --target fuzz --duration 1 -o unused". */
#define FIVE_MORE_EVENTS                                                                           \
    ",CPU_CLK_UNHALTED.THREAD_P,BR_INST_RETIRED.ALL_BRANCHES,BR_MISP_RETIRED.ALL_BRANCHES,"        \
    "MEM_INST_RETIRED.ALL_LOADS,MEM_INST_RETIRED.ALL_STORES"
static const char *const kind_options[4][8] = {
    {"--event", "INST_RETIRED.ANY", "--callstack=4"},
    {"--count", "INST_RETIRED.ANY" FIVE_MORE_EVENTS, "--interval", "10"},
    {"--event", "INST_RETIRED.ANY_P" FIVE_MORE_EVENTS, "--mux", "10", "--lbr"},
    {"--event", "INST_RETIRED.ANY", "--uncore", "UNC_CLOCK.SOCKET,UNC_IMC_DRAM_DATA_READS",
     "--uncore-interval", "10"},
};

/* Counting mode's table, as run() makes it before START. */
static int count_table(struct collection *c, struct diag *d)
{
    const char *names[COLLECT_MAX_EVENTS];
    for (size_t i = 0; i < c->opt.num_events; i++)
        names[i] = c->opt.events[i].def->name;
    return counts_init(&c->counts, names, c->opt.num_events, d);
}

static void conversation(int kind, const uint8_t *data, size_t size)
{
    static const char *const common[] = {"collect", "--target", "fuzz",  "--duration",
                                         "1",       "-o",       "unused"};
    char *argv[sizeof common / sizeof common[0] + 8 + 1];
    int argc = 0;
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        argv[argc++] = (char *)common[i];
    for (size_t i = 0; i < 8 && kind_options[kind][i]; i++)
        argv[argc++] = (char *)kind_options[kind][i];
    argv[argc] = NULL;
    struct collection c;
    struct diag d;
    memset(&c, 0, sizeof c);
    c.link.control = -1;
    optind = 1;
    if (collect_parse_options(argc, argv, &c.opt) >= 0 ||
        link_parse_target(&c.link, c.opt.target, &d) ||
        collect_layout_init(&c.layout, c.opt.callstack_depth))
        abort();          /* the harness's own options */
    c.link.timeout_s = 5; /* only a harness bug can make a read wait: the peer ends with EOF */

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        abort();
    c.link.control = sv[0];
    peer_start(sv[1], data, size);

    d.msg[0] = '\0';
    if (!handshake(&c, &d) && !collect_target_description(&c, &d) &&
        !collect_resolve_events(&c, &d) && !collect_plan_lbr(&c, &d) &&
        !collect_configure_driver(&c, &d) && !collect_configure_events(&c, &d) &&
        !collect_configure_uncore(&c, &d) && !collect_read_tasks(&c, &d) &&
        !collect_init_pmu(&c, &d) && (!c.opt.count || !count_table(&c, &d)) &&
        !collect_request(&c, SEP_OP_START, NULL, 0, NULL, 0, &d) &&
        (!c.opt.count || (!collect_read_counts(&c, &d) && !collect_read_counts(&c, &d))) &&
        !collect_request(&c, SEP_OP_STOP, NULL, 0, NULL, 0, &d) && !collect_results(&c, &d)) {
        for (uint32_t cpu = 0; cpu < c.num_cpus; cpu++) {
            struct sep_sample_drop drop;
            (void)collect_drop_entry(&c, cpu, &drop);
        }
        snprintf(d.msg, sizeof d.msg, "complete: %zu tasks", c.num_tasks);
    }
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "conversation: %s\n", d.msg);
    link_close(&c.link);
    peer_wait();
    close(sv[1]);
    sysinfo_free(&c.sys);
    for (size_t i = 0; i < c.num_tasks; i++)
        free(c.tasks[i].name);
    free(c.tasks);
    counts_free(&c.counts);
    collect_switches_free(&c.switches);
}

static void data_channel(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    struct record_scanner s;
    struct collect_layout layout;
    uint32_t depth = data[0] & 2 ? 8 : 0;
    if (collect_layout_init(&layout, depth))
        abort();
    uint32_t sizes[1] = {layout.sample_size};
    int rc = data[0] & 4 ? records_init_modules(&s)
                         : records_init_samples(&s, data[1] % 4, sizes, 1, 1 + data[1] / 64);
    if (rc)
        return;
    size_t piece = 1 + (data[1] & 0x3f) * 7, at = 2;
    while (at < size) {
        size_t n = size - at < piece ? size - at : piece;
        records_feed(&s, data + at, n);
        at += n;
    }
    (void)records_finish(&s);
    records_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] & 1)
        data_channel(data + 1, size - 1);
    else
        conversation((data[0] >> 1) & 3, data + 1, size - 1);
    return 0;
}
