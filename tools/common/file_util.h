/* Whole-file reads and writes with messages that name the file. */
#ifndef ACART_TOOLS_FILE_UTIL_H
#define ACART_TOOLS_FILE_UTIL_H

#include <stddef.h>

#include "diag.h"

/* Reads path into a malloc'ed buffer with a NUL after the last byte. */
int file_read_all(const char *path, char **data, size_t *len, struct diag *d);

/* Creates or replaces path with len bytes of data. */
int file_write_all(const char *path, const void *data, size_t len, struct diag *d);

/* Creates directory path unless it exists already. */
int file_make_dir(const char *path, struct diag *d);

/* Joins dir and name with a slash into a malloc'ed string, or returns NULL. */
char *file_join(const char *dir, const char *name);

#endif
