/* Record boundaries in a data channel's stream (see collect_records.h). */
#include "collect_records.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"

static void fail(struct record_scanner *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(struct record_scanner *s, const char *fmt, ...)
{
    int n = snprintf(s->error, sizeof s->error,
                     "record %" PRIu64 " (byte %" PRIu64 "): ", s->records, s->offset);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof s->error)
        vsnprintf(s->error + n, sizeof s->error - (size_t)n, fmt, ap);
    va_end(ap);
    s->failed = 1;
}

static int init(struct record_scanner *s, enum record_kind kind, size_t head, size_t max_size)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->head = head;
    s->carry_cap = max_size;
    s->carry = malloc(max_size);
    return s->carry ? 0 : -1;
}

int records_init_samples(struct record_scanner *s, uint32_t cpu, const uint32_t *sizes,
                         uint32_t num_descriptors, uint32_t num_events)
{
    size_t max = sizeof(struct sep_sample_pc);
    for (uint32_t i = 0; i < num_descriptors; i++)
        if (sizes[i] > max)
            max = sizes[i];
    if (init(s, RECORDS_SAMPLES, sizeof(struct sep_sample_pc), max))
        return -1;
    s->cpu = cpu;
    s->sample_sizes = sizes;
    s->num_descriptors = num_descriptors;
    s->num_events = num_events;
    return 0;
}

int records_init_modules(struct record_scanner *s)
{
    /* rec_length is 16 bits wide. */
    return init(s, RECORDS_MODULES, sizeof(struct sep_module_record), UINT16_MAX);
}

/* The size of the record whose first s->head bytes are at rec, or 0 after fail(). */
static size_t record_size(struct record_scanner *s, const uint8_t *rec)
{
    if (s->kind == RECORDS_MODULES) {
        struct sep_module_record m;
        memcpy(&m, rec, sizeof m);
        if (m.path_length == 0 || m.rec_length < sizeof m + m.path_length) {
            fail(s,
                 "module record of %u bytes cannot hold the 80-byte record and its %u path "
                 "bytes",
                 m.rec_length, m.path_length);
            return 0;
        }
        return m.rec_length;
    }
    struct sep_sample_pc r;
    memcpy(&r, rec, sizeof r);
    unsigned cpu = r.cpu_and_os & SEP_SAMPLE_CPU_NUM_MASK;
    unsigned event = (r.bit_fields2 & SEP_SAMPLE_EVENT_INDEX_MASK) >> SEP_SAMPLE_EVENT_INDEX_SHIFT;
    if (r.descriptor_id >= s->num_descriptors) {
        fail(s, "descriptor_id %" PRIu32 ", but the collection has %" PRIu32 " descriptors",
             r.descriptor_id, s->num_descriptors);
        return 0;
    }
    if (cpu != s->cpu) {
        fail(s, "sample of CPU %u on the channel of CPU %" PRIu32, cpu, s->cpu);
        return 0;
    }
    if (event >= s->num_events) {
        fail(s, "sample of event %u, but the collection has %" PRIu32 " events", event,
             s->num_events);
        return 0;
    }
    return s->sample_sizes[r.descriptor_id];
}

/* A whole record of size bytes at rec: the checks that need all of it, then count it. */
static void take_record(struct record_scanner *s, const uint8_t *rec, size_t size)
{
    if (s->kind == RECORDS_MODULES) {
        struct sep_module_record m;
        memcpy(&m, rec, sizeof m);
        const uint8_t *path = rec + sizeof m;
        if (memchr(path, '\0', m.path_length) != path + m.path_length - 1) {
            fail(s, "module path is not %u bytes ending in its only NUL", m.path_length);
            return;
        }
    }
    s->records++;
    s->offset += size;
}

/* Whole records straight from buf; returns the bytes they took. */
static size_t take_whole(struct record_scanner *s, const uint8_t *buf, size_t len)
{
    size_t used = 0;
    while (!s->failed && len - used >= s->head) {
        size_t size = record_size(s, buf + used);
        if (size == 0 || len - used < size)
            break;
        take_record(s, buf + used, size);
        if (!s->failed)
            used += size;
    }
    return used;
}

void records_feed(struct record_scanner *s, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0 && !s->failed) {
        if (s->carry_len == 0) {
            size_t used = take_whole(s, p, len);
            if (s->failed)
                return;
            /* Less than one record is left: it waits for the next piece. */
            memcpy(s->carry, p + used, len - used);
            s->carry_len = len - used;
            return;
        }
        size_t want = s->carry_len < s->head ? s->head : record_size(s, s->carry);
        if (want == 0)
            return;
        size_t take = want - s->carry_len < len ? want - s->carry_len : len;
        memcpy(s->carry + s->carry_len, p, take);
        s->carry_len += take;
        p += take;
        len -= take;
        if (s->carry_len < s->head)
            continue;
        size_t size = record_size(s, s->carry);
        if (size == s->carry_len) {
            take_record(s, s->carry, size);
            s->carry_len = 0;
        }
    }
}

int records_finish(struct record_scanner *s)
{
    if (!s->failed && s->carry_len)
        fail(s, "the stream ends %zu bytes into a record", s->carry_len);
    return s->failed ? -1 : 0;
}

void records_free(struct record_scanner *s)
{
    free(s->carry);
    s->carry = NULL;
}
