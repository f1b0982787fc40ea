#include "bench_service.h"
#include "net.h"
#include "workloads.h"

#include "io.h"
#include "lapic.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "tsc.h"

#include "lwip/tcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_VECTOR 0xe0

struct timer_count {
    volatile uint32_t ticks __attribute__((aligned(64))); /* one cache line per CPU */
};
static struct timer_count timer_counts[ARCH_MAX_CPUS] __attribute__((aligned(64)));

struct bench_conn {
    struct tcp_pcb *pcb;
    char line[64];
    uint32_t line_len;
    uint64_t source_left;
    int in_use;
};
static struct bench_conn conns[2];
static const uint8_t zeros[TCP_MSS];

static void on_bench_timer(struct trap_frame *frame)
{
    (void)frame;
    timer_counts[this_cpu_index()].ticks++;
    lapic_eoi();
}

void bench_timer_start_this_cpu(uint32_t hz)
{
    trap_set_handler(BENCH_VECTOR, on_bench_timer);
    if (hz)
        lapic_timer_start_periodic(BENCH_VECTOR, (uint32_t)(lapic_timer_hz() / hz));
    else
        lapic_timer_stop();
}

/* The board's own NMI handler for `count-nmis` (a watchdog would sit here): the NMIs
 * acart does not claim reach it, and the CPU goes on. */
static volatile uint32_t nmis_taken[ARCH_MAX_CPUS];

static void count_nmi(struct trap_frame *frame)
{
    (void)frame;
    nmis_taken[this_cpu_index()]++;
}

void bench_count_nmis(void)
{
    trap_set_handler(TRAP_VECTOR_NMI, count_nmi);
}

static void set_timer_on_this_cpu(void *arg)
{
    bench_timer_start_this_cpu((uint32_t)(uintptr_t)arg);
}

static void finish(struct bench_conn *c)
{
    tcp_arg(c->pcb, NULL);
    tcp_recv(c->pcb, NULL);
    tcp_sent(c->pcb, NULL);
    tcp_err(c->pcb, NULL);
    if (tcp_close(c->pcb) != ERR_OK)
        tcp_abort(c->pcb);
    c->in_use = 0;
}

static void pump_source(struct bench_conn *c)
{
    while (c->source_left) {
        u16_t room = tcp_sndbuf(c->pcb);
        uint32_t n = c->source_left < sizeof(zeros) ? (uint32_t)c->source_left : sizeof(zeros);
        if (room < n || tcp_sndqueuelen(c->pcb) + 4 >= TCP_SND_QUEUELEN)
            break;
        if (tcp_write(c->pcb, zeros, (u16_t)n, 0) != ERR_OK)
            break;
        c->source_left -= n;
    }
    tcp_output(c->pcb);
    if (c->source_left == 0)
        finish(c);
}

static void answer(struct bench_conn *c)
{
    if (strncmp(c->line, "timer ", 6) == 0) {
        /* The LAPIC timer is also acart's time-based sampling source: only with no
         * collection running. */
        smp_call_all(set_timer_on_this_cpu, (void *)(uintptr_t)strtoul(c->line + 6, NULL, 10));
        tcp_write(c->pcb, "ok\n", 3, TCP_WRITE_FLAG_COPY);
        finish(c);
        return;
    }
    if (strncmp(c->line, "source ", 7) == 0) {
        c->source_left = strtoull(c->line + 7, NULL, 10);
        pump_source(c);
        return;
    }
    static char out[1024];
    uint32_t n = smp_num_cpus(), len;
    len = (uint32_t)snprintf(out, sizeof(out), "tsc %llu tsc_hz %llu cpus %lu passes",
                             (unsigned long long)rdtsc(), (unsigned long long)tsc_hz(),
                             (unsigned long)n);
    for (uint32_t i = 0; i < n && len < sizeof(out) - 16; i++)
        len += (uint32_t)snprintf(out + len, sizeof(out) - len, " %lu",
                                  (unsigned long)workload_hotspot_passes(i));
    len += (uint32_t)snprintf(out + len, sizeof(out) - len, " timer");
    for (uint32_t i = 0; i < n && len < sizeof(out) - 16; i++)
        len += (uint32_t)snprintf(out + len, sizeof(out) - len, " %lu",
                                  (unsigned long)timer_counts[i].ticks);
    len += (uint32_t)snprintf(out + len, sizeof(out) - len, " nmi");
    for (uint32_t i = 0; i < n && len < sizeof(out) - 16; i++)
        len +=
            (uint32_t)snprintf(out + len, sizeof(out) - len, " %lu", (unsigned long)nmis_taken[i]);
    uint64_t in_handler, since;
    net_irq_busy(&in_handler, &since);
    len += (uint32_t)snprintf(out + len, sizeof(out) - len, " irqbusy %llu since %llu\n",
                              (unsigned long long)in_handler, (unsigned long long)since);
    tcp_write(c->pcb, out, (u16_t)len, TCP_WRITE_FLAG_COPY);
    finish(c);
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct bench_conn *c = arg;
    if (!p || err != ERR_OK) {
        if (p)
            pbuf_free(p);
        if (c->in_use)
            finish(c);
        return ERR_OK;
    }
    for (struct pbuf *q = p; q && c->source_left == 0; q = q->next) {
        for (u16_t i = 0; i < q->len; i++) {
            char ch = ((const char *)q->payload)[i];
            if (ch == '\n' || c->line_len == sizeof(c->line) - 1) {
                c->line[c->line_len] = 0;
                tcp_recved(pcb, p->tot_len);
                pbuf_free(p);
                answer(c);
                return ERR_OK;
            }
            c->line[c->line_len++] = ch;
        }
    }
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    return ERR_OK;
}

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct bench_conn *c = arg;
    (void)pcb;
    (void)len;
    if (c->in_use && c->source_left)
        pump_source(c);
    return ERR_OK;
}

static void on_err(void *arg, err_t err)
{
    struct bench_conn *c = arg;
    (void)err;
    c->in_use = 0;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    for (unsigned i = 0; i < sizeof(conns) / sizeof(conns[0]); i++) {
        if (!conns[i].in_use) {
            struct bench_conn *c = &conns[i];
            memset(c, 0, sizeof(*c));
            c->in_use = 1;
            c->pcb = pcb;
            tcp_arg(pcb, c);
            tcp_recv(pcb, on_recv);
            tcp_sent(pcb, on_sent);
            tcp_err(pcb, on_err);
            return ERR_OK;
        }
    }
    tcp_abort(pcb);
    return ERR_ABRT;
}

int bench_service_start(void)
{
    struct tcp_pcb *pcb = tcp_new();
    if (!pcb || tcp_bind(pcb, IP_ADDR_ANY, BENCH_PORT) != ERR_OK)
        return -1;
    struct tcp_pcb *l = tcp_listen(pcb);
    if (!l)
        return -1;
    tcp_accept(l, on_accept);
    return 0;
}
