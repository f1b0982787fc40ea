/* session.json's `pt` member: the example of docs/pt.md, set into the session example of
 * docs/cli.md, parses to the values it shows; formatting and parsing again gives the same
 * sideband; each kind of mistake is refused with a message naming the member.
 * Usage: test_session_pt docs/cli.md docs/pt.md */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_check.h"
#include "file_util.h"
#include "session.h"

/* The JSON block after `marker` in the file at path. */
static char *block_from_docs(const char *path, const char *marker)
{
    char *doc;
    size_t len;
    struct diag d = {0};
    if (file_read_all(path, &doc, &len, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    const char *at = strstr(doc, marker);
    const char *start = at ? strstr(at, "```json\n") : NULL;
    const char *end = start ? strstr(start + 8, "\n```") : NULL;
    if (!end) {
        fprintf(stderr, "%s: no %s block\n", path, marker);
        exit(1);
    }
    char *json = strndup(start + 8, (size_t)(end - start - 8) + 1);
    free(doc);
    return json;
}

/* text with the first `from` replaced by `to`, or NULL if it has no `from`. */
static char *edited(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "the example has no %s\n", from);
        check_failures++;
        return NULL;
    }
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void check_example(const struct session *s)
{
    const struct session_pt *p = s->pt;
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK(p->mode == SESSION_PT_FULL);
    CHECK(p->rtit_ctl == 0x10000e70full);
    CHECK(p->cpuid_15_eax == 2 && p->cpuid_15_ebx == 176 && p->cpuid_15_ecx == 25000000);
    CHECK(p->mtc_freq == 3 && p->nom_freq == 22);
    CHECK(session_pt_mtc_to_tsc(p) == 704.0);
    CHECK(p->num_filters == 1 && p->filters[0].start == 0x101000 && p->filters[0].end == 0x101fff &&
          strcmp(p->filters[0].name, "acart_demo_hotspot") == 0);
    CHECK(!p->has_freeze);
    CHECK(p->per_cpu[0].bytes == 65536 && p->per_cpu[0].num_lost == 0 && !p->per_cpu[0].wrapped);
    CHECK(p->per_cpu[1].bytes == 40960 && p->per_cpu[1].num_lost == 1 &&
          p->per_cpu[1].lost[0].offset == 16384 && p->per_cpu[1].lost[0].bytes == 8192);
}

static void check_same(const struct session_pt *a, const struct session_pt *b, uint32_t num_cpus)
{
    CHECK(a->mode == b->mode && a->rtit_ctl == b->rtit_ctl);
    CHECK(a->cpuid_15_eax == b->cpuid_15_eax && a->cpuid_15_ebx == b->cpuid_15_ebx &&
          a->cpuid_15_ecx == b->cpuid_15_ecx);
    CHECK(a->mtc_freq == b->mtc_freq && a->nom_freq == b->nom_freq);
    CHECK(a->num_filters == b->num_filters);
    for (size_t i = 0; i < a->num_filters && i < b->num_filters; i++)
        CHECK(a->filters[i].start == b->filters[i].start &&
              a->filters[i].end == b->filters[i].end &&
              strcmp(a->filters[i].name, b->filters[i].name) == 0);
    CHECK(a->has_freeze == b->has_freeze && a->freeze_reason == b->freeze_reason &&
          a->freeze_code == b->freeze_code && a->freeze_tsc == b->freeze_tsc);
    for (uint32_t n = 0; n < num_cpus; n++) {
        const struct session_pt_cpu *x = &a->per_cpu[n], *y = &b->per_cpu[n];
        CHECK(x->bytes == y->bytes && x->wrapped == y->wrapped && x->num_lost == y->num_lost);
        for (size_t i = 0; i < x->num_lost && i < y->num_lost; i++)
            CHECK(x->lost[i].offset == y->lost[i].offset && x->lost[i].bytes == y->lost[i].bytes);
    }
}

/* The formatted session parses again to the same sideband. */
static void check_roundtrip(const struct session *s)
{
    struct session again;
    struct diag d = {0};
    char *text = session_format(s);
    CHECK(text != NULL);
    if (text && session_parse(text, "formatted", &again, &d) == 0) {
        CHECK(again.pt != NULL);
        if (again.pt)
            check_same(s->pt, again.pt, s->num_cpus);
        session_free(&again);
    } else {
        fprintf(stderr, "formatted session refused: %s\n", d.msg);
        check_failures++;
    }
    free(text);
}

/* A snapshot collection: freeze, wrapped ring, no filters. */
static void check_snapshot(const char *session)
{
    char *text = edited(session, "\"mode\": \"full\"",
                        "\"mode\": \"snapshot\", \"freeze\": {\"reason\": \"api\", \"code\": 7, "
                        "\"tsc\": 123456789}");
    char *t2 = text ? edited(text, "{\"cpu\": 0, \"bytes\": 65536}",
                             "{\"cpu\": 0, \"bytes\": 65536, \"wrapped\": true}")
                    : NULL;
    struct session s;
    struct diag d = {0};
    if (t2 && session_parse(t2, "snapshot", &s, &d) == 0) {
        CHECK(s.pt->mode == SESSION_PT_SNAPSHOT && s.pt->has_freeze);
        CHECK(s.pt->freeze_reason == SESSION_PT_FREEZE_API && s.pt->freeze_code == 7 &&
              s.pt->freeze_tsc == 123456789);
        CHECK(s.pt->per_cpu[0].wrapped && !s.pt->per_cpu[1].wrapped);
        check_roundtrip(&s);
        session_free(&s);
    } else if (t2) {
        fprintf(stderr, "the snapshot session is refused: %s\n", d.msg);
        check_failures++;
    }
    free(text);
    free(t2);
}

/* The session with `from` replaced by `to` must be refused, naming `member`. */
static void check_refused(const char *session, const char *from, const char *to, const char *member)
{
    char *text = edited(session, from, to);
    if (!text)
        return;
    struct session s;
    struct diag d = {0};
    int rc = session_parse(text, "example", &s, &d);
    if (rc != DIAG_INPUT || !strstr(d.msg, member)) {
        fprintf(stderr, "%s -> %s: rc %d, message \"%s\", expected one naming %s\n", from, to, rc,
                d.msg, member);
        check_failures++;
    }
    if (rc == 0)
        session_free(&s);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_session_pt docs/cli.md docs/pt.md\n");
        return 2;
    }
    char *base = block_from_docs(argv[1], "<!-- session example -->");
    char *pt = block_from_docs(argv[2], "<!-- pt example -->");
    size_t n = strlen(pt) + 16;
    char *member = malloc(n);
    snprintf(member, n, "\"pt\": %s,\n", pt);
    /* The pt member goes right before "transfer", a top-level member of the example. */
    char *with = malloc(strlen(member) + 32);
    sprintf(with, "%s  \"transfer\"", member);
    char *example = edited(base, "\"transfer\"", with);
    free(with);
    free(member);
    if (!example)
        return 1;

    struct session s;
    struct diag d = {0};
    if (session_parse(example, "example", &s, &d) != 0) {
        fprintf(stderr, "the documented example is refused: %s\n", d.msg);
        free(example);
        return 1;
    }
    check_example(&s);
    check_roundtrip(&s);
    session_free(&s);
    if (session_parse(base, "no pt", &s, &d) == 0) {
        CHECK(s.pt == NULL);
        session_free(&s);
    }
    check_snapshot(example);

    check_refused(example, "\"version\": 1,\n  \"mode\"", "\"version\": 2,\n  \"mode\"",
                  "pt.version");
    check_refused(example, "\"mode\": \"full\"", "\"mode\": \"ring\"", "pt.mode");
    check_refused(example, "\"rtit_ctl\": \"0x10000e70f\",", "", "pt.rtit_ctl: missing");
    check_refused(example, "\"cpuid_15_eax\": 2,", "", "pt.cpuid_15_eax: missing");
    check_refused(example, "\"mtc_freq\": 3", "\"mtc_freq\": 4", "pt.mtc_freq");
    check_refused(example, "\"mtc_to_tsc\": 704", "\"mtc_to_tsc\": 700", "pt.mtc_to_tsc");
    check_refused(example, "\"nom_freq\": 22,", "", "pt.nom_freq: missing");
    check_refused(example, "\"nom_freq\": 22,", "\"nom_freq\": 256,", "pt.nom_freq");
    check_refused(example, "\"end\": \"0x101fff\"", "\"end\": \"0x100fff\"", "pt.filters[].end");
    check_refused(example, "{\"cpu\": 0, \"bytes\": 65536},", "", "pt.per_cpu");
    check_refused(example, "{\"cpu\": 0, \"bytes\"", "{\"cpu\": 1, \"bytes\"", "pt.per_cpu[].cpu");
    check_refused(example, "\"offset\": 16384", "\"offset\": 50000", "pt.per_cpu[].lost[].offset");
    check_refused(example, "\"mode\": \"full\"",
                  "\"mode\": \"full\", \"freeze\": {\"reason\": \"panic\"}", "pt.freeze.reason");
    free(example);
    free(pt);
    free(base);

    if (check_failures) {
        fprintf(stderr, "%d checks failed\n", check_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
