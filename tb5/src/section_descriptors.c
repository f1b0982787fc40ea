/*
 * section_descriptors.c - the data description section (9.3.3): the fields of a
 * stream's fixed-size record. Each entry is placed as it is added, so a bad entry
 * is refused at once, and the same placement rules check a description read back
 * from a file. The rules:
 *  - extended types (0x2000-0x2FFF) are computed, not stored: they take no bytes;
 *  - every other field has a size, and desc_offset 0 on any field but the first
 *    means "right after the previous field" (the guide's example in 6.9 adds its
 *    TSC at offset 0 after the 32-byte legacy record);
 *  - fields may leave gaps but never overlap;
 *  - stream 0's record is a TBRW_SampleRecordPC at offset 0, optionally followed by
 *    one 8-byte ST_TIME_STAMP; no other stream may hold a legacy record (3.2.2).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "samprec_shared.h"
#include "tb5_internal.h"

static int is_extended(uint16_t type)
{
    return type >= ST_START_EXT_SAMPLE_REC_ENTRIES && type <= ST_END_EXT_SAMPLE_REC_ENTRIES;
}

/* Stream 0 holds legacy records, alone or followed by their time stamp. */
static TBRW_U32 check_stream0(const struct tb5_layout *l, const TBRW_SAMPREC_DESC_ENTRY *e)
{
    if (l->nfields == 0)
        return (e->desc_type == ST_LEGACY_SAMPLE_RECORD && e->desc_offset == 0 &&
                e->desc_data_size == TB5_LEGACY_RECORD_SIZE)
                   ? TBRW_SUCCESS
                   : TBRW_LEGACY_RECORD_MISPLACED;
    if (l->nfields == 1 && e->desc_type == ST_TIME_STAMP &&
        e->desc_data_size == sizeof(TBRW_SampleRecordTSC))
        return TBRW_SUCCESS;
    return TBRW_LEGACY_RECORD_MISPLACED;
}

TBRW_U32 tb5_layout_place(TBRW_U32 stream, struct tb5_layout *l, TBRW_SAMPREC_DESC_ENTRY *e)
{
    uint64_t end;

    if (e->desc_size != sizeof(*e))
        return TBRW_UNSUPPORTED_DATA_SIZE;
    if (e->desc_type >= ST_RESERVED_START)
        return TBRW_UNEXPECTED_VALUE;
    if (is_extended(e->desc_type)) {
        if (e->desc_type == ST_EVENT_ID)
            l->wants_events = 1;
        return TBRW_SUCCESS;
    }
    if (e->desc_data_size == 0)
        return TBRW_UNSUPPORTED_DATA_SIZE;
    if (e->desc_type == ST_LEGACY_SAMPLE_RECORD && stream != 0)
        return TBRW_LEGACY_RECORD_MISPLACED;
    if (l->nfields > 0 && e->desc_offset == 0)
        e->desc_offset = l->record_end;
    if (stream == 0) {
        TBRW_U32 rc = check_stream0(l, e);
        if (rc)
            return rc;
        l->wants_events = 1; /* legacy records carry eventIndex */
    }
    end = (uint64_t)e->desc_offset + e->desc_data_size;
    if (end > TB5_MAX_RECORD)
        return TBRW_UNSUPPORTED_DATA_SIZE;
    for (uint32_t i = 0; i < l->nfields; i++) {
        const struct tb5_field_span *f = &l->fields[i];
        if (e->desc_offset < f->offset + f->size && f->offset < end)
            return TBRW_DESCRIPTOR_OVERLAP;
    }
    if (l->nfields == l->cap_fields) {
        uint32_t cap = l->cap_fields ? l->cap_fields * 2 : 8;
        struct tb5_field_span *f = realloc(l->fields, cap * sizeof(*f));
        if (!f)
            return TBRW_NO_MEMORY;
        l->fields = f;
        l->cap_fields = cap;
    }
    l->fields[l->nfields].offset = e->desc_offset;
    l->fields[l->nfields].size = e->desc_data_size;
    l->fields[l->nfields].type = e->desc_type;
    l->nfields++;
    if (end > l->record_end)
        l->record_end = (uint32_t)end;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_layout_finish(const struct tb5_layout *l)
{
    return l->nfields ? TBRW_SUCCESS : TBRW_NO_DATA_TO_WRITE;
}

void tb5_layout_free(struct tb5_layout *l)
{
    free(l->fields);
    memset(l, 0, sizeof(*l));
}

TBRW_U32 TBRW_add_data_descriptor_entry(TBRW_PTR ptr, TBRW_U32 stream,
                                        const TBRW_SAMPREC_DESC_ENTRY *data_descriptor_entry)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct tb5_stream_write *w;
    TBRW_SAMPREC_DESC_ENTRY e;
    uint8_t rec[TB5_REC_DESCRIPTOR];
    TBRW_U32 rc;

    if (!tb || !data_descriptor_entry)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_writing(tb, stream, TBRW_DATA_DESCRIPTION_SECTION, &w);
    if (rc)
        return rc;
    e = *data_descriptor_entry;
    rc = tb5_layout_place(stream, &w->layout, &e);
    if (rc == TBRW_SUCCESS)
        rc = tb5_encode(&tb5_codec_descriptor, &e, rec, tb5_intern, tb);
    if (rc == TBRW_SUCCESS)
        rc = tb5_writer_append(tb, &w->descs, rec, sizeof(rec));
    if (rc == TBRW_SUCCESS)
        w->ndescs++;
    return rc;
}

TBRW_U32 tb5_descriptors_load(const struct tb5 *tb, TBRW_U32 stream,
                              TBRW_SAMPREC_DESC_ENTRY **entries, uint32_t *count)
{
    const struct tb5_section *sec = tb5_find(tb, TB5_K_DESCRIPTORS, stream);
    void *out;
    uint64_t n;
    TBRW_U32 rc;

    if (!sec)
        return TBRW_SECTION_NOT_EXIST;
    if (sec->record_count > UINT32_MAX)
        return tb5_fail(TBRW_CORRUPT_FILE, "%s: %" PRIu64 " records", TB5_SEC_NAME(sec),
                        (uint64_t)sec->record_count);
    rc = tb5_records_load(tb, sec, &tb5_codec_descriptor, &out, &n);
    if (rc)
        return rc;
    *entries = out;
    *count = (uint32_t)n;
    return TBRW_SUCCESS;
}

/* The layout of a stream in the file, checked by the rules that admitted it. */
TBRW_U32 tb5_stream_layout(const struct tb5 *tb, TBRW_U32 stream, struct tb5_layout *l)
{
    TBRW_SAMPREC_DESC_ENTRY *e;
    uint32_t n;
    TBRW_U32 rc = tb5_descriptors_load(tb, stream, &e, &n);

    memset(l, 0, sizeof(*l));
    if (rc)
        return rc;
    uint32_t i = 0;
    for (; i < n && rc == TBRW_SUCCESS; i++)
        rc = tb5_layout_place(stream, l, &e[i]);
    if (rc == TBRW_SUCCESS)
        rc = tb5_layout_finish(l);
    free(e);
    if (rc) {
        tb5_layout_free(l);
        if (rc == TBRW_NO_MEMORY)
            return rc;
        char name[64];
        tb5_section_name(TB5_K_DESCRIPTORS, stream, name, sizeof(name));
        if (i == n) /* the entries fit one by one, not as a whole */
            return tb5_fail(TBRW_CORRUPT_FILE, "%s: the %u entries do not make a record: %s", name,
                            n, tb5_error_text(rc));
        return tb5_fail(TBRW_CORRUPT_FILE, "%s: entry %u at byte offset %u: %s", name, i - 1,
                        (i - 1) * (unsigned)TB5_REC_DESCRIPTOR, tb5_error_text(rc));
    }
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_enumerate_data_descriptor_entries(TBRW_PTR ptr, TBRW_U32 stream,
                                                TBRW_DATA_DESC_CALLBACK *callback_func,
                                                void *user_ptr)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    TBRW_SAMPREC_DESC_ENTRY *e;
    uint32_t n;
    TBRW_U32 rc;

    if (!tb || !callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_stream_section_readable(tb, stream, TBRW_DATA_DESCRIPTION_SECTION, &sec);
    if (rc)
        return rc;
    rc = tb5_descriptors_load(tb, stream, &e, &n);
    if (rc)
        return rc;
    if (n > 0)
        rc = callback_func(e, n * (TBRW_U32)sizeof(*e), n, user_ptr);
    free(e);
    return (rc == TB5_CB_MORE || rc == TB5_CB_STOP) ? TBRW_SUCCESS : rc;
}
