/* text_escape.c - the escaping of untrusted text for terminals, file names and XML. */
#include "text_escape.h"

#include <string.h>

size_t text_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
    if (avail == 0)
        return 0;
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c < 0xE0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c < 0xF0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c < 0xF5) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    /* Overlong forms, UTF-16 surrogates and values past Unicode's end are not UTF-8. */
    if (v < min || (v >= 0xD800 && v < 0xE000) || v > 0x10FFFF)
        return 0;
    *cp = v;
    return n;
}

size_t text_utf8_chars(const char *s)
{
    size_t chars = 0, len = strlen(s);
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    uint32_t cp;
    for (; p < end; chars++) {
        size_t n = text_utf8_decode(p, (size_t)(end - p), &cp);
        p += n ? n : 1;
    }
    return chars;
}

/* Code points that change how a terminal or a reader sees the text around them: C1
 * controls (some terminals act on them), bidirectional embeddings, overrides and isolates
 * ("Trojan source"), and the Unicode line and paragraph separators. */
static int is_invisible_control(uint32_t cp)
{
    return (cp >= 0x80 && cp < 0xA0) || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
           cp == 0x2029;
}

/* Collects escaped text into a buffer: whole pieces only, so a truncated result never
 * ends in half an escape or half a character; used counts what the whole text needs. */
struct sink {
    char *dst;
    size_t size, used, written;
};

static void put(struct sink *k, const char *s, size_t len)
{
    if (k->written == k->used && k->used + len < k->size) {
        memcpy(k->dst + k->used, s, len);
        k->written += len;
    }
    k->used += len;
}

static size_t finish(struct sink *k)
{
    if (k->size)
        k->dst[k->written] = '\0';
    return k->used;
}

static void put_hex_byte(struct sink *k, const char *prefix, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(prefix);
    char b[8];
    memcpy(b, prefix, n);
    b[n] = hex[c >> 4];
    b[n + 1] = hex[c & 15];
    put(k, b, n + 2);
}

size_t text_escape_terminal(char *dst, size_t size, const char *src)
{
    struct sink k = {dst, size, 0, 0};
    size_t len = strlen(src);
    const unsigned char *p = (const unsigned char *)src, *end = p + len;
    while (p < end) {
        uint32_t cp;
        size_t n = text_utf8_decode(p, (size_t)(end - p), &cp);
        if (n == 0 || cp < 0x20 || cp == 0x7F) {
            put_hex_byte(&k, "\\x", *p);
            p++;
            continue;
        }
        if (cp == '\\') {
            put(&k, "\\\\", 2);
        } else if (is_invisible_control(cp)) {
            char b[16];
            int m = snprintf(b, sizeof b, "\\u{%04x}", (unsigned)cp);
            put(&k, b, (size_t)m);
        } else {
            put(&k, (const char *)p, n);
        }
        p += n;
    }
    return finish(&k);
}

const char *text_term(char *buf, size_t size, const char *src)
{
    if (!src)
        src = "-";
    text_escape_terminal(buf, size, src);
    return buf;
}

int text_fput_terminal(const char *src, FILE *out)
{
    char small[256];
    size_t need = text_escape_terminal(small, sizeof small, src);
    if (need < sizeof small)
        return fputs(small, out);
    /* Long text: escape it a character at a time rather than allocate. */
    size_t len = strlen(src);
    const unsigned char *p = (const unsigned char *)src, *end = p + len;
    while (p < end) {
        uint32_t cp;
        size_t n = text_utf8_decode(p, (size_t)(end - p), &cp);
        char one[8] = {0};
        memcpy(one, p, n ? n : 1);
        text_escape_terminal(small, sizeof small, one);
        /* An invalid byte alone is escaped alone, as it would be in the whole text. */
        if (fputs(small, out) == EOF)
            return EOF;
        p += n ? n : 1;
    }
    return 0;
}

size_t text_escape_filename(char *dst, size_t size, const char *src)
{
    struct sink k = {dst, size, 0, 0};
    if (!src[0])
        put(&k, "%", 1);
    for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
        unsigned char c = *p;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-' || (c == '.' && p != (const unsigned char *)src);
        if (keep)
            put(&k, (const char *)p, 1);
        else
            put_hex_byte(&k, "%", c);
    }
    return finish(&k);
}

/* Characters XML 1.0 allows in text, less the controls a label has no use for. */
static int xml_keeps(uint32_t cp)
{
    return cp >= 0x20 && cp != 0x7F && !is_invisible_control(cp) && cp != 0xFFFE && cp != 0xFFFF;
}

int text_fput_xml(const char *src, size_t max_chars, FILE *out)
{
    size_t len = strlen(src);
    const unsigned char *p = (const unsigned char *)src, *end = p + len;
    for (size_t chars = 0; p < end && chars < max_chars; chars++) {
        uint32_t cp;
        size_t n = text_utf8_decode(p, (size_t)(end - p), &cp);
        const char *entity = NULL;
        if (n == 0 || !xml_keeps(cp))
            entity = "\xEF\xBF\xBD"; /* U+FFFD, the replacement character */
        else if (cp == '&')
            entity = "&amp;";
        else if (cp == '<')
            entity = "&lt;";
        else if (cp == '>')
            entity = "&gt;";
        else if (cp == '"')
            entity = "&quot;";
        else if (cp == '\'')
            entity = "&#39;";
        int rc = entity ? fputs(entity, out) : (int)fwrite(p, 1, n, out) == (int)n ? 0 : EOF;
        if (rc == EOF)
            return EOF;
        p += n ? n : 1;
    }
    return 0;
}
