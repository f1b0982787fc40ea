/*
 * For the host tools:
 * tbrw.h - the TBRW reader/writer API (chapter 9 of the TBRW user guide),
 * implemented by acart's tb5 library on an open container format
 * (docs/tb5-format.md). Files are TBRW-API-compatible, not byte-compatible with
 * VTune's own readers.
 *
 * Model. TBRW_open gives a handle. A file holds global sections (hardware,
 * software, process/thread, module, version info, user-defined) and numbered data
 * streams, each with its own sections (stream info, event description, data
 * description, data, user-defined). Every section is written once, between a
 * writing_ call and the matching done_ call, and is immutable afterwards: a file
 * opened again for writing can only gain new sections and new streams.
 *
 * Errors. Every function returns TBRW_SUCCESS (0, alias VT_SUCCESS) or one of the
 * codes below; TBRW_error_string turns a code into text.
 *
 * Reading. get_ functions follow chapter 5.8: with size_of_buffer 0 and a NULL
 * buffer they return TBRW_BUFFER_TOO_SMALL and store the size needed (in bytes) in
 * *size_buffer_used. Read functions need the section to exist; the reading_/done_
 * pairs are accepted (and keep a section from being opened twice) but not required.
 * Strings read back are unique ids: see TBRW_convert_uniqueid_to_string.
 *
 * Large data. Stream data is never held in memory: TBRW_add_data appends any number
 * of whole records per call and TBRW_enumerate_data hands them back in batches of
 * up to TBRW_ENUMERATE_BATCH_BYTES.
 */
#ifndef TBRW_H
#define TBRW_H

#include "tbrw_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. The guide's codes keep the numbers of the original API. */
#define TBRW_SUCCESS                   0
#define VT_SUCCESS                     TBRW_SUCCESS
#define TBRW_SAM_ERROR                 22
#define TBRW_UNKNOWN_SECTION_NUMBER    25
#define TBRW_NO_MEMORY                 26
#define TBRW_BUFFER_OVERFLOW           29
#define TBRW_SAMPLE_FILE_MAPPING_ERROR 34
#define TBRW_UNEXPECTED_NULL_PTR       36
#define TBRW_ENTRY_NOT_FOUND           39
#define TBRW_FILE_OPEN_FAILED          44
#define TBRW_BAD_PARAMETER             63
#define TBRW_UNEXPECTED_VALUE          72
#define TBRW_NOT_IMPLEMENTED           73
#define TBRW_SECTION_ALREADY_IN_USE    77
#define TBRW_SECTION_NOT_EXIST         78
#define TBRW_STREAM_NOT_EXIST          79
#define TBRW_INVALID_STREAM            80
#define TBRW_STREAM_ALREADY_IN_USE     81
#define TBRW_INVALID_ERROR_CODE        83
#define TBRW_INCOMPATIBLE_VERSION      84
#define TBRW_INVALID_READ_START        86
#define TBRW_INVALID_STRING            97
#define TBRW_UNSUPPORTED_DATA_SIZE     98
#define TBRW_BUFFER_TOO_SMALL          103
#define TBRW_INVALID_ACCESS_PERMS      111
#define TBRW_TB5_IS_NOT_BOUND          113
#define TBRW_SECTION_NOT_READABLE      124
#define TBRW_SECTION_NOT_WRITEABLE     125
#define TBRW_GLOBAL_SECTION_NOT_CLOSED 126
#define TBRW_STREAM_SECTION_NOT_CLOSED 127
#define TBRW_STREAM_NOT_CLOSED         128
#define TBRW_STREAM_NOT_BOUND          129
#define TBRW_NOT_ALL_SECTIONS_CLOSED   131
#define TBRW_BIND_MODULES_NOT_SORTED   142
#define TBRW_UNEXPECTED_NUM_CPUIDS     143
#define TBRW_UNSUPPORTED_ARCH_TYPE     144
#define TBRW_NO_DATA_TO_WRITE          145
/* Codes of this implementation (the guide has none for these conditions). */
#define TBRW_BAD_MAGIC                200 /* not a tb5 container */
#define TBRW_TRUNCATED_FILE           201 /* the file ends before its directory */
#define TBRW_CHECKSUM_MISMATCH        202 /* a section, the directory or the header is damaged */
#define TBRW_CORRUPT_FILE             203 /* inconsistent directory or section contents */
#define TBRW_IO_ERROR                 204 /* read/write/seek failed */
#define TBRW_REQUIRED_SECTION_MISSING 205 /* chapter 6.2 */
#define TBRW_SECTION_EXISTS           206 /* sections are written once */
#define TBRW_STREAM_EXISTS            207 /* existing streams cannot be appended to */
#define TBRW_LEGACY_RECORD_MISPLACED  208 /* stream 0 holds legacy records only, others none */
#define TBRW_RECORD_SIZE_MISMATCH     209 /* data does not split into the stream's records */
#define TBRW_DESCRIPTOR_OVERLAP       210 /* two data descriptor entries share bytes */
#define TBRW_DATA_DESCRIPTION_MISSING 211 /* data before its data description was done */
#define TBRW_STREAM_NOT_BINDABLE      212 /* the records have no instruction pointer */

/* Batch size of the enumerate functions (whole records, at least one). The fuzzers' build
 * sets it small, so that small files take several batches (tests/fuzz/project). */
#ifndef TBRW_ENUMERATE_BATCH_BYTES
#define TBRW_ENUMERATE_BATCH_BYTES (1u << 20)
#endif

/* ---- 9.1 High level functions ---- */

/* Version of the API this library implements (the guide's revision, 2.3). */
TBRW_U32 TBRW_get_version(OUT TBRW_U32 *major, OUT TBRW_U32 *minor);

/*
 * Open a tb5 file. access_mode combines TBRW_FILE_READ, TBRW_FILE_WRITE and
 * TBRW_FILE_CREATE_ALWAYS (new files need CREATE_ALWAYS|WRITE; an existing file
 * opened with WRITE can gain sections and streams). The name is converted to UTF-8
 * for the host's file system. Errors: TBRW_FILE_OPEN_FAILED, TBRW_BAD_MAGIC,
 * TBRW_INCOMPATIBLE_VERSION, TBRW_TRUNCATED_FILE, TBRW_CHECKSUM_MISMATCH (header or
 * directory), TBRW_CORRUPT_FILE, TBRW_INVALID_ACCESS_PERMS.
 */
TBRW_U32 TBRW_open(OUT TBRW_PTR *ptr, IN const TBRW_CHAR *filename, IN TBRW_U32 access_mode);

/*
 * Commit what was written (the new directory) and release the handle. Sections or
 * streams still open for writing are dropped and reported with
 * TBRW_NOT_ALL_SECTIONS_CLOSED; the handle is released in every case.
 */
TBRW_U32 TBRW_close(IN TBRW_PTR ptr);

/* A constant wide string for error_code; TBRW_INVALID_ERROR_CODE for unknown codes. */
TBRW_U32 TBRW_error_string(IN TBRW_U32 error_code, OUT const TBRW_CHAR **error_string);

/*
 * Give up: a file created by this handle is removed, a file opened for appending is
 * cut back to its size at open, temporary files are removed, the handle is freed.
 */
TBRW_U32 TBRW_abort_cleanup_and_close(IN TBRW_PTR ptr);

/*
 * Check the whole file: header and directory, the checksum of every section (read
 * in chunks), section contents, and the sections chapter 6.2 requires (hardware,
 * software, version info, modules; per stream: events, stream info, data
 * descriptor, data). Returns the first problem found.
 */
TBRW_U32 TBRW_verify(IN TBRW_PTR ptr);

/*
 * The text of a string read from the file. size_of_buffer and *size_buffer_needed
 * are in bytes, terminating L'\0' included. Returns TBRW_INVALID_STRING for id 0
 * (a NULL string was written, FAQ 7.6) or anything that is not an id of this file,
 * TBRW_BUFFER_TOO_SMALL (with *size_buffer_needed set) if buffer is too small.
 */
TBRW_U32 TBRW_convert_uniqueid_to_string(IN TBRW_PTR ptr, IN TBRW_U32 size_of_buffer,
                                         IN const TBRW_STRING_OR_ID *string_id,
                                         OUT TBRW_CHAR *buffer,
                                         OPTIONAL OUT TBRW_U32 *size_buffer_needed);

/* ---- 9.1.1 Global section management ---- */

/* TBRW_SECTION_NOT_EXIST if never written, TBRW_SECTION_ALREADY_IN_USE if open. */
TBRW_U32 TBRW_reading_section(IN TBRW_PTR ptr, IN TBRW_SECTION_IDENTIFIER section);
/* TBRW_SECTION_EXISTS if already written, TBRW_SECTION_ALREADY_IN_USE if open. */
TBRW_U32 TBRW_writing_section(IN TBRW_PTR ptr, IN TBRW_SECTION_IDENTIFIER section);
/*
 * Ends a reading_ or writing_ call. When writing, validates and commits the section;
 * TBRW_NO_DATA_TO_WRITE if a set-style section (hardware, software, version info,
 * user-defined) got nothing. The section is closed whatever the outcome; when the
 * commit fails it stays unwritten and may be written again.
 */
TBRW_U32 TBRW_done_section(IN TBRW_PTR ptr, IN TBRW_SECTION_IDENTIFIER section);

/* ---- 9.1.2 Data stream management ---- */

/* Streams in the file, those being written included. */
TBRW_U32 TBRW_get_number_data_streams(IN TBRW_PTR ptr, OUT TBRW_U32 *numStreams);
TBRW_U32 TBRW_reading_stream(IN TBRW_PTR ptr, IN TBRW_U32 stream);
/*
 * Start a new stream. stream must be the next number (TBRW_get_number_data_streams);
 * TBRW_STREAM_EXISTS for an existing stream, TBRW_INVALID_STREAM for a gap.
 */
TBRW_U32 TBRW_writing_stream(IN TBRW_PTR ptr, IN TBRW_U32 stream);
/*
 * Ends reading_stream/writing_stream. When writing: every stream section must be
 * done (TBRW_STREAM_SECTION_NOT_CLOSED) and the stream info and data description
 * sections written, plus the event section when the records carry event indexes
 * (stream 0) - else TBRW_REQUIRED_SECTION_MISSING.
 */
TBRW_U32 TBRW_done_stream(IN TBRW_PTR ptr, IN TBRW_U32 stream);

/* ---- 9.1.3 Data stream section management ---- */

TBRW_U32 TBRW_reading_stream_section(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                                     TBRW_STREAM_SECTION_IDENTIFIER section);
/* The stream must be open for writing; the data section needs a done data description. */
TBRW_U32 TBRW_writing_stream_section(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                                     TBRW_STREAM_SECTION_IDENTIFIER section);
/*
 * Ends a stream section. Writing the data description checks it (offsets, overlaps,
 * stream 0 = ST_LEGACY_SAMPLE_RECORD at offset 0, optionally followed by an 8-byte
 * ST_TIME_STAMP); writing the data checks that it holds whole records
 * (TBRW_RECORD_SIZE_MISMATCH). The section is closed whatever the outcome; when the
 * check fails it stays unwritten and may be written again.
 */
TBRW_U32 TBRW_done_stream_section(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                                  TBRW_STREAM_SECTION_IDENTIFIER section);

/* ---- 9.2.1 Hardware section ---- */

/* Copies the whole tree (nodes, cpus, architectures, cpuids). */
TBRW_U32 TBRW_set_system(IN TBRW_PTR ptr, IN const TBRW_SYSTEM *system);
/*
 * The tree comes back in one buffer: the TBRW_SYSTEM first, then the arrays it
 * points to, every pointer pointing into buf_ptr.
 */
TBRW_U32 TBRW_get_system(IN TBRW_PTR ptr, IN TBRW_U32 size_of_buffer, OUT TBRW_SYSTEM *buf_ptr,
                         OPTIONAL OUT TBRW_U32 *size_buffer_used);

/* ---- 9.2.2 Software section (host, OS, application: each optional) ---- */

TBRW_U32 TBRW_set_host(IN TBRW_PTR ptr, IN const TBRW_HOST *host);
/* TBRW_ENTRY_NOT_FOUND if the section was written without a host (same for os, app). */
TBRW_U32 TBRW_get_host(IN TBRW_PTR ptr, IN TBRW_U32 size_of_buffer, IN void *buf_ptr,
                       OPTIONAL OUT TBRW_U32 *size_buffer_used);
TBRW_U32 TBRW_set_os(IN TBRW_PTR ptr, IN const TBRW_OS *os);
TBRW_U32 TBRW_get_os(IN TBRW_PTR ptr, IN TBRW_U32 size_of_buffer, IN void *buf_ptr,
                     OPTIONAL OUT TBRW_U32 *size_buffer_used);
TBRW_U32 TBRW_set_application(IN TBRW_PTR ptr, IN const TBRW_APPLICATION *application);
TBRW_U32 TBRW_get_application(IN TBRW_PTR ptr, IN TBRW_U32 size_of_buffer, IN void *buf_ptr,
                              OPTIONAL OUT TBRW_U32 *size_buffer_used);

/* ---- 9.2.3 Process/thread section ---- */

/*
 * Processes and threads may be written by hand, but binding derives them from the
 * samples and modules (6.1, 6.2); binding extends an existing list, and every entry
 * already there keeps its index.
 */
TBRW_U32 TBRW_add_process(IN TBRW_PTR ptr, IN const TBRW_PID *process);
/* The pointer stays valid until the next TBRW_get_one_pid on this handle. */
TBRW_U32 TBRW_get_one_pid(IN TBRW_PTR ptr, IN TBRW_U64 pid_index, OUT const TBRW_PID **p_pid);
TBRW_U32 TBRW_enumerate_processes(IN TBRW_PTR ptr, IN TBRW_PID_CALLBACK *callback_func,
                                  IN void *user_ptr, IN TBRW_U64 start_index);
TBRW_U32 TBRW_add_thread(IN TBRW_PTR ptr, IN const TBRW_TID *thread);
/* The pointer stays valid until the next TBRW_get_one_tid on this handle. */
TBRW_U32 TBRW_get_one_tid(IN TBRW_PTR ptr, IN TBRW_U64 tid_index, OUT const TBRW_TID **p_tid);
TBRW_U32 TBRW_enumerate_threads(IN TBRW_PTR ptr, IN TBRW_TID_CALLBACK *callback_func,
                                IN void *user_ptr, IN TBRW_U64 start_index);
/* Threads with the index of their process; TBRW_TB5_IS_NOT_BOUND if no stream is bound. */
TBRW_U32 TBRW_bind_enumerate_threads(IN TBRW_PTR ptr, IN BIND_TID_CALLBACK *callback_func,
                                     IN void *user_ptr, IN TBRW_U64 start_index);
/* sizeof(TID_BIND_STRUCT) for a bound stream, TBRW_STREAM_NOT_BOUND otherwise. */
TBRW_U32 TBRW_get_size_of_tid_bind_entry(IN TBRW_PTR ptr, IN TBRW_U32 data_stream,
                                         OUT TBRW_U32 *sizeof_tid_bind_entry);

/* ---- 9.2.4 Module section ---- */

TBRW_U32 TBRW_add_module(IN TBRW_PTR ptr, IN const TBRW_MODULE *module);
/* The pointer stays valid until the next TBRW_get_one_module on this handle. */
TBRW_U32 TBRW_get_one_module(IN TBRW_PTR ptr, IN TBRW_U64 module_index,
                             OUT const TBRW_MODULE **p_module);
TBRW_U32 TBRW_enumerate_modules(IN TBRW_PTR ptr, IN TBRW_MODULE_CALLBACK *callback_func,
                                IN void *user_ptr, IN TBRW_U64 start_index);
/* Modules with the index of their process; TBRW_TB5_IS_NOT_BOUND if no stream is bound. */
TBRW_U32 TBRW_bind_enumerate_modules(IN TBRW_PTR ptr, IN BIND_MODULE_CALLBACK *callback_func,
                                     IN void *user_ptr, IN TBRW_U64 start_index);
TBRW_U32 TBRW_get_size_of_module_bind_entry(IN TBRW_PTR ptr, IN TBRW_U32 data_stream,
                                            OUT TBRW_U32 *sizeof_module_bind_entry);

/* ---- 9.2.5 Version information section ---- */

TBRW_U32 TBRW_set_version_info(IN TBRW_PTR tbrw_ptr, IN const TBRW_VERSION_INFO *version_info);
TBRW_U32 TBRW_get_version_info(IN TBRW_PTR tbrw_ptr, IN TBRW_U32 size_of_buffer, IN void *buf_ptr,
                               OPTIONAL OUT TBRW_U32 *size_buffer_used);

/* ---- 9.2.6 User-defined global section (opaque bytes) ---- */

TBRW_U32 TBRW_set_user_defined_global(IN TBRW_PTR ptr, IN TBRW_U32 size_of_data,
                                      IN const void *data_ptr);
TBRW_U32 TBRW_get_user_defined_global(IN TBRW_PTR ptr, IN TBRW_U32 size_of_buffer, IN void *buf_ptr,
                                      OPTIONAL OUT TBRW_U32 *size_buffer_used);

/* ---- 9.3.1 Stream information section ---- */

TBRW_U32 TBRW_get_stream_info(IN TBRW_PTR tbrw_ptr, IN TBRW_U32 stream, IN TBRW_U32 size_of_buffer,
                              IN void *buf_ptr, OPTIONAL OUT TBRW_U32 *size_buffer_used);
TBRW_U32 TBRW_set_stream_info(IN TBRW_PTR tbrw_ptr, IN TBRW_U32 stream,
                              IN const TBRW_STREAM_INFO *stream_info);

/* ---- 9.3.2 Event description section ---- */

/* event_id must be the event's position (0, 1, 2, ...): TBRW_UNEXPECTED_VALUE otherwise. */
TBRW_U32 TBRW_add_event(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                        IN const TBRW_EVENT *event_descriptor_entry);
/* Each batch carries its events' detail arrays in the same buffer (data size counts them). */
TBRW_U32 TBRW_enumerate_events(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                               IN TBRW_EVENT_CALLBACK *callback_func, IN void *user_ptr,
                               IN TBRW_U64 start_index);

/* ---- 9.3.3 Data description section ---- */

/*
 * Append one field of the stream's record. desc_offset 0 on any entry but the first
 * means "right after the previous field", as in the guide's example (6.9);
 * extended types (ST_START_EXT_SAMPLE_REC_ENTRIES..END) occupy no bytes. The record
 * size is the end of the last field.
 */
TBRW_U32 TBRW_add_data_descriptor_entry(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                                        IN const TBRW_SAMPREC_DESC_ENTRY *data_descriptor_entry);
/* Entries come back with their resolved offsets. */
TBRW_U32 TBRW_enumerate_data_descriptor_entries(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                                                IN TBRW_DATA_DESC_CALLBACK *callback_func,
                                                IN void *user_ptr);

/* ---- 9.3.4 Data section ---- */

/*
 * Append size_of_data_entry bytes: any number of whole records, or a record in
 * pieces that end on field boundaries (the guide's example appends a
 * TBRW_SampleRecordPC, then its TBRW_SampleRecordTSC). TBRW_RECORD_SIZE_MISMATCH
 * when the bytes would end inside a field.
 */
TBRW_U32 TBRW_add_data(IN TBRW_PTR ptr, IN TBRW_U32 stream, IN TBRW_U32 size_of_data_entry,
                       IN const void *data_entry);
/* Append a file of records, read in chunks (it may be larger than memory). */
TBRW_U32 TBRW_add_data_from_file(IN TBRW_PTR ptr, IN TBRW_U32 stream, IN const TBRW_CHAR *filename);
/* Records from start_index on, in batches (TBRW_INVALID_READ_START past the end). */
TBRW_U32 TBRW_enumerate_data(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                             IN TBRW_DATA_CALLBACK *callback_func, IN void *user_ptr,
                             IN TBRW_U64 start_index);
/* Records with their DATA_BIND_STRUCT, in batches; TBRW_STREAM_NOT_BOUND if unbound. */
TBRW_U32 TBRW_bind_enumerate_data(IN TBRW_PTR ptr, IN TBRW_U32 data_stream,
                                  IN BIND_DATA_CALLBACK *callback_func, IN void *user_ptr,
                                  IN TBRW_U64 start_index);
TBRW_U32 TBRW_get_size_of_data_bind_entry(IN TBRW_PTR ptr, IN TBRW_U32 data_stream,
                                          OUT TBRW_U32 *sizeof_data_bind_entry);
TBRW_U32 TBRW_is_bound(IN TBRW_PTR ptr, IN TBRW_U32 data_stream, OUT TBRW_U32 *is_bound);
/*
 * Bind a data stream (3.3, 6.1): every record gets the module containing its
 * instruction pointer in its process (or a global module) at its time, and the
 * index of its process and thread; processes and threads are derived from the
 * samples and modules. A module covers [load_address, load_address + length) from
 * module_event_when (inclusive) to its unload time (exclusive): module_unload_tsc,
 * or a later TBRW_MODULE_UNLOADED record of the same pid and address. Times are
 * TSC values (TBRW_MODULE_TSC_USED, records with an ST_TIME_STAMP field) or else
 * sample numbers. When several modules match, the one loaded last wins; when none
 * does, module_index is TBRW_BIND_NO_INDEX. Stream 0 reads eip/iip, pidRecIndex
 * (raw OS pid) and tid from its legacy records; other streams need ST_IP, and use
 * ST_PID, ST_TID, ST_TIME_STAMP when present. The result is stored in the file
 * (in a temporary file when opened read-only); binding a bound stream is a no-op.
 */
TBRW_U32 TBRW_dobind(IN TBRW_PTR ptr, IN TBRW_U32 data_stream);
/* Forget a stream's binding (and the derived processes/threads when none is left bound). */
TBRW_U32 TBRW_unbind(IN TBRW_PTR ptr, IN TBRW_U32 data_stream);

/* ---- 9.3.5 User-defined stream section (opaque bytes) ---- */

TBRW_U32 TBRW_set_user_defined_stream(IN TBRW_PTR ptr, IN TBRW_U32 stream, IN TBRW_U32 size_of_data,
                                      IN const void *data_ptr);
TBRW_U32 TBRW_get_user_defined_stream(IN TBRW_PTR ptr, IN TBRW_U32 stream,
                                      IN TBRW_U32 size_of_buffer, IN void *buf_ptr,
                                      OPTIONAL OUT TBRW_U32 *size_buffer_used);

/* ---- 9.4 String conversion ---- */

/*
 * *wcs_size is the capacity of wcs in characters on entry and the characters needed
 * (terminating L'\0' included) on return. Capacity 0 is a query (wcs may be NULL):
 * the result is then TBRW_BUFFER_TOO_SMALL with the size set. Malformed input
 * gives TBRW_INVALID_STRING.
 */
TBRW_U32 TBRW_convert_utf8_to_wcs(IN const char *utf8, OUT wchar_t *wcs, INOUT TBRW_U32 *wcs_size);
/* Same contract; sizes in bytes, terminating '\0' included. */
TBRW_U32 TBRW_convert_wcs_to_utf8(IN const wchar_t *wcs, OUT char *utf8, INOUT TBRW_U32 *utf8_size);

#ifdef __cplusplus
}
#endif

#endif /* TBRW_H */
