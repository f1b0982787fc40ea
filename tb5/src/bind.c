/*
 * bind.c - TBRW_dobind (3.3, 6.1): one pass over a stream's records, in batches,
 * giving each its module, process and thread (DATA_BIND_STRUCT, stored as the
 * stream's TB5_K_DATA_BIND section). Processes and threads are derived from the
 * modules and samples and kept as the process/thread section; a list that already
 * exists (written by hand, or by binding another stream) is extended, never
 * reordered, so indexes handed out earlier stay valid.
 */
#include <stdlib.h>

#include "module_index.h"
#include "samprec_shared.h"
#include "tb5_internal.h"

/* Where a record keeps what binding reads; a size of 0 means "not in the record". */
struct bind_view {
    int legacy; /* TBRW_SampleRecordPC at offset 0 */
    uint32_t ip_off, ip_size;
    uint32_t pid_off, pid_size;
    uint32_t tid_off, tid_size;
    uint32_t tsc_off, tsc_size;
};

struct binder {
    struct tb5 *tb;
    struct bind_view view;
    TBRW_MODULE *modules;
    uint64_t nmodules;
    struct module_index ix;
    TBRW_PID *pids;
    uint64_t npids, cap_pids;
    TBRW_TID *tids;
    uint64_t ntids, cap_tids;
    int changed;          /* processes or threads were added */
    struct u64map pid_at; /* OS pid -> process index */
    struct u64map tid_at; /* pid << 32 | tid -> thread index */
    struct u64map exe_of; /* OS pid -> its executable's module index */
    uint32_t last_pid;    /* the previous sample's process, looked up again cheaply */
    uint64_t last_pid_index;
    const struct module_group *last_group;
    int have_last;
    uint64_t last_tid_key; /* and the previous sample's thread */
    uint64_t last_tid_index;
    int have_last_tid;
};

static int usable_size(uint32_t size)
{
    return size == 1 || size == 2 || size == 4 || size == 8;
}

static uint64_t read_field(const uint8_t *p, uint32_t size)
{
    switch (size) {
    case 1:
        return p[0];
    case 2:
        return tb5_get16(p);
    case 4:
        return tb5_get32(p);
    default:
        return tb5_get64(p);
    }
}

static void take(uint32_t *off, uint32_t *size, const struct tb5_field_span *f)
{
    if (*size == 0 && usable_size(f->size)) {
        *off = f->offset;
        *size = f->size;
    }
}

static TBRW_U32 make_view(const struct tb5_layout *l, struct bind_view *v)
{
    *v = (struct bind_view){0};
    for (uint32_t i = 0; i < l->nfields; i++) {
        const struct tb5_field_span *f = &l->fields[i];
        switch (f->type) {
        case ST_LEGACY_SAMPLE_RECORD:
            v->legacy = 1;
            break;
        case ST_IP:
            take(&v->ip_off, &v->ip_size, f);
            break;
        case ST_PID:
            take(&v->pid_off, &v->pid_size, f);
            break;
        case ST_TID:
            take(&v->tid_off, &v->tid_size, f);
            break;
        case ST_TIME_STAMP:
            take(&v->tsc_off, &v->tsc_size, f);
            break;
        }
    }
    if (v->legacy) {
        v->pid_off = TB5_LEG_PID;
        v->pid_size = 4;
        v->tid_off = TB5_LEG_TID;
        v->tid_size = 4;
    }
    return (v->legacy || v->ip_size) ? TBRW_SUCCESS : TBRW_STREAM_NOT_BINDABLE;
}

static TBRW_U32 add_pid(struct binder *b, uint32_t pid, uint64_t when, int when_tsc,
                        uint64_t *index)
{
    uint64_t exe;

    if (u64map_get(&b->pid_at, pid, index))
        return TBRW_SUCCESS;
    if (b->npids == b->cap_pids) {
        uint64_t cap = b->cap_pids ? b->cap_pids * 2 : 64;
        TBRW_PID *p = realloc(b->pids, (size_t)cap * sizeof(*p));
        if (!p)
            return TBRW_NO_MEMORY;
        b->pids = p;
        b->cap_pids = cap;
    }
    TBRW_PID *p = &b->pids[b->npids];
    *p = (TBRW_PID){.pid_size = sizeof(TBRW_PID), .pid_id = pid};
    p->pid_flags = TBRW_PIDTID_CREATED | (when_tsc ? TBRW_PIDTID_WHEN_TSC : 0);
    p->pid_event_when = when;
    /* A process is named after its executable, when a module record says which it is. */
    if (u64map_get(&b->exe_of, pid, &exe)) {
        const TBRW_MODULE *m = &b->modules[exe];
        p->pid_path = m->module_path;
        p->pid_name = m->module_name;
        p->pid_event_when = m->module_event_when;
        p->pid_flags = TBRW_PIDTID_CREATED |
                       ((m->module_flags & TBRW_MODULE_TSC_USED) ? TBRW_PIDTID_WHEN_TSC : 0);
    }
    if (u64map_put(&b->pid_at, pid, b->npids) != 0)
        return TBRW_NO_MEMORY;
    *index = b->npids++;
    b->changed = 1;
    return TBRW_SUCCESS;
}

static TBRW_U32 add_tid(struct binder *b, uint32_t pid, uint32_t tid, uint64_t when, int when_tsc,
                        uint64_t *index)
{
    uint64_t key = ((uint64_t)pid << 32) | tid;

    if (u64map_get(&b->tid_at, key, index))
        return TBRW_SUCCESS;
    if (b->ntids == b->cap_tids) {
        uint64_t cap = b->cap_tids ? b->cap_tids * 2 : 64;
        TBRW_TID *t = realloc(b->tids, (size_t)cap * sizeof(*t));
        if (!t)
            return TBRW_NO_MEMORY;
        b->tids = t;
        b->cap_tids = cap;
    }
    b->tids[b->ntids] =
        (TBRW_TID){.tid_size = sizeof(TBRW_TID),
                   .tid_associated_pid = pid,
                   .tid_id = tid,
                   .tid_flags = TBRW_PIDTID_CREATED | (when_tsc ? TBRW_PIDTID_WHEN_TSC : 0),
                   .tid_event_when = when};
    if (u64map_put(&b->tid_at, key, b->ntids) != 0)
        return TBRW_NO_MEMORY;
    *index = b->ntids++;
    b->changed = 1;
    return TBRW_SUCCESS;
}

/* Existing processes and threads keep their indexes; modules and threads get processes. */
static TBRW_U32 seed(struct binder *b)
{
    const struct tb5_section *ps = tb5_find(b->tb, TB5_K_PROCESSES, TB5_GLOBAL);
    const struct tb5_section *ts = tb5_find(b->tb, TB5_K_THREADS, TB5_GLOBAL);
    void *mem;
    uint64_t idx;
    TBRW_U32 rc;

    for (uint64_t i = 0; i < b->nmodules; i++) {
        const TBRW_MODULE *m = &b->modules[i];
        if ((m->module_flags & TBRW_MODULE_IS_EXE) &&
            !(m->module_flags & TBRW_MODULE_GLOBAL_LOAD) &&
            !u64map_get(&b->exe_of, m->module_associated_pid, &idx) &&
            u64map_put(&b->exe_of, m->module_associated_pid, i) != 0)
            return TBRW_NO_MEMORY;
    }
    if (ps) {
        rc = tb5_records_load(b->tb, ps, &tb5_codec_pid, &mem, &b->npids);
        if (rc)
            return rc;
        b->pids = mem;
        b->cap_pids = b->npids;
        for (uint64_t i = b->npids; i-- > 0;)
            if (u64map_put(&b->pid_at, b->pids[i].pid_id, i) != 0)
                return TBRW_NO_MEMORY;
    }
    if (ts) {
        rc = tb5_records_load(b->tb, ts, &tb5_codec_tid, &mem, &b->ntids);
        if (rc)
            return rc;
        b->tids = mem;
        b->cap_tids = b->ntids;
        for (uint64_t i = b->ntids; i-- > 0;)
            if (u64map_put(&b->tid_at,
                           ((uint64_t)b->tids[i].tid_associated_pid << 32) | b->tids[i].tid_id,
                           i) != 0)
                return TBRW_NO_MEMORY;
    }
    b->changed = !ps || !ts;
    for (uint64_t i = 0; i < b->nmodules; i++) {
        const TBRW_MODULE *m = &b->modules[i];
        rc = add_pid(b, m->module_associated_pid, m->module_event_when,
                     (m->module_flags & TBRW_MODULE_TSC_USED) != 0, &idx);
        if (rc)
            return rc;
    }
    for (uint64_t i = 0; i < b->ntids; i++) {
        rc = add_pid(b, b->tids[i].tid_associated_pid, b->tids[i].tid_event_when, 0, &idx);
        if (rc)
            return rc;
    }
    return TBRW_SUCCESS;
}

static TBRW_U32 bind_record(struct binder *b, const uint8_t *rec, uint64_t ordinal,
                            uint8_t out[TB5_REC_DATA_BIND])
{
    const struct bind_view *v = &b->view;
    struct sample_time t = {0, ordinal, v->tsc_size != 0};
    uint64_t ip, module, pid_index = TBRW_BIND_NO_INDEX, tid_index = TBRW_BIND_NO_INDEX;
    const struct module_group *group = NULL;

    if (v->legacy)
        ip = (tb5_get32(rec + TB5_LEG_BITS) >> TB5_LEG_IA64PC_BIT) & 1
                 ? tb5_get64(rec + TB5_LEG_IP)
                 : tb5_get32(rec + TB5_LEG_IP);
    else
        ip = read_field(rec + v->ip_off, v->ip_size);
    if (t.have_tsc)
        t.tsc = read_field(rec + v->tsc_off, v->tsc_size);
    if (v->pid_size) {
        /* 32-bit process ids, as in the sample record (FAQ 7.2). */
        TBRW_U32 rc;
        uint32_t pid = (uint32_t)read_field(rec + v->pid_off, v->pid_size);
        if (!b->have_last || pid != b->last_pid) {
            rc = add_pid(b, pid, t.have_tsc ? t.tsc : ordinal, t.have_tsc, &b->last_pid_index);
            if (rc)
                return rc;
            b->last_pid = pid;
            b->last_group = module_index_group(&b->ix, pid);
            b->have_last = 1;
        }
        pid_index = b->last_pid_index;
        group = b->last_group;
        if (v->tid_size) {
            uint32_t tid = (uint32_t)read_field(rec + v->tid_off, v->tid_size);
            uint64_t key = ((uint64_t)pid << 32) | tid;
            if (!b->have_last_tid || key != b->last_tid_key) {
                rc = add_tid(b, pid, tid, t.have_tsc ? t.tsc : ordinal, t.have_tsc,
                             &b->last_tid_index);
                if (rc)
                    return rc;
                b->last_tid_key = key;
                b->have_last_tid = 1;
            }
            tid_index = b->last_tid_index;
        }
    }
    module = module_group_lookup(group, ip, &t);
    if (module == TBRW_BIND_NO_INDEX)
        module = module_group_lookup(&b->ix.global, ip, &t);
    tb5_put64(out + TB5_BIND_MODULE, module);
    tb5_put64(out + TB5_BIND_PID, pid_index);
    tb5_put64(out + TB5_BIND_TID, tid_index);
    return TBRW_SUCCESS;
}

static TBRW_U32 bind_records(struct binder *b, const struct tb5_section *data,
                             struct tb5_writer *out)
{
    uint32_t rs = data->record_size;
    uint32_t per_batch = tb5_batch_records(rs, data->record_count);
    uint8_t *buf = malloc((size_t)per_batch * rs);
    uint8_t *binds = malloc((size_t)per_batch * TB5_REC_DATA_BIND);
    TBRW_U32 rc = (buf && binds) ? TBRW_SUCCESS : TBRW_NO_MEMORY;

    for (uint64_t i = 0; rc == TBRW_SUCCESS && i < data->record_count;) {
        uint64_t n = data->record_count - i;
        if (n > per_batch)
            n = per_batch;
        rc = tb5_section_read(b->tb, data, i * rs, buf, (size_t)n * rs);
        for (uint64_t k = 0; rc == TBRW_SUCCESS && k < n; k++)
            rc = bind_record(b, buf + k * rs, i + k, binds + k * TB5_REC_DATA_BIND);
        if (rc == TBRW_SUCCESS)
            rc = tb5_writer_append(b->tb, out, binds, (size_t)n * TB5_REC_DATA_BIND);
        i += n;
    }
    free(buf);
    free(binds);
    return rc;
}

/* A section of records encoded from memory, string ids as they are. */
static TBRW_U32 write_records(struct tb5 *tb, uint16_t kind, uint16_t flags,
                              const struct tb5_codec *c, const void *records, uint64_t count)
{
    struct tb5_writer w;
    uint8_t rec[TB5_REC_MODULE];
    TBRW_U32 rc = tb5_writer_begin(tb, &w, kind, TB5_GLOBAL, c->disk_size);

    if (rc)
        return rc;
    w.sec->flags = flags;
    for (uint64_t i = 0; rc == TBRW_SUCCESS && i < count; i++) {
        tb5_encode(c, (const uint8_t *)records + i * c->mem_size, rec, NULL, NULL);
        rc = tb5_writer_append(tb, &w, rec, c->disk_size);
    }
    if (rc == TBRW_SUCCESS)
        rc = tb5_writer_finish(tb, &w, count);
    if (rc)
        tb5_writer_discard(&w);
    return rc;
}

/* One process index per entry: modules and threads to their processes. */
static TBRW_U32 write_pid_indexes(struct binder *b, uint16_t kind, int threads)
{
    uint64_t count = threads ? b->ntids : b->nmodules;
    struct tb5_writer w;
    TBRW_U32 rc = tb5_writer_begin(b->tb, &w, kind, TB5_GLOBAL, TB5_REC_PID_INDEX);

    for (uint64_t i = 0; rc == TBRW_SUCCESS && i < count; i++) {
        uint32_t pid =
            threads ? b->tids[i].tid_associated_pid : b->modules[i].module_associated_pid;
        uint64_t index = TBRW_BIND_NO_INDEX;
        uint8_t rec[TB5_REC_PID_INDEX];
        u64map_get(&b->pid_at, pid, &index);
        tb5_put64(rec, index);
        rc = tb5_writer_append(b->tb, &w, rec, sizeof(rec));
    }
    if (rc == TBRW_SUCCESS)
        rc = tb5_writer_finish(b->tb, &w, count);
    if (rc)
        tb5_writer_discard(&w);
    return rc;
}

static TBRW_U32 write_results(struct binder *b)
{
    uint16_t flags = (!tb5_find(b->tb, TB5_K_PROCESSES, TB5_GLOBAL) || tb5_pidtid_derived(b->tb))
                         ? TB5_SECF_DERIVED
                         : 0;
    TBRW_U32 rc = TBRW_SUCCESS;

    if (b->changed) {
        rc = write_records(b->tb, TB5_K_PROCESSES, flags, &tb5_codec_pid, b->pids, b->npids);
        if (rc == TBRW_SUCCESS)
            rc = write_records(b->tb, TB5_K_THREADS, flags, &tb5_codec_tid, b->tids, b->ntids);
    }
    if (rc == TBRW_SUCCESS)
        rc = write_pid_indexes(b, TB5_K_MODULE_BIND, 0);
    if (rc == TBRW_SUCCESS)
        rc = write_pid_indexes(b, TB5_K_TID_BIND, 1);
    return rc;
}

static void binder_free(struct binder *b)
{
    free(b->modules);
    module_index_free(&b->ix);
    free(b->pids);
    free(b->tids);
    u64map_free(&b->pid_at);
    u64map_free(&b->tid_at);
    u64map_free(&b->exe_of);
}

static TBRW_U32 check_idle(const struct tb5 *tb, TBRW_U32 stream)
{
    if (stream >= tb->nstreams)
        return TBRW_STREAM_NOT_EXIST;
    if (tb->streams[stream].state != TB5_CLOSED)
        return TBRW_STREAM_ALREADY_IN_USE;
    if (tb->global_state[TBRW_PROCESS_THREAD_SECTION] == TB5_WRITING ||
        tb->global_state[TBRW_MODULE_SECTION] == TB5_WRITING)
        return TBRW_SECTION_ALREADY_IN_USE;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_dobind(TBRW_PTR ptr, TBRW_U32 data_stream)
{
    struct tb5 *tb = tb5_handle(ptr);
    struct binder b = {0};
    struct tb5_layout layout;
    const struct tb5_section *data;
    struct tb5_writer out = {0};
    TBRW_U32 rc;

    if (!tb)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = check_idle(tb, data_stream);
    if (rc)
        return rc;
    data = tb5_find(tb, TB5_K_DATA, data_stream);
    if (!data)
        return TBRW_SECTION_NOT_EXIST;
    if (tb5_find(tb, TB5_K_DATA_BIND, data_stream))
        return TBRW_SUCCESS;
    rc = tb5_stream_layout(tb, data_stream, &layout);
    if (rc)
        return rc;
    rc = layout.record_end == data->record_size
             ? make_view(&layout, &b.view)
             : tb5_fail(TBRW_CORRUPT_FILE,
                        "%s: records of %u bytes, but its data description ends at byte %u",
                        TB5_SEC_NAME(data), data->record_size, layout.record_end);
    tb5_layout_free(&layout);
    if (rc)
        return rc;
    b.tb = tb;
    rc = tb5_modules_load(tb, &b.modules, &b.nmodules);
    if (rc == TBRW_SUCCESS && module_index_build(&b.ix, b.modules, b.nmodules) != 0)
        rc = TBRW_NO_MEMORY;
    if (rc == TBRW_SUCCESS)
        rc = seed(&b);
    if (rc == TBRW_SUCCESS)
        rc = tb5_writer_begin(tb, &out, TB5_K_DATA_BIND, data_stream, TB5_REC_DATA_BIND);
    if (rc == TBRW_SUCCESS)
        rc = bind_records(&b, data, &out);
    if (rc == TBRW_SUCCESS)
        rc = write_results(&b);
    /* Last: the stream counts as bound only once everything it refers to exists. */
    if (rc == TBRW_SUCCESS)
        rc = tb5_writer_finish(tb, &out, data->record_count);
    tb5_writer_discard(&out);
    binder_free(&b);
    return rc;
}
