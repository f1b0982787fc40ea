/*
 * section_user.c - user-defined sections (9.2.6, 9.3.5): opaque bytes, stored and
 * returned unchanged, never interpreted.
 */
#include <stdlib.h>
#include <string.h>

#include "tb5_internal.h"

static TBRW_U32 keep_copy(uint8_t **dst, size_t *dst_len, int *set, TBRW_U32 size, const void *data)
{
    uint8_t *copy;

    if (size && !data)
        return TBRW_UNEXPECTED_NULL_PTR;
    copy = malloc(size ? size : 1);
    if (!copy)
        return TBRW_NO_MEMORY;
    if (size)
        memcpy(copy, data, size);
    free(*dst);
    *dst = copy;
    *dst_len = size;
    *set = 1;
    return TBRW_SUCCESS;
}

static TBRW_U32 get_bytes(const struct tb5 *tb, const struct tb5_section *sec,
                          TBRW_U32 size_of_buffer, void *buf_ptr, TBRW_U32 *size_buffer_used)
{
    uint8_t *bytes;
    TBRW_U32 rc;

    if (sec->length > UINT32_MAX)
        return TBRW_BUFFER_OVERFLOW;
    if (size_buffer_used)
        *size_buffer_used = (TBRW_U32)sec->length;
    if (!buf_ptr || size_of_buffer < sec->length)
        return TBRW_BUFFER_TOO_SMALL;
    rc = tb5_section_load(tb, sec, &bytes);
    if (rc)
        return rc;
    memcpy(buf_ptr, bytes, (size_t)sec->length);
    free(bytes);
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_set_user_defined_global(TBRW_PTR ptr, TBRW_U32 size_of_data, const void *data_ptr)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_writing(tb, TBRW_USER_DEFINED_GLOBAL_SECTION);
    if (rc)
        return rc;
    return keep_copy(&tb->gw.user, &tb->gw.user_len, &tb->gw.user_set, size_of_data, data_ptr);
}

TBRW_U32 TBRW_get_user_defined_global(TBRW_PTR ptr, TBRW_U32 size_of_buffer, void *buf_ptr,
                                      TBRW_U32 *size_buffer_used)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_USER_DEFINED_GLOBAL_SECTION);
    if (rc)
        return rc;
    return get_bytes(tb, tb5_find(tb, TB5_K_USER_GLOBAL, TB5_GLOBAL), size_of_buffer, buf_ptr,
                     size_buffer_used);
}

TBRW_U32 TBRW_set_user_defined_stream(TBRW_PTR ptr, TBRW_U32 stream, TBRW_U32 size_of_data,
                                      const void *data_ptr)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream_write *w;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_writing(tb, stream, TBRW_USER_DEFINED_STREAM_SECTION, &w);
    if (rc)
        return rc;
    return keep_copy(&w->user, &w->user_len, &w->user_set, size_of_data, data_ptr);
}

TBRW_U32 TBRW_get_user_defined_stream(TBRW_PTR ptr, TBRW_U32 stream, TBRW_U32 size_of_buffer,
                                      void *buf_ptr, TBRW_U32 *size_buffer_used)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_readable(tb, stream, TBRW_USER_DEFINED_STREAM_SECTION, &sec);
    if (rc)
        return rc;
    return get_bytes(tb, sec, size_of_buffer, buf_ptr, size_buffer_used);
}
