/* session.json: the example in docs/cli.md parses to the values it shows, formatting and
 * parsing again gives the same session, and each kind of mistake is refused with a message
 * naming the member. Usage: test_session docs/cli.md */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acart_check.h"
#include "file_util.h"
#include "session.h"

/* The JSON block after the "session example" marker of docs/cli.md. */
static char *example_from_docs(const char *path)
{
    char *doc;
    size_t len;
    struct diag d = {0};
    if (file_read_all(path, &doc, &len, &d) != 0) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    const char *marker = strstr(doc, "<!-- session example -->");
    const char *start = marker ? strstr(marker, "```json\n") : NULL;
    const char *end = start ? strstr(start + 8, "\n```") : NULL;
    if (!end) {
        fprintf(stderr, "%s: no session example block\n", path);
        exit(1);
    }
    char *json = strndup(start + 8, (size_t)(end - start - 8) + 1);
    free(doc);
    return json;
}

static void check_example(const struct session *s)
{
    CHECK(strcmp(s->hostname, "qemu-pc") == 0);
    CHECK(strcmp(s->address, "127.0.0.1:9321") == 0);
    CHECK(strcmp(s->os_sysname, "acart") == 0);
    CHECK(s->tsc_hz == 2200000000u);
    CHECK(s->num_cpus == 2);
    CHECK(strcmp(s->cpu_vendor, "GenuineIntel") == 0);
    CHECK(s->cpu_family == 6 && s->cpu_model == 85 && s->cpu_stepping == 4);
    CHECK(s->num_topology == 2 && s->topology[1].core == 1 && s->topology[1].apic_id == 1);
    CHECK(s->transfer == SESSION_TRANSFER_DELAYED);
    time_t t;
    CHECK(session_start_time(s, &t) == 0 && t == 1738324800);
    CHECK(s->duration_s == 5.0);
    CHECK(s->num_descriptors == 1 && session_record_size(s, 0) == 176 &&
          session_record_size(s, 1) == 0);
    CHECK(session_descriptor(s, 0) == &s->descriptors[0] && session_descriptor(s, 1) == NULL);
    CHECK(s->descriptors[0].callstack_offset == 48 && s->descriptors[0].callstack_size == 128);
    CHECK(session_callstack_depth(s) == 16);
    CHECK(s->num_events == 1 && strcmp(s->events[0].name, "CPU_CLK_UNHALTED.REF_TSC") == 0);
    CHECK(s->events[0].sample_after == 2200000);
    CHECK(s->samples_total == 10000);
    CHECK(s->samples_per_cpu[0] == 5000 && s->samples_per_cpu[1] == 5000);
    CHECK(s->dropped_per_cpu[0] == 0 && s->dropped_per_cpu[1] == 12);
    CHECK(s->num_tasks == 2 && strcmp(session_task_name(s, 1, 2), "workload") == 0);
    CHECK(session_task_name(s, 1, 3) == NULL);
    CHECK(s->num_modules == 1 && s->modules[0].load_address == 0x100000 &&
          s->modules[0].length == 0x80000);
}

static int same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_same(const struct session *a, const struct session *b)
{
    CHECK(same_string(a->hostname, b->hostname) && same_string(a->address, b->address));
    CHECK(same_string(a->os_sysname, b->os_sysname) && same_string(a->os_release, b->os_release));
    CHECK(same_string(a->os_version, b->os_version) && same_string(a->cpu_vendor, b->cpu_vendor));
    CHECK(a->tsc_hz == b->tsc_hz && a->num_cpus == b->num_cpus);
    CHECK(a->cpu_family == b->cpu_family && a->cpu_model == b->cpu_model);
    CHECK(a->num_topology == b->num_topology &&
          memcmp(a->topology, b->topology, a->num_topology * sizeof *a->topology) == 0);
    CHECK(a->transfer == b->transfer && same_string(a->started_utc, b->started_utc));
    CHECK(fabs(a->duration_s - b->duration_s) < 1e-9);
    CHECK(a->num_descriptors == b->num_descriptors &&
          memcmp(a->descriptors, b->descriptors, a->num_descriptors * sizeof *a->descriptors) == 0);
    CHECK(a->num_events == b->num_events);
    for (size_t i = 0; i < a->num_events && i < b->num_events; i++)
        CHECK(same_string(a->events[i].name, b->events[i].name) &&
              a->events[i].sample_after == b->events[i].sample_after);
    CHECK(a->samples_total == b->samples_total);
    CHECK(memcmp(a->samples_per_cpu, b->samples_per_cpu, a->num_cpus * 8) == 0);
    CHECK(memcmp(a->dropped_per_cpu, b->dropped_per_cpu, a->num_cpus * 8) == 0);
    CHECK(a->num_tasks == b->num_tasks && a->num_modules == b->num_modules);
    for (size_t i = 0; i < a->num_tasks && i < b->num_tasks; i++)
        CHECK(same_string(a->tasks[i].name, b->tasks[i].name) &&
              a->tasks[i].tid == b->tasks[i].tid);
    for (size_t i = 0; i < a->num_modules && i < b->num_modules; i++)
        CHECK(same_string(a->modules[i].path, b->modules[i].path) &&
              a->modules[i].load_address == b->modules[i].load_address);
}

/* The example with `from` replaced by `to`, or NULL if it has no `from`. */
static char *edited(const char *example, const char *from, const char *to)
{
    const char *at = strstr(example, from);
    if (!at) {
        fprintf(stderr, "the example has no %s\n", from);
        check_failures++;
        return NULL;
    }
    size_t n = strlen(example) - strlen(from) + strlen(to) + 1;
    char *text = malloc(n);
    snprintf(text, n, "%.*s%s%s", (int)(at - example), example, to, at + strlen(from));
    return text;
}

/* Files written before call stacks have descriptors without their members. */
static void check_without_callstacks(const char *example)
{
    char *text = edited(example,
                        "\"sample_size\": 176, \"callstack_offset\": 48, "
                        "\"callstack_size\": 128",
                        "\"sample_size\": 48");
    struct session s;
    struct diag d = {0};
    if (!text)
        return;
    if (session_parse(text, "old example", &s, &d) != 0) {
        fprintf(stderr, "a descriptor without call stack members is refused: %s\n", d.msg);
        check_failures++;
    } else {
        CHECK(session_record_size(&s, 0) == 48);
        CHECK(s.descriptors[0].callstack_offset == 0 && s.descriptors[0].callstack_size == 0);
        CHECK(session_callstack_depth(&s) == 0);
        session_free(&s);
    }
    free(text);
}

/* The example with `from` replaced by `to` must be refused, naming `member`. */
static void check_refused(const char *example, const char *from, const char *to, const char *member)
{
    char *text = edited(example, from, to);
    if (!text)
        return;
    struct session s;
    struct diag d = {0};
    int rc = session_parse(text, "example", &s, &d);
    if (rc != DIAG_INPUT || !strstr(d.msg, "example: ") || !strstr(d.msg, member)) {
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
    if (argc != 2) {
        fprintf(stderr, "usage: test_session docs/cli.md\n");
        return 2;
    }
    char *example = example_from_docs(argv[1]);
    struct session s, again;
    struct diag d = {0};
    if (session_parse(example, "example", &s, &d) != 0) {
        fprintf(stderr, "the documented example is refused: %s\n", d.msg);
        return 1;
    }
    check_example(&s);

    char *text = session_format(&s);
    CHECK(text != NULL);
    if (text && session_parse(text, "formatted", &again, &d) == 0) {
        check_same(&s, &again);
        session_free(&again);
    } else {
        fprintf(stderr, "formatted session refused: %s\n", d.msg);
        check_failures++;
    }
    free(text);
    session_free(&s);

    check_refused(example, "\"acart-session\"", "\"other\"", "format");
    check_refused(example, "\"version\": 1", "\"version\": 2", "version 2");
    check_refused(example, "\"tsc_hz\": 2200000000,", "", "target.tsc_hz: missing");
    check_refused(example, "\"num_cpus\": 2", "\"num_cpus\": 0", "target.num_cpus");
    check_refused(example, "\"hostname\": \"qemu-pc\"", "\"hostname\": \"a/b\"", "target.hostname");
    check_refused(example, "\"family\": 6", "\"family\": \"six\"", "target.cpu_signature.family");
    check_refused(example, "\"delayed\"", "\"later\"", "transfer");
    check_refused(example, "2025-01-31T12:00:00Z", "yesterday", "started_utc");
    check_refused(example, "\"duration_s\": 5.0", "\"duration_s\": -1", "duration_s");
    check_refused(example, "\"sample_size\": 176", "\"sample_size\": 40",
                  "descriptors[].sample_size");
    check_without_callstacks(example);
    check_refused(example, "\"callstack_size\": 128", "\"callstack_size\": 124",
                  "descriptors[].callstack_size");
    check_refused(example, "\"callstack_size\": 128", "\"callstack_size\": 0",
                  "descriptors[].callstack_offset");
    check_refused(example,
                  "\"sample_size\": 176, \"callstack_offset\": 48, \"callstack_size\": 128",
                  "\"sample_size\": 568, \"callstack_offset\": 48, \"callstack_size\": 520",
                  "descriptors[].callstack_size");
    check_refused(example, "\"callstack_offset\": 48", "\"callstack_offset\": 40",
                  "descriptors[].callstack_offset");
    check_refused(example, "\"callstack_offset\": 48", "\"callstack_offset\": 56",
                  "descriptors[].callstack_offset");
    check_refused(example, "\"callstack_size\": 128", "\"callstack_size\": -8",
                  "descriptors[].callstack_size");
    check_refused(example, "\"index\": 0", "\"index\": 1", "events[].index");
    check_refused(example, "\"sample_after\": 2200000", "\"sample_after\": 1.5",
                  "events[].sample_after");
    check_refused(example, "\"per_cpu\": [5000, 5000]", "\"per_cpu\": [5000]", "samples.per_cpu");
    check_refused(example, "\"tid\": 2,", "", "tasks[].tid: missing");
    check_refused(example, "\"0x100000\"", "1048576", "modules[].load_address");
    check_refused(example, "\"cpu\": 1,", "\"cpu\": 2,", "target.topology[].cpu");
    check_refused(example, "\n}", "", "not valid JSON");
    free(example);

    if (check_failures) {
        fprintf(stderr, "%d checks failed\n", check_failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
