/* Echo with flow control: received data is queued and written back as send buffer
 * frees up; the receive window only reopens (tcp_recved) for bytes written back, so a
 * fast sender is slowed down instead of overrunning memory. */
#include "echo.h"

#include "lwip/tcp.h"

struct echo_conn {
    struct tcp_pcb *pcb;
    struct pbuf *pending;
    int in_use;
};

#define ECHO_MAX_CONNS 4
static struct echo_conn conns[ECHO_MAX_CONNS];

static void echo_close(struct echo_conn *c)
{
    if (c->pending)
        pbuf_free(c->pending);
    tcp_arg(c->pcb, NULL);
    tcp_recv(c->pcb, NULL);
    tcp_sent(c->pcb, NULL);
    tcp_err(c->pcb, NULL);
    if (tcp_close(c->pcb) != ERR_OK)
        tcp_abort(c->pcb);
    c->pending = NULL;
    c->in_use = 0;
}

static void echo_flush(struct echo_conn *c)
{
    uint32_t written = 0;
    while (c->pending) {
        struct pbuf *p = c->pending;
        u16_t room = tcp_sndbuf(c->pcb);
        if (room == 0)
            break;
        u16_t n = p->len < room ? p->len : room;
        if (tcp_write(c->pcb, p->payload, n, TCP_WRITE_FLAG_COPY) != ERR_OK)
            break;
        written += n;
        if (n == p->len) {
            c->pending = p->next;
            if (p->next)
                pbuf_ref(p->next);
            pbuf_free(p);
        } else {
            pbuf_remove_header(p, n);
        }
    }
    if (written) {
        for (uint32_t left = written; left;) {
            u16_t chunk = left > 0xffff ? 0xffff : (u16_t)left;
            tcp_recved(c->pcb, chunk);
            left -= chunk;
        }
        tcp_output(c->pcb);
    }
}

static err_t echo_on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct echo_conn *c = arg;
    (void)pcb;
    if (!p || err != ERR_OK) {
        if (p)
            pbuf_free(p);
        echo_close(c);
        return ERR_OK;
    }
    if (c->pending)
        pbuf_cat(c->pending, p);
    else
        c->pending = p;
    echo_flush(c);
    return ERR_OK;
}

static err_t echo_on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    (void)pcb;
    (void)len;
    echo_flush(arg);
    return ERR_OK;
}

static void echo_on_err(void *arg, err_t err)
{
    struct echo_conn *c = arg;
    (void)err;
    /* lwIP already freed the pcb. */
    if (c->pending)
        pbuf_free(c->pending);
    c->pending = NULL;
    c->in_use = 0;
}

static err_t echo_on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    for (int i = 0; i < ECHO_MAX_CONNS; i++) {
        if (!conns[i].in_use) {
            struct echo_conn *c = &conns[i];
            c->in_use = 1;
            c->pcb = pcb;
            c->pending = NULL;
            tcp_arg(pcb, c);
            tcp_recv(pcb, echo_on_recv);
            tcp_sent(pcb, echo_on_sent);
            tcp_err(pcb, echo_on_err);
            tcp_nagle_disable(pcb);
            return ERR_OK;
        }
    }
    tcp_abort(pcb);
    return ERR_ABRT;
}

int echo_start(uint16_t port)
{
    struct tcp_pcb *pcb = tcp_new();
    if (!pcb || tcp_bind(pcb, IP_ADDR_ANY, port) != ERR_OK)
        return -1;
    struct tcp_pcb *listen = tcp_listen(pcb);
    if (!listen)
        return -1;
    tcp_accept(listen, echo_on_accept);
    return 0;
}
