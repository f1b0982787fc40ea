/* errors.c - TBRW_error_string: one table, narrow and wide text from the same literal. */
#include <stdarg.h>
#include <stdio.h>

#include "tb5_internal.h"

struct tb5_error {
    TBRW_U32 code;
    const char *text;
    const TBRW_CHAR *wtext;
};

#define E(code, text)                                                                              \
    {                                                                                              \
        code, text, L##text                                                                        \
    }

static const struct tb5_error errors[] = {
    E(TBRW_SUCCESS, "success"),
    E(TBRW_SAM_ERROR, "sampling library error"),
    E(TBRW_UNKNOWN_SECTION_NUMBER, "unknown section identifier"),
    E(TBRW_NO_MEMORY, "out of memory"),
    E(TBRW_BUFFER_OVERFLOW, "size overflow"),
    E(TBRW_SAMPLE_FILE_MAPPING_ERROR, "file mapping error"),
    E(TBRW_UNEXPECTED_NULL_PTR, "unexpected NULL pointer"),
    E(TBRW_ENTRY_NOT_FOUND, "entry not found (never written)"),
    E(TBRW_FILE_OPEN_FAILED, "file open failed"),
    E(TBRW_BAD_PARAMETER, "bad parameter"),
    E(TBRW_UNEXPECTED_VALUE, "unexpected value or call out of order"),
    E(TBRW_NOT_IMPLEMENTED, "not implemented"),
    E(TBRW_SECTION_ALREADY_IN_USE, "section is already open"),
    E(TBRW_SECTION_NOT_EXIST, "section does not exist (never written)"),
    E(TBRW_STREAM_NOT_EXIST, "data stream does not exist"),
    E(TBRW_INVALID_STREAM, "invalid data stream number (streams are numbered without gaps)"),
    E(TBRW_STREAM_ALREADY_IN_USE, "data stream is already open"),
    E(TBRW_INVALID_ERROR_CODE, "invalid error code"),
    E(TBRW_INCOMPATIBLE_VERSION, "unsupported tb5 format version"),
    E(TBRW_INVALID_READ_START, "start index past the end"),
    E(TBRW_INVALID_STRING, "invalid string or string id"),
    E(TBRW_UNSUPPORTED_DATA_SIZE, "unsupported size (check the *_size field)"),
    E(TBRW_BUFFER_TOO_SMALL, "buffer too small"),
    E(TBRW_INVALID_ACCESS_PERMS, "invalid access mode for this operation"),
    E(TBRW_TB5_IS_NOT_BOUND, "no data stream of the file is bound"),
    E(TBRW_SECTION_NOT_READABLE, "section is not readable now"),
    E(TBRW_SECTION_NOT_WRITEABLE, "section is not open for writing"),
    E(TBRW_GLOBAL_SECTION_NOT_CLOSED, "a global section is still open"),
    E(TBRW_STREAM_SECTION_NOT_CLOSED, "a stream section is still open"),
    E(TBRW_STREAM_NOT_CLOSED, "a data stream is still open"),
    E(TBRW_STREAM_NOT_BOUND, "data stream is not bound"),
    E(TBRW_NOT_ALL_SECTIONS_CLOSED, "sections still open for writing were dropped"),
    E(TBRW_BIND_MODULES_NOT_SORTED, "modules not sorted"),
    E(TBRW_UNEXPECTED_NUM_CPUIDS, "unexpected number of cpuid entries"),
    E(TBRW_UNSUPPORTED_ARCH_TYPE, "unsupported cpu architecture type"),
    E(TBRW_NO_DATA_TO_WRITE, "nothing was written to the section"),
    E(TBRW_BAD_MAGIC, "not a tb5 file (bad magic)"),
    E(TBRW_TRUNCATED_FILE, "tb5 file is truncated (no directory at its end)"),
    E(TBRW_CHECKSUM_MISMATCH, "checksum mismatch: the file is damaged"),
    E(TBRW_CORRUPT_FILE, "tb5 file is inconsistent"),
    E(TBRW_IO_ERROR, "input/output error"),
    E(TBRW_REQUIRED_SECTION_MISSING, "a required section is missing"),
    E(TBRW_SECTION_EXISTS, "section already written (sections are written once)"),
    E(TBRW_STREAM_EXISTS, "data stream already exists (streams cannot be appended to)"),
    E(TBRW_LEGACY_RECORD_MISPLACED,
      "stream 0 holds TBRW_SampleRecordPC records only, and only stream 0 holds them"),
    E(TBRW_RECORD_SIZE_MISMATCH, "data does not split into the stream's fixed-size records"),
    E(TBRW_DESCRIPTOR_OVERLAP, "data descriptor entries overlap"),
    E(TBRW_DATA_DESCRIPTION_MISSING, "the data description section must be done first"),
    E(TBRW_STREAM_NOT_BINDABLE, "the stream's records have no instruction pointer"),
};

static const struct tb5_error *find(TBRW_U32 code)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
        if (errors[i].code == code)
            return &errors[i];
    return NULL;
}

const char *tb5_error_text(TBRW_U32 code)
{
    const struct tb5_error *e = find(code);
    return e ? e->text : "unknown error code";
}

TBRW_U32 TBRW_error_string(TBRW_U32 error_code, const TBRW_CHAR **error_string)
{
    const struct tb5_error *e = find(error_code);

    if (!error_string)
        return TBRW_UNEXPECTED_NULL_PTR;
    if (!e) {
        *error_string = L"unknown error code";
        return TBRW_INVALID_ERROR_CODE;
    }
    *error_string = e->wtext;
    return TBRW_SUCCESS;
}

/* The detail of the last failure that had one, per thread like errno: which section or
 * field is wrong and at which byte offset. Kept with its code so that a later failure
 * with another code never shows a stale detail. */
struct tb5_detail {
    TBRW_U32 code;
    // cppcheck-suppress unusedStructMember ; used through the thread-local below
    char text[400];
};
static _Thread_local struct tb5_detail last_detail;

TBRW_U32 tb5_fail(TBRW_U32 code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_detail.text, sizeof(last_detail.text), fmt, ap);
    va_end(ap);
    last_detail.code = code;
    return code;
}

void tb5_detail_clear(void)
{
    last_detail.code = TBRW_SUCCESS;
    last_detail.text[0] = '\0';
}

const char *tb5_error_detail(TBRW_U32 code)
{
    return code != TBRW_SUCCESS && last_detail.code == code ? last_detail.text : "";
}

const char *tb5_section_name(uint16_t kind, uint32_t stream, char *buf, size_t size)
{
    static const char *const global[] = {
        [TB5_K_HARDWARE] = "hardware",
        [TB5_K_SOFTWARE] = "software",
        [TB5_K_PROCESSES] = "processes",
        [TB5_K_THREADS] = "threads",
        [TB5_K_MODULES] = "modules",
        [TB5_K_USER_GLOBAL] = "user-defined global",
        [TB5_K_VERSION] = "version info",
        [TB5_K_STRINGS] = "strings",
        [TB5_K_MODULE_BIND] = "module bind",
        [TB5_K_TID_BIND] = "thread bind",
        [TB5_K_STREAM_INFO] = "stream info",
        [TB5_K_EVENTS] = "events",
        [TB5_K_DESCRIPTORS] = "data description",
        [TB5_K_DATA] = "data",
        [TB5_K_USER_STREAM] = "user-defined stream",
        [TB5_K_DATA_BIND] = "data bind",
    };
    const char *name =
        kind < sizeof(global) / sizeof(global[0]) && global[kind] ? global[kind] : NULL;
    if (stream == TB5_GLOBAL && name)
        snprintf(buf, size, "%s section", name);
    else if (stream == TB5_GLOBAL)
        snprintf(buf, size, "section of kind %u", (unsigned)kind);
    else if (name)
        snprintf(buf, size, "stream %u %s section", (unsigned)stream, name);
    else
        snprintf(buf, size, "stream %u section of kind %u", (unsigned)stream, (unsigned)kind);
    return buf;
}
