/*
 * test_bind.c - binding (3.3, 6.1, 8.12): the guide's worked example; modules
 * loaded and unloaded over time at overlapping addresses in several processes,
 * with samples before, during and after; global modules; separate unload
 * records; sample-count timing; custom streams; persistence, read-only binding,
 * unbinding; and a large collection checked sample by sample.
 */
#include <stdlib.h>
#include <string.h>

#include "tb5_test.h"

#define NONE TBRW_BIND_NO_INDEX

struct collected {
    DATA_BIND_STRUCT *binds;
    TBRW_U64 count;
    TBRW_U64 cap;
};

static TBRW_U32 collect_cb(const void *data, TBRW_U32 data_size, TBRW_U64 n,
                           const DATA_BIND_STRUCT *binds, TBRW_U32 bind_size, void *user)
{
    struct collected *c = user;

    (void)data;
    CHECK(bind_size == n * sizeof(DATA_BIND_STRUCT));
    CHECK(data_size % n == 0);
    if (c->count + n > c->cap) {
        c->cap = (c->count + n) * 2;
        c->binds = realloc(c->binds, c->cap * sizeof(*c->binds));
    }
    memcpy(c->binds + c->count, binds, n * sizeof(*binds));
    c->count += n;
    return 1;
}

static struct collected collect(TBRW_PTR p, TBRW_U32 stream)
{
    struct collected c = {0};

    CHECK_OK(TBRW_bind_enumerate_data(p, stream, collect_cb, &c, 0));
    return c;
}

static TBRW_U32 pid_of(TBRW_PTR p, TBRW_U64 pid_index)
{
    const TBRW_PID *pid = NULL;

    if (pid_index == NONE || TBRW_get_one_pid(p, pid_index, &pid) != TBRW_SUCCESS)
        return 0xFFFFFFFF;
    return pid->pid_id;
}

static void test_guide_example(void)
{
    /* 3.3: ProjNavigator.dll spans 630E0000..63107000 in process 428; a sample of
     * process 428 at 630E5907 belongs to it. */
    const char *path = tb5_scratch("guide.tb5");
    TBRW_MODULE mods[2] = {
        fx_module(428, 0x630E0000, 0x27000, 0, (TBRW_U64)-1, TBRW_MODULE_IS_EXE,
                  L"ProjNavigator.dll"),
        fx_module(428, 0x10000000, 0x1000, 0, (TBRW_U64)-1, 0, L"other.dll"),
    };
    TBRW_SampleRecordPC s[3] = {fx_sample(428, 12, 0x630E5907, 0),
                                fx_sample(428, 12, 0x63107000, 0),  /* one past the end */
                                fx_sample(429, 13, 0x630E5907, 0)}; /* another process */
    TBRW_U64 tsc[3] = {100, 101, 102};
    TBRW_U32 bound = 7, size = 0;
    const TBRW_MODULE *m;
    const TBRW_TID *tid;
    struct collected c;
    TBRW_PTR p;

    fx_write_file(path, mods, 2, s, tsc, 3);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_OK(TBRW_is_bound(p, 0, &bound));
    CHECK(bound == 0);
    CHECK_RC(TBRW_get_size_of_data_bind_entry(p, 0, &size), TBRW_STREAM_NOT_BOUND);
    CHECK_RC(TBRW_bind_enumerate_data(p, 0, collect_cb, NULL, 0), TBRW_STREAM_NOT_BOUND);
    CHECK_RC(TBRW_reading_section(p, TBRW_PROCESS_THREAD_SECTION), TBRW_SECTION_NOT_EXIST);
    CHECK_OK(TBRW_dobind(p, 0));
    CHECK_OK(TBRW_is_bound(p, 0, &bound));
    CHECK(bound == 1);
    CHECK_OK(TBRW_get_size_of_data_bind_entry(p, 0, &size));
    CHECK(size == sizeof(DATA_BIND_STRUCT));
    CHECK_OK(TBRW_get_size_of_module_bind_entry(p, 0, &size));
    CHECK(size == sizeof(MODULE_BIND_STRUCT));
    CHECK_OK(TBRW_get_size_of_tid_bind_entry(p, 0, &size));
    CHECK(size == sizeof(TID_BIND_STRUCT));

    c = collect(p, 0);
    CHECK(c.count == 3);
    CHECK(c.binds[0].module_index == 0);
    CHECK_OK(TBRW_get_one_module(p, c.binds[0].module_index, &m));
    CHECK(strcmp(fx_string(p, m->module_name), "ProjNavigator.dll") == 0);
    CHECK(pid_of(p, c.binds[0].pid_index) == 428);
    CHECK_OK(TBRW_get_one_tid(p, c.binds[0].tid_index, &tid));
    CHECK(tid->tid_id == 12 && tid->tid_associated_pid == 428);
    {
        const TBRW_PID *pid;
        CHECK_OK(TBRW_get_one_pid(p, c.binds[0].pid_index, &pid));
        /* the process is named after its executable module */
        CHECK(strcmp(fx_string(p, pid->pid_name), "ProjNavigator.dll") == 0);
    }
    CHECK(c.binds[1].module_index == NONE);
    CHECK(c.binds[1].pid_index == c.binds[0].pid_index);
    CHECK(c.binds[2].module_index == NONE);
    CHECK(pid_of(p, c.binds[2].pid_index) == 429);
    CHECK(c.binds[2].tid_index != c.binds[0].tid_index);
    free(c.binds);
    CHECK_OK(TBRW_dobind(p, 0)); /* already bound: nothing to do */
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));

    /* Bound on disk: a read-only open sees the binding. */
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_is_bound(p, 0, &bound));
    CHECK(bound == 1);
    c = collect(p, 0);
    CHECK(c.count == 3 && c.binds[0].module_index == 0);
    free(c.binds);
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));
}

enum { A, B, C, D, E, E_UNLOAD, K, NMODS };

static void overlapping_modules(TBRW_MODULE *mods)
{
    mods[A] = fx_module(100, 0x1000, 0x1000, 10, 50, TBRW_MODULE_IS_EXE, L"A");
    mods[B] = fx_module(100, 0x1000, 0x2000, 50, (TBRW_U64)-1, 0, L"B");
    mods[C] = fx_module(100, 0x1800, 0x100, 20, 30, 0, L"C");
    mods[D] = fx_module(200, 0x1000, 0x1000, 0, (TBRW_U64)-1, TBRW_MODULE_IS_EXE, L"D");
    mods[E] = fx_module(100, 0x5000, 0x100, 60, (TBRW_U64)-1, 0, L"E");
    /* E's unload comes as a record of its own (6.6, TBRW_MODULE_UNLOADED). */
    mods[E_UNLOAD] = fx_module(100, 0x5000, 0x100, 80, 0, 0, L"E");
    mods[E_UNLOAD].module_flags = TBRW_MODULE_TSC_USED | TBRW_MODULE_UNLOADED;
    mods[K] = fx_module(0, 0xC0000000, 0x1000, 0, (TBRW_U64)-1, TBRW_MODULE_GLOBAL_LOAD, L"kernel");
}

static const struct {
    TBRW_U32 pid;
    TBRW_U32 ip;
    TBRW_U64 tsc;
    TBRW_U64 module;
} overlap_cases[] = {
    {100, 0x1500, 5, NONE},     /* before A is loaded */
    {100, 0x1500, 10, A},       /* at A's load: included */
    {100, 0x1850, 25, C},       /* C sits inside A and was loaded after it */
    {100, 0x1850, 30, A},       /* C unloaded at 30: excluded */
    {100, 0x1500, 49, A},       /* A's last tick */
    {100, 0x1500, 50, B},       /* A gone, B loaded over the same addresses */
    {100, 0x2500, 40, NONE},    /* B's upper half, before B */
    {100, 0x2500, 60, B},       /* and after */
    {200, 0x1500, 5, D},        /* same address, another process */
    {200, 0x2500, 60, NONE},    /* B is not process 200's */
    {300, 0x1500, 60, NONE},    /* a process without modules */
    {300, 0xC0000010, 60, K},   /* sees the global module */
    {100, 0xC0000FFF, 1, K},    /* last byte of the global module */
    {100, 0xC0001000, 1, NONE}, /* one past it */
    {100, 0x5050, 59, NONE},    /* before E */
    {100, 0x5050, 70, E},       /* during E */
    {100, 0x5050, 80, NONE},    /* E's unload record ends it */
    {100, 0x0FFF, 60, NONE},    /* just below A and B */
    {100, 0x2FFF, 1000000, B},  /* B never unloads */
};
#define NCASES (sizeof(overlap_cases) / sizeof(overlap_cases[0]))

static TBRW_U32 check_module_binds(const TBRW_MODULE *m, TBRW_U32 size, TBRW_U64 n,
                                   const MODULE_BIND_STRUCT *b, TBRW_U32 bsize, void *user)
{
    CHECK(size == n * sizeof(TBRW_MODULE) && bsize == n * sizeof(MODULE_BIND_STRUCT));
    for (TBRW_U64 i = 0; i < n; i++)
        CHECK(pid_of(user, b[i].pid_index) == m[i].module_associated_pid);
    return 1;
}

static TBRW_U32 check_tid_binds(const TBRW_TID *t, TBRW_U32 size, TBRW_U64 n,
                                const TID_BIND_STRUCT *b, TBRW_U32 bsize, void *user)
{
    CHECK(size == n * sizeof(TBRW_TID) && bsize == n * sizeof(TID_BIND_STRUCT));
    for (TBRW_U64 i = 0; i < n; i++)
        CHECK(pid_of(user, b[i].pid_index) == t[i].tid_associated_pid);
    return 1;
}

static void test_modules_over_time_and_processes(void)
{
    const char *path = tb5_scratch("overlap.tb5");
    TBRW_MODULE mods[NMODS];
    TBRW_SampleRecordPC s[NCASES];
    TBRW_U64 tsc[NCASES];
    struct collected c;
    TBRW_PTR p;
    TBRW_U32 npids = 0;

    overlapping_modules(mods);
    for (size_t i = 0; i < NCASES; i++) {
        s[i] = fx_sample(overlap_cases[i].pid, overlap_cases[i].pid + 1, overlap_cases[i].ip, 0);
        tsc[i] = overlap_cases[i].tsc;
    }
    fx_write_file(path, mods, NMODS, s, tsc, NCASES);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_RC(TBRW_bind_enumerate_modules(p, check_module_binds, p, 0), TBRW_TB5_IS_NOT_BOUND);
    CHECK_OK(TBRW_dobind(p, 0));
    c = collect(p, 0);
    CHECK(c.count == NCASES);
    for (size_t i = 0; i < NCASES && c.count == NCASES; i++) {
        if (c.binds[i].module_index != overlap_cases[i].module)
            fprintf(stderr, "case %zu: pid %u ip %#x tsc %llu: module %lld, want %lld\n", i,
                    overlap_cases[i].pid, overlap_cases[i].ip,
                    (unsigned long long)overlap_cases[i].tsc, (long long)c.binds[i].module_index,
                    (long long)overlap_cases[i].module);
        CHECK(c.binds[i].module_index == overlap_cases[i].module);
        CHECK(pid_of(p, c.binds[i].pid_index) == overlap_cases[i].pid);
    }
    free(c.binds);
    /* Processes come from the modules (100, 200, 0) and then from the samples (300). */
    {
        const TBRW_PID *pid;
        CHECK_OK(TBRW_get_one_pid(p, 0, &pid));
        CHECK(pid->pid_id == 100 && strcmp(fx_string(p, pid->pid_name), "A") == 0);
        CHECK_OK(TBRW_get_one_pid(p, 1, &pid));
        CHECK(pid->pid_id == 200 && strcmp(fx_string(p, pid->pid_name), "D") == 0);
        CHECK_OK(TBRW_get_one_pid(p, 2, &pid));
        CHECK(pid->pid_id == 0);
        CHECK_OK(TBRW_get_one_pid(p, 3, &pid));
        CHECK(pid->pid_id == 300 && pid->pid_name.soi_uniqueid == 0);
        CHECK_RC(TBRW_convert_uniqueid_to_string(p, 0, &pid->pid_name, NULL, NULL),
                 TBRW_INVALID_STRING);
        CHECK_RC(TBRW_get_one_pid(p, 4, &pid), TBRW_ENTRY_NOT_FOUND);
        CHECK(pid == NULL);
    }
    CHECK_OK(TBRW_reading_section(p, TBRW_PROCESS_THREAD_SECTION));
    CHECK_OK(TBRW_bind_enumerate_modules(p, check_module_binds, p, 0));
    CHECK_OK(TBRW_bind_enumerate_threads(p, check_tid_binds, p, 0));
    CHECK_OK(TBRW_done_section(p, TBRW_PROCESS_THREAD_SECTION));
    {
        TBRW_U32 n = 0;
        const TBRW_TID *t;
        while (TBRW_get_one_tid(p, n, &t) == TBRW_SUCCESS)
            n++;
        npids = n;
    }
    CHECK(npids == 3); /* threads 101, 201, 301 */
    CHECK_OK(TBRW_verify(p));

    /* Unbinding forgets the derived processes too. */
    CHECK_OK(TBRW_unbind(p, 0));
    CHECK_RC(TBRW_unbind(p, 0), TBRW_STREAM_NOT_BOUND);
    CHECK_RC(TBRW_reading_section(p, TBRW_PROCESS_THREAD_SECTION), TBRW_SECTION_NOT_EXIST);
    CHECK_OK(TBRW_close(p));
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    {
        TBRW_U32 bound = 1;
        CHECK_OK(TBRW_is_bound(p, 0, &bound));
        CHECK(bound == 0);
    }
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));
}

static void test_read_only_binding_leaves_file_alone(void)
{
    const char *path = tb5_scratch("readonly.tb5");
    TBRW_MODULE mods[NMODS];
    TBRW_SampleRecordPC s[NCASES];
    TBRW_U64 tsc[NCASES];
    struct collected c;
    TBRW_PTR p;
    TBRW_U32 bound = 0;
    long size;

    overlapping_modules(mods);
    for (size_t i = 0; i < NCASES; i++) {
        s[i] = fx_sample(overlap_cases[i].pid, 1, overlap_cases[i].ip, 0);
        tsc[i] = overlap_cases[i].tsc;
    }
    fx_write_file(path, mods, NMODS, s, tsc, NCASES);
    size = fx_file_size(path);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_dobind(p, 0));
    CHECK_OK(TBRW_is_bound(p, 0, &bound));
    CHECK(bound == 1);
    c = collect(p, 0);
    for (size_t i = 0; i < NCASES && c.count == NCASES; i++)
        CHECK(c.binds[i].module_index == overlap_cases[i].module);
    free(c.binds);
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));
    CHECK(fx_file_size(path) == size);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_is_bound(p, 0, &bound));
    CHECK(bound == 0);
    CHECK_OK(TBRW_close(p));
}

static void test_sample_count_timing(void)
{
    /* Modules without TBRW_MODULE_TSC_USED are timed in samples: loaded at sample 2,
     * unloaded at sample 4 (reserved_for_legacy holds the unload count). */
    const char *path = tb5_scratch("count.tb5");
    TBRW_MODULE m = fx_module(5, 0x8000, 0x100, 2, 0, 0, L"counted");
    TBRW_SampleRecordPC s[6];
    TBRW_U64 tsc[6] = {1000, 900, 800, 700, 600, 500}; /* not what counts here */
    const TBRW_U64 want[6] = {NONE, NONE, 0, 0, NONE, NONE};
    struct collected c;
    TBRW_PTR p;

    m.module_flags = TBRW_MODULE_LOADED;
    m.reserved_for_legacy = 4;
    for (int i = 0; i < 6; i++)
        s[i] = fx_sample(5, 5, 0x8010, 0);
    fx_write_file(path, &m, 1, s, tsc, 6);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_dobind(p, 0));
    c = collect(p, 0);
    CHECK(c.count == 6);
    for (int i = 0; i < 6 && c.count == 6; i++)
        CHECK(c.binds[i].module_index == want[i]);
    free(c.binds);
    CHECK_OK(TBRW_close(p));
}

/* Stream 1 of custom records (ip, pid, tid, tsc); records of stream 2 have no ip. */
static void write_custom_streams(TBRW_PTR p, TBRW_U32 first, const TBRW_U64 (*rec)[3], size_t n)
{
    static const TBRW_U16 types[] = {ST_IP, ST_PID, ST_TIME_STAMP};
    TBRW_STREAM_INFO info = {0};

    info.stream_info_size = sizeof(info);
    info.stream_type = TBRW_SAMPLING_STREAM;
    for (TBRW_U32 s = first; s < first + 2; s++) {
        CHECK_OK(TBRW_writing_stream(p, s));
        CHECK_OK(TBRW_writing_stream_section(p, s, TBRW_STREAM_INFO_SECTION));
        CHECK_OK(TBRW_set_stream_info(p, s, &info));
        CHECK_OK(TBRW_done_stream_section(p, s, TBRW_STREAM_INFO_SECTION));
        CHECK_OK(TBRW_writing_stream_section(p, s, TBRW_DATA_DESCRIPTION_SECTION));
        for (int f = 0; f < 3; f++) {
            TBRW_SAMPREC_DESC_ENTRY d = {0};
            d.desc_size = sizeof(d);
            /* the second stream names its first field ST_NONE: no ip to bind with */
            d.desc_type = (s == first + 1 && f == 0) ? ST_NONE : types[f];
            d.desc_offset = (TBRW_U32)(8 * f);
            d.desc_data_size = 8;
            CHECK_OK(TBRW_add_data_descriptor_entry(p, s, &d));
        }
        CHECK_OK(TBRW_done_stream_section(p, s, TBRW_DATA_DESCRIPTION_SECTION));
        CHECK_OK(TBRW_writing_stream_section(p, s, TBRW_DATA_SECTION));
        CHECK_OK(TBRW_add_data(p, s, (TBRW_U32)(n * sizeof(*rec)), rec));
        CHECK_OK(TBRW_done_stream_section(p, s, TBRW_DATA_SECTION));
        CHECK_OK(TBRW_done_stream(p, s));
    }
}

static void test_custom_stream_extends_processes(void)
{
    const char *path = tb5_scratch("custom.tb5");
    TBRW_MODULE mods[NMODS];
    TBRW_SampleRecordPC s0[2] = {fx_sample(100, 1, 0x1500, 0), fx_sample(200, 2, 0x1500, 0)};
    TBRW_U64 tsc0[2] = {20, 20};
    /* ip, pid, tsc */
    const TBRW_U64 rec[4][3] = {
        {0x1850, 100, 25}, {0x1500, 100, 60}, {0xC0000004, 777, 1}, {0x1500, 200, 5}};
    struct collected c0, c1;
    TBRW_PTR p;

    overlapping_modules(mods);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    fx_write_globals(p, mods, NMODS);
    fx_write_stream0(p, s0, tsc0, 2);
    write_custom_streams(p, 1, rec, 4);
    CHECK_OK(TBRW_dobind(p, 0));
    c0 = collect(p, 0);
    CHECK_OK(TBRW_dobind(p, 1));
    CHECK_RC(TBRW_dobind(p, 2), TBRW_STREAM_NOT_BINDABLE);
    CHECK_RC(TBRW_dobind(p, 3), TBRW_STREAM_NOT_EXIST);
    c1 = collect(p, 1);
    CHECK(c1.count == 4);
    if (c1.count == 4) {
        CHECK(c1.binds[0].module_index == C);
        CHECK(c1.binds[1].module_index == B);
        CHECK(c1.binds[2].module_index == K);
        CHECK(c1.binds[3].module_index == D);
        CHECK(pid_of(p, c1.binds[2].pid_index) == 777); /* a process stream 0 never saw */
        CHECK(c1.binds[0].tid_index == NONE);           /* no ST_TID in these records */
    }
    /* Binding stream 1 extended the process list without moving stream 0's entries. */
    {
        struct collected again = collect(p, 0);
        CHECK(again.count == 2 && c0.count == 2);
        if (again.count == 2 && c0.count == 2)
            CHECK(memcmp(again.binds, c0.binds, 2 * sizeof(DATA_BIND_STRUCT)) == 0);
        free(again.binds);
    }
    free(c0.binds);
    free(c1.binds);
    /* Unbinding one stream keeps what the other still uses. */
    CHECK_OK(TBRW_unbind(p, 1));
    CHECK_OK(TBRW_reading_section(p, TBRW_PROCESS_THREAD_SECTION));
    CHECK_OK(TBRW_done_section(p, TBRW_PROCESS_THREAD_SECTION));
    CHECK_OK(TBRW_close(p));
}

/* Many samples in many processes, each checked against the module it was drawn from. */
static void test_large_collection_binds_exactly(void)
{
    enum { PIDS = 16, MODS_PER_PID = 500, SAMPLES = 400000 };
    const char *path = tb5_scratch("large.tb5");
    TBRW_MODULE *mods = malloc(PIDS * MODS_PER_PID * sizeof(*mods));
    TBRW_SampleRecordPC *s = malloc(SAMPLES * sizeof(*s));
    TBRW_U64 *tsc = malloc(SAMPLES * sizeof(*tsc));
    TBRW_U64 *want = malloc(SAMPLES * sizeof(*want));
    unsigned seed = 12345;
    struct collected c;
    TBRW_PTR p;
    long wrong = 0;

    for (int pid = 0; pid < PIDS; pid++)
        for (int k = 0; k < MODS_PER_PID; k++) {
            /* listed out of address order on purpose */
            int slot = (k * 7919) % MODS_PER_PID;
            mods[pid * MODS_PER_PID + k] = fx_module(
                1000 + pid, 0x400000 + (TBRW_U64)slot * 0x10000, 0x8000, 0, (TBRW_U64)-1, 0, L"m");
        }
    for (int i = 0; i < SAMPLES; i++) {
        int pid, k;
        TBRW_U32 off;
        seed = seed * 1103515245u + 12345u;
        pid = (int)((seed >> 8) % PIDS);
        k = (int)((seed >> 4) % MODS_PER_PID);
        off = (seed >> 3) % 0x10000; /* half of the offsets fall in the gap after a module */
        s[i] = fx_sample(1000 + (TBRW_U32)pid, (TBRW_U32)i % 4,
                         (TBRW_U32)(mods[pid * MODS_PER_PID + k].module_load_address + off), 0);
        tsc[i] = (TBRW_U64)i;
        want[i] = off < 0x8000 ? (TBRW_U64)(pid * MODS_PER_PID + k) : NONE;
    }
    fx_write_file(path, mods, PIDS * MODS_PER_PID, s, tsc, SAMPLES);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_OK(TBRW_dobind(p, 0));
    c = collect(p, 0);
    CHECK(c.count == SAMPLES);
    for (int i = 0; i < SAMPLES && c.count == SAMPLES; i++)
        wrong += c.binds[i].module_index != want[i];
    CHECK(wrong == 0);
    free(c.binds);
    CHECK_OK(TBRW_close(p));
    free(mods);
    free(s);
    free(tsc);
    free(want);
}

int main(void)
{
    static const struct tb5_test tests[] = {
        TB5_TEST(test_guide_example),
        TB5_TEST(test_modules_over_time_and_processes),
        TB5_TEST(test_read_only_binding_leaves_file_alone),
        TB5_TEST(test_sample_count_timing),
        TB5_TEST(test_custom_stream_extends_processes),
        TB5_TEST(test_large_collection_binds_exactly),
    };
    return tb5_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
