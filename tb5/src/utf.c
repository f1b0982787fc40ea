/*
 * utf.c - UTF-8 <-> wchar_t (chapter 9.4). Strings are stored as UTF-8 and handed to
 * callers as wchar_t (TBRW_CHAR). Both directions reject what is not Unicode
 * (overlong forms, surrogates, values past U+10FFFF), so a string read back is the
 * string written. A 16-bit wchar_t gets surrogate pairs.
 */
#include <stdlib.h>

#include "tb5_internal.h"

#define WIDE_IS_UTF16 (sizeof(wchar_t) == 2)

/* Decode one code point from s[0..len); returns its byte length or 0 when malformed. */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n;
    uint32_t c = s[0];

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        c &= 0x07;
    } else {
        return 0;
    }
    if (n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min_for_len[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

static size_t utf8_encode(uint32_t c, unsigned char *out)
{
    if (c < 0x80) {
        out[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (unsigned char)(0xC0 | (c >> 6));
        out[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (c >> 12));
        out[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (c >> 18));
    out[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

/* Next code point of a wide string; returns the wchar_t count used, 0 at a bad one. */
static size_t wide_decode(const wchar_t *w, uint32_t *cp)
{
    uint32_t c = (uint32_t)w[0];

    if (WIDE_IS_UTF16) {
        c &= 0xFFFF;
        if (c >= 0xD800 && c <= 0xDBFF) {
            uint32_t lo = (uint32_t)w[1] & 0xFFFF;
            if (lo < 0xDC00 || lo > 0xDFFF)
                return 0;
            *cp = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
            return 2;
        }
    }
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return 1;
}

static size_t wide_units(uint32_t cp)
{
    return (WIDE_IS_UTF16 && cp >= 0x10000) ? 2 : 1;
}

static void wide_put(uint32_t cp, wchar_t *out)
{
    if (WIDE_IS_UTF16 && cp >= 0x10000) {
        cp -= 0x10000;
        out[0] = (wchar_t)(0xD800 + (cp >> 10));
        out[1] = (wchar_t)(0xDC00 + (cp & 0x3FF));
    } else {
        out[0] = (wchar_t)cp;
    }
}

int tb5_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        uint32_t cp;
        size_t n = utf8_decode(p + i, len - i, &cp);
        if (n == 0 || cp == 0)
            return 0;
        i += n;
    }
    return 1;
}

/* Wide characters (terminator included) that utf8[0..len) needs; 0 when malformed. */
static size_t utf8_wide_len(const unsigned char *p, size_t len)
{
    size_t need = 1;

    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_decode(p + i, len - i, &cp);
        if (n == 0)
            return 0;
        need += wide_units(cp);
        i += n;
    }
    return need;
}

static void utf8_to_wide(const unsigned char *p, size_t len, wchar_t *out)
{
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += utf8_decode(p + i, len - i, &cp);
        wide_put(cp, out);
        out += wide_units(cp);
    }
    *out = L'\0';
}

/* UTF-8 bytes (terminator included) that wcs needs; 0 when it is not Unicode. */
static size_t wide_utf8_len(const wchar_t *wcs)
{
    unsigned char tmp[4];
    size_t need = 1;

    while (*wcs) {
        uint32_t cp;
        size_t n = wide_decode(wcs, &cp);
        if (n == 0)
            return 0;
        need += utf8_encode(cp, tmp);
        wcs += n;
    }
    return need;
}

static void wide_to_utf8(const wchar_t *wcs, unsigned char *out)
{
    while (*wcs) {
        uint32_t cp = 0;
        wcs += wide_decode(wcs, &cp);
        out += utf8_encode(cp, out);
    }
    *out = '\0';
}

TBRW_U32 TBRW_convert_utf8_to_wcs(const char *utf8, wchar_t *wcs, TBRW_U32 *wcs_size)
{
    size_t len, need;

    if (!utf8 || !wcs_size)
        return TBRW_UNEXPECTED_NULL_PTR;
    len = strlen(utf8);
    need = utf8_wide_len((const unsigned char *)utf8, len);
    if (need == 0)
        return TBRW_INVALID_STRING;
    if (need > UINT32_MAX)
        return TBRW_BUFFER_OVERFLOW;
    if (!wcs || *wcs_size < need) {
        *wcs_size = (TBRW_U32)need;
        return TBRW_BUFFER_TOO_SMALL;
    }
    utf8_to_wide((const unsigned char *)utf8, len, wcs);
    *wcs_size = (TBRW_U32)need;
    return TBRW_SUCCESS;
}

TBRW_U32 TBRW_convert_wcs_to_utf8(const wchar_t *wcs, char *utf8, TBRW_U32 *utf8_size)
{
    size_t need;

    if (!wcs || !utf8_size)
        return TBRW_UNEXPECTED_NULL_PTR;
    need = wide_utf8_len(wcs);
    if (need == 0)
        return TBRW_INVALID_STRING;
    if (need > UINT32_MAX)
        return TBRW_BUFFER_OVERFLOW;
    if (!utf8 || *utf8_size < need) {
        *utf8_size = (TBRW_U32)need;
        return TBRW_BUFFER_TOO_SMALL;
    }
    wide_to_utf8(wcs, (unsigned char *)utf8);
    *utf8_size = (TBRW_U32)need;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_wcs_to_utf8_alloc(const wchar_t *wcs, char **out, size_t *len)
{
    size_t need = wide_utf8_len(wcs);

    if (need == 0)
        return TBRW_INVALID_STRING;
    *out = malloc(need);
    if (!*out)
        return TBRW_NO_MEMORY;
    wide_to_utf8(wcs, (unsigned char *)*out);
    if (len)
        *len = need - 1;
    return TBRW_SUCCESS;
}

TBRW_U32 tb5_utf8_to_wcs_alloc(const char *utf8, size_t len, wchar_t **out)
{
    size_t need = utf8_wide_len((const unsigned char *)utf8, len);

    if (need == 0)
        return TBRW_INVALID_STRING;
    *out = malloc(need * sizeof(wchar_t));
    if (!*out)
        return TBRW_NO_MEMORY;
    utf8_to_wide((const unsigned char *)utf8, len, *out);
    return TBRW_SUCCESS;
}
