/* section_stream_info.c - the stream information section (9.3.1). */
#include "tb5_internal.h"

TBRW_U32 TBRW_set_stream_info(TBRW_PTR tbrw_ptr, TBRW_U32 stream,
                              const TBRW_STREAM_INFO *stream_info)
{
    struct tb5 *tb = tb5_handle(tbrw_ptr);
    struct tb5_stream_write *w;
    TBRW_U32 rc;

    if (!tb || !stream_info)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_writing(tb, stream, TBRW_STREAM_INFO_SECTION, &w);
    if (rc)
        return rc;
    if (stream_info->stream_info_size != sizeof(*stream_info))
        return TBRW_UNSUPPORTED_DATA_SIZE;
    if (stream_info->stream_type < TBRW_SAMPLING_STREAM ||
        stream_info->stream_type > TBRW_CUSTOM_STREAM)
        return TBRW_UNEXPECTED_VALUE;
    rc = tb5_encode(&tb5_codec_stream_info, stream_info, w->info, tb5_intern, tb);
    if (rc == TBRW_SUCCESS)
        w->info_set = 1;
    return rc;
}

TBRW_U32 TBRW_get_stream_info(TBRW_PTR tbrw_ptr, TBRW_U32 stream, TBRW_U32 size_of_buffer,
                              void *buf_ptr, TBRW_U32 *size_buffer_used)
{
    struct tb5 *tb = tb5_handle(tbrw_ptr);
    const struct tb5_section *sec;
    uint8_t raw[TB5_REC_STREAM_INFO];
    TBRW_STREAM_INFO info;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_readable(tb, stream, TBRW_STREAM_INFO_SECTION, &sec);
    if (rc)
        return rc;
    if (sec->length != sizeof(raw))
        return tb5_bad_length(sec, sizeof(raw));
    rc = tb5_section_read(tb, sec, 0, raw, sizeof(raw));
    if (rc)
        return rc;
    tb5_decode(&tb5_codec_stream_info, raw, &info);
    return tb5_copy_out(&info, sizeof(info), size_of_buffer, buf_ptr, size_buffer_used);
}
