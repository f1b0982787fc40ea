/* A protocol-buffers encoder, enough for pprof's profile.proto: varints, 64-bit and
 * length-delimited fields, packed repeated varints, into a growing byte buffer. A nested
 * message is encoded into a buffer of its own and appended as a length-delimited field,
 * which keeps the writer free of back-patching. Encoding follows
 * https://protobuf.dev/programming-guides/encoding/ (proto3: a field at its default value
 * may be left out, and the callers do so only where the reader treats absence as 0).
 *
 * Out of memory makes the buffer "failed": every later call does nothing, and the caller
 * checks pb_failed() once at the end instead of after every field. */
#ifndef ACART_TOOLS_PROTOBUF_H
#define ACART_TOOLS_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_buf {
    uint8_t *data;
    size_t len, cap;
    bool failed;
};

/* Empties b for reuse, keeping its memory (and clearing failed). */
void pb_reset(struct pb_buf *b);
void pb_free(struct pb_buf *b);
static inline bool pb_failed(const struct pb_buf *b)
{
    return b->failed;
}

/* Field `field` (1 to 2^29 - 1) as a varint: uint32/uint64/bool, and int64/int32 in two's
 * complement (negative values take ten bytes, as the format says). */
void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_int(struct pb_buf *b, uint32_t field, int64_t v);

/* Length-delimited: bytes, a string, or a whole encoded message. */
void pb_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);
void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *msg);

/* A packed repeated varint field (proto3's default encoding for repeated scalars). */
void pb_packed_uint(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);
void pb_packed_int(struct pb_buf *b, uint32_t field, const int64_t *v, size_t n);

#endif
