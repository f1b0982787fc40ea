/* Format (one record per line, fields separated by spaces):
 *   tsc_hz HZ
 *   sched_hz HZ                 the tick rate the scheduler asks of the LAPIC timer
 *   now TSC TICKS               the TSC and the ticks counted so far
 *   first_tick_tsc TSC          when the first tick came
 *   nmi_unclaimed N             NMIs nobody in the chain claimed
 *   task TID NAME RUN_TSC LOOPS SWITCHES     totals since boot
 *   window START_TSC END_TSC START_TICKS END_TICKS   the last sampling window, if any
 *   wtask TID NAME RUN_TSC LOOPS             what each task did inside that window
 *   end */
#include "stats_service.h"
#include "accounting.h"
#include "idt.h"
#include "lapic.h"
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
    at = append(at, "tsc_hz %llu\nsched_hz %u\nnow %llu %llu\nfirst_tick_tsc %llu\n",
                (unsigned long long)tsc_hz(), SCHED_HZ, (unsigned long long)now.tsc,
                (unsigned long long)now.ticks, (unsigned long long)lapic_tick_start_tsc());
    at = append(at, "nmi_unclaimed %lu\n", (unsigned long)nmi_unclaimed_count());
    for (int i = 0; i < now.num_tasks; i++) {
        const struct accounting_task *t = &now.tasks[i];
        at = append(at, "task %lu %s %llu %llu %llu\n", (unsigned long)t->sched.tid, t->sched.name,
                    (unsigned long long)t->sched.run_tsc, (unsigned long long)t->loops,
                    (unsigned long long)t->sched.switches);
    }
    const struct accounting_snapshot *a, *b;
    if (accounting_last_window(&a, &b)) {
        at = append(at, "window %llu %llu %llu %llu\n", (unsigned long long)a->tsc,
                    (unsigned long long)b->tsc, (unsigned long long)a->ticks,
                    (unsigned long long)b->ticks);
        for (int i = 0; i < b->num_tasks; i++) {
            const struct accounting_task *e = &b->tasks[i];
            uint64_t run0 = 0, loops0 = 0;
            if (i < a->num_tasks) {
                run0 = a->tasks[i].sched.run_tsc;
                loops0 = a->tasks[i].loops;
            }
            at = append(at, "wtask %lu %s %llu %llu\n", (unsigned long)e->sched.tid, e->sched.name,
                        (unsigned long long)(e->sched.run_tsc - run0),
                        (unsigned long long)(e->loops - loops0));
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
