/* section_software.c - the software section (9.2.2): host, OS and application. */
#include <stdlib.h>
#include <string.h>

#include "tb5_internal.h"

_Static_assert(sizeof(TBRW_HOST) <= sizeof(TBRW_OS) && sizeof(TBRW_APPLICATION) <= sizeof(TBRW_OS),
               "software records fit the decode buffer");

static TBRW_U32 set_part(TBRW_PTR ptr, const void *record, uint32_t size_field, size_t size,
                         const struct tb5_codec *codec, size_t at, uint32_t bit)
{
    struct tb5 *tb = tb5_handle(ptr);
    uint8_t out[TB5_REC_OS];
    TBRW_U32 rc;

    if (!tb || !record)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_writing(tb, TBRW_SOFTWARE_SECTION);
    if (rc)
        return rc;
    if (size_field != size)
        return TBRW_UNSUPPORTED_DATA_SIZE;
    rc = tb5_encode(codec, record, out, tb5_intern, tb);
    if (rc)
        return rc;
    memcpy(tb->gw.software + at, out, codec->disk_size);
    tb->gw.software_mask |= bit;
    return TBRW_SUCCESS;
}

static TBRW_U32 get_part(TBRW_PTR ptr, TBRW_U32 size_of_buffer, void *buf_ptr,
                         TBRW_U32 *size_buffer_used, const struct tb5_codec *codec, size_t at,
                         uint32_t bit)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    uint8_t *bytes;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_SOFTWARE_SECTION);
    if (rc)
        return rc;
    sec = tb5_find(tb, TB5_K_SOFTWARE, TB5_GLOBAL);
    if (sec->length != TB5_SW_SIZE)
        return tb5_bad_length(sec, TB5_SW_SIZE);
    rc = tb5_section_load(tb, sec, &bytes);
    if (rc)
        return rc;
    if (tb5_get32(bytes + TB5_SW_MASK) & bit) {
        uint64_t rec[sizeof(TBRW_OS) / sizeof(uint64_t)]; /* the largest of the three */
        tb5_decode(codec, bytes + at, rec);
        rc = tb5_copy_out(rec, codec->mem_size, size_of_buffer, buf_ptr, size_buffer_used);
    } else {
        rc = TBRW_ENTRY_NOT_FOUND;
    }
    free(bytes);
    return rc;
}

TBRW_U32 TBRW_set_host(TBRW_PTR ptr, const TBRW_HOST *host)
{
    return set_part(ptr, host, host ? host->host_size : 0, sizeof(*host), &tb5_codec_host,
                    TB5_SW_HOST, TB5_SW_HAS_HOST);
}

TBRW_U32 TBRW_get_host(TBRW_PTR ptr, TBRW_U32 size_of_buffer, void *buf_ptr,
                       TBRW_U32 *size_buffer_used)
{
    return get_part(ptr, size_of_buffer, buf_ptr, size_buffer_used, &tb5_codec_host, TB5_SW_HOST,
                    TB5_SW_HAS_HOST);
}

TBRW_U32 TBRW_set_os(TBRW_PTR ptr, const TBRW_OS *os)
{
    return set_part(ptr, os, os ? os->os_size : 0, sizeof(*os), &tb5_codec_os, TB5_SW_OS,
                    TB5_SW_HAS_OS);
}

TBRW_U32 TBRW_get_os(TBRW_PTR ptr, TBRW_U32 size_of_buffer, void *buf_ptr,
                     TBRW_U32 *size_buffer_used)
{
    return get_part(ptr, size_of_buffer, buf_ptr, size_buffer_used, &tb5_codec_os, TB5_SW_OS,
                    TB5_SW_HAS_OS);
}

TBRW_U32 TBRW_set_application(TBRW_PTR ptr, const TBRW_APPLICATION *application)
{
    return set_part(ptr, application, application ? application->app_size : 0, sizeof(*application),
                    &tb5_codec_app, TB5_SW_APP, TB5_SW_HAS_APP);
}

TBRW_U32 TBRW_get_application(TBRW_PTR ptr, TBRW_U32 size_of_buffer, void *buf_ptr,
                              TBRW_U32 *size_buffer_used)
{
    return get_part(ptr, size_of_buffer, buf_ptr, size_buffer_used, &tb5_codec_app, TB5_SW_APP,
                    TB5_SW_HAS_APP);
}
