/*
 * records.c - sections of fixed-size records (modules, processes, threads,
 * descriptors): loading them whole for binding, or visiting them in batches for
 * the enumerate functions, which never need more memory than one batch.
 */
#include <stdlib.h>

#include "tb5_internal.h"

/* Records decoded per batch; the raw bytes of a batch stay under a MiB. */
#define BATCH_RECORDS 4096u

static TBRW_U32 check_shape(const struct tb5_section *sec, const struct tb5_codec *c)
{
    if (sec->record_size != c->disk_size)
        return tb5_fail(TBRW_CORRUPT_FILE, "%s: records of %u bytes, expected %u",
                        TB5_SEC_NAME(sec), sec->record_size, (unsigned)c->disk_size);
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_records_load(const struct tb5 *tb, const struct tb5_section *sec,
                          const struct tb5_codec *c, void **out, uint64_t *count)
{
    uint8_t *raw, *mem;
    TBRW_U32 rc = check_shape(sec, c);

    *out = NULL;
    *count = 0;
    if (rc)
        return rc;
    if (sec->record_count > SIZE_MAX / c->mem_size / 2)
        return TBRW_NO_MEMORY;
    mem = malloc(sec->record_count ? (size_t)sec->record_count * c->mem_size : 1);
    raw = malloc((size_t)tb5_batch_fit(BATCH_RECORDS, sec->record_count) * c->disk_size);
    if (!mem || !raw) {
        free(mem);
        free(raw);
        return TBRW_NO_MEMORY;
    }
    for (uint64_t i = 0; i < sec->record_count && rc == TBRW_SUCCESS;) {
        uint64_t n = sec->record_count - i;
        if (n > BATCH_RECORDS)
            n = BATCH_RECORDS;
        rc = tb5_section_read(tb, sec, i * c->disk_size, raw, (size_t)n * c->disk_size);
        for (uint64_t k = 0; k < n && rc == TBRW_SUCCESS; k++)
            tb5_decode(c, raw + k * c->disk_size, mem + (size_t)(i + k) * c->mem_size);
        i += n;
    }
    free(raw);
    if (rc) {
        free(mem);
        return rc;
    }
    *out = mem;
    *count = sec->record_count;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_records_foreach(const struct tb5 *tb, const struct tb5_section *sec,
                             const struct tb5_codec *c, uint64_t start, tb5_batch_fn *visit,
                             void *ctx)
{
    uint8_t *raw, *mem;
    TBRW_U32 rc = check_shape(sec, c);

    if (rc)
        return rc;
    if (start > sec->record_count)
        return TBRW_INVALID_READ_START;
    raw = malloc((size_t)tb5_batch_fit(BATCH_RECORDS, sec->record_count - start) * c->disk_size);
    mem = malloc((size_t)tb5_batch_fit(BATCH_RECORDS, sec->record_count - start) * c->mem_size);
    if (!raw || !mem) {
        free(raw);
        free(mem);
        return TBRW_NO_MEMORY;
    }
    while (start < sec->record_count) {
        uint64_t n = sec->record_count - start;
        if (n > BATCH_RECORDS)
            n = BATCH_RECORDS;
        rc = tb5_section_read(tb, sec, start * c->disk_size, raw, (size_t)n * c->disk_size);
        if (rc)
            break;
        for (uint64_t k = 0; k < n; k++)
            tb5_decode(c, raw + k * c->disk_size, mem + k * c->mem_size);
        rc = visit(ctx, mem, (uint32_t)n, start);
        if (rc != TB5_CB_MORE)
            break;
        rc = TBRW_SUCCESS;
        start += n;
    }
    free(raw);
    free(mem);
    return rc == TB5_CB_STOP ? TBRW_SUCCESS : rc;
}

/* One record of a fixed-size global section, decoded into out. */
TBRW_U32 tb5_record_at(const struct tb5 *tb, const struct tb5_section *sec,
                       const struct tb5_codec *c, uint64_t index, void *out)
{
    uint8_t raw[TB5_REC_MODULE];
    TBRW_U32 rc;

    if (sec->record_size != c->disk_size || c->disk_size > sizeof(raw))
        return check_shape(sec, c);
    if (index >= sec->record_count)
        return TBRW_ENTRY_NOT_FOUND;
    rc = tb5_section_read(tb, sec, index * c->disk_size, raw, c->disk_size);
    if (rc == TBRW_SUCCESS)
        tb5_decode(c, raw, out);
    return rc;
}
