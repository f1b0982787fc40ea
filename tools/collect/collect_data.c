/* The data-channel reader thread (see collect_data.h). */
#include "collect_data.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "file_util.h"

/* How often the thread looks at its stop flag when no data comes. */
#define POLL_INTERVAL_MS 100
#define READ_CHUNK       (64u * 1024u)

const char *data_channel_name(const struct data_channel *c, char *buf, size_t size)
{
    switch (c->link.type) {
    case SEP_DATA_CPU:
        snprintf(buf, size, "data channel of CPU %u", c->link.id);
        break;
    case SEP_DATA_MODULE:
        snprintf(buf, size, "module data channel");
        break;
    case ACART_DATA_PT:
        snprintf(buf, size, "Intel PT data channel");
        break;
    default:
        snprintf(buf, size, "uncore data channel");
        break;
    }
    return buf;
}

int data_reader_init(struct data_reader *r, const struct link_data *data, size_t n, const char *dir,
                     const uint32_t *sizes, uint32_t num_descriptors, uint32_t num_events,
                     struct diag *d)
{
    memset(r, 0, sizeof *r);
    r->ch = calloc(n, sizeof *r->ch);
    if (!r->ch) {
        for (size_t i = 0; i < n; i++)
            close(data[i].fd);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    r->n = n;
    for (size_t i = 0; i < n; i++) {
        r->ch[i].link = data[i];
        r->num_cpus += data[i].type == SEP_DATA_CPU;
    }
    for (size_t i = 0; i < n; i++) {
        struct data_channel *c = &r->ch[i];
        char name[32];
        int rc = 0, scan = 1;
        if (c->link.type == SEP_DATA_CPU) {
            snprintf(name, sizeof name, "cpu%u.bin", c->link.id);
            rc = records_init_samples(&c->scan, c->link.id, sizes, num_descriptors, num_events);
        } else if (c->link.type == SEP_DATA_MODULE) {
            snprintf(name, sizeof name, "module.bin");
            rc = records_init_modules(&c->scan);
        } else if (c->link.type == SEP_DATA_UNCORE) {
            snprintf(name, sizeof name, "uncore.bin"); /* checked by uncore_data.h's reader */
            scan = 0;
        } else {
            continue;
        }
        c->scanned = scan && rc == 0;
        if (rc || !(c->path = file_join(dir, name)))
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        if (!(c->file = fopen(c->path, "wb")))
            return diag_fail(d, DIAG_OUTPUT, "%s: %s", c->path, strerror(errno));
    }
    atomic_store(&r->open, (int)n);
    return 0;
}

/* Records the thread's first failure for the main thread to report. */
static void thread_fail(struct data_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void thread_fail(struct data_reader *r, const char *fmt, ...)
{
    if (atomic_load(&r->failed))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    atomic_store(&r->failed, 1);
}

/* Reads what one ready channel has; returns -1 after a failure. */
static int drain_one(struct data_reader *r, struct data_channel *c, unsigned char *buf)
{
    ssize_t n = recv(c->link.fd, buf, READ_CHUNK, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n < 0) {
        char name[32];
        if (errno == ECONNRESET) {
            c->reset = 1; /* the target cut it: the stream ends here */
            c->eof = 1;
            atomic_fetch_sub(&r->open, 1);
        }
        thread_fail(r, "%s: %s", data_channel_name(c, name, sizeof name),
                    errno == ECONNRESET ? "reset by the target" : strerror(errno));
        return -1;
    }
    if (n == 0) {
        c->eof = 1;
        atomic_fetch_sub(&r->open, 1);
        return 0;
    }
    if (c->link.type == ACART_DATA_PT) {
        collect_pt_feed(r->pt, buf, (size_t)n);
        atomic_fetch_add(&r->pt_bytes, (uint64_t)n);
        if (r->pt->failed) {
            r->write_failed = r->pt->write_failed;
            thread_fail(r, "Intel PT data channel: %s", r->pt->error);
            return -1;
        }
        return 0;
    }
    if (c->file && fwrite(buf, 1, (size_t)n, c->file) != (size_t)n) {
        r->write_failed = 1;
        thread_fail(r, "%s: %s", c->path, strerror(errno));
        return -1;
    }
    c->bytes += (uint64_t)n;
    atomic_fetch_add(&r->bytes, (uint64_t)n);
    if (c->scanned) {
        uint64_t before = c->scan.records;
        records_feed(&c->scan, buf, (size_t)n);
        if (c->link.type == SEP_DATA_CPU)
            atomic_fetch_add(&r->samples, c->scan.records - before);
    }
    return 0;
}

static void *reader_main(void *arg)
{
    struct data_reader *r = arg;
    unsigned char *buf = malloc(READ_CHUNK);
    struct pollfd *p = calloc(r->n, sizeof *p);
    size_t *which = calloc(r->n, sizeof *which);
    if (!buf || !p || !which)
        thread_fail(r, "out of memory");
    while (buf && p && which && !atomic_load(&r->stop) && !atomic_load(&r->failed)) {
        nfds_t m = 0;
        for (size_t i = 0; i < r->n; i++) {
            if (r->ch[i].eof)
                continue;
            p[m].fd = r->ch[i].link.fd;
            p[m].events = POLLIN;
            p[m].revents = 0;
            which[m++] = i;
        }
        if (m == 0)
            break; /* every channel has ended */
        int k = poll(p, m, POLL_INTERVAL_MS);
        if (k < 0 && errno != EINTR)
            thread_fail(r, "poll on the data channels: %s", strerror(errno));
        for (nfds_t j = 0; k > 0 && j < m; j++)
            if (p[j].revents && drain_one(r, &r->ch[which[j]], buf) != 0)
                break;
    }
    free(which);
    free(p);
    free(buf);
    return NULL;
}

void data_reader_set_pt(struct data_reader *r, struct collect_pt *pt)
{
    r->pt = pt;
}

int data_reader_start(struct data_reader *r, struct diag *d)
{
    int err = pthread_create(&r->thread, NULL, reader_main, r);
    if (err)
        return diag_fail(d, DIAG_NOMEM, "cannot start the data reader thread: %s", strerror(err));
    r->running = 1;
    return 0;
}

void data_reader_join(struct data_reader *r)
{
    if (!r->running)
        return;
    atomic_store(&r->stop, 1);
    pthread_join(r->thread, NULL);
    r->running = 0;
}

int data_reader_finish(struct data_reader *r, struct diag *d)
{
    int rc = 0;
    if (atomic_load(&r->failed))
        rc = diag_fail(d, r->write_failed ? DIAG_OUTPUT : COLLECT_DIAG_TARGET, "%s", r->error);
    for (size_t i = 0; i < r->n; i++) {
        struct data_channel *c = &r->ch[i];
        if (c->file) {
            int bad = fclose(c->file) != 0;
            c->file = NULL;
            if (bad && !rc)
                rc = diag_fail(d, DIAG_OUTPUT, "%s: %s", c->path, strerror(errno));
        }
        if (!rc && c->scanned && records_finish(&c->scan) != 0) {
            char name[32];
            rc = diag_fail(d, COLLECT_DIAG_TARGET, "%s (%s): %s", c->path,
                           data_channel_name(c, name, sizeof name), c->scan.error);
        }
    }
    return rc;
}

void data_reader_free(struct data_reader *r)
{
    data_reader_join(r);
    for (size_t i = 0; r->ch && i < r->n; i++) {
        struct data_channel *c = &r->ch[i];
        if (c->file)
            fclose(c->file);
        if (c->link.fd >= 0)
            close(c->link.fd);
        records_free(&c->scan);
        free(c->path);
    }
    free(r->ch);
    memset(r, 0, sizeof *r);
}
