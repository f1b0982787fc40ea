/*
 * tools_rewrite.c - tb5_rewrite, the guide's tbrw_writer: a new tb5 file from a dump
 * (dump_format.h), written only through the TBRW write API. Sections and streams
 * are opened as their items arrive and done when the next one begins.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dump_format.h"
#include "tb5_internal.h"
#include "tb5_tools.h"
#include "u64map.h"

struct rewriter {
    TBRW_PTR p;
    const char *dump_path;
    struct u64map string_at; /* dump string id -> index in strings */
    wchar_t **strings;
    size_t nstrings;
    int section;        /* open global section, -1 for none */
    int stream;         /* open stream, -1 for none */
    int stream_section; /* open section of that stream, -1 for none */
};

static TBRW_U32 add_string(struct rewriter *w, const uint8_t *payload, uint64_t len)
{
    wchar_t **grown;
    wchar_t *text;
    TBRW_U32 rc;

    if (len < 8)
        return TBRW_CORRUPT_FILE;
    rc = tb5_utf8_to_wcs_alloc((const char *)payload + 8, (size_t)len - 8, &text);
    if (rc)
        return rc;
    grown = realloc(w->strings, (w->nstrings + 1) * sizeof(*grown));
    if (!grown || u64map_put(&w->string_at, tb5_get64(payload), w->nstrings) != 0) {
        free(text);
        if (grown)
            w->strings = grown;
        return TBRW_NO_MEMORY;
    }
    w->strings = grown;
    w->strings[w->nstrings++] = text;
    return TBRW_SUCCESS;
}

/* Ids of the dump become the strings they stand for. */
static TBRW_U32 resolve(const struct rewriter *w, const struct tb5_codec *c, void *mem)
{
    for (uint32_t i = 0; i < c->nfields; i++) {
        TBRW_STRING_OR_ID s;
        uint64_t at;
        if (c->fields[i].type != TB5_F_STR)
            continue;
        memcpy(&s, (uint8_t *)mem + c->fields[i].offset, sizeof(s));
        if (s.soi_uniqueid == 0)
            s.soi_ptr = NULL;
        else if (u64map_get(&w->string_at, s.soi_uniqueid, &at))
            s.soi_ptr = w->strings[at];
        else
            return TBRW_CORRUPT_FILE;
        memcpy((uint8_t *)mem + c->fields[i].offset, &s, sizeof(s));
    }
    return TBRW_SUCCESS;
}

static TBRW_U32 decode(const struct rewriter *w, const struct tb5_codec *c, const uint8_t *payload,
                       uint64_t len, void *mem)
{
    if (len != c->disk_size)
        return TBRW_CORRUPT_FILE;
    tb5_decode(c, payload, mem);
    return resolve(w, c, mem);
}

static TBRW_U32 close_stream_section(struct rewriter *w)
{
    TBRW_U32 rc = TBRW_SUCCESS;

    if (w->stream_section >= 0)
        rc = TBRW_done_stream_section(w->p, (TBRW_U32)w->stream,
                                      (TBRW_STREAM_SECTION_IDENTIFIER)w->stream_section);
    w->stream_section = -1;
    return rc;
}

static TBRW_U32 close_open(struct rewriter *w)
{
    TBRW_U32 rc = close_stream_section(w);

    if (rc == TBRW_SUCCESS && w->stream >= 0)
        rc = TBRW_done_stream(w->p, (TBRW_U32)w->stream);
    w->stream = -1;
    if (rc == TBRW_SUCCESS && w->section >= 0)
        rc = TBRW_done_section(w->p, (TBRW_SECTION_IDENTIFIER)w->section);
    w->section = -1;
    return rc;
}

static TBRW_U32 system_item(struct rewriter *w, const uint8_t *payload, uint64_t len)
{
    size_t need = 0;
    TBRW_SYSTEM *sys;
    TBRW_U32 rc = tb5_hardware_decode(payload, (size_t)len, NULL, 0, &need);

    if (rc != TBRW_BUFFER_TOO_SMALL)
        return rc;
    sys = malloc(need);
    if (!sys)
        return TBRW_NO_MEMORY;
    rc = tb5_hardware_decode(payload, (size_t)len, sys, need, &need);
    if (rc == TBRW_SUCCESS)
        rc = TBRW_set_system(w->p, sys);
    free(sys);
    return rc;
}

static TBRW_U32 event_item(struct rewriter *w, const uint8_t *payload, uint64_t len)
{
    TBRW_EVENT ev;
    TBRW_EVENT_DETAIL *details;
    uint32_t n;
    TBRW_U32 rc;

    if (len < TB5_REC_EVENT)
        return TBRW_CORRUPT_FILE;
    n = tb5_get32(payload + TB5_EVENT_NUM_DETAILS);
    if ((len - TB5_REC_EVENT) / TB5_REC_EVENT_DETAIL != n ||
        (len - TB5_REC_EVENT) % TB5_REC_EVENT_DETAIL != 0)
        return TBRW_CORRUPT_FILE;
    rc = decode(w, &tb5_codec_event, payload, TB5_REC_EVENT, &ev);
    if (rc)
        return rc;
    details = malloc((n ? n : 1) * sizeof(*details));
    if (!details)
        return TBRW_NO_MEMORY;
    for (uint32_t i = 0; i < n; i++)
        tb5_decode(&tb5_codec_event_detail,
                   payload + TB5_REC_EVENT + (size_t)i * TB5_REC_EVENT_DETAIL, &details[i]);
    ev.event_detail_array = n ? details : NULL;
    rc = TBRW_add_event(w->p, (TBRW_U32)w->stream, &ev);
    free(details);
    return rc;
}

static TBRW_U32 data_item(struct rewriter *w, const uint8_t *payload, uint64_t len)
{
    const char *slash = strrchr(w->dump_path, '/');
    size_t dir = slash ? (size_t)(slash - w->dump_path) + 1 : 0;
    size_t name = len > 16 ? (size_t)len - 16 : 0;
    char *path;
    wchar_t *wide;
    TBRW_U32 rc;

    if (name == 0 || memchr(payload + 16, '/', name))
        return TBRW_CORRUPT_FILE;
    path = malloc(dir + name + 1);
    if (!path)
        return TBRW_NO_MEMORY;
    memcpy(path, w->dump_path, dir);
    memcpy(path + dir, payload + 16, name);
    path[dir + name] = '\0';
    rc = tb5_utf8_to_wcs_alloc(path, dir + name, &wide);
    free(path);
    if (rc)
        return rc;
    rc = TBRW_add_data_from_file(w->p, (TBRW_U32)w->stream, wide);
    free(wide);
    return rc;
}

static TBRW_U32 apply(struct rewriter *w, uint32_t tag, const uint8_t *payload, uint64_t len)
{
    union {
        TBRW_HOST host;
        TBRW_OS os;
        TBRW_APPLICATION app;
        TBRW_VERSION_INFO version;
        TBRW_MODULE module;
        TBRW_PID pid;
        TBRW_TID tid;
        TBRW_STREAM_INFO info;
        TBRW_SAMPREC_DESC_ENTRY desc;
    } r;
    TBRW_U32 rc;
    uint32_t v = len >= 4 ? tb5_get32(payload) : 0;

    switch (tag) {
    case TB5_DUMP_STRING:
        return add_string(w, payload, len);
    case TB5_DUMP_SECTION:
        rc = close_open(w);
        if (rc == TBRW_SUCCESS)
            rc = TBRW_writing_section(w->p, (TBRW_SECTION_IDENTIFIER)v);
        w->section = rc ? -1 : (int)v;
        return rc;
    case TB5_DUMP_SYSTEM:
        return system_item(w, payload, len);
    case TB5_DUMP_HOST:
        rc = decode(w, &tb5_codec_host, payload, len, &r.host);
        return rc ? rc : TBRW_set_host(w->p, &r.host);
    case TB5_DUMP_OS:
        rc = decode(w, &tb5_codec_os, payload, len, &r.os);
        return rc ? rc : TBRW_set_os(w->p, &r.os);
    case TB5_DUMP_APPLICATION:
        rc = decode(w, &tb5_codec_app, payload, len, &r.app);
        return rc ? rc : TBRW_set_application(w->p, &r.app);
    case TB5_DUMP_VERSION_INFO:
        rc = decode(w, &tb5_codec_version, payload, len, &r.version);
        return rc ? rc : TBRW_set_version_info(w->p, &r.version);
    case TB5_DUMP_MODULE:
        rc = decode(w, &tb5_codec_module, payload, len, &r.module);
        return rc ? rc : TBRW_add_module(w->p, &r.module);
    case TB5_DUMP_PROCESS:
        rc = decode(w, &tb5_codec_pid, payload, len, &r.pid);
        return rc ? rc : TBRW_add_process(w->p, &r.pid);
    case TB5_DUMP_THREAD:
        rc = decode(w, &tb5_codec_tid, payload, len, &r.tid);
        return rc ? rc : TBRW_add_thread(w->p, &r.tid);
    case TB5_DUMP_USER_GLOBAL:
        return TBRW_set_user_defined_global(w->p, (TBRW_U32)len, payload);
    case TB5_DUMP_STREAM:
        rc = close_open(w);
        if (rc == TBRW_SUCCESS)
            rc = TBRW_writing_stream(w->p, v);
        w->stream = rc ? -1 : (int)v;
        return rc;
    case TB5_DUMP_STREAM_SECTION:
        if (w->stream < 0)
            return TBRW_CORRUPT_FILE;
        rc = close_stream_section(w);
        if (rc == TBRW_SUCCESS)
            rc = TBRW_writing_stream_section(w->p, (TBRW_U32)w->stream,
                                             (TBRW_STREAM_SECTION_IDENTIFIER)v);
        w->stream_section = rc ? -1 : (int)v;
        return rc;
    case TB5_DUMP_STREAM_INFO:
        rc = decode(w, &tb5_codec_stream_info, payload, len, &r.info);
        return rc ? rc : TBRW_set_stream_info(w->p, (TBRW_U32)w->stream, &r.info);
    case TB5_DUMP_EVENT:
        return event_item(w, payload, len);
    case TB5_DUMP_DESCRIPTOR:
        rc = decode(w, &tb5_codec_descriptor, payload, len, &r.desc);
        return rc ? rc : TBRW_add_data_descriptor_entry(w->p, (TBRW_U32)w->stream, &r.desc);
    case TB5_DUMP_USER_STREAM:
        return TBRW_set_user_defined_stream(w->p, (TBRW_U32)w->stream, (TBRW_U32)len, payload);
    case TB5_DUMP_DATA_FILE:
        return data_item(w, payload, len);
    }
    return TBRW_CORRUPT_FILE;
}

/* rc for the dump item `item` (of kind `kind`) at file offset `at`, keeping what the
 * library said about it, if anything. */
static TBRW_U32 item_fail(TBRW_U32 rc, uint32_t item, uint32_t kind, uint64_t at)
{
    char inner[320];
    snprintf(inner, sizeof(inner), "%s", tb5_error_detail(rc));
    if (rc == TBRW_NO_MEMORY)
        return rc;
    return tb5_fail(rc, "dump item %u (kind %u) at byte offset %" PRIu64 "%s%s", item, kind, at,
                    inner[0] ? ": " : "", inner);
}

/* Items are small (stream records live in their own files), so each is read whole. */
static TBRW_U32 replay(struct rewriter *w, FILE *in)
{
    uint8_t head[TB5_DUMP_ITEM_HEAD];
    TBRW_U32 rc = TBRW_SUCCESS;
    uint64_t at = TB5_DUMP_HEADER;

    if (fread(head, 1, TB5_DUMP_HEADER, in) != TB5_DUMP_HEADER ||
        memcmp(head, TB5_DUMP_MAGIC, sizeof(TB5_DUMP_MAGIC)) != 0)
        return tb5_fail(TBRW_BAD_MAGIC, "dump header at byte offset 0: no dump magic");
    if (tb5_get32(head + 8) != TB5_DUMP_VERSION)
        return tb5_fail(TBRW_INCOMPATIBLE_VERSION,
                        "dump header field version at byte offset 8: %u, expected %u",
                        tb5_get32(head + 8), TB5_DUMP_VERSION);
    for (uint32_t item = 0; rc == TBRW_SUCCESS; item++) {
        size_t got = fread(head, 1, sizeof(head), in);
        uint64_t len;
        uint8_t *payload;
        if (got == 0)
            break;
        if (got != sizeof(head))
            return item_fail(TBRW_TRUNCATED_FILE, item, 0, at);
        len = tb5_get64(head + 8);
        if (len > UINT32_MAX)
            return item_fail(TBRW_CORRUPT_FILE, item, tb5_get32(head), at);
        payload = malloc(len ? (size_t)len : 1);
        if (!payload)
            return TBRW_NO_MEMORY;
        if (fread(payload, 1, (size_t)len, in) != len)
            rc = TBRW_TRUNCATED_FILE;
        else
            rc = apply(w, tb5_get32(head), payload, len);
        free(payload);
        if (rc)
            return item_fail(rc, item, tb5_get32(head), at);
        at += sizeof(head) + len;
    }
    return rc == TBRW_SUCCESS ? close_open(w) : rc;
}

int tb5_rewrite(const char *dump_path, const char *tb5_path)
{
    struct rewriter w = {0};
    FILE *in;
    TBRW_U32 rc;

    tb5_detail_clear();
    if (!dump_path || !tb5_path)
        return TBRW_UNEXPECTED_NULL_PTR;
    in = fopen(dump_path, "rb");
    if (!in)
        return TBRW_FILE_OPEN_FAILED;
    w.dump_path = dump_path;
    w.section = w.stream = w.stream_section = -1;
    rc = tb5_open_path(&w.p, tb5_path, TBRW_FILE_READ | TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS);
    if (rc == TBRW_SUCCESS) {
        rc = replay(&w, in);
        if (rc == TBRW_SUCCESS)
            rc = TBRW_close(w.p);
        else
            TBRW_abort_cleanup_and_close(w.p);
    }
    fclose(in);
    for (size_t i = 0; i < w.nstrings; i++)
        free(w.strings[i]);
    free(w.strings);
    u64map_free(&w.string_at);
    return (int)rc;
}
