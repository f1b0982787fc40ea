/*
 * io.c - sections as byte strings stored in blocks: reading any byte range of a
 * section, and writers that append blocks at the end of the file (or of the spool
 * file of a read-only handle). A section's checksum is computed as it is written.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tb5_internal.h"

TBRW_U32 tb5_pread(int fd, void *buf, size_t len, uint64_t offset)
{
    uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = pread(fd, p, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return TBRW_IO_ERROR;
        if (n == 0)
            return TBRW_TRUNCATED_FILE;
        p += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_pwrite(int fd, const void *buf, size_t len, uint64_t offset)
{
    const uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return TBRW_IO_ERROR;
        p += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return TBRW_SUCCESS;
}

struct tb5_section *tb5_section_new(uint16_t kind, uint32_t stream, uint32_t record_size)
{
    struct tb5_section *sec = calloc(1, sizeof(*sec));

    if (sec) {
        sec->kind = kind;
        sec->stream = stream;
        sec->record_size = record_size;
    }
    return sec;
}

TBRW_U32 tb5_section_add_block(struct tb5_section *sec, uint64_t offset, uint64_t length)
{
    if (sec->nblocks == sec->cap_blocks) {
        uint32_t cap = sec->cap_blocks ? sec->cap_blocks * 2 : 4;
        struct tb5_block *b = realloc(sec->blocks, cap * sizeof(*b));
        if (!b)
            return TBRW_NO_MEMORY;
        sec->blocks = b;
        sec->cap_blocks = cap;
    }
    sec->blocks[sec->nblocks].offset = offset;
    sec->blocks[sec->nblocks].length = length;
    sec->nblocks++;
    sec->length += length;
    return TBRW_SUCCESS;
}

/*
 * Blocks hold no logical offsets, so locating a byte walks the block list. Sections
 * have few blocks (one per MiB written), and readers go forward in big steps, so a
 * linear walk costs nothing next to the read itself.
 */
TBRW_U32 tb5_section_read(const struct tb5 *tb, const struct tb5_section *sec, uint64_t offset,
                          void *buf, size_t len)
{
    int fd = sec->spooled ? tb->spool_fd : tb->fd;
    uint8_t *out = buf;
    uint64_t block_start = 0;

    if (offset > sec->length || len > sec->length - offset)
        return tb5_fail(TBRW_CORRUPT_FILE,
                        "%s: %zu bytes at byte offset %" PRIu64 " lie past its end (%" PRIu64
                        " bytes)",
                        TB5_SEC_NAME(sec), len, offset, (uint64_t)sec->length);
    for (uint32_t i = 0; i < sec->nblocks && len > 0; i++) {
        const struct tb5_block *b = &sec->blocks[i];
        uint64_t block_end = block_start + b->length;
        if (offset < block_end) {
            uint64_t in_block = offset - block_start;
            size_t n = (size_t)(b->length - in_block);
            if (n > len)
                n = len;
            TBRW_U32 rc = tb5_pread(fd, out, n, b->offset + in_block);
            if (rc == TBRW_TRUNCATED_FILE)
                return tb5_fail(TBRW_CORRUPT_FILE,
                                "%s: block %u at file offset %" PRIu64 " (byte offset %" PRIu64
                                " of the section) lies past the end of the file",
                                TB5_SEC_NAME(sec), i, b->offset + in_block, offset);
            if (rc)
                return rc;
            out += n;
            offset += n;
            len -= n;
        }
        block_start = block_end;
    }
    if (len)
        return tb5_fail(TBRW_CORRUPT_FILE,
                        "%s: its blocks end before byte offset %" PRIu64 " (%zu bytes missing)",
                        TB5_SEC_NAME(sec), offset, len);
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_bad_length(const struct tb5_section *sec, uint64_t expected)
{
    return tb5_fail(TBRW_CORRUPT_FILE, "%s: %" PRIu64 " bytes, expected %" PRIu64,
                    TB5_SEC_NAME(sec), (uint64_t)sec->length, expected);
}

TBRW_U32 tb5_section_load(const struct tb5 *tb, const struct tb5_section *sec, uint8_t **out)
{
    TBRW_U32 rc;

    if (sec->length > SIZE_MAX - 1)
        return TBRW_NO_MEMORY;
    *out = malloc((size_t)sec->length + 1);
    if (!*out)
        return TBRW_NO_MEMORY;
    rc = tb5_section_read(tb, sec, 0, *out, (size_t)sec->length);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

static TBRW_U32 spool_open(struct tb5 *tb)
{
    const char *dir = getenv("TMPDIR");
    char tmpl[4096];

    if (tb->spool_fd >= 0)
        return TBRW_SUCCESS;
    snprintf(tmpl, sizeof(tmpl), "%s/tb5-spool-XXXXXX", dir && *dir ? dir : "/tmp");
    tb->spool_fd = mkstemp(tmpl);
    if (tb->spool_fd < 0)
        return TBRW_FILE_OPEN_FAILED;
    /* Unlinked at once: the spool disappears with the handle, whatever happens. */
    unlink(tmpl);
    tb->spool_end = 0;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_append_block(struct tb5 *tb, struct tb5_section *sec, const void *buf, size_t len)
{
    uint64_t *end = sec->spooled ? &tb->spool_end : &tb->end;
    int fd = sec->spooled ? tb->spool_fd : tb->fd;
    TBRW_U32 rc;

    if (len == 0)
        return TBRW_SUCCESS;
    rc = tb5_pwrite(fd, buf, len, *end);
    if (rc)
        return rc;
    rc = tb5_section_add_block(sec, *end, len);
    if (rc)
        return rc;
    sec->crc = tb5_crc32c(sec->crc, buf, len);
    *end += len;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_writer_begin(struct tb5 *tb, struct tb5_writer *w, uint16_t kind, uint32_t stream,
                          uint32_t record_size)
{
    w->fill = 0;
    w->sec = tb5_section_new(kind, stream, record_size);
    w->buf = malloc(TB5_BLOCK_BYTES);
    if (!w->sec || !w->buf) {
        tb5_writer_discard(w);
        return TBRW_NO_MEMORY;
    }
    if (!tb5_writable(tb)) {
        TBRW_U32 rc = spool_open(tb);
        if (rc) {
            tb5_writer_discard(w);
            return rc;
        }
        w->sec->spooled = 1;
    }
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_writer_flush(struct tb5 *tb, struct tb5_writer *w)
{
    TBRW_U32 rc = tb5_append_block(tb, w->sec, w->buf, w->fill);

    if (rc == TBRW_SUCCESS)
        w->fill = 0;
    return rc;
}

TBRW_U32 tb5_writer_append(struct tb5 *tb, struct tb5_writer *w, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len > 0) {
        size_t n = TB5_BLOCK_BYTES - w->fill;
        if (n > len)
            n = len;
        memcpy(w->buf + w->fill, p, n);
        w->fill += n;
        p += n;
        len -= n;
        if (w->fill == TB5_BLOCK_BYTES) {
            TBRW_U32 rc = tb5_writer_flush(tb, w);
            if (rc)
                return rc;
        }
    }
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_writer_finish(struct tb5 *tb, struct tb5_writer *w, uint64_t record_count)
{
    TBRW_U32 rc = tb5_writer_flush(tb, w);

    if (rc)
        return rc;
    w->sec->record_count = record_count;
    rc = tb5_install(tb, w->sec);
    if (rc)
        return rc;
    w->sec = NULL;
    tb5_writer_discard(w);
    return TBRW_SUCCESS;
}

void tb5_writer_discard(struct tb5_writer *w)
{
    tb5_free_section(w->sec);
    free(w->buf);
    w->sec = NULL;
    w->buf = NULL;
    w->fill = 0;
}

TBRW_U32 tb5_write_section(struct tb5 *tb, uint16_t kind, uint32_t stream, uint32_t record_size,
                           uint64_t record_count, const void *data, size_t len)
{
    struct tb5_writer w;
    TBRW_U32 rc = tb5_writer_begin(tb, &w, kind, stream, record_size);

    if (rc)
        return rc;
    rc = tb5_writer_append(tb, &w, data, len);
    if (rc == TBRW_SUCCESS)
        rc = tb5_writer_finish(tb, &w, record_count);
    if (rc)
        tb5_writer_discard(&w);
    return rc;
}
