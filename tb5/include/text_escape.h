/* For the host tools: Escaping of untrusted text: every string that came from a target or a file
 * (task and module names, host names, tb5 strings, paths found in a collection) passes through one
 * of these before it reaches a terminal, a file name or an SVG. A hostile board must not be able to
 * forge report lines, send terminal escape sequences, write outside an output folder or break a
 * flame graph.
 *
 * All three share one strict UTF-8 decoder: overlong forms, surrogates and code points
 * above U+10FFFF are invalid, and an invalid byte is escaped on its own. */
#ifndef TEXT_ESCAPE_H
#define TEXT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes of the valid UTF-8 sequence at s (at most avail bytes), its code point in *cp;
 * 0 if s does not start a valid sequence. */
size_t text_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp);

/* Characters in s: valid UTF-8 sequences count one each, every other byte one. */
size_t text_utf8_chars(const char *s);

/* Terminal text. Printable ASCII and printable UTF-8 stay as they are; a backslash
 * becomes "\\", C0 controls (ESC, BEL, CR, LF, ...) and DEL become "\xNN", C1 controls,
 * bidirectional overrides and line/paragraph separators become "\u{NNNN}", and bytes that
 * are not UTF-8 become "\xNN". Writes at most size bytes (NUL included, whole escapes
 * only) and returns the length the whole escaped text needs, as snprintf does. */
size_t text_escape_terminal(char *dst, size_t size, const char *src);

/* text_escape_terminal into a caller's buffer; returns buf, for use as a printf argument
 * (a NULL src gives "-"). */
const char *text_term(char *buf, size_t size, const char *src);

/* Writes src escaped for a terminal to out. Returns EOF on a write error. */
int text_fput_terminal(const char *src, FILE *out);

/* One file-name component: ASCII letters, digits, '_', '-' and '.' (but not a leading
 * '.') stay, every other byte (path separators, '%', controls, non-ASCII) becomes "%XX";
 * the mapping is one to one, so two names never share a file. An empty name becomes "%".
 * Truncates at size like text_escape_terminal and returns the length needed. */
size_t text_escape_filename(char *dst, size_t size, const char *src);

/* Writes at most max_chars characters of src as XML text (for SVG and HTML): &, <, >, "
 * and ' become entities; controls, characters XML 1.0 forbids, bidirectional overrides
 * and bytes that are not UTF-8 become U+FFFD. Returns EOF on a write error. */
int text_fput_xml(const char *src, size_t max_chars, FILE *out);

#endif
