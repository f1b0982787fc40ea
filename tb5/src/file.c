/*
 * file.c - the container: header at the start, directory and trailer at the end
 * (docs/tb5-format.md). Opening reads only these; sections are read on demand.
 * A commit appends the new directory and trailer after everything written and never
 * rewrites bytes already in the file. A writer that dies before its commit leaves a
 * file that ends in blocks instead of a trailer, which reads as truncated;
 * TBRW_abort_cleanup_and_close cuts an appended file back to its size at open.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "tb5_internal.h"

/* The first and the last bytes of a tb5 file (wire.h: TB5_HDR_MAGIC, TB5_TRL_MAGIC). */
static const uint8_t TB5_MAGIC[TB5_MAGIC_LEN] = {0x89, 'T', 'B', '5', '\r', '\n', 0x1A, '\n'};
static const uint8_t TB5_TRAILER_MAGIC[TB5_MAGIC_LEN] = {'T', 'B', '5', 'T', 'R', 'A', 'I', 'L'};

#define TB5_CREATOR     "acart tb5"
#define TB5_MAX_STREAMS (1u << 20)
#define TB5_API_MAJOR   2
#define TB5_API_MINOR   3

TBRW_U32 TBRW_get_version(TBRW_U32 *major, TBRW_U32 *minor)
{
    if (!major || !minor)
        return TBRW_UNEXPECTED_NULL_PTR;
    *major = TB5_API_MAJOR;
    *minor = TB5_API_MINOR;
    return TBRW_SUCCESS;
}

static TBRW_U32 write_header(struct tb5 *tb)
{
    uint8_t h[TB5_HEADER_SIZE] = {0};

    memcpy(h + TB5_HDR_MAGIC, TB5_MAGIC, TB5_MAGIC_LEN);
    tb->major = TB5_FORMAT_MAJOR;
    tb5_put16(h + TB5_HDR_VERSION_MAJOR, TB5_FORMAT_MAJOR);
    tb5_put16(h + TB5_HDR_VERSION_MINOR, TB5_FORMAT_MINOR);
    tb5_put32(h + TB5_HDR_HEADER_SIZE, TB5_HEADER_SIZE);
    memcpy(h + TB5_HDR_CREATOR, TB5_CREATOR, sizeof(TB5_CREATOR) - 1);
    tb5_put32(h + TB5_HDR_CRC, tb5_crc32c(0, h, TB5_HDR_CRC));
    tb->end = TB5_HEADER_SIZE;
    return tb5_pwrite(tb->fd, h, sizeof(h), 0);
}

static TBRW_U32 read_header(struct tb5 *tb, uint64_t size)
{
    uint8_t h[TB5_HEADER_SIZE];
    size_t have = size < sizeof(h) ? (size_t)size : sizeof(h);
    TBRW_U32 rc = tb5_pread(tb->fd, h, have, 0);

    if (rc)
        return rc;
    /* A short file that starts like a tb5 file was cut short; anything else is not one. */
    if (memcmp(h, TB5_MAGIC, have < TB5_MAGIC_LEN ? have : TB5_MAGIC_LEN) != 0 || have == 0)
        return tb5_fail(TBRW_BAD_MAGIC, "header at byte offset 0: no tb5 magic");
    if (have < sizeof(h))
        return tb5_fail(TBRW_TRUNCATED_FILE, "header: the file ends at byte offset %zu, inside it",
                        have);
    tb->major = tb5_get16(h + TB5_HDR_VERSION_MAJOR);
    if (tb->major != TB5_FORMAT_MAJOR && tb->major != TB5_FORMAT_MAJOR_V1)
        return tb5_fail(TBRW_INCOMPATIBLE_VERSION,
                        "header field version_major at byte offset %u: %u, expected %u or %u",
                        TB5_HDR_VERSION_MAJOR, tb->major, TB5_FORMAT_MAJOR_V1, TB5_FORMAT_MAJOR);
    if (tb5_get32(h + TB5_HDR_CRC) != tb5_crc32c(0, h, TB5_HDR_CRC))
        return tb5_fail(TBRW_CHECKSUM_MISMATCH,
                        "header field crc at byte offset %u does not match bytes 0..%u",
                        TB5_HDR_CRC, TB5_HDR_CRC - 1);
    if (tb5_get32(h + TB5_HDR_HEADER_SIZE) != TB5_HEADER_SIZE)
        return tb5_fail(TBRW_CORRUPT_FILE,
                        "header field header_size at byte offset %u: %u, expected %u",
                        TB5_HDR_HEADER_SIZE, tb5_get32(h + TB5_HDR_HEADER_SIZE), TB5_HEADER_SIZE);
    return TBRW_SUCCESS;
}

static int kind_is_known(uint16_t kind)
{
    return (kind >= TB5_K_HARDWARE && kind <= TB5_K_TID_BIND) ||
           (kind >= TB5_K_STREAM_INFO && kind <= TB5_K_DATA_BIND);
}

static uint32_t block_entry_size(const struct tb5 *tb)
{
    return tb->major == TB5_FORMAT_MAJOR_V1 ? TB5_BLOCK_ENTRY_SIZE_V1 : TB5_BLOCK_ENTRY_SIZE;
}

/* One directory entry: bounds, block sums and the global/stream split are checked.
 * index and entry_off (its file offset) and blocks_off (the block table's) name what is
 * wrong. */
static TBRW_U32 parse_section(struct tb5 *tb, const uint8_t *e, const uint8_t *blocks,
                              uint32_t nblocks, uint64_t data_end, uint32_t index,
                              uint64_t entry_off, uint64_t blocks_off)
{
    struct tb5_section *sec;
    uint32_t first = tb5_get32(e + TB5_SEC_FIRST_BLOCK);
    uint32_t count = tb5_get32(e + TB5_SEC_BLOCK_COUNT);
    uint64_t length = tb5_get64(e + TB5_SEC_LENGTH);
    TBRW_U32 rc;

    sec = tb5_section_new(tb5_get16(e + TB5_SEC_KIND), tb5_get32(e + TB5_SEC_STREAM),
                          tb5_get32(e + TB5_SEC_RECORD_SIZE));
    if (!sec)
        return TBRW_NO_MEMORY;
    sec->flags = tb5_get16(e + TB5_SEC_FLAGS);
    sec->crc = tb5_get32(e + TB5_SEC_CRC);
    sec->record_count = tb5_get64(e + TB5_SEC_RECORD_COUNT);
    char name[64];
    tb5_section_name(sec->kind, sec->stream, name, sizeof(name));
#define BAD_ENTRY(...)                                                                             \
    do {                                                                                           \
        rc = tb5_fail(TBRW_CORRUPT_FILE,                                                           \
                      "directory entry %u (%s) at byte offset %" PRIu64 ": " __VA_ARGS__);         \
        goto fail;                                                                                 \
    } while (0)
    if (first > nblocks || count > nblocks - first)
        BAD_ENTRY("blocks %u..%u+%u, but the directory has %u", index, name, entry_off, first,
                  first, count, nblocks);
    if (kind_is_known(sec->kind) &&
        ((sec->kind < TB5_K_FIRST_STREAM_KIND) != (sec->stream == TB5_GLOBAL)))
        BAD_ENTRY("field stream: %s kind in stream %#x", index, name, entry_off,
                  sec->kind < TB5_K_FIRST_STREAM_KIND ? "a global" : "a stream", sec->stream);
    if (sec->stream != TB5_GLOBAL && sec->stream >= TB5_MAX_STREAMS)
        BAD_ENTRY("field stream: %u, at most %u streams", index, name, entry_off, sec->stream,
                  TB5_MAX_STREAMS);
    if (sec->record_size && (sec->record_count > length / sec->record_size ||
                             sec->record_count * sec->record_size != length))
        BAD_ENTRY("%" PRIu64 " records of %u bytes do not make its length %" PRIu64, index, name,
                  entry_off, (uint64_t)sec->record_count, sec->record_size, length);
    if (tb5_find(tb, sec->kind, sec->stream))
        BAD_ENTRY("a second %s", index, name, entry_off, name);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t entry = blocks_off + (uint64_t)(first + i) * block_entry_size(tb);
        const uint8_t *b = blocks + (size_t)(first + i) * block_entry_size(tb);
        uint64_t off = tb5_get64(b + TB5_BLK_OFFSET), len = tb5_get64(b + TB5_BLK_LENGTH);
        uint64_t raw = len;
        uint32_t enc = TB5_ENC_STORED;
        if (off < TB5_HEADER_SIZE || off > data_end || len > data_end - off)
            BAD_ENTRY("block %u (entry at byte offset %" PRIu64 ") spans [%" PRIu64 ", +%" PRIu64
                      "), outside the data area [%u, %" PRIu64 ")",
                      index, name, entry_off, first + i, entry, off, len, TB5_HEADER_SIZE,
                      data_end);
        if (tb->major != TB5_FORMAT_MAJOR_V1) {
            raw = tb5_get32(b + TB5_BLK_RAW_LENGTH);
            enc = tb5_get32(b + TB5_BLK_ENCODING);
        }
        if (enc == TB5_ENC_STORED && raw != len)
            BAD_ENTRY("block %u (entry at byte offset %" PRIu64 "): stored as is, %" PRIu64
                      " bytes in the file for %" PRIu64 " bytes of the section",
                      index, name, entry_off, first + i, entry, len, raw);
        if (enc == TB5_ENC_ZSTD &&
            (raw == 0 || raw > TB5_MAX_ZSTD_BLOCK || len == 0 || len > ZSTD_compressBound(raw)))
            BAD_ENTRY("block %u (entry at byte offset %" PRIu64 "): a zstd frame of %" PRIu64
                      " bytes for %" PRIu64 " bytes of the section (1 to %u bytes, in a frame of "
                      "at most %zu)",
                      index, name, entry_off, first + i, entry, len, raw, TB5_MAX_ZSTD_BLOCK,
                      ZSTD_compressBound(raw));
        if (enc == TB5_ENC_ZSTD && sec->record_size && raw % sec->record_size)
            BAD_ENTRY("block %u (entry at byte offset %" PRIu64 "): a zstd block of %" PRIu64
                      " bytes holds no whole number of %u-byte records",
                      index, name, entry_off, first + i, entry, raw, sec->record_size);
        if (enc != TB5_ENC_STORED && enc != TB5_ENC_ZSTD)
            BAD_ENTRY("block %u (entry at byte offset %" PRIu64 "): encoding %u is not known",
                      index, name, entry_off, first + i, entry, enc);
        rc = tb5_section_add_block(sec, off, len, raw, enc);
        if (rc)
            goto fail;
    }
    if (sec->length != length)
        BAD_ENTRY("its blocks hold %" PRIu64 " bytes, its length says %" PRIu64, index, name,
                  entry_off, (uint64_t)sec->length, length);
#undef BAD_ENTRY
    rc = tb5_install(tb, sec);
    if (rc == TBRW_SUCCESS)
        return rc;
fail:
    tb5_free_section(sec);
    return rc;
}

static TBRW_U32 read_directory(struct tb5 *tb, uint64_t size)
{
    uint8_t t[TB5_TRAILER_SIZE];
    uint64_t dir_off, dir_len;
    uint32_t nsec, nblk;
    uint8_t *dir;
    TBRW_U32 rc;

    if (size < TB5_HEADER_SIZE + TB5_TRAILER_SIZE)
        return tb5_fail(TBRW_TRUNCATED_FILE,
                        "%" PRIu64 " bytes: no room for the header and the trailer", size);
    rc = tb5_pread(tb->fd, t, sizeof(t), size - TB5_TRAILER_SIZE);
    if (rc)
        return rc;
    if (memcmp(t + TB5_TRL_MAGIC, TB5_TRAILER_MAGIC, TB5_MAGIC_LEN) != 0)
        return tb5_fail(TBRW_TRUNCATED_FILE, "trailer at byte offset %" PRIu64 ": no trailer magic",
                        size - TB5_TRAILER_SIZE);
    if (tb5_get32(t + TB5_TRL_CRC) != tb5_crc32c(0, t, TB5_TRL_CRC))
        return tb5_fail(TBRW_CHECKSUM_MISMATCH,
                        "trailer field crc at byte offset %" PRIu64 " does not match the trailer",
                        size - TB5_TRAILER_SIZE + TB5_TRL_CRC);
    dir_off = tb5_get64(t + TB5_TRL_DIR_OFFSET);
    dir_len = tb5_get64(t + TB5_TRL_DIR_LENGTH);
    nsec = tb5_get32(t + TB5_TRL_SECTIONS);
    nblk = tb5_get32(t + TB5_TRL_BLOCKS);
    tb->commit_count = tb5_get32(t + TB5_TRL_COMMIT_COUNT);
    if (dir_off < TB5_HEADER_SIZE || dir_off > size - TB5_TRAILER_SIZE ||
        dir_len != size - TB5_TRAILER_SIZE - dir_off ||
        dir_len != (uint64_t)nsec * TB5_SECTION_ENTRY_SIZE + (uint64_t)nblk * block_entry_size(tb))
        return tb5_fail(TBRW_CORRUPT_FILE,
                        "trailer at byte offset %" PRIu64 ": directory at byte offset %" PRIu64
                        ", %" PRIu64 " bytes, for %u sections and %u blocks, does not end where "
                        "the trailer starts",
                        size - TB5_TRAILER_SIZE, dir_off, dir_len, nsec, nblk);
    dir = malloc(dir_len ? (size_t)dir_len : 1);
    if (!dir)
        return TBRW_NO_MEMORY;
    rc = tb5_pread(tb->fd, dir, (size_t)dir_len, dir_off);
    if (rc == TBRW_SUCCESS && tb5_get32(t + TB5_TRL_DIR_CRC) != tb5_crc32c(0, dir, dir_len))
        rc = tb5_fail(TBRW_CHECKSUM_MISMATCH,
                      "directory at byte offset %" PRIu64 " does not match its crc (trailer "
                      "byte offset %" PRIu64 ")",
                      dir_off, size - TB5_TRAILER_SIZE + TB5_TRL_DIR_CRC);
    for (uint32_t i = 0; rc == TBRW_SUCCESS && i < nsec; i++)
        rc = parse_section(tb, dir + (size_t)i * TB5_SECTION_ENTRY_SIZE,
                           dir + (size_t)nsec * TB5_SECTION_ENTRY_SIZE, nblk, dir_off, i,
                           dir_off + (uint64_t)i * TB5_SECTION_ENTRY_SIZE,
                           dir_off + (uint64_t)nsec * TB5_SECTION_ENTRY_SIZE);
    free(dir);
    return rc;
}

static int section_order(const void *a, const void *b)
{
    const struct tb5_section *x = *(const struct tb5_section *const *)a;
    const struct tb5_section *y = *(const struct tb5_section *const *)b;
    uint64_t kx = ((uint64_t)(x->stream + 1u) << 16) | x->kind; /* global (all ones) first */
    uint64_t ky = ((uint64_t)(y->stream + 1u) << 16) | y->kind;

    return kx < ky ? -1 : kx > ky;
}

/* Appends the directory and the trailer: the file now ends in a valid trailer. */
static TBRW_U32 commit(struct tb5 *tb)
{
    uint8_t t[TB5_TRAILER_SIZE] = {0};
    uint64_t nblk = 0, dir_len;
    uint8_t *dir, *blk;
    uint32_t block = 0;
    TBRW_U32 rc = tb5_pool_flush(tb);

    if (rc)
        return rc;
    qsort(tb->secs, tb->nsecs, sizeof(tb->secs[0]), section_order);
    for (size_t i = 0; i < tb->nsecs; i++)
        nblk += tb->secs[i]->nblocks;
    if (nblk > UINT32_MAX)
        return TBRW_BUFFER_OVERFLOW;
    dir_len = tb->nsecs * TB5_SECTION_ENTRY_SIZE + nblk * block_entry_size(tb);
    dir = calloc(1, dir_len ? (size_t)dir_len : 1);
    if (!dir)
        return TBRW_NO_MEMORY;
    blk = dir + tb->nsecs * TB5_SECTION_ENTRY_SIZE;
    for (size_t i = 0; i < tb->nsecs; i++) {
        const struct tb5_section *s = tb->secs[i];
        uint8_t *e = dir + i * TB5_SECTION_ENTRY_SIZE;
        tb5_put16(e + TB5_SEC_KIND, s->kind);
        tb5_put16(e + TB5_SEC_FLAGS, s->flags);
        tb5_put32(e + TB5_SEC_STREAM, s->stream);
        tb5_put32(e + TB5_SEC_RECORD_SIZE, s->record_size);
        tb5_put32(e + TB5_SEC_CRC, s->crc);
        tb5_put64(e + TB5_SEC_RECORD_COUNT, s->record_count);
        tb5_put64(e + TB5_SEC_LENGTH, s->length);
        tb5_put32(e + TB5_SEC_FIRST_BLOCK, block);
        tb5_put32(e + TB5_SEC_BLOCK_COUNT, s->nblocks);
        for (uint32_t b = 0; b < s->nblocks; b++, block++) {
            uint8_t *be = blk + (size_t)block * block_entry_size(tb);
            tb5_put64(be + TB5_BLK_OFFSET, s->blocks[b].offset);
            tb5_put64(be + TB5_BLK_LENGTH, s->blocks[b].stored);
            if (tb->major != TB5_FORMAT_MAJOR_V1) {
                tb5_put32(be + TB5_BLK_RAW_LENGTH, (uint32_t)s->blocks[b].length);
                tb5_put32(be + TB5_BLK_ENCODING, s->blocks[b].encoding);
            }
        }
    }
    memcpy(t + TB5_TRL_MAGIC, TB5_TRAILER_MAGIC, TB5_MAGIC_LEN);
    tb5_put64(t + TB5_TRL_DIR_OFFSET, tb->end);
    tb5_put64(t + TB5_TRL_DIR_LENGTH, dir_len);
    tb5_put32(t + TB5_TRL_SECTIONS, (uint32_t)tb->nsecs);
    tb5_put32(t + TB5_TRL_BLOCKS, (uint32_t)nblk);
    tb5_put32(t + TB5_TRL_DIR_CRC, tb5_crc32c(0, dir, dir_len));
    tb5_put32(t + TB5_TRL_COMMIT_COUNT, tb->commit_count + 1);
    tb5_put32(t + TB5_TRL_CRC, tb5_crc32c(0, t, TB5_TRL_CRC));
    rc = tb5_pwrite(tb->fd, dir, (size_t)dir_len, tb->end);
    if (rc == TBRW_SUCCESS)
        rc = tb5_pwrite(tb->fd, t, sizeof(t), tb->end + dir_len);
    free(dir);
    if (rc == TBRW_SUCCESS && fdatasync(tb->fd) != 0)
        rc = TBRW_IO_ERROR;
    return rc;
}

static void destroy(struct tb5 *tb)
{
    tb5_free_writes(tb);
    for (size_t i = 0; i < tb->nsecs; i++)
        tb5_free_section(tb->secs[i]);
    free(tb->secs);
    free(tb->streams);
    free(tb->pool_pending);
    tb5_zstd_free(tb->z);
    if (tb->fd >= 0)
        close(tb->fd);
    if (tb->spool_fd >= 0)
        close(tb->spool_fd);
    free(tb->path);
    tb->magic = 0;
    free(tb);
}

static TBRW_U32 check_mode(TBRW_U32 mode)
{
    const TBRW_U32 known = TBRW_FILE_READ | TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS;

    if ((mode & ~known) || !(mode & (TBRW_FILE_READ | TBRW_FILE_WRITE)))
        return TBRW_INVALID_ACCESS_PERMS;
    if ((mode & TBRW_FILE_CREATE_ALWAYS) && !(mode & TBRW_FILE_WRITE))
        return TBRW_INVALID_ACCESS_PERMS;
    return TBRW_SUCCESS;
}

/* Streams are numbered without gaps (TBRW_writing_stream), so every stream below the
 * highest has a section; a file that names stream 1000000 alone would otherwise make the
 * handle hold a million streams. */
static TBRW_U32 check_stream_numbers(const struct tb5 *tb)
{
    TBRW_U32 n = tb5_count_streams(tb);
    uint8_t *seen;

    if (n == 0)
        return TBRW_SUCCESS;
    seen = calloc(n, 1);
    if (!seen)
        return TBRW_NO_MEMORY;
    for (size_t i = 0; i < tb->nsecs; i++)
        if (tb->secs[i]->stream != TB5_GLOBAL)
            seen[tb->secs[i]->stream] = 1;
    TBRW_U32 gap = 0;
    while (gap < n && seen[gap])
        gap++;
    free(seen);
    if (gap == n)
        return TBRW_SUCCESS;
    return tb5_fail(TBRW_CORRUPT_FILE,
                    "directory: stream %u has no section, but stream %u has (streams are "
                    "numbered without gaps)",
                    gap, n - 1);
}

TBRW_U32 tb5_open_utf8(TBRW_PTR *ptr, const char *path, TBRW_U32 mode)
{
    struct tb5 *tb;
    struct stat st;
    TBRW_U32 rc;

    tb5_detail_clear();
    if (!ptr || !path)
        return TBRW_UNEXPECTED_NULL_PTR;
    *ptr = NULL;
    rc = check_mode(mode);
    if (rc)
        return rc;
    tb = calloc(1, sizeof(*tb));
    if (!tb || !(tb->path = strdup(path)) || !(tb->z = calloc(1, sizeof(*tb->z)))) {
        if (tb)
            free(tb->path);
        free(tb);
        return TBRW_NO_MEMORY;
    }
    tb->magic = TB5_HANDLE_MAGIC;
    tb->mode = mode;
    tb->spool_fd = -1;
    if (mode & TBRW_FILE_CREATE_ALWAYS) {
        tb->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        tb->created = 1;
        tb->dirty = 1;
        rc = tb->fd < 0 ? TBRW_FILE_OPEN_FAILED : write_header(tb);
    } else {
        tb->fd = open(path, ((mode & TBRW_FILE_WRITE) ? O_RDWR : O_RDONLY) | O_CLOEXEC);
        if (tb->fd < 0 || fstat(tb->fd, &st) != 0)
            rc = TBRW_FILE_OPEN_FAILED;
        else if (S_ISDIR(st.st_mode))
            rc = TBRW_FILE_OPEN_FAILED;
        if (rc == TBRW_SUCCESS)
            rc = read_header(tb, (uint64_t)st.st_size);
        if (rc == TBRW_SUCCESS)
            rc = read_directory(tb, (uint64_t)st.st_size);
        if (rc == TBRW_SUCCESS)
            tb->orig_size = tb->end = (uint64_t)st.st_size;
        tb->dirty = 0;
    }
    if (rc == TBRW_SUCCESS && !tb->created)
        rc = check_stream_numbers(tb);
    if (rc == TBRW_SUCCESS) {
        tb->nstreams = tb5_count_streams(tb);
        tb->streams = calloc(tb->nstreams ? tb->nstreams : 1, sizeof(*tb->streams));
        if (!tb->streams)
            rc = TBRW_NO_MEMORY;
    }
    if (rc) {
        if (tb->created && tb->fd >= 0)
            unlink(path);
        destroy(tb);
        return rc;
    }
    *ptr = tb;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_open(TBRW_PTR *ptr, const TBRW_CHAR *filename, TBRW_U32 access_mode)
{
    char *path;
    TBRW_U32 rc;

    if (!ptr || !filename)
        return TBRW_UNEXPECTED_NULL_PTR;
    *ptr = NULL;
    rc = tb5_wcs_to_utf8_alloc(filename, &path, NULL);
    if (rc)
        return rc;
    rc = tb5_open_utf8(ptr, path, access_mode);
    free(path);
    return rc;
}

/* Streams still being written never happened: their sections leave the directory. */
static int drop_unfinished(struct tb5 *tb)
{
    int dropped = 0;

    for (int s = 0; s < TB5_NUM_GLOBAL_SECTIONS; s++)
        dropped |= tb->global_state[s] == TB5_WRITING;
    for (uint32_t i = 0; i < tb->nstreams; i++) {
        if (tb->streams[i].state != TB5_WRITING)
            continue;
        dropped = 1;
        for (size_t k = tb->nsecs; k-- > 0;)
            if (tb->secs[k]->stream == i)
                tb5_remove(tb, tb->secs[k]->kind, i);
    }
    return dropped;
}

TBRW_U32 TBRW_close(TBRW_PTR ptr)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc = TBRW_SUCCESS, crc = TBRW_SUCCESS;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (drop_unfinished(tb))
        rc = TBRW_NOT_ALL_SECTIONS_CLOSED;
    if (tb5_writable(tb) && tb->dirty)
        crc = commit(tb);
    destroy(tb);
    return crc ? crc : rc;
}

TBRW_U32 TBRW_abort_cleanup_and_close(TBRW_PTR ptr)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc = TBRW_SUCCESS;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (tb->created) {
        if (unlink(tb->path) != 0)
            rc = TBRW_IO_ERROR;
    } else if (tb5_writable(tb) && ftruncate(tb->fd, (off_t)tb->orig_size) != 0) {
        rc = TBRW_IO_ERROR;
    }
    destroy(tb);
    return rc;
}
