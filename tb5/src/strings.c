/*
 * strings.c - the string pool and unique-id strings (8.1, 9.1). Writers hand in
 * wchar_t strings; they are stored once, as UTF-8, in the file's string pool
 * (section TB5_K_STRINGS: u32 byte length + bytes, back to back) and the records
 * that use them hold their id: TBRW_UNIQUEID_TAG | the string's offset in the pool.
 * Id 0 is the NULL string. The pool only grows, so ids stay valid across appends.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tb5_internal.h"

#define TB5_MAX_STRING (16u << 20)

static uint64_t pool_committed(const struct tb5 *tb)
{
    const struct tb5_section *pool = tb5_find(tb, TB5_K_STRINGS, TB5_GLOBAL);

    return pool ? pool->length : 0;
}

TBRW_U32 tb5_pool_flush(struct tb5 *tb)
{
    struct tb5_section *pool;
    uint64_t count = 0;
    TBRW_U32 rc;

    if (tb->pool_pending_len == 0)
        return TBRW_SUCCESS;
    pool = tb5_find(tb, TB5_K_STRINGS, TB5_GLOBAL);
    if (!pool) {
        pool = tb5_section_new(TB5_K_STRINGS, TB5_GLOBAL, 0);
        if (!pool)
            return TBRW_NO_MEMORY;
        rc = tb5_install(tb, pool);
        if (rc) {
            tb5_free_section(pool);
            return rc;
        }
    }
    for (size_t off = 0; off < tb->pool_pending_len; count++)
        off += 4 + tb5_get32(tb->pool_pending + off);
    rc = tb5_append_block(tb, pool, tb->pool_pending, tb->pool_pending_len);
    if (rc)
        return rc;
    pool->record_count += count;
    tb->pool_pending_len = 0;
    tb->dirty = 1;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_intern(void *ctx, const TBRW_CHAR *s, uint64_t *id)
{
    struct tb5 *tb = ctx;
    char *utf8;
    size_t len;
    TBRW_U32 rc;

    if (!s) {
        *id = 0;
        return TBRW_SUCCESS;
    }
    if (!tb5_writable(tb))
        return TBRW_INVALID_ACCESS_PERMS;
    rc = tb5_wcs_to_utf8_alloc(s, &utf8, &len);
    if (rc)
        return rc;
    if (len > TB5_MAX_STRING) {
        free(utf8);
        return TBRW_UNSUPPORTED_DATA_SIZE;
    }
    if (tb->pool_pending_len + 4 + len > tb->pool_pending_cap) {
        size_t cap = tb->pool_pending_cap ? tb->pool_pending_cap : 4096;
        uint8_t *p;
        while (cap < tb->pool_pending_len + 4 + len)
            cap *= 2;
        p = realloc(tb->pool_pending, cap);
        if (!p) {
            free(utf8);
            return TBRW_NO_MEMORY;
        }
        tb->pool_pending = p;
        tb->pool_pending_cap = cap;
    }
    *id = TBRW_UNIQUEID_TAG | (pool_committed(tb) + tb->pool_pending_len);
    tb5_put32(tb->pool_pending + tb->pool_pending_len, (uint32_t)len);
    memcpy(tb->pool_pending + tb->pool_pending_len + 4, utf8, len);
    tb->pool_pending_len += 4 + len;
    free(utf8);
    return tb->pool_pending_len >= TB5_BLOCK_BYTES ? tb5_pool_flush(tb) : TBRW_SUCCESS;
}

/* Bytes of the pool at offset, from the file or from the strings not yet flushed. */
static TBRW_U32 pool_read(const struct tb5 *tb, uint64_t offset, void *buf, size_t len)
{
    const struct tb5_section *pool = tb5_find(tb, TB5_K_STRINGS, TB5_GLOBAL);
    uint64_t committed = pool ? pool->length : 0;

    if (offset >= committed) {
        offset -= committed;
        if (offset > tb->pool_pending_len || len > tb->pool_pending_len - offset)
            return TBRW_INVALID_STRING;
        if (len)
            memcpy(buf, tb->pool_pending + offset, len);
        return TBRW_SUCCESS;
    }
    if (len > committed - offset)
        return TBRW_INVALID_STRING;
    return tb5_section_read(tb, pool, offset, buf, len);
}

TBRW_U32 tb5_string_utf8(const struct tb5 *tb, uint64_t id, char **out, size_t *len)
{
    uint64_t offset = id & ~TBRW_UNIQUEID_TAG;
    uint8_t hdr[4];
    uint32_t n;
    TBRW_U32 rc;

    if (!(id & TBRW_UNIQUEID_TAG))
        return TBRW_INVALID_STRING;
    rc = pool_read(tb, offset, hdr, sizeof(hdr));
    if (rc)
        return rc;
    n = tb5_get32(hdr);
    if (n > TB5_MAX_STRING)
        return TBRW_INVALID_STRING;
    *out = malloc(n + 1u);
    if (!*out)
        return TBRW_NO_MEMORY;
    rc = pool_read(tb, offset + 4, *out, n);
    if (rc == TBRW_SUCCESS && !tb5_utf8_valid(*out, n))
        rc = TBRW_INVALID_STRING;
    if (rc) {
        free(*out);
        *out = NULL;
        return rc;
    }
    (*out)[n] = '\0';
    if (len)
        *len = n;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_convert_uniqueid_to_string(TBRW_PTR ptr, TBRW_U32 size_of_buffer,
                                         const TBRW_STRING_OR_ID *string_id, TBRW_CHAR *buffer,
                                         TBRW_U32 *size_buffer_needed)
{
    const struct tb5 *tb = tb5_handle(ptr);
    char *utf8;
    size_t len, need;
    wchar_t *wide;
    TBRW_U32 rc;

    if (!tb || !string_id)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (string_id->soi_uniqueid == 0)
        return TBRW_INVALID_STRING;
    rc = tb5_string_utf8(tb, string_id->soi_uniqueid, &utf8, &len);
    if (rc)
        return rc;
    rc = tb5_utf8_to_wcs_alloc(utf8, len, &wide);
    free(utf8);
    if (rc)
        return rc;
    need = (wcslen(wide) + 1) * sizeof(wchar_t);
    if (size_buffer_needed)
        *size_buffer_needed = (TBRW_U32)need;
    if (!buffer || size_of_buffer < need)
        rc = TBRW_BUFFER_TOO_SMALL;
    else
        memcpy(buffer, wide, need);
    free(wide);
    return rc;
}

/* Every pool entry must fit in the pool and be UTF-8 without NUL. */
TBRW_U32 tb5_check_pool(const struct tb5 *tb)
{
    const struct tb5_section *pool = tb5_find(tb, TB5_K_STRINGS, TB5_GLOBAL);
    uint64_t off = 0, count = 0;

    while (pool && off < pool->length) {
        char *s;
        TBRW_U32 rc = tb5_string_utf8(tb, TBRW_UNIQUEID_TAG | off, &s, NULL);
        uint8_t hdr[4];
        if (rc == TBRW_NO_MEMORY)
            return rc;
        if (rc || tb5_section_read(tb, pool, off, hdr, sizeof(hdr)))
            return tb5_fail(TBRW_CORRUPT_FILE,
                            "strings section: string %" PRIu64 " at byte offset %" PRIu64 ": %s",
                            count, off, rc ? tb5_error_text(rc) : "its length runs past the end");
        free(s);
        off += 4 + (uint64_t)tb5_get32(hdr);
        count++;
    }
    if (pool && (off != pool->length || count != pool->record_count))
        return tb5_fail(TBRW_CORRUPT_FILE,
                        "strings section: %" PRIu64 " strings ending at byte offset %" PRIu64
                        ", but its directory entry says %" PRIu64 " strings in %" PRIu64 " bytes",
                        count, off, (uint64_t)pool->record_count, (uint64_t)pool->length);
    return TBRW_SUCCESS;
}
