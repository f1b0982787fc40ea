/*
 * section_pidtid.c - the process/thread section (9.2.3): processes and threads,
 * stored as two record arrays. Usually derived by binding (6.1), which marks them
 * TB5_SECF_DERIVED; they can be written by hand too.
 */
#include "tb5_internal.h"

int tb5_pidtid_derived(const struct tb5 *tb)
{
    const struct tb5_section *sec = tb5_find(tb, TB5_K_PROCESSES, TB5_GLOBAL);

    return sec && (sec->flags & TB5_SECF_DERIVED);
}

static TBRW_U32 add(TBRW_PTR ptr, const void *rec, uint32_t size_field, size_t size,
                    const struct tb5_codec *c, int threads)
{
    struct tb5 *tb = tb5_handle(ptr);
    uint8_t out[TB5_REC_PID];
    TBRW_U32 rc;

    if (!tb || !rec)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_writing(tb, TBRW_PROCESS_THREAD_SECTION);
    if (rc)
        return rc;
    if (size_field != size)
        return TBRW_UNSUPPORTED_DATA_SIZE;
    rc = tb5_encode(c, rec, out, tb5_intern, tb);
    if (rc)
        return rc;
    return tb5_writer_append(tb, threads ? &tb->gw.tids : &tb->gw.pids, out, c->disk_size);
}

TBRW_U32 TBRW_add_process(TBRW_PTR ptr, const TBRW_PID *process)
{
    return add(ptr, process, process ? process->pid_size : 0, sizeof(*process), &tb5_codec_pid, 0);
}

TBRW_U32 TBRW_add_thread(TBRW_PTR ptr, const TBRW_TID *thread)
{
    return add(ptr, thread, thread ? thread->tid_size : 0, sizeof(*thread), &tb5_codec_tid, 1);
}

static TBRW_U32 get_one(TBRW_PTR ptr, uint16_t kind, const struct tb5_codec *c, uint64_t index,
                        void *out)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_PROCESS_THREAD_SECTION);
    if (rc)
        return rc;
    sec = tb5_find(tb, kind, TB5_GLOBAL);
    return sec ? tb5_record_at(tb, sec, c, index, out) : TBRW_ENTRY_NOT_FOUND;
}

TBRW_U32 TBRW_get_one_pid(TBRW_PTR ptr, TBRW_U64 pid_index, const TBRW_PID **p_pid)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb || !p_pid)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = get_one(ptr, TB5_K_PROCESSES, &tb5_codec_pid, pid_index, &tb->one_pid);
    *p_pid = rc ? NULL : &tb->one_pid;
    return rc;
}

TBRW_U32 TBRW_get_one_tid(TBRW_PTR ptr, TBRW_U64 tid_index, const TBRW_TID **p_tid)
{
    struct tb5 *tb = tb5_handle(ptr);
    TBRW_U32 rc;

    if (!tb || !p_tid)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = get_one(ptr, TB5_K_THREADS, &tb5_codec_tid, tid_index, &tb->one_tid);
    *p_tid = rc ? NULL : &tb->one_tid;
    return rc;
}

struct pid_visit {
    TBRW_PID_CALLBACK *cb;
    void *user;
};

static TBRW_U32 visit_pids(void *ctx, void *records, uint32_t count, uint64_t first)
{
    struct pid_visit *v = ctx;

    (void)first;
    return v->cb(records, count * (TBRW_U32)sizeof(TBRW_PID), count, v->user);
}

struct tid_visit {
    TBRW_TID_CALLBACK *cb;
    void *user;
};

static TBRW_U32 visit_tids(void *ctx, void *records, uint32_t count, uint64_t first)
{
    struct tid_visit *v = ctx;

    (void)first;
    return v->cb(records, count * (TBRW_U32)sizeof(TBRW_TID), count, v->user);
}

static TBRW_U32 enumerate(TBRW_PTR ptr, uint16_t kind, const struct tb5_codec *c,
                          TBRW_U64 start_index, tb5_batch_fn *visit, void *ctx)
{
    struct tb5 *tb = tb5_handle(ptr);
    const struct tb5_section *sec;
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_global_readable(tb, TBRW_PROCESS_THREAD_SECTION);
    if (rc)
        return rc;
    sec = tb5_find(tb, kind, TB5_GLOBAL);
    if (!sec)
        return start_index ? TBRW_INVALID_READ_START : TBRW_SUCCESS;
    return tb5_records_foreach(tb, sec, c, start_index, visit, ctx);
}

TBRW_U32 TBRW_enumerate_processes(TBRW_PTR ptr, TBRW_PID_CALLBACK *callback_func, void *user_ptr,
                                  TBRW_U64 start_index)
{
    struct pid_visit v = {callback_func, user_ptr};

    if (!callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    return enumerate(ptr, TB5_K_PROCESSES, &tb5_codec_pid, start_index, visit_pids, &v);
}

TBRW_U32 TBRW_enumerate_threads(TBRW_PTR ptr, TBRW_TID_CALLBACK *callback_func, void *user_ptr,
                                TBRW_U64 start_index)
{
    struct tid_visit v = {callback_func, user_ptr};

    if (!callback_func)
        return TBRW_UNEXPECTED_NULL_PTR;
    return enumerate(ptr, TB5_K_THREADS, &tb5_codec_tid, start_index, visit_tids, &v);
}
