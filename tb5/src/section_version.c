/* section_version.c - the version information section (9.2.5). */
#include <stdlib.h>

#include "tb5_internal.h"

TBRW_U32 TBRW_set_version_info(TBRW_PTR tbrw_ptr, const TBRW_VERSION_INFO *version_info)
{
    struct tb5 *tb = tb5_handle(tbrw_ptr);
    TBRW_U32 rc;

    if (!tb || !version_info)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_writing(tb, TBRW_VERSION_INFO_SECTION);
    if (rc)
        return rc;
    if (version_info->version_info_size != sizeof(*version_info))
        return TBRW_UNSUPPORTED_DATA_SIZE;
    tb5_encode(&tb5_codec_version, version_info, tb->gw.version, NULL, NULL);
    tb->gw.version_set = 1;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_get_version_info(TBRW_PTR tbrw_ptr, TBRW_U32 size_of_buffer, void *buf_ptr,
                               TBRW_U32 *size_buffer_used)
{
    struct tb5 *tb = tb5_handle(tbrw_ptr);
    const struct tb5_section *sec;
    uint8_t raw[TB5_REC_VERSION];
    TBRW_VERSION_INFO info;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_VERSION_INFO_SECTION);
    if (rc)
        return rc;
    sec = tb5_find(tb, TB5_K_VERSION, TB5_GLOBAL);
    if (sec->length != TB5_REC_VERSION)
        return tb5_bad_length(sec, TB5_REC_VERSION);
    rc = tb5_section_read(tb, sec, 0, raw, sizeof(raw));
    if (rc)
        return rc;
    tb5_decode(&tb5_codec_version, raw, &info);
    return tb5_copy_out(&info, sizeof(info), size_of_buffer, buf_ptr, size_buffer_used);
}
