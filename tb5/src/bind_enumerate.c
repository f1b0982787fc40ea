/*
 * bind_enumerate.c - reading bind results (5.10, 9.2.3, 9.2.4, 9.3.4) and forgetting
 * them (TBRW_unbind). Module and thread bind tables are global: they describe the
 * process list, which every bound stream shares.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "tb5_internal.h"

int tb5_any_bound(const struct tb5 *tb)
{
    for (size_t i = 0; i < tb->nsecs; i++)
        if (tb->secs[i]->kind == TB5_K_DATA_BIND)
            return 1;
    return 0;
}

static TBRW_U32 bound_stream(const struct tb5 *tb, TBRW_U32 stream)
{
    if (stream >= tb->nstreams)
        return TBRW_STREAM_NOT_EXIST;
    return tb5_find(tb, TB5_K_DATA_BIND, stream) ? TBRW_SUCCESS : TBRW_STREAM_NOT_BOUND;
}

TBRW_U32 TBRW_is_bound(TBRW_PTR ptr, TBRW_U32 data_stream, TBRW_U32 *is_bound)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb || !is_bound)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = bound_stream(tb, data_stream);
    if (rc == TBRW_STREAM_NOT_EXIST)
        return rc;
    *is_bound = rc == TBRW_SUCCESS;
    return TBRW_SUCCESS;
}

static TBRW_U32 entry_size(TBRW_PTR ptr, TBRW_U32 stream, TBRW_U32 *out, TBRW_U32 size)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb || !out)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = bound_stream(tb, stream);
    if (rc == TBRW_SUCCESS)
        *out = size;
    return rc;
}

TBRW_U32 TBRW_get_size_of_data_bind_entry(TBRW_PTR ptr, TBRW_U32 data_stream,
                                          TBRW_U32 *sizeof_data_bind_entry)
{
    return entry_size(ptr, data_stream, sizeof_data_bind_entry, sizeof(DATA_BIND_STRUCT));
}

TBRW_U32 TBRW_get_size_of_module_bind_entry(TBRW_PTR ptr, TBRW_U32 data_stream,
                                            TBRW_U32 *sizeof_module_bind_entry)
{
    return entry_size(ptr, data_stream, sizeof_module_bind_entry, sizeof(MODULE_BIND_STRUCT));
}

TBRW_U32 TBRW_get_size_of_tid_bind_entry(TBRW_PTR ptr, TBRW_U32 data_stream,
                                         TBRW_U32 *sizeof_tid_bind_entry)
{
    return entry_size(ptr, data_stream, sizeof_tid_bind_entry, sizeof(TID_BIND_STRUCT));
}

TBRW_U32 TBRW_bind_enumerate_data(TBRW_PTR ptr, TBRW_U32 data_stream,
                                  BIND_DATA_CALLBACK *callback_func, void *user_ptr,
                                  TBRW_U64 start_index)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *data, *bind;
    uint8_t *buf, *raw;
    DATA_BIND_STRUCT *binds;
    uint32_t rs, per_batch;
    TBRW_U32 rc;

    if (!tb || !callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = bound_stream(tb, data_stream);
    if (rc == TBRW_SUCCESS)
        rc = tb5_stream_section_readable(tb, data_stream, TBRW_DATA_SECTION, &data);
    if (rc)
        return rc;
    bind = tb5_find(tb, TB5_K_DATA_BIND, data_stream);
    rs = data->record_size;
    if (rs == 0 || bind->record_count != data->record_count ||
        bind->record_size != TB5_REC_DATA_BIND)
        return tb5_fail(TBRW_CORRUPT_FILE,
                        "%s: %" PRIu64 " entries of %u bytes for %" PRIu64
                        " records of %u bytes (expected one entry of %u bytes per record)",
                        TB5_SEC_NAME(bind), (uint64_t)bind->record_count, bind->record_size,
                        (uint64_t)data->record_count, rs, TB5_REC_DATA_BIND);
    if (start_index > data->record_count)
        return TBRW_INVALID_READ_START;
    per_batch = tb5_batch_records(rs, data->record_count - start_index);
    buf = malloc((size_t)per_batch * rs);
    raw = malloc((size_t)per_batch * TB5_REC_DATA_BIND);
    binds = malloc((size_t)per_batch * sizeof(*binds));
    rc = (buf && raw && binds) ? TBRW_SUCCESS : TBRW_NO_MEMORY;
    for (uint64_t i = start_index; rc == TBRW_SUCCESS && i < data->record_count;) {
        uint64_t n = data->record_count - i;
        if (n > per_batch)
            n = per_batch;
        rc = tb5_section_read(tb, data, i * rs, buf, (size_t)n * rs);
        if (rc == TBRW_SUCCESS)
            rc = tb5_section_read(tb, bind, i * TB5_REC_DATA_BIND, raw,
                                  (size_t)n * TB5_REC_DATA_BIND);
        if (rc)
            break;
        for (uint64_t k = 0; k < n; k++) {
            const uint8_t *r = raw + k * TB5_REC_DATA_BIND;
            binds[k].module_index = tb5_get64(r + TB5_BIND_MODULE);
            binds[k].pid_index = tb5_get64(r + TB5_BIND_PID);
            binds[k].tid_index = tb5_get64(r + TB5_BIND_TID);
        }
        rc = callback_func(buf, (TBRW_U32)(n * rs), n, binds, (TBRW_U32)(n * sizeof(*binds)),
                           user_ptr);
        if (rc != TB5_CB_MORE)
            break;
        rc = TBRW_SUCCESS;
        i += n;
    }
    free(buf);
    free(raw);
    free(binds);
    return rc;
}

/* Records of a global section visited with the process index bound to each. */
struct indexed_visit {
    const struct tb5 *tb;
    const struct tb5_section *bind;
    BIND_MODULE_CALLBACK *module_cb;
    BIND_TID_CALLBACK *tid_cb;
    void *user;
};

static TBRW_U32 visit_indexed(void *ctx, void *records, uint32_t count, uint64_t first)
{
    struct indexed_visit *v = ctx;
    uint8_t *raw = malloc((size_t)count * TB5_REC_PID_INDEX);
    TBRW_U64 *index = malloc((size_t)count * sizeof(*index));
    TBRW_U32 rc = (raw && index) ? tb5_section_read(v->tb, v->bind, first * TB5_REC_PID_INDEX, raw,
                                                    (size_t)count * TB5_REC_PID_INDEX)
                                 : TBRW_NO_MEMORY;

    if (rc == TBRW_SUCCESS) {
        for (uint32_t k = 0; k < count; k++)
            index[k] = tb5_get64(raw + (size_t)k * TB5_REC_PID_INDEX);
        /* MODULE_BIND_STRUCT and TID_BIND_STRUCT are both one u64 process index. */
        if (v->module_cb)
            rc = v->module_cb(records, count * (TBRW_U32)sizeof(TBRW_MODULE), count,
                              (const MODULE_BIND_STRUCT *)index,
                              count * (TBRW_U32)sizeof(MODULE_BIND_STRUCT), v->user);
        else
            rc = v->tid_cb(records, count * (TBRW_U32)sizeof(TBRW_TID), count,
                           (const TID_BIND_STRUCT *)index,
                           count * (TBRW_U32)sizeof(TID_BIND_STRUCT), v->user);
    }
    free(raw);
    free(index);
    return rc;
}

static TBRW_U32 bind_enumerate(struct tb5 *tb, uint16_t kind, uint16_t bind_kind,
                               const struct tb5_codec *c, struct indexed_visit *v,
                               TBRW_U64 start_index)
{
    const struct tb5_section *sec, *bind;

    if (!tb5_any_bound(tb))
        return TBRW_TB5_IS_NOT_BOUND;
    sec = tb5_find(tb, kind, TB5_GLOBAL);
    bind = tb5_find(tb, bind_kind, TB5_GLOBAL);
    if (!sec)
        return start_index ? TBRW_INVALID_READ_START : TBRW_SUCCESS;
    if (!bind || bind->record_count != sec->record_count)
        return tb5_fail(TBRW_CORRUPT_FILE, "%s: %" PRIu64 " records but %" PRIu64 " bind entries",
                        TB5_SEC_NAME(sec), (uint64_t)sec->record_count,
                        bind ? (uint64_t)bind->record_count : 0);
    v->tb = tb;
    v->bind = bind;
    return tb5_records_foreach(tb, sec, c, start_index, visit_indexed, v);
}

TBRW_U32 TBRW_bind_enumerate_modules(TBRW_PTR ptr, BIND_MODULE_CALLBACK *callback_func,
                                     void *user_ptr, TBRW_U64 start_index)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct indexed_visit v = {.module_cb = callback_func, .user = user_ptr};

    if (!tb || !callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    return bind_enumerate(tb, TB5_K_MODULES, TB5_K_MODULE_BIND, &tb5_codec_module, &v, start_index);
}

TBRW_U32 TBRW_bind_enumerate_threads(TBRW_PTR ptr, BIND_TID_CALLBACK *callback_func, void *user_ptr,
                                     TBRW_U64 start_index)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct indexed_visit v = {.tid_cb = callback_func, .user = user_ptr};

    if (!tb || !callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    return bind_enumerate(tb, TB5_K_THREADS, TB5_K_TID_BIND, &tb5_codec_tid, &v, start_index);
}

TBRW_U32 TBRW_unbind(TBRW_PTR ptr, TBRW_U32 data_stream)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = bound_stream(tb, data_stream);
    if (rc)
        return rc;
    if (tb->streams[data_stream].state != TB5_CLOSED)
        return TBRW_STREAM_ALREADY_IN_USE;
    tb5_remove(tb, TB5_K_DATA_BIND, data_stream);
    if (!tb5_any_bound(tb)) {
        tb5_remove(tb, TB5_K_MODULE_BIND, TB5_GLOBAL);
        tb5_remove(tb, TB5_K_TID_BIND, TB5_GLOBAL);
        if (tb5_pidtid_derived(tb)) {
            tb5_remove(tb, TB5_K_PROCESSES, TB5_GLOBAL);
            tb5_remove(tb, TB5_K_THREADS, TB5_GLOBAL);
        }
    }
    return TBRW_SUCCESS;
}
