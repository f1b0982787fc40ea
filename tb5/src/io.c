/*
 * io.c - sections as byte strings stored in blocks: reading any byte range of a
 * section, and writers that append blocks at the end of the file (or of the spool
 * file of a read-only handle). A section's checksum is computed as it is written, over
 * its own bytes: a compressed block is checked by its zstd frame's checksum as it is
 * inflated, and the section's crc by TBRW_verify.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

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

TBRW_U32 tb5_section_add_block(struct tb5_section *sec, uint64_t offset, uint64_t stored,
                               uint64_t length, uint32_t encoding)
{
    if (sec->nblocks == sec->cap_blocks) {
        uint32_t cap = sec->cap_blocks ? sec->cap_blocks * 2 : 4;
        struct tb5_block *b = realloc(sec->blocks, cap * sizeof(*b));
        if (!b)
            return TBRW_NO_MEMORY;
        sec->blocks = b;
        sec->cap_blocks = cap;
    }
    sec->blocks[sec->nblocks] = (struct tb5_block){offset, stored, length, encoding};
    sec->nblocks++;
    sec->length += length;
    return TBRW_SUCCESS;
}

void tb5_zstd_free(struct tb5_zstd *z)
{
    if (z) {
        ZSTD_freeCCtx(z->cctx);
        ZSTD_freeDCtx(z->dctx);
        free(z->frame);
        free(z->planes);
        free(z->cache);
        free(z);
    }
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    uint8_t *p;

    if (*cap >= need)
        return 0;
    p = realloc(*buf, need);
    if (!p)
        return -1;
    *buf = p;
    *cap = need;
    return 0;
}

#define BLOCK_FMT          "%s: block %u (zstd frame of %" PRIu64 " bytes at file offset %" PRIu64 "): "
#define BLOCK_ARGS(sec, i) TB5_SEC_NAME(sec), (i), (sec)->blocks[i].stored, (sec)->blocks[i].offset

/* Inflates compressed block i of sec, all of it, into out. Each way a frame can be wrong
 * has its own message: the directory promised a length, the frame must keep it. */
static TBRW_U32 inflate_block(const struct tb5 *tb, const struct tb5_section *sec, uint32_t i,
                              uint8_t *out)
{
    const struct tb5_block *b = &sec->blocks[i];
    struct tb5_zstd *z = tb->z;
    unsigned long long declared;
    size_t n;
    TBRW_U32 rc;

    if (!z->dctx && !(z->dctx = ZSTD_createDCtx()))
        return TBRW_NO_MEMORY;
    if (grow(&z->frame, &z->frame_cap, (size_t)b->stored))
        return TBRW_NO_MEMORY;
    rc = tb5_pread(sec->spooled ? tb->spool_fd : tb->fd, z->frame, (size_t)b->stored, b->offset);
    if (rc == TBRW_TRUNCATED_FILE)
        return tb5_fail(TBRW_CORRUPT_FILE, BLOCK_FMT "lies past the end of the file",
                        BLOCK_ARGS(sec, i));
    if (rc)
        return rc;
    n = ZSTD_findFrameCompressedSize(z->frame, (size_t)b->stored);
    if (ZSTD_isError(n))
        return tb5_fail(TBRW_CORRUPT_FILE, BLOCK_FMT "%s", BLOCK_ARGS(sec, i),
                        ZSTD_getErrorCode(n) == ZSTD_error_srcSize_wrong ? "the frame is cut short"
                                                                         : ZSTD_getErrorName(n));
    if (n != b->stored)
        return tb5_fail(TBRW_CORRUPT_FILE, BLOCK_FMT "the frame ends after %zu bytes",
                        BLOCK_ARGS(sec, i), n);
    declared = ZSTD_getFrameContentSize(z->frame, (size_t)b->stored);
    if (declared != b->length)
        return tb5_fail(TBRW_CORRUPT_FILE,
                        BLOCK_FMT "the frame %s, its block entry says %" PRIu64 " bytes",
                        BLOCK_ARGS(sec, i),
                        declared == ZSTD_CONTENTSIZE_UNKNOWN ? "declares no content size"
                                                             : "declares another content size",
                        b->length);
    /* Records come back from their byte planes; other sections' bytes are as they are. */
    uint8_t *planes = out;
    if (sec->record_size > 1) {
        if (grow(&z->planes, &z->planes_cap, (size_t)b->length))
            return TBRW_NO_MEMORY;
        planes = z->planes;
    }
    n = ZSTD_decompressDCtx(z->dctx, planes, (size_t)b->length, z->frame, (size_t)b->stored);
    if (ZSTD_isError(n))
        return tb5_fail(ZSTD_getErrorCode(n) == ZSTD_error_checksum_wrong ? TBRW_CHECKSUM_MISMATCH
                                                                          : TBRW_CORRUPT_FILE,
                        BLOCK_FMT "zstd: %s", BLOCK_ARGS(sec, i), ZSTD_getErrorName(n));
    if (n != b->length)
        return tb5_fail(TBRW_CORRUPT_FILE, BLOCK_FMT "inflates to %zu bytes, not %" PRIu64,
                        BLOCK_ARGS(sec, i), n, b->length);
    if (planes != out)
        tb5_unshuffle(planes, out, n / sec->record_size, sec->record_size);
    return TBRW_SUCCESS;
}

/* n bytes at in_block of block i into out. */
static TBRW_U32 read_block(const struct tb5 *tb, const struct tb5_section *sec, uint32_t i,
                           uint64_t in_block, uint8_t *out, size_t n)
{
    const struct tb5_block *b = &sec->blocks[i];
    struct tb5_zstd *z = tb->z;
    TBRW_U32 rc;

    if (b->encoding == TB5_ENC_STORED) {
        rc = tb5_pread(sec->spooled ? tb->spool_fd : tb->fd, out, n, b->offset + in_block);
        if (rc == TBRW_TRUNCATED_FILE)
            return tb5_fail(TBRW_CORRUPT_FILE,
                            "%s: block %u at file offset %" PRIu64 " lies past the end of the file",
                            TB5_SEC_NAME(sec), i, b->offset + in_block);
        return rc;
    }
    /* A reader that takes the whole block gets it without a copy. */
    if (in_block == 0 && n == b->length)
        return inflate_block(tb, sec, i, out);
    if (!z->cache_valid || z->cache_spooled != sec->spooled || z->cache_offset != b->offset) {
        z->cache_valid = 0;
        if (grow(&z->cache, &z->cache_cap, (size_t)b->length))
            return TBRW_NO_MEMORY;
        rc = inflate_block(tb, sec, i, z->cache);
        if (rc)
            return rc;
        z->cache_valid = 1;
        z->cache_spooled = sec->spooled;
        z->cache_offset = b->offset;
    }
    memcpy(out, z->cache + in_block, n);
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
            TBRW_U32 rc = read_block(tb, sec, i, in_block, out, n);
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

/* Writes one block; with compress, as a zstd frame when that is smaller. */
static TBRW_U32 append(struct tb5 *tb, struct tb5_section *sec, const void *buf, size_t len,
                       int compress)
{
    uint64_t *end = sec->spooled ? &tb->spool_end : &tb->end;
    int fd = sec->spooled ? tb->spool_fd : tb->fd;
    struct tb5_zstd *z = tb->z;
    const void *out = buf;
    size_t stored = len;
    uint32_t encoding = TB5_ENC_STORED;
    TBRW_U32 rc;

    if (len == 0)
        return TBRW_SUCCESS;
    if (compress) {
        if (!z->cctx) {
            if (!(z->cctx = ZSTD_createCCtx()))
                return TBRW_NO_MEMORY;
            /* The frame's own checksum lets a reader tell a damaged block at once. */
            ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, TB5_ZSTD_LEVEL);
            ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1);
        }
        const void *src = buf;
        if (grow(&z->frame, &z->frame_cap, ZSTD_compressBound(len)))
            return TBRW_NO_MEMORY;
        if (sec->record_size > 1) {
            if (grow(&z->planes, &z->planes_cap, len))
                return TBRW_NO_MEMORY;
            tb5_shuffle(buf, z->planes, len / sec->record_size, sec->record_size);
            src = z->planes;
        }
        size_t n = ZSTD_compress2(z->cctx, z->frame, z->frame_cap, src, len);
        if (ZSTD_isError(n))
            return TBRW_NO_MEMORY; /* with a bound-sized output, only allocation fails */
        if (n < len) {
            out = z->frame;
            stored = n;
            encoding = TB5_ENC_ZSTD;
        }
    }
    rc = tb5_pwrite(fd, out, stored, *end);
    if (rc)
        return rc;
    rc = tb5_section_add_block(sec, *end, stored, len, encoding);
    if (rc)
        return rc;
    sec->crc = tb5_crc32c(sec->crc, buf, len);
    *end += stored;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_append_block(struct tb5 *tb, struct tb5_section *sec, const void *buf, size_t len)
{
    return append(tb, sec, buf, len, 0);
}

/* Data streams and their bind results are most of a file, and samples repeat themselves:
 * their blocks are compressed; a version 1 file keeps its layout. */
static int compressed_kind(const struct tb5 *tb, const struct tb5_section *sec)
{
    return (sec->kind == TB5_K_DATA || sec->kind == TB5_K_DATA_BIND) &&
           (tb->major >= TB5_FORMAT_MAJOR || sec->spooled);
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
    w->compress = compressed_kind(tb, w->sec);
    /* Whole records per block, so that a reader's batch of whole records is whole blocks. */
    w->limit = record_size && record_size <= TB5_BLOCK_BYTES
                   ? TB5_BLOCK_BYTES - TB5_BLOCK_BYTES % record_size
                   : TB5_BLOCK_BYTES;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_writer_flush(struct tb5 *tb, struct tb5_writer *w)
{
    TBRW_U32 rc = append(tb, w->sec, w->buf, w->fill, w->compress);

    if (rc == TBRW_SUCCESS)
        w->fill = 0;
    return rc;
}

TBRW_U32 tb5_writer_append(struct tb5 *tb, struct tb5_writer *w, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len > 0) {
        size_t n = w->limit - w->fill;
        if (n > len)
            n = len;
        memcpy(w->buf + w->fill, p, n);
        w->fill += n;
        p += n;
        len -= n;
        if (w->fill == w->limit) {
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
