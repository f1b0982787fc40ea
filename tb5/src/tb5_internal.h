/*
 * tb5_internal.h - the open-file handle and the helpers shared by the tb5 sources.
 *
 * A file is a list of sections (struct tb5_section), each a logical byte string
 * stored as blocks anywhere in the file; the directory written at commit time maps
 * (kind, stream) to blocks. Sections are built by writers that stream blocks to the
 * end of the file, so any number of sections can grow at once and nothing big is
 * ever held in memory.
 */
#ifndef TB5_INTERNAL_H
#define TB5_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "crc32c.h"
#include "tbrw.h"
#include "wire.h"

/* A batch of at most `full` records, no more than are left to read (a small section must
 * not cost a full batch buffer), at least one. */
static inline uint32_t tb5_batch_fit(uint32_t full, uint64_t records_left)
{
    uint32_t n = records_left < full ? (uint32_t)records_left : full;
    return n ? n : 1;
}

/* Records per batch of the enumerate functions and binding: whole records. */
static inline uint32_t tb5_batch_records(uint32_t record_size, uint64_t records_left)
{
    return tb5_batch_fit(TBRW_ENUMERATE_BATCH_BYTES / record_size, records_left);
}

/* Bytes a writer gathers before it emits a block (whole records of a record section).
 * Readers take any block size up to TB5_MAX_ZSTD_BLOCK; the fuzz seeds are written with
 * small blocks (tests/fuzz/project), so that a file of several blocks is a small file. */
#ifndef TB5_BLOCK_BYTES
#define TB5_BLOCK_BYTES (1u << 20)
#endif

/* zstd level of the compressed sections. On byte planes of samples, level -4 was no faster
 * than level 1 and left 0.053 of the bytes where level 1 left 0.033; on records as they are,
 * it left repeated 24-byte bind records at 0.17 of their size (level 1: 0.01). */
#define TB5_ZSTD_LEVEL 1

struct tb5_block {
    uint64_t offset;   /* in the main file, or in the spool file for spooled sections */
    uint64_t stored;   /* bytes in the file */
    uint64_t length;   /* bytes of the section */
    uint32_t encoding; /* enum tb5_encoding */
};

struct tb5_section {
    uint16_t kind; /* enum tb5_kind */
    uint16_t flags;
    uint32_t stream;
    uint32_t record_size;
    uint32_t crc;
    uint64_t record_count;
    uint64_t length;
    struct tb5_block *blocks;
    uint32_t nblocks;
    uint32_t cap_blocks;
    int spooled; /* lives in the spool file: binding a read-only file */
};

/* Builds one section; the section joins the directory at tb5_writer_finish. */
struct tb5_writer {
    struct tb5_section *sec;
    uint8_t *buf;
    size_t fill;
    size_t limit; /* a block is emitted at this fill: whole records, at most TB5_BLOCK_BYTES */
    int compress; /* blocks are zstd frames (those that shrink) */
};

/* zstd state of a handle. Reading a compressed block inflates it whole; the last block
 * inflated is kept, so readers whose batches straddle blocks inflate each block once.
 * Blocks are never rewritten, so (file, offset) names a block's contents for good. */
struct tb5_zstd {
    void *cctx;     /* ZSTD_CCtx, made on the first compressed write */
    void *dctx;     /* ZSTD_DCtx, made on the first compressed read */
    uint8_t *frame; /* a block's compressed bytes, read or to write */
    size_t frame_cap;
    uint8_t *planes; /* a block's records as byte planes (shuffle.c) */
    size_t planes_cap;
    uint8_t *cache; /* the last block inflated */
    size_t cache_cap;
    size_t cache_len;
    int cache_valid;
    int cache_spooled;
    uint64_t cache_offset;
};

enum tb5_open_state { TB5_CLOSED = 0, TB5_READING, TB5_WRITING };

#define TB5_NUM_GLOBAL_SECTIONS 6
#define TB5_NUM_STREAM_SECTIONS 5

/* One physical field of a stream's record (from its data description). */
struct tb5_field_span {
    uint32_t offset;
    uint32_t size;
    uint16_t type;
};

/* A stream's record layout, built entry by entry from its data description. */
struct tb5_layout {
    struct tb5_field_span *fields;
    uint32_t nfields;
    uint32_t cap_fields;
    uint32_t record_end; /* end of the last physical field so far */
    int wants_events;    /* the records carry event indexes: events are required */
};

/* Largest record a stream may have. */
#define TB5_MAX_RECORD (1u << 20)

/* What a stream being written has gathered so far. */
struct tb5_stream_write {
    uint8_t info[TB5_REC_STREAM_INFO];
    int info_set;
    uint8_t *user;
    size_t user_len;
    int user_set;
    struct tb5_writer events;
    uint32_t nevents;
    struct tb5_writer descs;
    uint32_t ndescs;
    struct tb5_layout layout;
    int descs_done;
    struct tb5_writer data;
    uint32_t record_size; /* fixed once the data description is done */
    uint32_t pos;         /* bytes of the current, incomplete record */
    uint8_t *boundary;    /* [record_size + 1]: 1 where a field starts or ends */
};

struct tb5_stream {
    int state;
    int section_state[TB5_NUM_STREAM_SECTIONS];
    struct tb5_stream_write *w; /* while state == TB5_WRITING */
};

/* What the global sections being written have gathered so far. */
struct tb5_global_write {
    uint8_t *hardware;
    size_t hardware_len;
    uint8_t software[TB5_SW_SIZE];
    uint32_t software_mask;
    uint8_t version[TB5_REC_VERSION];
    int version_set;
    uint8_t *user;
    size_t user_len;
    int user_set;
    struct tb5_writer modules;
    struct tb5_writer pids;
    struct tb5_writer tids;
};

struct tb5 {
    uint32_t magic; /* TB5_HANDLE_MAGIC while open */
    int fd;
    int spool_fd; /* -1 until a read-only handle binds */
    char *path;
    TBRW_U32 mode;
    int created;
    int dirty; /* the directory must be rewritten at close */
    uint64_t orig_size;
    uint16_t major;     /* the file's format version: TB5_FORMAT_MAJOR or _V1 */
    struct tb5_zstd *z; /* a pointer: readers of a const handle update its cache */
    uint64_t end;       /* where the next block goes in the main file */
    uint64_t spool_end; /* and in the spool file */
    uint32_t commit_count;

    struct tb5_section **secs; /* the directory: every committed section */
    size_t nsecs;
    size_t cap_secs;

    /* String pool: committed part in the TB5_K_STRINGS section, new strings pending. */
    uint8_t *pool_pending;
    size_t pool_pending_len;
    size_t pool_pending_cap;

    int global_state[TB5_NUM_GLOBAL_SECTIONS];
    struct tb5_global_write gw;
    struct tb5_stream *streams;
    uint32_t nstreams;

    /* Storage behind the get_one_ pointers. */
    TBRW_MODULE one_module;
    TBRW_PID one_pid;
    TBRW_TID one_tid;
};

#define TB5_HANDLE_MAGIC 0x54423548u

/* errors.c */
const char *tb5_error_text(TBRW_U32 code);
/* Records where the file is wrong (section or field, byte offset) as the detail of code
 * (tb5_error_detail) and returns code. */
TBRW_U32 tb5_fail(TBRW_U32 code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tb5_detail_clear(void);
/* "hardware section", "stream 0 data section", ... into buf. */
const char *tb5_section_name(uint16_t kind, uint32_t stream, char *buf, size_t size);
/* tb5_section_name of sec into a buffer of the caller's statement (a compound literal). */
#define TB5_SEC_NAME(sec) tb5_section_name((sec)->kind, (sec)->stream, (char[64]){0}, 64)

/* handle.c */
struct tb5 *tb5_handle(TBRW_PTR ptr);
int tb5_writable(const struct tb5 *tb);
struct tb5_section *tb5_find(const struct tb5 *tb, uint16_t kind, uint32_t stream);
TBRW_U32 tb5_install(struct tb5 *tb, struct tb5_section *sec);
void tb5_remove(struct tb5 *tb, uint16_t kind, uint32_t stream);
void tb5_free_section(struct tb5_section *sec);
void tb5_free_writes(struct tb5 *tb);
void tb5_stream_write_free(struct tb5_stream_write *w);
struct tb5_stream *tb5_stream_get(struct tb5 *tb, TBRW_U32 stream);
TBRW_U32 tb5_count_streams(const struct tb5 *tb);
TBRW_U32 tb5_copy_out(const void *src, size_t len, TBRW_U32 size_of_buffer, void *buf,
                      TBRW_U32 *size_buffer_used);

/* section_global.c: may the global section be read / written now? */
TBRW_U32 tb5_global_readable(const struct tb5 *tb, TBRW_SECTION_IDENTIFIER section);
TBRW_U32 tb5_global_writing(const struct tb5 *tb, TBRW_SECTION_IDENTIFIER section);

/* io.c: whole-buffer I/O at an offset, section reading and writing. */
TBRW_U32 tb5_pread(int fd, void *buf, size_t len, uint64_t offset);
TBRW_U32 tb5_pwrite(int fd, const void *buf, size_t len, uint64_t offset);
struct tb5_section *tb5_section_new(uint16_t kind, uint32_t stream, uint32_t record_size);
/* A block of length bytes of the section, stored bytes at offset in the given encoding. */
TBRW_U32 tb5_section_add_block(struct tb5_section *sec, uint64_t offset, uint64_t stored,
                               uint64_t length, uint32_t encoding);
void tb5_zstd_free(struct tb5_zstd *z);

/* shuffle.c: n records of size bytes to byte planes (byte k of record r at out[k * n + r])
 * and back. */
void tb5_shuffle(const uint8_t *in, uint8_t *out, size_t n, uint32_t size);
void tb5_unshuffle(const uint8_t *in, uint8_t *out, size_t n, uint32_t size);
TBRW_U32 tb5_section_read(const struct tb5 *tb, const struct tb5_section *sec, uint64_t offset,
                          void *buf, size_t len);
TBRW_U32 tb5_section_load(const struct tb5 *tb, const struct tb5_section *sec, uint8_t **out);
/* TBRW_CORRUPT_FILE for a section of the wrong length, with the detail saying so. */
TBRW_U32 tb5_bad_length(const struct tb5_section *sec, uint64_t expected);
TBRW_U32 tb5_append_block(struct tb5 *tb, struct tb5_section *sec, const void *buf, size_t len);
TBRW_U32 tb5_writer_begin(struct tb5 *tb, struct tb5_writer *w, uint16_t kind, uint32_t stream,
                          uint32_t record_size);
TBRW_U32 tb5_writer_append(struct tb5 *tb, struct tb5_writer *w, const void *data, size_t len);
TBRW_U32 tb5_writer_flush(struct tb5 *tb, struct tb5_writer *w);
TBRW_U32 tb5_writer_finish(struct tb5 *tb, struct tb5_writer *w, uint64_t record_count);
void tb5_writer_discard(struct tb5_writer *w);
TBRW_U32 tb5_write_section(struct tb5 *tb, uint16_t kind, uint32_t stream, uint32_t record_size,
                           uint64_t record_count, const void *data, size_t len);

/* file.c: header, directory and trailer. */
TBRW_U32 tb5_open_utf8(TBRW_PTR *ptr, const char *path, TBRW_U32 access_mode);

/* codec.c: records (docs/tb5-format.md, "Records"). */
enum tb5_field_type { TB5_F_U8, TB5_F_U16, TB5_F_U32, TB5_F_U64, TB5_F_STR, TB5_F_SEGTYPE };
struct tb5_field {
    uint16_t offset; /* in the C structure */
    uint8_t type;
};
struct tb5_codec {
    const char *name;
    uint32_t disk_size;
    uint32_t mem_size;
    const struct tb5_field *fields;
    uint32_t nfields;
};
extern const struct tb5_codec tb5_codec_host, tb5_codec_os, tb5_codec_app, tb5_codec_version,
    tb5_codec_pid, tb5_codec_tid, tb5_codec_module, tb5_codec_stream_info, tb5_codec_event,
    tb5_codec_event_detail, tb5_codec_descriptor, tb5_codec_system, tb5_codec_node, tb5_codec_cpu,
    tb5_codec_cpu_arch, tb5_codec_cpuid_ia32, tb5_codec_cpuid_ia64;
extern const struct tb5_codec *const tb5_all_codecs[];
extern const size_t tb5_num_codecs;

/* Turns the string a writer passed into the id stored on disk. */
typedef TBRW_U32 tb5_intern_fn(void *ctx, const TBRW_CHAR *s, uint64_t *id);
/* With intern NULL, string fields already hold ids (soi_uniqueid). */
TBRW_U32 tb5_encode(const struct tb5_codec *c, const void *mem, uint8_t *out, tb5_intern_fn *intern,
                    void *ctx);
void tb5_decode(const struct tb5_codec *c, const uint8_t *in, void *mem);
uint32_t tb5_codec_span(const struct tb5_codec *c);

/* strings.c: the string pool. */
tb5_intern_fn tb5_intern;
TBRW_U32 tb5_pool_flush(struct tb5 *tb);
TBRW_U32 tb5_string_utf8(const struct tb5 *tb, uint64_t id, char **out, size_t *len);
TBRW_U32 tb5_check_pool(const struct tb5 *tb);

/* utf.c */
TBRW_U32 tb5_wcs_to_utf8_alloc(const wchar_t *wcs, char **out, size_t *len);
TBRW_U32 tb5_utf8_to_wcs_alloc(const char *utf8, size_t len, wchar_t **out);
int tb5_utf8_valid(const char *s, size_t len);

/* section_hardware.c: the system tree <-> bytes. */
TBRW_U32 tb5_hardware_encode(const TBRW_SYSTEM *system, uint8_t **out, size_t *len);
TBRW_U32 tb5_hardware_decode(const uint8_t *in, size_t len, TBRW_SYSTEM *buf, size_t cap,
                             size_t *needed);

/* section_events.c: event records with their details. */
TBRW_U32 tb5_event_encode(const TBRW_EVENT *ev, uint8_t **out, size_t *len, tb5_intern_fn *intern,
                          void *ctx);
TBRW_U32 tb5_events_load(const struct tb5 *tb, TBRW_U32 stream, TBRW_EVENT **events,
                         uint32_t *count, size_t *bytes);

/* section_descriptors.c */
TBRW_U32 tb5_layout_place(TBRW_U32 stream, struct tb5_layout *l, TBRW_SAMPREC_DESC_ENTRY *e);
TBRW_U32 tb5_layout_finish(const struct tb5_layout *l);
void tb5_layout_free(struct tb5_layout *l);
TBRW_U32 tb5_descriptors_load(const struct tb5 *tb, TBRW_U32 stream,
                              TBRW_SAMPREC_DESC_ENTRY **entries, uint32_t *count);
TBRW_U32 tb5_stream_layout(const struct tb5 *tb, TBRW_U32 stream, struct tb5_layout *l);

/* stream.c: may the stream section be read / written now? */
TBRW_U32 tb5_stream_section_writing(struct tb5 *tb, TBRW_U32 stream,
                                    TBRW_STREAM_SECTION_IDENTIFIER section,
                                    struct tb5_stream_write **w);
TBRW_U32 tb5_stream_section_readable(const struct tb5 *tb, TBRW_U32 stream,
                                     TBRW_STREAM_SECTION_IDENTIFIER section,
                                     const struct tb5_section **sec);
uint16_t tb5_stream_kind(TBRW_STREAM_SECTION_IDENTIFIER section);

/* records.c, section_module.c, section_pidtid.c: fixed-size record arrays. */
TBRW_U32 tb5_modules_load(const struct tb5 *tb, TBRW_MODULE **modules, uint64_t *count);
TBRW_U32 tb5_records_load(const struct tb5 *tb, const struct tb5_section *sec,
                          const struct tb5_codec *c, void **out, uint64_t *count);
int tb5_pidtid_derived(const struct tb5 *tb);
TBRW_U32 tb5_record_at(const struct tb5 *tb, const struct tb5_section *sec,
                       const struct tb5_codec *c, uint64_t index, void *out);

/* Calls visit with batches of decoded records of a fixed-size section. */
typedef TBRW_U32 tb5_batch_fn(void *ctx, void *records, uint32_t count, uint64_t first);
TBRW_U32 tb5_records_foreach(const struct tb5 *tb, const struct tb5_section *sec,
                             const struct tb5_codec *c, uint64_t start, tb5_batch_fn *visit,
                             void *ctx);
/* The callback protocol of 5.9: 1 = more, 0 = stop, anything else is an error to return. */
#define TB5_CB_MORE 1u
#define TB5_CB_STOP 0u

/* bind.c */
int tb5_any_bound(const struct tb5 *tb);

/* verify.c */
TBRW_U32 tb5_verify_section_crc(const struct tb5 *tb, const struct tb5_section *sec);

#endif /* TB5_INTERNAL_H */
