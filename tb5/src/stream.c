/*
 * stream.c - data streams and their sections (9.1.2, 9.1.3). A stream is written
 * once, from TBRW_writing_stream to TBRW_done_stream; its sections become part of
 * the file one by one as they are done, and leave it again if the stream is never
 * done. Streams are numbered without gaps.
 */
#include <stdlib.h>
#include <string.h>

#include "tb5_internal.h"

uint16_t tb5_stream_kind(TBRW_STREAM_SECTION_IDENTIFIER section)
{
    switch (section) {
    case TBRW_EVENT_DESCRIPTION_SECTION:
        return TB5_K_EVENTS;
    case TBRW_DATA_DESCRIPTION_SECTION:
        return TB5_K_DESCRIPTORS;
    case TBRW_DATA_SECTION:
        return TB5_K_DATA;
    case TBRW_USER_DEFINED_STREAM_SECTION:
        return TB5_K_USER_STREAM;
    case TBRW_STREAM_INFO_SECTION:
        return TB5_K_STREAM_INFO;
    }
    return 0;
}

static int known(TBRW_STREAM_SECTION_IDENTIFIER section)
{
    return (unsigned)section < TB5_NUM_STREAM_SECTIONS;
}

TBRW_U32 tb5_stream_section_writing(struct tb5 *tb, TBRW_U32 stream,
                                    TBRW_STREAM_SECTION_IDENTIFIER section,
                                    struct tb5_stream_write **w)
{
    struct tb5_stream *st = tb5_stream_get(tb, stream);

    if (!st)
        return TBRW_STREAM_NOT_EXIST;
    if (st->state != TB5_WRITING || st->section_state[section] != TB5_WRITING)
        return TBRW_SECTION_NOT_WRITEABLE;
    *w = st->w;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_stream_section_readable(const struct tb5 *tb, TBRW_U32 stream,
                                     TBRW_STREAM_SECTION_IDENTIFIER section,
                                     const struct tb5_section **sec)
{
    if (stream >= tb->nstreams)
        return TBRW_STREAM_NOT_EXIST;
    if (tb->streams[stream].section_state[section] == TB5_WRITING)
        return TBRW_SECTION_NOT_READABLE;
    *sec = tb5_find(tb, tb5_stream_kind(section), stream);
    return *sec ? TBRW_SUCCESS : TBRW_SECTION_NOT_EXIST;
}

TBRW_U32 TBRW_get_number_data_streams(TBRW_PTR ptr, TBRW_U32 *numStreams)
{
    struct tb5 *tb = tb5_handle(ptr);

    if (!tb || !numStreams)
        return TBRW_UNEXPECTED_NULL_PTR;
    *numStreams = tb->nstreams;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_reading_stream(TBRW_PTR ptr, TBRW_U32 stream)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream *st;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    st = tb5_stream_get(tb, stream);
    if (!st)
        return TBRW_STREAM_NOT_EXIST;
    if (st->state != TB5_CLOSED)
        return TBRW_STREAM_ALREADY_IN_USE;
    st->state = TB5_READING;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_writing_stream(TBRW_PTR ptr, TBRW_U32 stream)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream *streams;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!tb5_writable(tb))
        return TBRW_INVALID_ACCESS_PERMS;
    if (stream < tb->nstreams)
        return tb->streams[stream].state == TB5_CLOSED ? TBRW_STREAM_EXISTS
                                                       : TBRW_STREAM_ALREADY_IN_USE;
    if (stream > tb->nstreams)
        return TBRW_INVALID_STREAM;
    streams = realloc(tb->streams, (tb->nstreams + 1) * sizeof(*streams));
    if (!streams)
        return TBRW_NO_MEMORY;
    tb->streams = streams;
    memset(&streams[stream], 0, sizeof(streams[stream]));
    streams[stream].w = calloc(1, sizeof(*streams[stream].w));
    if (!streams[stream].w)
        return TBRW_NO_MEMORY;
    streams[stream].state = TB5_WRITING;
    tb->nstreams++;
    return TBRW_SUCCESS;
}

/* 5.2: stream info and data description; events too when records carry event indexes. */
static TBRW_U32 check_complete(const struct tb5 *tb, TBRW_U32 stream,
                               const struct tb5_stream_write *w)
{
    if (!tb5_find(tb, TB5_K_STREAM_INFO, stream) || !tb5_find(tb, TB5_K_DESCRIPTORS, stream))
        return TBRW_REQUIRED_SECTION_MISSING;
    if (w->layout.wants_events && !tb5_find(tb, TB5_K_EVENTS, stream))
        return TBRW_REQUIRED_SECTION_MISSING;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_done_stream(TBRW_PTR ptr, TBRW_U32 stream)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream *st;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    st = tb5_stream_get(tb, stream);
    if (!st)
        return TBRW_STREAM_NOT_EXIST;
    if (st->state == TB5_CLOSED)
        return TBRW_UNEXPECTED_VALUE;
    if (st->state == TB5_WRITING) {
        for (int s = 0; s < TB5_NUM_STREAM_SECTIONS; s++)
            if (st->section_state[s] == TB5_WRITING)
                return TBRW_STREAM_SECTION_NOT_CLOSED;
        TBRW_U32 rc = check_complete(tb, stream, st->w);
        if (rc)
            return rc;
        tb5_stream_write_free(st->w);
        st->w = NULL;
    }
    for (int s = 0; s < TB5_NUM_STREAM_SECTIONS; s++)
        st->section_state[s] = TB5_CLOSED;
    st->state = TB5_CLOSED;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_reading_stream_section(TBRW_PTR ptr, TBRW_U32 stream,
                                     TBRW_STREAM_SECTION_IDENTIFIER section)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream *st;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!known(section))
        return TBRW_UNKNOWN_SECTION_NUMBER;
    st = tb5_stream_get(tb, stream);
    if (!st)
        return TBRW_STREAM_NOT_EXIST;
    if (st->section_state[section] != TB5_CLOSED)
        return TBRW_SECTION_ALREADY_IN_USE;
    if (!tb5_find(tb, tb5_stream_kind(section), stream))
        return TBRW_SECTION_NOT_EXIST;
    st->section_state[section] = TB5_READING;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_writing_stream_section(TBRW_PTR ptr, TBRW_U32 stream,
                                     TBRW_STREAM_SECTION_IDENTIFIER section)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream *st;
    struct tb5_stream_write *w;
    TBRW_U32 rc = TBRW_SUCCESS;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!known(section))
        return TBRW_UNKNOWN_SECTION_NUMBER;
    st = tb5_stream_get(tb, stream);
    if (!st)
        return TBRW_STREAM_NOT_EXIST;
    if (st->state != TB5_WRITING)
        return TBRW_STREAM_EXISTS;
    if (st->section_state[section] != TB5_CLOSED)
        return TBRW_SECTION_ALREADY_IN_USE;
    if (tb5_find(tb, tb5_stream_kind(section), stream))
        return TBRW_SECTION_EXISTS;
    w = st->w;
    switch (section) {
    case TBRW_EVENT_DESCRIPTION_SECTION:
        w->nevents = 0;
        rc = tb5_writer_begin(tb, &w->events, TB5_K_EVENTS, stream, 0);
        break;
    case TBRW_DATA_DESCRIPTION_SECTION:
        w->ndescs = 0;
        tb5_layout_free(&w->layout);
        rc = tb5_writer_begin(tb, &w->descs, TB5_K_DESCRIPTORS, stream, TB5_REC_DESCRIPTOR);
        break;
    case TBRW_DATA_SECTION:
        if (!w->descs_done)
            return TBRW_DATA_DESCRIPTION_MISSING;
        w->pos = 0;
        rc = tb5_writer_begin(tb, &w->data, TB5_K_DATA, stream, w->record_size);
        break;
    case TBRW_USER_DEFINED_STREAM_SECTION:
        w->user_set = 0;
        break;
    case TBRW_STREAM_INFO_SECTION:
        w->info_set = 0;
        break;
    }
    if (rc == TBRW_SUCCESS)
        st->section_state[section] = TB5_WRITING;
    return rc;
}

/* The record size and the field boundaries that TBRW_add_data checks pieces against. */
static TBRW_U32 fix_layout(struct tb5_stream_write *w)
{
    const struct tb5_layout *l = &w->layout;
    TBRW_U32 rc = tb5_layout_finish(l);

    if (rc)
        return rc;
    w->record_size = l->record_end;
    free(w->boundary);
    w->boundary = calloc(w->record_size + 1u, 1);
    if (!w->boundary)
        return TBRW_NO_MEMORY;
    for (uint32_t i = 0; i < l->nfields; i++) {
        w->boundary[l->fields[i].offset] = 1;
        w->boundary[l->fields[i].offset + l->fields[i].size] = 1;
    }
    return TBRW_SUCCESS;
}

static TBRW_U32 commit(struct tb5 *tb, TBRW_U32 stream, TBRW_STREAM_SECTION_IDENTIFIER section,
                       struct tb5_stream_write *w)
{
    TBRW_U32 rc;

    switch (section) {
    case TBRW_STREAM_INFO_SECTION:
        if (!w->info_set)
            return TBRW_NO_DATA_TO_WRITE;
        return tb5_write_section(tb, TB5_K_STREAM_INFO, stream, TB5_REC_STREAM_INFO, 1, w->info,
                                 sizeof(w->info));
    case TBRW_USER_DEFINED_STREAM_SECTION:
        if (!w->user_set)
            return TBRW_NO_DATA_TO_WRITE;
        return tb5_write_section(tb, TB5_K_USER_STREAM, stream, 0, 1, w->user, w->user_len);
    case TBRW_EVENT_DESCRIPTION_SECTION:
        return tb5_writer_finish(tb, &w->events, w->nevents);
    case TBRW_DATA_DESCRIPTION_SECTION:
        rc = fix_layout(w);
        if (rc == TBRW_SUCCESS)
            rc = tb5_writer_finish(tb, &w->descs, w->ndescs);
        w->descs_done = rc == TBRW_SUCCESS;
        return rc;
    case TBRW_DATA_SECTION:
        if (w->pos != 0)
            return TBRW_RECORD_SIZE_MISMATCH;
        return tb5_writer_finish(tb, &w->data,
                                 (w->data.sec->length + w->data.fill) / w->record_size);
    }
    return TBRW_UNKNOWN_SECTION_NUMBER;
}

static void release(TBRW_STREAM_SECTION_IDENTIFIER section, struct tb5_stream_write *w)
{
    switch (section) {
    case TBRW_EVENT_DESCRIPTION_SECTION:
        tb5_writer_discard(&w->events);
        break;
    case TBRW_DATA_DESCRIPTION_SECTION:
        tb5_writer_discard(&w->descs);
        break;
    case TBRW_DATA_SECTION:
        tb5_writer_discard(&w->data);
        break;
    case TBRW_USER_DEFINED_STREAM_SECTION:
        free(w->user);
        w->user = NULL;
        w->user_set = 0;
        break;
    case TBRW_STREAM_INFO_SECTION:
        w->info_set = 0;
        break;
    }
}

TBRW_U32 TBRW_done_stream_section(TBRW_PTR ptr, TBRW_U32 stream,
                                  TBRW_STREAM_SECTION_IDENTIFIER section)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream *st;
    TBRW_U32 rc = TBRW_SUCCESS;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!known(section))
        return TBRW_UNKNOWN_SECTION_NUMBER;
    st = tb5_stream_get(tb, stream);
    if (!st)
        return TBRW_STREAM_NOT_EXIST;
    if (st->section_state[section] == TB5_CLOSED)
        return TBRW_UNEXPECTED_VALUE;
    if (st->section_state[section] == TB5_WRITING) {
        rc = commit(tb, stream, section, st->w);
        release(section, st->w);
    }
    st->section_state[section] = TB5_CLOSED;
    return rc;
}
