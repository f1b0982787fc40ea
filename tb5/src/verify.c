/*
 * verify.c - TBRW_verify: checksums of every section (read in chunks), then the
 * structure of what the sections hold, then the sections chapter 6.2 requires of a
 * VTune-compatible file. The first problem found is returned.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "tb5_internal.h"

#define CHUNK (1u << 20)

TBRW_U32 tb5_verify_section_crc(const struct tb5 *tb, const struct tb5_section *sec)
{
    /* Sized to the section: most are small, and a fixed 1 MiB per section dominated
     * verifying a small file. */
    size_t size = sec->length < CHUNK ? (size_t)sec->length : CHUNK;
    uint8_t *buf = size ? malloc(size) : NULL;
    uint32_t crc = 0;
    TBRW_U32 rc = buf || !size ? TBRW_SUCCESS : TBRW_NO_MEMORY;

    for (uint64_t off = 0; rc == TBRW_SUCCESS && off < sec->length;) {
        size_t n = sec->length - off < CHUNK ? (size_t)(sec->length - off) : CHUNK;
        rc = tb5_section_read(tb, sec, off, buf, n);
        crc = tb5_crc32c(crc, buf, n);
        off += n;
    }
    free(buf);
    if (rc == TBRW_SUCCESS && crc != sec->crc)
        rc = tb5_fail(TBRW_CHECKSUM_MISMATCH,
                      "%s: its %" PRIu64 " bytes (from file offset %" PRIu64
                      ") do not match the crc of its directory entry",
                      TB5_SEC_NAME(sec), (uint64_t)sec->length,
                      sec->nblocks ? (uint64_t)sec->blocks[0].offset : 0);
    return rc;
}

static TBRW_U32 check_record_size(const struct tb5 *tb, uint16_t kind, uint32_t size)
{
    const struct tb5_section *sec = tb5_find(tb, kind, TB5_GLOBAL);

    if (!sec || sec->record_size == size)
        return TBRW_SUCCESS;
    return tb5_fail(TBRW_CORRUPT_FILE, "%s: records of %u bytes, expected %u", TB5_SEC_NAME(sec),
                    sec->record_size, size);
}

/* A per-entry table must have one entry per record of the section it describes. */
static TBRW_U32 check_parallel(const struct tb5_section *table, const struct tb5_section *of)
{
    if (!table)
        return TBRW_SUCCESS;
    if (of && table->record_count == of->record_count)
        return TBRW_SUCCESS;
    return tb5_fail(TBRW_CORRUPT_FILE, "%s: %" PRIu64 " entries for %" PRIu64 " records",
                    TB5_SEC_NAME(table), (uint64_t)table->record_count,
                    of ? (uint64_t)of->record_count : 0);
}

static TBRW_U32 check_globals(const struct tb5 *tb)
{
    const struct tb5_section *sec;
    TBRW_U32 rc = tb5_check_pool(tb);

    if (rc == TBRW_SUCCESS && (sec = tb5_find(tb, TB5_K_HARDWARE, TB5_GLOBAL))) {
        uint8_t *bytes;
        size_t needed;
        rc = tb5_section_load(tb, sec, &bytes);
        if (rc == TBRW_SUCCESS) {
            rc = tb5_hardware_decode(bytes, (size_t)sec->length, NULL, 0, &needed);
            rc = rc == TBRW_BUFFER_TOO_SMALL ? TBRW_SUCCESS : rc;
            free(bytes);
        }
    }
    sec = tb5_find(tb, TB5_K_SOFTWARE, TB5_GLOBAL);
    if (rc == TBRW_SUCCESS && sec && sec->length != TB5_SW_SIZE)
        rc = tb5_bad_length(sec, TB5_SW_SIZE);
    if (rc == TBRW_SUCCESS)
        rc = check_record_size(tb, TB5_K_VERSION, TB5_REC_VERSION);
    if (rc == TBRW_SUCCESS)
        rc = check_record_size(tb, TB5_K_MODULES, TB5_REC_MODULE);
    if (rc == TBRW_SUCCESS)
        rc = check_record_size(tb, TB5_K_PROCESSES, TB5_REC_PID);
    if (rc == TBRW_SUCCESS)
        rc = check_record_size(tb, TB5_K_THREADS, TB5_REC_TID);
    if (rc == TBRW_SUCCESS)
        rc = check_parallel(tb5_find(tb, TB5_K_MODULE_BIND, TB5_GLOBAL),
                            tb5_find(tb, TB5_K_MODULES, TB5_GLOBAL));
    if (rc == TBRW_SUCCESS)
        rc = check_parallel(tb5_find(tb, TB5_K_TID_BIND, TB5_GLOBAL),
                            tb5_find(tb, TB5_K_THREADS, TB5_GLOBAL));
    return rc;
}

static TBRW_U32 check_stream(const struct tb5 *tb, TBRW_U32 stream)
{
    const struct tb5_section *data = tb5_find(tb, TB5_K_DATA, stream);
    const struct tb5_section *info = tb5_find(tb, TB5_K_STREAM_INFO, stream);
    struct tb5_layout layout;
    TBRW_U32 rc = TBRW_SUCCESS;

    if (info && info->length != TB5_REC_STREAM_INFO)
        return tb5_bad_length(info, TB5_REC_STREAM_INFO);
    if (tb5_find(tb, TB5_K_EVENTS, stream)) {
        TBRW_EVENT *ev;
        uint32_t n;
        size_t bytes;
        rc = tb5_events_load(tb, stream, &ev, &n, &bytes);
        if (rc)
            return rc;
        free(ev);
    }
    if (tb5_find(tb, TB5_K_DESCRIPTORS, stream)) {
        rc = tb5_stream_layout(tb, stream, &layout);
        if (rc)
            return rc;
        if (data && data->record_size != layout.record_end)
            rc = tb5_fail(TBRW_CORRUPT_FILE,
                          "%s: records of %u bytes, but its data description ends at byte %u",
                          TB5_SEC_NAME(data), data->record_size, layout.record_end);
        tb5_layout_free(&layout);
    } else if (data) {
        rc = tb5_fail(TBRW_CORRUPT_FILE, "%s: records without a data description section",
                      TB5_SEC_NAME(data));
    }
    if (rc == TBRW_SUCCESS)
        rc = check_parallel(tb5_find(tb, TB5_K_DATA_BIND, stream), data);
    return rc;
}

/* Chapter 6.2. Streams still being written are not judged yet. */
static TBRW_U32 check_required(const struct tb5 *tb)
{
    static const uint16_t global[] = {TB5_K_HARDWARE, TB5_K_SOFTWARE, TB5_K_VERSION, TB5_K_MODULES};
    static const uint16_t per_stream[] = {TB5_K_EVENTS, TB5_K_STREAM_INFO, TB5_K_DESCRIPTORS,
                                          TB5_K_DATA};

    for (size_t i = 0; i < sizeof(global) / sizeof(global[0]); i++)
        if (!tb5_find(tb, global[i], TB5_GLOBAL))
            return TBRW_REQUIRED_SECTION_MISSING;
    for (TBRW_U32 s = 0; s < tb->nstreams; s++) {
        if (tb->streams[s].state == TB5_WRITING)
            continue;
        for (size_t i = 0; i < sizeof(per_stream) / sizeof(per_stream[0]); i++)
            if (!tb5_find(tb, per_stream[i], s))
                return TBRW_REQUIRED_SECTION_MISSING;
    }
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_verify(TBRW_PTR ptr)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc = TBRW_SUCCESS;

    tb5_detail_clear();
    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    for (size_t i = 0; rc == TBRW_SUCCESS && i < tb->nsecs; i++)
        rc = tb5_verify_section_crc(tb, tb->secs[i]);
    if (rc == TBRW_SUCCESS)
        rc = check_globals(tb);
    for (TBRW_U32 s = 0; rc == TBRW_SUCCESS && s < tb->nstreams; s++)
        rc = check_stream(tb, s);
    if (rc == TBRW_SUCCESS)
        rc = check_required(tb);
    return rc;
}
