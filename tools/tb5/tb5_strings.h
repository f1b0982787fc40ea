/* UTF-8 strings of the tools to and from the wide strings of the TBRW API. */
#ifndef ACART_TOOLS_TB5_STRINGS_H
#define ACART_TOOLS_TB5_STRINGS_H

#include <stddef.h>

#include "tbrw.h"

/* Wide strings made for one file being written, all freed together. */
struct wide_strings {
    wchar_t **v;
    size_t n;
};

/* A wide copy of utf8 owned by ws; NULL when out of memory or for malformed UTF-8. */
const wchar_t *wide_string(struct wide_strings *ws, const char *utf8);
void wide_strings_free(struct wide_strings *ws);

/* The text of a string read from a tb5 file as malloc'ed UTF-8; NULL for a NULL string
 * (or when out of memory). */
char *tb5_string(TBRW_PTR h, const TBRW_STRING_OR_ID *id);

#endif
