/* Format: one record per line, a keyword then key=value fields:
 *   board tsc_hz= sched_hz= lapic_timer_hz= nmi_unclaimed=
 *   now tsc= ticks= max_gap_tsc=               ticks: tick interrupts taken
 *   task tid= name= run_tsc= loops= switches=   totals since boot, one line per task
 *   window start_tsc= end_tsc= ticks= median_gap_tsc= median_of= max_gap_tsc=
 *          pit_interrupts=                       median_gap_tsc: the median of the median_of
 *                                                gaps between ticks that were within half
 *                                                a period of one period
 *                                                the last sampling window (acart's timer
 *                                                armed to disarmed), if one has ended
 *   wtask tid= name= run_tsc= loops=            each task inside that window
 *   end
 * run_tsc is what the scheduler charged the task (sched.h); loops what a worker counted
 * itself. */
#include "stats_service.h"
#include "accounting.h"
#include "idt.h"
#include "lapic_tick.h"
#include "tsc.h"

#include "lwip/tcp.h"

#include <stdarg.h>
#include <stdio.h>

static char text[4096];
static struct accounting_snapshot now;

static size_t append(size_t at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t append(size_t at, const char *fmt, ...)
{
    if (at >= sizeof(text))
        return at;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text + at, sizeof(text) - at, fmt, ap);
    va_end(ap);
    return n < 0 ? at : at + (size_t)n;
}

static size_t format_stats(void)
{
    accounting_take(&now);
    size_t at = 0;
    at = append(at, "board tsc_hz=%llu sched_hz=%u lapic_timer_hz=%llu nmi_unclaimed=%lu\n",
                (unsigned long long)tsc_hz(), (unsigned)lapic_tick_hz(),
                (unsigned long long)lapic_timer_hz(), (unsigned long)nmi_unclaimed_count());
    at = append(at, "now tsc=%llu ticks=%llu max_gap_tsc=%llu\n", (unsigned long long)now.tsc,
                (unsigned long long)now.tick.delivered, (unsigned long long)now.tick.max_gap_tsc);
    for (int i = 0; i < now.num_tasks; i++) {
        const struct accounting_task *t = &now.tasks[i];
        at =
            append(at, "task tid=%lu name=%s run_tsc=%llu loops=%llu switches=%llu\n",
                   (unsigned long)t->sched.tid, t->sched.name, (unsigned long long)t->sched.run_tsc,
                   (unsigned long long)t->loops, (unsigned long long)t->sched.switches);
    }
    const struct accounting_snapshot *a, *b;
    if (accounting_last_window(&a, &b)) {
        uint64_t median_of;
        uint64_t median = lapic_tick_median_gap(&a->tick, &b->tick, &median_of);
        at = append(at,
                    "window start_tsc=%llu end_tsc=%llu ticks=%llu median_gap_tsc=%llu "
                    "median_of=%llu max_gap_tsc=%llu pit_interrupts=%llu\n",
                    (unsigned long long)a->tsc, (unsigned long long)b->tsc,
                    (unsigned long long)(b->tick.delivered - a->tick.delivered),
                    (unsigned long long)median, (unsigned long long)median_of,
                    (unsigned long long)b->tick.max_gap_tsc,
                    (unsigned long long)(b->pit_interrupts - a->pit_interrupts));
        for (int i = 0; i < b->num_tasks; i++) {
            const struct accounting_task *e = &b->tasks[i];
            struct accounting_task zero = {0};
            const struct accounting_task *s0 = i < a->num_tasks ? &a->tasks[i] : &zero;
            at = append(at, "wtask tid=%lu name=%s run_tsc=%llu loops=%llu\n",
                        (unsigned long)e->sched.tid, e->sched.name,
                        (unsigned long long)(e->sched.run_tsc - s0->sched.run_tsc),
                        (unsigned long long)(e->loops - s0->loops));
        }
    }
    return append(at, "end\n");
}

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    (void)arg;
    (void)len;
    if (tcp_sndqueuelen(pcb) == 0 && tcp_close(pcb) != ERR_OK)
        tcp_abort(pcb);
    return ERR_OK;
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    (void)arg;
    (void)err;
    if (p) {
        tcp_recved(pcb, p->tot_len);
        pbuf_free(p);
    }
    return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    size_t len = format_stats();
    if (len > sizeof(text) - 1)
        len = sizeof(text) - 1;
    tcp_recv(pcb, on_recv);
    tcp_sent(pcb, on_sent);
    if (tcp_write(pcb, text, (u16_t)len, TCP_WRITE_FLAG_COPY) != ERR_OK) {
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    tcp_output(pcb);
    return ERR_OK;
}

int stats_service_start(uint16_t port)
{
    struct tcp_pcb *pcb = tcp_new();
    if (!pcb || tcp_bind(pcb, IP_ADDR_ANY, port) != ERR_OK)
        return -1;
    struct tcp_pcb *listen = tcp_listen(pcb);
    if (!listen)
        return -1;
    tcp_accept(listen, on_accept);
    return 0;
}
