/*
 * stream_data.c - the data section (9.3.4): fixed-size records, streamed to disk as
 * they are added and read back in batches, so a stream may be far larger than
 * memory.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tb5_internal.h"

/* A piece must end on a field boundary; a whole record ends at position 0. */
static TBRW_U32 check_piece(const struct tb5_stream_write *w, uint64_t len)
{
    uint32_t end = (uint32_t)((w->pos + len) % w->record_size);

    return (end == 0 || w->boundary[end]) ? TBRW_SUCCESS : TBRW_RECORD_SIZE_MISMATCH;
}

static void advance(struct tb5_stream_write *w, uint64_t len)
{
    w->pos = (uint32_t)((w->pos + len) % w->record_size);
}

TBRW_U32 TBRW_add_data(TBRW_PTR ptr, TBRW_U32 stream, TBRW_U32 size_of_data_entry,
                       const void *data_entry)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream_write *w;
    TBRW_U32 rc;

    if (!tb || (!data_entry && size_of_data_entry))
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_writing(tb, stream, TBRW_DATA_SECTION, &w);
    if (rc)
        return rc;
    rc = check_piece(w, size_of_data_entry);
    if (rc)
        return rc;
    rc = tb5_writer_append(tb, &w->data, data_entry, size_of_data_entry);
    if (rc == TBRW_SUCCESS)
        advance(w, size_of_data_entry);
    return rc;
}

TBRW_U32 TBRW_add_data_from_file(TBRW_PTR ptr, TBRW_U32 stream, const TBRW_CHAR *filename)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream_write *w;
    struct stat st;
    uint8_t *buf;
    char *path;
    int fd;
    TBRW_U32 rc;

    if (!tb || !filename)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_writing(tb, stream, TBRW_DATA_SECTION, &w);
    if (rc)
        return rc;
    rc = tb5_wcs_to_utf8_alloc(filename, &path, NULL);
    if (rc)
        return rc;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return TBRW_FILE_OPEN_FAILED;
    buf = malloc(TB5_BLOCK_BYTES);
    if (!buf)
        rc = TBRW_NO_MEMORY;
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        rc = TBRW_FILE_OPEN_FAILED;
    else
        rc = check_piece(w, (uint64_t)st.st_size); /* before a byte is added */
    for (uint64_t off = 0; rc == TBRW_SUCCESS && off < (uint64_t)st.st_size;) {
        size_t n = TB5_BLOCK_BYTES;
        if ((uint64_t)st.st_size - off < n)
            n = (size_t)((uint64_t)st.st_size - off);
        rc = tb5_pread(fd, buf, n, off);
        if (rc == TBRW_SUCCESS)
            rc = tb5_writer_append(tb, &w->data, buf, n);
        if (rc == TBRW_SUCCESS)
            advance(w, n);
        off += n;
    }
    free(buf);
    close(fd);
    return rc;
}

static TBRW_U32 data_section(const struct tb5 *tb, TBRW_U32 stream, const struct tb5_section **sec)
{
    TBRW_U32 rc = tb5_stream_section_readable(tb, stream, TBRW_DATA_SECTION, sec);

    if (rc == TBRW_SUCCESS && (*sec)->record_size == 0)
        return tb5_fail(TBRW_CORRUPT_FILE, "%s: records of 0 bytes", TB5_SEC_NAME(*sec));
    return rc;
}

TBRW_U32 tb5_data_shape(TBRW_PTR ptr, TBRW_U32 stream, TBRW_U64 *num_records, TBRW_U32 *record_size)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    TBRW_U32 rc;

    if (!tb || !num_records || !record_size)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = data_section(tb, stream, &sec);
    if (rc)
        return rc;
    *num_records = sec->record_count;
    *record_size = sec->record_size;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_enumerate_data(TBRW_PTR ptr, TBRW_U32 stream, TBRW_DATA_CALLBACK *callback_func,
                             void *user_ptr, TBRW_U64 start_index)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    uint32_t per_batch;
    uint8_t *buf;
    TBRW_U32 rc;

    if (!tb || !callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = data_section(tb, stream, &sec);
    if (rc)
        return rc;
    if (start_index > sec->record_count)
        return TBRW_INVALID_READ_START;
    per_batch = tb5_batch_records(sec->record_size, sec->record_count - start_index);
    buf = malloc((size_t)per_batch * sec->record_size);
    if (!buf)
        return TBRW_NO_MEMORY;
    for (uint64_t i = start_index; i < sec->record_count;) {
        uint64_t n = sec->record_count - i;
        if (n > per_batch)
            n = per_batch;
        rc = tb5_section_read(tb, sec, i * sec->record_size, buf, (size_t)n * sec->record_size);
        if (rc)
            break;
        rc = callback_func(buf, (TBRW_U32)(n * sec->record_size), (TBRW_U32)n, user_ptr);
        if (rc != TB5_CB_MORE)
            break;
        rc = TBRW_SUCCESS;
        i += n;
    }
    free(buf);
    return rc;
}
