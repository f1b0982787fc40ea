/* tb5_test.h - checks and fixtures shared by the tb5 tests. */
#ifndef TB5_TEST_H
#define TB5_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#include "samprec_shared.h"
#include "tb5_tools.h"
#include "tbrw.h"

/* The checks (CHECK, CHECK_EQ, ...) and their count, which tb5_test.c holds: its fixtures
 * check too. */
#define ACART_CHECK_SHARED_COUNT
#include "acart_check.h"

#define CHECK_RC(expr, want)                                                                       \
    do {                                                                                           \
        TBRW_U32 rc_ = (expr), want_ = (want);                                                     \
        if (rc_ != want_) {                                                                        \
            fprintf(stderr, "%s:%d: %s = %u (%s), want %u (%s)\n", __FILE__, __LINE__, #expr, rc_, \
                    tb5_strerror(rc_), want_, tb5_strerror(want_));                                \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_OK(expr) CHECK_RC(expr, TBRW_SUCCESS)

/* Runs the test functions, prints "N passed, M failed", returns the exit code. */
struct tb5_test {
    const char *name;
    void (*fn)(void);
};
int tb5_run_tests(const struct tb5_test *tests, size_t count);
#define TB5_TEST(fn)                                                                               \
    {                                                                                              \
#fn, fn                                                                                    \
    }

/* A fresh path in the test's scratch directory (removed at exit). */
const char *tb5_scratch(const char *name);
/* The same path as a wide string, for TBRW_open (static storage, one at a time). */
const wchar_t *tb5_wide(const char *path);

/* Fixtures: the guide's example values (chapter 6). */
TBRW_MODULE fx_module(TBRW_U32 pid, TBRW_U64 address, TBRW_U64 length, TBRW_U64 load_tsc,
                      TBRW_U64 unload_tsc, TBRW_U32 extra_flags, const wchar_t *name);
TBRW_SampleRecordPC fx_sample(TBRW_U32 pid, TBRW_U32 tid, TBRW_U32 eip, TBRW_U32 event);
/* Hardware, software, version info and modules. */
void fx_write_globals(TBRW_PTR p, const TBRW_MODULE *modules, size_t nmodules);
/* Stream 0: info, one event, descriptors (PC + TSC), data written n records per call. */
void fx_write_stream0(TBRW_PTR p, const TBRW_SampleRecordPC *samples, const TBRW_U64 *tsc,
                      size_t count);
/* A whole VTune-compatible file: globals and stream 0. */
void fx_write_file(const char *path, const TBRW_MODULE *modules, size_t nmodules,
                   const TBRW_SampleRecordPC *samples, const TBRW_U64 *tsc, size_t count);
/* The string behind an id, as UTF-8 in static storage ("" on error). */
const char *fx_string(TBRW_PTR p, TBRW_STRING_OR_ID id);

/* Whole-file byte helpers for damage tests. */
long fx_file_size(const char *path);
void fx_flip_byte(const char *path, long offset);
void fx_truncate(const char *path, long size);
void fx_poke(const char *path, long offset, const void *bytes, size_t len);

#endif /* TB5_TEST_H */
