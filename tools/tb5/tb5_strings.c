#include "tb5_strings.h"

#include <stdlib.h>
#include <string.h>

#include "text_escape.h"

/* A copy of s in which every byte that is not UTF-8 is U+FFFD: a target's name that is not
 * UTF-8 still reaches the tb5 file recognisably rather than as nothing. */
static char *valid_utf8(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(3 * len + 1), *o = out;
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    if (!out)
        return NULL;
    while (p < end) {
        uint32_t cp;
        size_t n = text_utf8_decode(p, (size_t)(end - p), &cp);
        if (n) {
            memcpy(o, p, n);
            o += n, p += n;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3, p++;
        }
    }
    *o = '\0';
    return out;
}

const wchar_t *wide_string(struct wide_strings *ws, const char *utf8)
{
    TBRW_U32 n = 0;
    TBRW_U32 rc = TBRW_convert_utf8_to_wcs(utf8, NULL, &n);
    if (rc != TBRW_BUFFER_TOO_SMALL) {
        char *repaired = valid_utf8(utf8);
        const wchar_t *w = NULL;
        if (repaired && TBRW_convert_utf8_to_wcs(repaired, NULL, &n) == TBRW_BUFFER_TOO_SMALL)
            w = wide_string(ws, repaired);
        free(repaired);
        return w;
    }
    wchar_t *w = malloc(n * sizeof *w);
    wchar_t **grown = realloc(ws->v, (ws->n + 1) * sizeof *grown);
    if (!w || !grown) {
        free(w);
        if (grown)
            ws->v = grown;
        return NULL;
    }
    ws->v = grown;
    if (TBRW_convert_utf8_to_wcs(utf8, w, &n) != TBRW_SUCCESS) {
        free(w);
        return NULL;
    }
    ws->v[ws->n++] = w;
    return w;
}

void wide_strings_free(struct wide_strings *ws)
{
    for (size_t i = 0; i < ws->n; i++)
        free(ws->v[i]);
    free(ws->v);
    ws->v = NULL;
    ws->n = 0;
}

char *tb5_string(TBRW_PTR h, const TBRW_STRING_OR_ID *id)
{
    TBRW_U32 bytes = 0;
    if (id->soi_uniqueid == 0 ||
        TBRW_convert_uniqueid_to_string(h, 0, id, NULL, &bytes) != TBRW_BUFFER_TOO_SMALL)
        return NULL;
    wchar_t *w = malloc(bytes);
    if (!w)
        return NULL;
    char *utf8 = NULL;
    TBRW_U32 n = 0;
    if (TBRW_convert_uniqueid_to_string(h, bytes, id, w, NULL) == TBRW_SUCCESS &&
        TBRW_convert_wcs_to_utf8(w, NULL, &n) == TBRW_BUFFER_TOO_SMALL) {
        utf8 = malloc(n);
        if (utf8 && TBRW_convert_wcs_to_utf8(w, utf8, &n) != TBRW_SUCCESS) {
            free(utf8);
            utf8 = NULL;
        }
    }
    free(w);
    return utf8;
}
