/* The escaping of untrusted text (tb5/include/text_escape.h): terminal text, file-name
 * components and XML, each fed ESC, BEL, CR, LF, DEL, C1 and bidirectional controls,
 * invalid UTF-8 and path separators; plus truncation, which must never cut an escape. */
#include <stdlib.h>
#include <string.h>

#include "tb5_test.h"
#include "text_escape.h"

static int term_is(const char *in, const char *want)
{
    char out[512];
    size_t need = text_escape_terminal(out, sizeof out, in);
    if (strcmp(out, want) != 0 || need != strlen(want)) {
        fprintf(stderr, "terminal: got \"%s\" (%zu), want \"%s\"\n", out, need, want);
        return 0;
    }
    return 1;
}

static int name_is(const char *in, const char *want)
{
    char out[512];
    size_t need = text_escape_filename(out, sizeof out, in);
    if (strcmp(out, want) != 0 || need != strlen(want)) {
        fprintf(stderr, "file name: got \"%s\" (%zu), want \"%s\"\n", out, need, want);
        return 0;
    }
    return 1;
}

static int xml_is(const char *in, size_t max_chars, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return 0;
    int rc = text_fput_xml(in, max_chars, f);
    fclose(f);
    int ok = rc == 0 && strcmp(buf, want) == 0;
    if (!ok)
        fprintf(stderr, "xml: got \"%s\", want \"%s\"\n", buf, want);
    free(buf);
    return ok;
}

static void test_terminal(void)
{
    CHECK(term_is("idle task", "idle task"));
    CHECK(term_is("\x1b[2J\x07", "\\x1b[2J\\x07"));
    CHECK(term_is("a\rb\nc\td", "a\\x0db\\x0ac\\x09d"));
    CHECK(term_is("del\x7f", "del\\x7f"));
    CHECK(term_is("back\\slash", "back\\\\slash"));
    /* Valid UTF-8 stays: é, ü, €, an emoji. */
    CHECK(term_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    /* Invalid: a lone continuation byte, 0xff, a truncated sequence, an overlong '/',
     * a surrogate, a code point past U+10FFFF. Each bad byte escaped on its own. */
    CHECK(term_is("\x80", "\\x80"));
    CHECK(term_is("\xff\xfe", "\\xff\\xfe"));
    CHECK(term_is("x\xe2\x82", "x\\xe2\\x82"));
    CHECK(term_is("\xc0\xaf", "\\xc0\\xaf"));
    CHECK(term_is("\xed\xa0\x80", "\\xed\\xa0\\x80"));
    CHECK(term_is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"));
    /* C1 CSI (U+009B), a right-to-left override, a line separator. */
    CHECK(term_is("\xc2\x9b"
                  "31m",
                  "\\u{009b}31m"));
    CHECK(term_is("abc\xe2\x80\xae"
                  "cba",
                  "abc\\u{202e}cba"));
    CHECK(term_is("\xe2\x80\xa8", "\\u{2028}"));
    CHECK(term_is("../../etc/passwd", "../../etc/passwd")); /* only a file name needs more */

    /* Truncation keeps whole escapes and reports the full length. */
    char small[6];
    CHECK(text_escape_terminal(small, sizeof small,
                               "ab\x1b"
                               "cd") == strlen("ab\\x1bcd"));
    CHECK(strcmp(small, "ab") == 0);
    CHECK(text_escape_terminal(small, sizeof small, "\xc3\xa9\xc3\xa9\xc3\xa9") == 6);
    CHECK(strcmp(small, "\xc3\xa9\xc3\xa9") == 0);
    CHECK(text_escape_terminal(NULL, 0, "\x1b") == 4);
    char buf[32];
    CHECK(strcmp(text_term(buf, sizeof buf, NULL), "-") == 0);

    /* The streaming form matches the buffer form, also for text longer than its buffer. */
    char *big = malloc(2001), *want = malloc(8001), *got = NULL;
    size_t len = 0;
    for (int i = 0; i < 2000; i++)
        big[i] = "a\x1b\xff\\"[i % 4];
    big[2000] = '\0';
    text_escape_terminal(want, 8001, big);
    FILE *f = open_memstream(&got, &len);
    CHECK(f && text_fput_terminal(big, f) != EOF);
    if (f)
        fclose(f);
    CHECK(got && strcmp(got, want) == 0);
    free(got);
    free(want);
    free(big);
}

static void test_filename(void)
{
    CHECK(name_is("board-7.lab_a", "board-7.lab_a"));
    CHECK(name_is("../etc/passwd", "%2e.%2fetc%2fpasswd"));
    CHECK(name_is(".hidden", "%2ehidden"));
    CHECK(name_is("a\\b/c", "a%5cb%2fc"));
    CHECK(name_is("x\x1b\x07\r\n\x7f", "x%1b%07%0d%0a%7f"));
    CHECK(name_is("50%", "50%25")); /* '%' itself is escaped: one name, one file */
    CHECK(name_is("\xc3\xa9\xff", "%c3%a9%ff"));
    CHECK(name_is("", "%"));
    char small[5];
    CHECK(text_escape_filename(small, sizeof small, "ab/cd") == 7);
    CHECK(strcmp(small, "ab") == 0);
}

static void test_xml(void)
{
    CHECK(xml_is("a<b>&\"c'", SIZE_MAX, "a&lt;b&gt;&amp;&quot;c&#39;"));
    CHECK(xml_is("\x1b[1m\x07\x7f", SIZE_MAX, "\xef\xbf\xbd[1m\xef\xbf\xbd\xef\xbf\xbd"));
    CHECK(xml_is("ok\xff", SIZE_MAX, "ok\xef\xbf\xbd"));
    CHECK(xml_is("\xe2\x80\xae"
                 "x",
                 SIZE_MAX, "\xef\xbf\xbdx"));
    CHECK(xml_is("\xef\xbf\xbe", SIZE_MAX, "\xef\xbf\xbd")); /* U+FFFE is no XML character */
    CHECK(xml_is("caf\xc3\xa9s", 4, "caf\xc3\xa9"));         /* characters, not bytes */
    CHECK(text_utf8_chars("caf\xc3\xa9\xff") == 5);
}

int main(void)
{
    static const struct tb5_test tests[] = {
        {"terminal", test_terminal},
        {"filename", test_filename},
        {"xml", test_xml},
    };
    return tb5_run_tests(tests, sizeof tests / sizeof tests[0]);
}
