/* Scratch files for the fuzz targets whose code under test reads files: one folder per
 * process under /dev/shm (memory, so millions of runs do not touch a disk). */
#ifndef ACART_FUZZ_FILES_H
#define ACART_FUZZ_FILES_H

#include <stddef.h>
#include <stdint.h>

/* The process's scratch folder, created on first use and emptied of known names. */
const char *fuzz_dir(void);

/* Writes len bytes to dir/name; aborts when it cannot (the harness is broken, not the
 * code under test). */
void fuzz_write(const char *dir, const char *name, const uint8_t *data, size_t len);

/* Removes dir/name if it exists. */
void fuzz_remove(const char *dir, const char *name);

#endif
