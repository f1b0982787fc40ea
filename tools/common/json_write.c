#include "json_write.h"

#include <stdint.h>
#include <string.h>

#include "text_escape.h"

void json_put_string(const char *s, FILE *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    fputc('"', out);
    while (left) {
        uint32_t cp;
        size_t n = text_utf8_decode(p, left, &cp);
        if (!n) {
            fputs("\\ufffd", out);
            n = 1;
        } else if (cp == '"' || cp == '\\') {
            fprintf(out, "\\%c", (char)cp);
        } else if (cp < 0x20) {
            fprintf(out, "\\u%04x", (unsigned)cp);
        } else {
            fwrite(p, 1, n, out);
        }
        p += n;
        left -= n;
    }
    fputc('"', out);
}
