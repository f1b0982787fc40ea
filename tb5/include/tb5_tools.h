/*
 * For the host tools:
 * tb5_tools.h - the guide's example programs (chapter 2) as library functions, and
 * a few conveniences beyond the TBRW API for host tools (the acart CLI).
 * Functions return TBRW_SUCCESS or a TBRW error code (tbrw.h).
 */
#ifndef TB5_TOOLS_H
#define TB5_TOOLS_H

#include <stdio.h>

#include "tbrw.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * print_tb5: print every section of the file at path to out, in text. Unbound
 * streams are bound in memory (the file is opened read-only and left unchanged) so
 * that samples can be shown with their module, process and thread.
 * At most max_records records per stream are printed (0 = all).
 */
int tb5_print(FILE *out, const char *path, unsigned long long max_records);

/*
 * tbrw_reader: read the tb5 file at tb5_path through the TBRW API and write
 * dump_path (every section except stream data, strings inline) plus, per stream N,
 * "<dump_path>.stream<N>.dat" holding that stream's raw records. The dump format is
 * described in docs/tb5-format.md.
 */
int tb5_dump(const char *tb5_path, const char *dump_path);

/*
 * tbrw_writer: create the tb5 file tb5_path from a dump written by tb5_dump, using
 * only the TBRW write API (records come in through TBRW_add_data_from_file).
 * Binding is not part of a dump; bind the new file with TBRW_dobind if needed.
 */
int tb5_rewrite(const char *dump_path, const char *tb5_path);

/* TBRW_open with a UTF-8 (host) path. */
TBRW_U32 tb5_open_path(TBRW_PTR *ptr, const char *path, TBRW_U32 access_mode);

/* The error text of code in UTF-8, followed by tb5_error_detail(code) when there is one;
 * never NULL. The text lives until the thread's next call. */
const char *tb5_strerror(TBRW_U32 code);

/* What the last failure of a TBRW call in this thread said about where the file is wrong
 * (the section or field and the byte offset), if that failure returned code; else "".
 * Like errno: read it right after the call that failed. */
const char *tb5_error_detail(TBRW_U32 code);

/* Record count and record size (bytes) of a stream's data section. */
TBRW_U32 tb5_data_shape(TBRW_PTR ptr, TBRW_U32 stream, TBRW_U64 *num_records,
                        TBRW_U32 *record_size);

#ifdef __cplusplus
}
#endif

#endif /* TB5_TOOLS_H */
