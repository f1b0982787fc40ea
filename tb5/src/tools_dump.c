/*
 * tools_dump.c - tb5_dump, the guide's tbrw_reader: everything a tb5 file holds,
 * read through the TBRW API, into a dump (dump_format.h) and one raw record file
 * per stream. Binding results are not dumped: they are derived, not collected.
 */
#include <stdlib.h>
#include <string.h>

#include "dump_format.h"
#include "tb5_internal.h"
#include "tb5_tools.h"
#include "u64map.h"

struct dumper {
    TBRW_PTR p;
    FILE *out;
    struct u64map emitted; /* string ids already in the dump */
    TBRW_U32 rc;           /* first error of a callback */
};

static TBRW_U32 item(struct dumper *d, uint32_t tag, const void *a, size_t alen, const void *b,
                     size_t blen)
{
    uint8_t head[TB5_DUMP_ITEM_HEAD] = {0};

    tb5_put32(head, tag);
    tb5_put64(head + 8, (uint64_t)alen + blen);
    if (fwrite(head, 1, sizeof(head), d->out) != sizeof(head) ||
        (alen && fwrite(a, 1, alen, d->out) != alen) ||
        (blen && fwrite(b, 1, blen, d->out) != blen))
        return TBRW_IO_ERROR;
    return TBRW_SUCCESS;
}

static TBRW_U32 item_u32(struct dumper *d, uint32_t tag, uint32_t v)
{
    uint8_t b[4];

    tb5_put32(b, v);
    return item(d, tag, b, sizeof(b), NULL, 0);
}

/* STRING items for the ids a record uses, each once. */
static TBRW_U32 emit_strings(struct dumper *d, const struct tb5_codec *c, const void *mem)
{
    for (uint32_t i = 0; i < c->nfields; i++) {
        TBRW_STRING_OR_ID s;
        uint64_t seen;
        uint8_t id[8];
        char *text;
        size_t len;
        TBRW_U32 rc;
        if (c->fields[i].type != TB5_F_STR)
            continue;
        memcpy(&s, (const uint8_t *)mem + c->fields[i].offset, sizeof(s));
        if (s.soi_uniqueid == 0 || u64map_get(&d->emitted, s.soi_uniqueid, &seen))
            continue;
        rc = tb5_string_utf8(tb5_handle(d->p), s.soi_uniqueid, &text, &len);
        if (rc)
            return rc;
        tb5_put64(id, s.soi_uniqueid);
        rc = item(d, TB5_DUMP_STRING, id, sizeof(id), text, len);
        free(text);
        if (rc)
            return rc;
        if (u64map_put(&d->emitted, s.soi_uniqueid, 1) != 0)
            return TBRW_NO_MEMORY;
    }
    return TBRW_SUCCESS;
}

static TBRW_U32 record(struct dumper *d, uint32_t tag, const struct tb5_codec *c, const void *mem)
{
    uint8_t rec[TB5_REC_MODULE];
    TBRW_U32 rc = emit_strings(d, c, mem);

    if (rc == TBRW_SUCCESS)
        rc = tb5_encode(c, mem, rec, NULL, NULL);
    return rc ? rc : item(d, tag, rec, c->disk_size, NULL, 0);
}

/* A section that exists but holds no entries is still dumped: it is there. */
static TBRW_U32 section_mark(struct dumper *d, TBRW_SECTION_IDENTIFIER s)
{
    TBRW_U32 rc = TBRW_reading_section(d->p, s);

    if (rc == TBRW_SECTION_NOT_EXIST)
        return rc;
    if (rc == TBRW_SUCCESS)
        rc = TBRW_done_section(d->p, s);
    return rc ? rc : item_u32(d, TB5_DUMP_SECTION, s);
}

static TBRW_U32 dump_hardware(struct dumper *d)
{
    TBRW_SYSTEM *sys;
    TBRW_U32 need = 0, rc = TBRW_get_system(d->p, 0, NULL, &need);
    uint8_t *bytes;
    size_t len;

    if (rc != TBRW_BUFFER_TOO_SMALL)
        return rc;
    sys = malloc(need);
    if (!sys)
        return TBRW_NO_MEMORY;
    rc = TBRW_get_system(d->p, need, sys, NULL);
    if (rc == TBRW_SUCCESS)
        rc = tb5_hardware_encode(sys, &bytes, &len);
    if (rc == TBRW_SUCCESS) {
        rc = item(d, TB5_DUMP_SYSTEM, bytes, len, NULL, 0);
        free(bytes);
    }
    free(sys);
    return rc;
}

static TBRW_U32 dump_software(struct dumper *d)
{
    TBRW_HOST host;
    TBRW_OS os;
    TBRW_APPLICATION app;
    TBRW_U32 rc = TBRW_get_host(d->p, sizeof(host), &host, NULL);

    if (rc == TBRW_SUCCESS)
        rc = record(d, TB5_DUMP_HOST, &tb5_codec_host, &host);
    if (rc == TBRW_SUCCESS || rc == TBRW_ENTRY_NOT_FOUND)
        rc = TBRW_get_os(d->p, sizeof(os), &os, NULL);
    if (rc == TBRW_SUCCESS)
        rc = record(d, TB5_DUMP_OS, &tb5_codec_os, &os);
    if (rc == TBRW_SUCCESS || rc == TBRW_ENTRY_NOT_FOUND)
        rc = TBRW_get_application(d->p, sizeof(app), &app, NULL);
    if (rc == TBRW_SUCCESS)
        rc = record(d, TB5_DUMP_APPLICATION, &tb5_codec_app, &app);
    return rc == TBRW_ENTRY_NOT_FOUND ? TBRW_SUCCESS : rc;
}

static TBRW_U32 on_module(TBRW_MODULE *m, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct dumper *d = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n && d->rc == TBRW_SUCCESS; i++)
        d->rc = record(d, TB5_DUMP_MODULE, &tb5_codec_module, &m[i]);
    return d->rc ? TB5_CB_STOP : TB5_CB_MORE;
}

static TBRW_U32 on_pid(TBRW_PID *pid, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct dumper *d = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n && d->rc == TBRW_SUCCESS; i++)
        d->rc = record(d, TB5_DUMP_PROCESS, &tb5_codec_pid, &pid[i]);
    return d->rc ? TB5_CB_STOP : TB5_CB_MORE;
}

static TBRW_U32 on_tid(TBRW_TID *tid, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct dumper *d = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n && d->rc == TBRW_SUCCESS; i++)
        d->rc = record(d, TB5_DUMP_THREAD, &tb5_codec_tid, &tid[i]);
    return d->rc ? TB5_CB_STOP : TB5_CB_MORE;
}

static TBRW_U32 on_event(TBRW_EVENT *ev, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct dumper *d = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n && d->rc == TBRW_SUCCESS; i++) {
        uint8_t *bytes;
        size_t len;
        d->rc = emit_strings(d, &tb5_codec_event, &ev[i]);
        if (d->rc == TBRW_SUCCESS)
            d->rc = tb5_event_encode(&ev[i], &bytes, &len, NULL, NULL);
        if (d->rc == TBRW_SUCCESS) {
            d->rc = item(d, TB5_DUMP_EVENT, bytes, len, NULL, 0);
            free(bytes);
        }
    }
    return d->rc ? TB5_CB_STOP : TB5_CB_MORE;
}

static TBRW_U32 on_descriptor(TBRW_SAMPREC_DESC_ENTRY *e, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct dumper *d = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n && d->rc == TBRW_SUCCESS; i++)
        d->rc = record(d, TB5_DUMP_DESCRIPTOR, &tb5_codec_descriptor, &e[i]);
    return d->rc ? TB5_CB_STOP : TB5_CB_MORE;
}

struct data_sink {
    FILE *f;
    TBRW_U32 rc;
};

static TBRW_U32 on_data(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct data_sink *s = user;

    (void)n;
    if (fwrite(data, 1, size, s->f) != size) {
        s->rc = TBRW_IO_ERROR;
        return TB5_CB_STOP;
    }
    return TB5_CB_MORE;
}

/* Runs an enumeration whose callback keeps its first error in d->rc. */
static TBRW_U32 settle(struct dumper *d, TBRW_U32 rc)
{
    if (d->rc) {
        rc = d->rc;
        d->rc = TBRW_SUCCESS;
    }
    return rc;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

static TBRW_U32 dump_data(struct dumper *d, TBRW_U32 stream, const char *dump_path)
{
    struct data_sink sink = {NULL, TBRW_SUCCESS};
    size_t plen = strlen(dump_path) + 32;
    char *path = malloc(plen);
    uint8_t head[16] = {0};
    TBRW_U64 records;
    TBRW_U32 record_size, rc = tb5_data_shape(d->p, stream, &records, &record_size);

    if (!path)
        return TBRW_NO_MEMORY;
    snprintf(path, plen, "%s.stream%u.dat", dump_path, stream);
    if (rc == TBRW_SUCCESS && !(sink.f = fopen(path, "wb")))
        rc = TBRW_FILE_OPEN_FAILED;
    if (rc == TBRW_SUCCESS)
        rc = TBRW_enumerate_data(d->p, stream, on_data, &sink, 0);
    if (sink.f && fclose(sink.f) != 0 && rc == TBRW_SUCCESS)
        rc = TBRW_IO_ERROR;
    rc = rc ? rc : sink.rc;
    tb5_put32(head, record_size);
    tb5_put64(head + 8, records);
    if (rc == TBRW_SUCCESS)
        rc = item(d, TB5_DUMP_DATA_FILE, head, sizeof(head), base_name(path),
                  strlen(base_name(path)));
    free(path);
    return rc;
}

static TBRW_U32 dump_bytes(struct dumper *d, uint32_t tag, TBRW_U32 stream, int global)
{
    TBRW_U32 need = 0, rc;
    void *buf;

    rc = global ? TBRW_get_user_defined_global(d->p, 0, NULL, &need)
                : TBRW_get_user_defined_stream(d->p, stream, 0, NULL, &need);
    if (rc != TBRW_BUFFER_TOO_SMALL)
        return rc;
    buf = malloc(need ? need : 1);
    if (!buf)
        return TBRW_NO_MEMORY;
    rc = global ? TBRW_get_user_defined_global(d->p, need, buf, NULL)
                : TBRW_get_user_defined_stream(d->p, stream, need, buf, NULL);
    if (rc == TBRW_SUCCESS)
        rc = item(d, tag, buf, need, NULL, 0);
    free(buf);
    return rc;
}

static TBRW_U32 stream_mark(struct dumper *d, TBRW_U32 stream, TBRW_STREAM_SECTION_IDENTIFIER s)
{
    TBRW_U32 rc = TBRW_reading_stream_section(d->p, stream, s);

    if (rc == TBRW_SUCCESS)
        rc = TBRW_done_stream_section(d->p, stream, s);
    return rc ? rc : item_u32(d, TB5_DUMP_STREAM_SECTION, s);
}

static TBRW_U32 dump_stream(struct dumper *d, TBRW_U32 stream, const char *dump_path)
{
    TBRW_STREAM_INFO info;
    TBRW_U32 rc = item_u32(d, TB5_DUMP_STREAM, stream);

    if (rc == TBRW_SUCCESS && stream_mark(d, stream, TBRW_STREAM_INFO_SECTION) == TBRW_SUCCESS) {
        rc = TBRW_get_stream_info(d->p, stream, sizeof(info), &info, NULL);
        if (rc == TBRW_SUCCESS)
            rc = record(d, TB5_DUMP_STREAM_INFO, &tb5_codec_stream_info, &info);
    }
    if (rc == TBRW_SUCCESS &&
        stream_mark(d, stream, TBRW_EVENT_DESCRIPTION_SECTION) == TBRW_SUCCESS)
        rc = settle(d, TBRW_enumerate_events(d->p, stream, on_event, d, 0));
    if (rc == TBRW_SUCCESS && stream_mark(d, stream, TBRW_DATA_DESCRIPTION_SECTION) == TBRW_SUCCESS)
        rc = settle(d, TBRW_enumerate_data_descriptor_entries(d->p, stream, on_descriptor, d));
    if (rc == TBRW_SUCCESS && stream_mark(d, stream, TBRW_DATA_SECTION) == TBRW_SUCCESS)
        rc = dump_data(d, stream, dump_path);
    if (rc == TBRW_SUCCESS &&
        stream_mark(d, stream, TBRW_USER_DEFINED_STREAM_SECTION) == TBRW_SUCCESS)
        rc = dump_bytes(d, TB5_DUMP_USER_STREAM, stream, 0);
    return rc;
}

static TBRW_U32 dump_all(struct dumper *d, const char *dump_path)
{
    TBRW_U32 nstreams = 0, rc = TBRW_SUCCESS;
    uint8_t head[TB5_DUMP_HEADER] = {0};

    memcpy(head, TB5_DUMP_MAGIC, sizeof(TB5_DUMP_MAGIC));
    tb5_put32(head + 8, TB5_DUMP_VERSION);
    if (fwrite(head, 1, sizeof(head), d->out) != sizeof(head))
        return TBRW_IO_ERROR;
    if (section_mark(d, TBRW_HARDWARE_SECTION) == TBRW_SUCCESS)
        rc = dump_hardware(d);
    if (rc == TBRW_SUCCESS && section_mark(d, TBRW_SOFTWARE_SECTION) == TBRW_SUCCESS)
        rc = dump_software(d);
    if (rc == TBRW_SUCCESS && section_mark(d, TBRW_VERSION_INFO_SECTION) == TBRW_SUCCESS) {
        TBRW_VERSION_INFO v;
        rc = TBRW_get_version_info(d->p, sizeof(v), &v, NULL);
        if (rc == TBRW_SUCCESS)
            rc = record(d, TB5_DUMP_VERSION_INFO, &tb5_codec_version, &v);
    }
    if (rc == TBRW_SUCCESS && section_mark(d, TBRW_MODULE_SECTION) == TBRW_SUCCESS)
        rc = settle(d, TBRW_enumerate_modules(d->p, on_module, d, 0));
    if (rc == TBRW_SUCCESS && !tb5_pidtid_derived(tb5_handle(d->p)) &&
        section_mark(d, TBRW_PROCESS_THREAD_SECTION) == TBRW_SUCCESS) {
        rc = settle(d, TBRW_enumerate_processes(d->p, on_pid, d, 0));
        if (rc == TBRW_SUCCESS)
            rc = settle(d, TBRW_enumerate_threads(d->p, on_tid, d, 0));
    }
    if (rc == TBRW_SUCCESS && section_mark(d, TBRW_USER_DEFINED_GLOBAL_SECTION) == TBRW_SUCCESS)
        rc = dump_bytes(d, TB5_DUMP_USER_GLOBAL, 0, 1);
    if (rc == TBRW_SUCCESS)
        rc = TBRW_get_number_data_streams(d->p, &nstreams);
    for (TBRW_U32 s = 0; rc == TBRW_SUCCESS && s < nstreams; s++)
        rc = dump_stream(d, s, dump_path);
    return rc;
}

int tb5_dump(const char *tb5_path, const char *dump_path)
{
    struct dumper d = {0};
    TBRW_U32 rc;

    if (!tb5_path || !dump_path)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_open_path(&d.p, tb5_path, TBRW_FILE_READ);
    if (rc)
        return (int)rc;
    d.out = fopen(dump_path, "wb");
    rc = d.out ? dump_all(&d, dump_path) : TBRW_FILE_OPEN_FAILED;
    if (d.out && fclose(d.out) != 0 && rc == TBRW_SUCCESS)
        rc = TBRW_IO_ERROR;
    u64map_free(&d.emitted);
    TBRW_close(d.p);
    return (int)rc;
}
