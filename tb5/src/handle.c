/* handle.c - the handle's directory of sections and its data streams. */
#include <stdlib.h>
#include <string.h>

#include "tb5_internal.h"

struct tb5 *tb5_handle(TBRW_PTR ptr)
{
    struct tb5 *tb = ptr;

    return (tb && tb->magic == TB5_HANDLE_MAGIC) ? tb : NULL;
}

int tb5_writable(const struct tb5 *tb)
{
    return (tb->mode & TBRW_FILE_WRITE) != 0;
}

struct tb5_section *tb5_find(const struct tb5 *tb, uint16_t kind, uint32_t stream)
{
    for (size_t i = 0; i < tb->nsecs; i++)
        if (tb->secs[i]->kind == kind && tb->secs[i]->stream == stream)
            return tb->secs[i];
    return NULL;
}

void tb5_free_section(struct tb5_section *sec)
{
    if (sec) {
        free(sec->blocks);
        free(sec);
    }
}

/* A section replaces any section of the same kind and stream (its bytes become dead). */
TBRW_U32 tb5_install(struct tb5 *tb, struct tb5_section *sec)
{
    for (size_t i = 0; i < tb->nsecs; i++) {
        if (tb->secs[i]->kind == sec->kind && tb->secs[i]->stream == sec->stream) {
            tb5_free_section(tb->secs[i]);
            tb->secs[i] = sec;
            tb->dirty = 1;
            return TBRW_SUCCESS;
        }
    }
    if (tb->nsecs == tb->cap_secs) {
        size_t cap = tb->cap_secs ? tb->cap_secs * 2 : 16;
        struct tb5_section **s = realloc(tb->secs, cap * sizeof(*s));
        if (!s)
            return TBRW_NO_MEMORY;
        tb->secs = s;
        tb->cap_secs = cap;
    }
    tb->secs[tb->nsecs++] = sec;
    tb->dirty = 1;
    return TBRW_SUCCESS;
}

void tb5_remove(struct tb5 *tb, uint16_t kind, uint32_t stream)
{
    for (size_t i = 0; i < tb->nsecs; i++) {
        if (tb->secs[i]->kind == kind && tb->secs[i]->stream == stream) {
            tb5_free_section(tb->secs[i]);
            tb->secs[i] = tb->secs[--tb->nsecs];
            tb->dirty = 1;
            return;
        }
    }
}

struct tb5_stream *tb5_stream_get(struct tb5 *tb, TBRW_U32 stream)
{
    return stream < tb->nstreams ? &tb->streams[stream] : NULL;
}

/* Streams are numbered without gaps: the highest stream with a section, plus one. */
TBRW_U32 tb5_count_streams(const struct tb5 *tb)
{
    TBRW_U32 n = 0;

    for (size_t i = 0; i < tb->nsecs; i++)
        if (tb->secs[i]->stream != TB5_GLOBAL && tb->secs[i]->stream >= n)
            n = tb->secs[i]->stream + 1;
    return n;
}

void tb5_stream_write_free(struct tb5_stream_write *w)
{
    if (!w)
        return;
    free(w->user);
    tb5_writer_discard(&w->events);
    tb5_writer_discard(&w->descs);
    tb5_writer_discard(&w->data);
    tb5_layout_free(&w->layout);
    free(w->boundary);
    free(w);
}

/* Drops everything gathered for sections and streams not yet done. */
void tb5_free_writes(struct tb5 *tb)
{
    free(tb->gw.hardware);
    free(tb->gw.user);
    tb5_writer_discard(&tb->gw.modules);
    tb5_writer_discard(&tb->gw.pids);
    tb5_writer_discard(&tb->gw.tids);
    for (uint32_t i = 0; i < tb->nstreams; i++) {
        tb5_stream_write_free(tb->streams[i].w);
        tb->streams[i].w = NULL;
    }
}

/* The get_ protocol of 5.8: report the size needed, copy when the buffer is big enough. */
TBRW_U32 tb5_copy_out(const void *src, size_t len, TBRW_U32 size_of_buffer, void *buf,
                      TBRW_U32 *size_buffer_used)
{
    if (len > UINT32_MAX)
        return TBRW_BUFFER_OVERFLOW;
    if (size_buffer_used)
        *size_buffer_used = (TBRW_U32)len;
    if (!buf || size_of_buffer < len)
        return TBRW_BUFFER_TOO_SMALL;
    memcpy(buf, src, len);
    return TBRW_SUCCESS;
}
