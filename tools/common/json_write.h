/* JSON output for the exporters that write JSON (export chrome, export perfetto). */
#ifndef ACART_TOOLS_JSON_WRITE_H
#define ACART_TOOLS_JSON_WRITE_H

#include <stdio.h>

/* s as a JSON string: UTF-8 as it is, quotes, backslashes and controls escaped, and bytes
 * that are not UTF-8 as U+FFFD, so that any name from the target gives valid JSON. */
void json_put_string(const char *s, FILE *out);

#endif
