/*
 * test_tools.c - the guide's example programs as library functions: print_tb5
 * (tb5_print) and the tbrw_reader/tbrw_writer round trip (tb5_dump, tb5_rewrite).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tb5_test.h"

#define N 3000

static TBRW_MODULE mods[3];
static TBRW_SampleRecordPC samples[N];
static TBRW_U64 tscs[N];

static void write_input(const char *path)
{
    TBRW_PTR p;
    TBRW_PID pid = {0};
    TBRW_TID tid = {0};
    const char blob[] = "collector settings";

    mods[0] = fx_module(428, 0x630E0000, 0x27000, 0, (TBRW_U64)-1, TBRW_MODULE_IS_EXE,
                        L"ProjNavigator.dll");
    mods[1] = fx_module(428, 0x10000000, 0x1000, 100, 2000, 0, L"libz\u00e9.so");
    mods[2] =
        fx_module(0, 0xC0000000, 0x100000, 0, (TBRW_U64)-1, TBRW_MODULE_GLOBAL_LOAD, L"kernel");
    for (int i = 0; i < N; i++) {
        TBRW_U32 ip = i % 3 == 0 ? 0x630E5907 : i % 3 == 1 ? 0x10000010 : 0xC0000100;
        samples[i] = fx_sample(428, 1 + i % 2, ip, 0);
        tscs[i] = (TBRW_U64)i;
    }
    CHECK_OK(
        TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    fx_write_globals(p, mods, 3);
    pid.pid_size = sizeof(pid);
    pid.pid_id = 428;
    pid.pid_name.soi_ptr = (TBRW_CHAR *)L"navigator";
    tid.tid_size = sizeof(tid);
    tid.tid_associated_pid = 428;
    tid.tid_id = 1;
    CHECK_OK(TBRW_writing_section(p, TBRW_PROCESS_THREAD_SECTION));
    CHECK_OK(TBRW_add_process(p, &pid));
    CHECK_OK(TBRW_add_thread(p, &tid));
    CHECK_OK(TBRW_done_section(p, TBRW_PROCESS_THREAD_SECTION));
    CHECK_OK(TBRW_writing_section(p, TBRW_USER_DEFINED_GLOBAL_SECTION));
    CHECK_OK(TBRW_set_user_defined_global(p, sizeof(blob), blob));
    CHECK_OK(TBRW_done_section(p, TBRW_USER_DEFINED_GLOBAL_SECTION));
    fx_write_stream0(p, samples, tscs, N);
    CHECK_OK(TBRW_close(p));
}

/* tb5_print's text without its first line (which names the file). */
static char *printed(const char *path, unsigned long long max)
{
    char *text = NULL, *body;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    CHECK_OK((TBRW_U32)tb5_print(f, path, max));
    fclose(f);
    body = strchr(text, '\n');
    body = strdup(body ? body + 1 : "");
    free(text);
    return body;
}

static void test_print(void)
{
    const char *path = tb5_scratch("print.tb5");
    char *text;
    TBRW_PTR p;
    TBRW_U32 bound = 1;

    write_input(path);
    text = printed(path, 5);
    CHECK(strstr(text, "[hardware] 1 node(s)") != NULL);
    CHECK(strstr(text, "host: testhost.example (10.10.10.10)") != NULL);
    CHECK(strstr(text, "[modules] 3") != NULL);
    CHECK(strstr(text, "libz\xc3\xa9.so") != NULL);
    CHECK(strstr(text, "[stream 0]") != NULL);
    CHECK(strstr(text, "event 0: SampleEvent (Core 2) sav 2000000 EBS") != NULL);
    CHECK(strstr(text, "data: 3000 record(s) of 40 bytes") != NULL);
    CHECK(strstr(text, "#0 ip 0x630e5907") != NULL);
    CHECK(strstr(text, "-> ProjNavigator.dll") != NULL);
    CHECK(strstr(text, "#5 ") == NULL); /* only five records */
    CHECK(strstr(text, "... 2995 more") != NULL);
    /* of the 1000 samples at 0x10000010, those with tsc in [100, 2000) are in libz */
    CHECK(strstr(text, "1000  #0 ProjNavigator.dll") != NULL);
    CHECK(strstr(text, "634  #1 libz") != NULL);
    CHECK(strstr(text, "366  (no module)") != NULL);
    CHECK(strstr(text, "1000  #2 kernel") != NULL);
    CHECK(strstr(text, "[user-defined global] 19 bytes") != NULL);
    CHECK(strstr(text, "pid 428 created 0: navigator") != NULL);
    free(text);
    /* printing binds in memory only */
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_is_bound(p, 0, &bound));
    CHECK(bound == 0);
    CHECK_OK(TBRW_close(p));
    CHECK_RC((TBRW_U32)tb5_print(stdout, tb5_scratch("none.tb5"), 0), TBRW_FILE_OPEN_FAILED);
}

static void test_dump_and_rewrite_round_trip(void)
{
    const char *in = strdup(tb5_scratch("in.tb5"));
    const char *dump = strdup(tb5_scratch("in.dat"));
    const char *out = strdup(tb5_scratch("out.tb5"));
    char data_file[600];
    char *before, *after;
    TBRW_PTR p;

    write_input(in);
    CHECK_OK((TBRW_U32)tb5_dump(in, dump));
    snprintf(data_file, sizeof(data_file), "%s.stream0.dat", dump);
    CHECK(fx_file_size(data_file) == N * 40);
    CHECK_OK((TBRW_U32)tb5_rewrite(dump, out));
    CHECK_OK(TBRW_open(&p, tb5_wide(out), TBRW_FILE_READ));
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));
    /* Everything print shows, strings included, survives the trip. */
    before = printed(in, 0);
    after = printed(out, 0);
    CHECK(strlen(before) > 1000 && strcmp(before, after) == 0);
    free(before);
    free(after);

    /* A bound file dumps without its derived processes, and comes back unbound. */
    CHECK_OK(TBRW_open(&p, tb5_wide(out), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_OK(TBRW_dobind(p, 0));
    CHECK_OK(TBRW_close(p));
    CHECK_OK((TBRW_U32)tb5_dump(out, dump));
    CHECK_OK((TBRW_U32)tb5_rewrite(dump, in));
    before = printed(in, 0);
    after = printed(out, 0);
    CHECK(strcmp(before, after) != 0 && strstr(after, "bound in the file") != NULL);
    CHECK(strstr(before, "bound for printing") != NULL);
    free(before);
    free(after);

    /* A damaged dump is refused and leaves no output behind. */
    fx_flip_byte(dump, 2);
    CHECK_RC((TBRW_U32)tb5_rewrite(dump, out), TBRW_BAD_MAGIC);
    CHECK_RC((TBRW_U32)tb5_dump(tb5_scratch("none.tb5"), dump), TBRW_FILE_OPEN_FAILED);
    free((void *)in);
    free((void *)dump);
    free((void *)out);
}

int main(void)
{
    static const struct tb5_test tests[] = {
        TB5_TEST(test_print),
        TB5_TEST(test_dump_and_rewrite_round_trip),
    };
    return tb5_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
