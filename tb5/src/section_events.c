/*
 * section_events.c - the event description section (9.3.2). On disk each event
 * record is followed by its detail records; read back, a batch holds the events
 * first and then all their details, each event pointing at its own.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "tb5_internal.h"

#define MAX_DETAILS 4096u

TBRW_U32 tb5_event_encode(const TBRW_EVENT *ev, uint8_t **out, size_t *len, tb5_intern_fn *intern,
                          void *ctx)
{
    uint8_t *p;
    TBRW_U32 rc;

    if (ev->event_size != sizeof(*ev))
        return TBRW_UNSUPPORTED_DATA_SIZE;
    if (ev->event_num_details > MAX_DETAILS)
        return TBRW_UNEXPECTED_VALUE;
    if (ev->event_num_details && !ev->event_detail_array)
        return TBRW_UNEXPECTED_NULL_PTR;
    for (TBRW_U32 i = 0; i < ev->event_num_details; i++)
        if (ev->event_detail_array[i].detail_size != sizeof(TBRW_EVENT_DETAIL))
            return TBRW_UNSUPPORTED_DATA_SIZE;
    *len = TB5_REC_EVENT + (size_t)ev->event_num_details * TB5_REC_EVENT_DETAIL;
    p = *out = malloc(*len);
    if (!p)
        return TBRW_NO_MEMORY;
    rc = tb5_encode(&tb5_codec_event, ev, p, intern, ctx);
    if (rc) {
        free(p);
        return rc;
    }
    for (TBRW_U32 i = 0; i < ev->event_num_details; i++)
        tb5_encode(&tb5_codec_event_detail, &ev->event_detail_array[i],
                   p + TB5_REC_EVENT + (size_t)i * TB5_REC_EVENT_DETAIL, NULL, NULL);
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_add_event(TBRW_PTR ptr, TBRW_U32 stream, const TBRW_EVENT *event_descriptor_entry)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream_write *w;
    uint8_t *rec;
    size_t len;
    TBRW_U32 rc;

    if (!tb || !event_descriptor_entry)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_writing(tb, stream, TBRW_EVENT_DESCRIPTION_SECTION, &w);
    if (rc)
        return rc;
    /* Samples name their event by position (eventIndex), so ids are positions. */
    if (event_descriptor_entry->event_id != w->nevents)
        return TBRW_UNEXPECTED_VALUE;
    rc = tb5_event_encode(event_descriptor_entry, &rec, &len, tb5_intern, tb);
    if (rc)
        return rc;
    rc = tb5_writer_append(tb, &w->events, rec, len);
    free(rec);
    if (rc == TBRW_SUCCESS)
        w->nevents++;
    return rc;
}

TBRW_U32 tb5_events_load(const struct tb5 *tb, TBRW_U32 stream, TBRW_EVENT **events,
                         uint32_t *count, size_t *bytes)
{
    const struct tb5_section *sec = tb5_find(tb, TB5_K_EVENTS, stream);
    size_t off = 0, ndetails = 0;
    uint8_t *raw;
    TBRW_EVENT *ev;
    TBRW_EVENT_DETAIL *det;
    TBRW_U32 rc;

    if (!sec)
        return TBRW_SECTION_NOT_EXIST;
    if (sec->record_count > UINT32_MAX || sec->record_count > sec->length / TB5_REC_EVENT)
        return tb5_fail(TBRW_CORRUPT_FILE, "%s: %" PRIu64 " events cannot fit in %" PRIu64 " bytes",
                        TB5_SEC_NAME(sec), (uint64_t)sec->record_count, (uint64_t)sec->length);
    rc = tb5_section_load(tb, sec, &raw);
    if (rc)
        return rc;
    uint64_t e = 0;
    for (; e < sec->record_count; e++) {
        uint32_t n;
        if (sec->length - off < TB5_REC_EVENT)
            break;
        n = tb5_get32(raw + off + TB5_EVENT_NUM_DETAILS);
        if (n > MAX_DETAILS || (sec->length - off - TB5_REC_EVENT) / TB5_REC_EVENT_DETAIL < n)
            break;
        off += TB5_REC_EVENT + (size_t)n * TB5_REC_EVENT_DETAIL;
        ndetails += n;
    }
    if (off != sec->length) {
        free(raw);
        if (e < sec->record_count)
            return tb5_fail(TBRW_CORRUPT_FILE,
                            "%s: event %" PRIu64 " at byte offset %zu: field num_details (byte "
                            "offset %zu) runs past the section's %" PRIu64 " bytes",
                            TB5_SEC_NAME(sec), e, off, off + TB5_EVENT_NUM_DETAILS,
                            (uint64_t)sec->length);
        return tb5_fail(TBRW_CORRUPT_FILE,
                        "%s: its %" PRIu64
                        " events end at byte offset %zu, the section at %" PRIu64,
                        TB5_SEC_NAME(sec), (uint64_t)sec->record_count, off, (uint64_t)sec->length);
    }
    *count = (uint32_t)sec->record_count;
    *bytes = *count * sizeof(TBRW_EVENT) + ndetails * sizeof(TBRW_EVENT_DETAIL);
    ev = *events = malloc(*bytes ? *bytes : 1);
    if (!ev) {
        free(raw);
        return TBRW_NO_MEMORY;
    }
    det = (TBRW_EVENT_DETAIL *)(ev + *count);
    off = 0;
    for (uint32_t i = 0; i < *count; i++) {
        tb5_decode(&tb5_codec_event, raw + off, &ev[i]);
        off += TB5_REC_EVENT;
        ev[i].event_detail_array = ev[i].event_num_details ? det : NULL;
        for (uint32_t k = 0; k < ev[i].event_num_details; k++, off += TB5_REC_EVENT_DETAIL)
            tb5_decode(&tb5_codec_event_detail, raw + off, det++);
    }
    free(raw);
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_enumerate_events(TBRW_PTR ptr, TBRW_U32 stream, TBRW_EVENT_CALLBACK *callback_func,
                               void *user_ptr, TBRW_U64 start_index)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    TBRW_EVENT *ev;
    uint32_t count;
    size_t bytes;
    TBRW_U32 rc;

    if (!tb || !callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_readable(tb, stream, TBRW_EVENT_DESCRIPTION_SECTION, &sec);
    if (rc)
        return rc;
    rc = tb5_events_load(tb, stream, &ev, &count, &bytes);
    if (rc)
        return rc;
    if (start_index > count) {
        rc = TBRW_INVALID_READ_START;
    } else if (start_index < count) {
        /* data_size counts the events handed over and their details. */
        size_t skipped = (size_t)start_index * sizeof(TBRW_EVENT);
        for (uint32_t i = 0; i < start_index; i++)
            skipped += ev[i].event_num_details * sizeof(TBRW_EVENT_DETAIL);
        rc = callback_func(ev + start_index, (TBRW_U32)(bytes - skipped),
                           count - (TBRW_U32)start_index, user_ptr);
        if (rc == TB5_CB_MORE)
            rc = TBRW_SUCCESS;
    }
    free(ev);
    return rc;
}
