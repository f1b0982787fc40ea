/*
 * test_roundtrip.c - every global section, stream section and stream type written
 * through the API and read back; damaged files (flipped byte, truncation, wrong
 * magic, unknown version) each give their own error; appending and aborting.
 */
#include <stdlib.h>
#include <string.h>

#include "tb5_test.h"

#define NSAMPLES 10000

static const TBRW_U8 user_global[] = {1, 2, 3, 4, 5, 0, 7};
static const TBRW_U8 user_stream[] = {0xde, 0xad, 0xbe, 0xef};

/* Stream 1: a record of our own: ip (8), pid (4), tid (4), tsc (8), a user field (8). */
struct custom_record {
    TBRW_U64 ip;
    TBRW_U32 pid;
    TBRW_U32 tid;
    TBRW_U64 tsc;
    TBRW_U64 cookie;
};

static TBRW_MODULE modules[3];
static TBRW_SampleRecordPC samples[NSAMPLES];
static TBRW_U64 tscs[NSAMPLES];

static void make_inputs(void)
{
    modules[0] = fx_module(428, 0x630E0000, 0x27000, 0, (TBRW_U64)-1, TBRW_MODULE_IS_EXE,
                           L"ProjNavigator.dll");
    modules[1] = fx_module(428, 0x10000000, 0x1000, 100, 5000, 0, L"lib\u00e9\u4e2d.so");
    modules[2] =
        fx_module(0, 0xC0000000, 0x100000, 0, (TBRW_U64)-1, TBRW_MODULE_GLOBAL_LOAD, L"kernel");
    for (int i = 0; i < NSAMPLES; i++) {
        samples[i] = fx_sample(428, 7 + i % 3, 0x630E0000 + (TBRW_U32)i * 16, 0);
        tscs[i] = 1000 + (TBRW_U64)i;
    }
}

static void write_stream1(TBRW_PTR p)
{
    static const struct {
        TBRW_U16 type, subtype;
        TBRW_U32 offset, size;
        const wchar_t *name;
    } fields[] = {
        {ST_IP, SST_EIP, 0, 8, L"ip"},
        {ST_PID, SST_NONE, 8, 4, L"pid"},
        {ST_TID, SST_NONE, 12, 4, L"tid"},
        {ST_TIME_STAMP, SST_TSC, 16, 8, L"tsc"},
        {ST_START_USER_DEFINED + 1, SST_NONE, 24, 8, L"cookie"},
    };
    TBRW_STREAM_INFO info;

    CHECK_OK(TBRW_writing_stream(p, 1));
    memset(&info, 0, sizeof(info));
    info.stream_info_size = sizeof(info);
    info.stream_type = TBRW_CUSTOM_STREAM;
    info.comment.soi_ptr = (TBRW_CHAR *)L"custom stream";
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_set_stream_info(p, 1, &info));
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_EVENT_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_EVENT_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION));
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        TBRW_SAMPREC_DESC_ENTRY d;
        memset(&d, 0, sizeof(d));
        d.desc_size = sizeof(d);
        d.desc_type = fields[i].type;
        d.desc_subtype = fields[i].subtype;
        d.desc_offset = fields[i].offset;
        d.desc_data_size = fields[i].size;
        d.desc_name.soi_ptr = (TBRW_CHAR *)fields[i].name;
        CHECK_OK(TBRW_add_data_descriptor_entry(p, 1, &d));
    }
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_DATA_SECTION));
    for (int i = 0; i < 100; i++) {
        struct custom_record r = {0x10000000 + (TBRW_U64)i, 428, 9, 200 + (TBRW_U64)i,
                                  0xC0FFEE00 + (TBRW_U64)i};
        CHECK_OK(TBRW_add_data(p, 1, sizeof(r), &r));
    }
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_DATA_SECTION));
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_USER_DEFINED_STREAM_SECTION));
    CHECK_OK(TBRW_set_user_defined_stream(p, 1, sizeof(user_stream), user_stream));
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_USER_DEFINED_STREAM_SECTION));
    CHECK_OK(TBRW_done_stream(p, 1));
}

static void write_full(const char *path)
{
    TBRW_PTR p;
    TBRW_PID pid;
    TBRW_TID tid;

    CHECK_OK(
        TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    fx_write_globals(p, modules, 3);
    CHECK_OK(TBRW_writing_section(p, TBRW_USER_DEFINED_GLOBAL_SECTION));
    CHECK_OK(TBRW_set_user_defined_global(p, sizeof(user_global), user_global));
    CHECK_OK(TBRW_done_section(p, TBRW_USER_DEFINED_GLOBAL_SECTION));
    memset(&pid, 0, sizeof(pid));
    pid.pid_size = sizeof(pid);
    pid.pid_id = 428;
    pid.pid_event_when = 5;
    pid.pid_name.soi_ptr = (TBRW_CHAR *)L"navigator";
    memset(&tid, 0, sizeof(tid));
    tid.tid_size = sizeof(tid);
    tid.tid_associated_pid = 428;
    tid.tid_id = 7;
    tid.tid_name.soi_ptr = (TBRW_CHAR *)L"main";
    CHECK_OK(TBRW_writing_section(p, TBRW_PROCESS_THREAD_SECTION));
    CHECK_OK(TBRW_add_process(p, &pid));
    CHECK_OK(TBRW_add_thread(p, &tid));
    CHECK_OK(TBRW_done_section(p, TBRW_PROCESS_THREAD_SECTION));
    fx_write_stream0(p, samples, tscs, NSAMPLES);
    write_stream1(p);
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));
}

static void check_hardware(TBRW_PTR p)
{
    TBRW_U32 need = 0;
    TBRW_SYSTEM *sys;

    CHECK_OK(TBRW_reading_section(p, TBRW_HARDWARE_SECTION));
    CHECK_RC(TBRW_get_system(p, 0, NULL, &need), TBRW_BUFFER_TOO_SMALL);
    CHECK(need == sizeof(TBRW_SYSTEM) + sizeof(TBRW_NODE) + sizeof(TBRW_CPU) +
                      sizeof(TBRW_CPU_ARCH) + sizeof(TBRW_CPUID_IA32));
    sys = malloc(need);
    CHECK_RC(TBRW_get_system(p, need - 1, sys, NULL), TBRW_BUFFER_TOO_SMALL);
    CHECK_OK(TBRW_get_system(p, need, sys, NULL));
    CHECK(sys->system_num_nodes == 1);
    CHECK(sys->node_array[0].node_physical_memory == 1024);
    CHECK(sys->node_array[0].node_num_available == 1);
    CHECK(sys->node_array[0].cpu_array[0].cpu_speed_mhz == 3000);
    CHECK(sys->node_array[0].cpu_array[0].cpu_intel_processor_number == 8086);
    CHECK(sys->node_array[0].cpu_array[0].cpu_arch_array[0].arch_type == TBRW_GST_X86);
    CHECK(sys->node_array[0].cpu_array[0].cpu_arch_array[0].cpuid_ia32_array[0].cpuid_ebx ==
          0x756e6547);
    free(sys);
    CHECK_OK(TBRW_done_section(p, TBRW_HARDWARE_SECTION));
}

static void check_software(TBRW_PTR p)
{
    TBRW_HOST host;
    TBRW_OS os;
    TBRW_APPLICATION app;
    TBRW_VERSION_INFO version;
    TBRW_U32 used = 0;
    TBRW_U8 user[16];

    CHECK_OK(TBRW_reading_section(p, TBRW_SOFTWARE_SECTION));
    CHECK_OK(TBRW_get_host(p, sizeof(host), &host, &used));
    CHECK(used == sizeof(host));
    CHECK(strcmp(fx_string(p, host.host_name), "testhost.example") == 0);
    CHECK(strcmp(fx_string(p, host.host_ip_address), "10.10.10.10") == 0);
    CHECK_OK(TBRW_get_os(p, sizeof(os), &os, NULL));
    CHECK(os.os_platform == TBRW_OSFAMILY_USER_FIRST && os.os_build == 0xa28);
    CHECK(strcmp(fx_string(p, os.os_name), "acart RTOS") == 0);
    CHECK_OK(TBRW_get_application(p, sizeof(app), &app, NULL));
    CHECK(app.app_page_size == 4096 && app.app_max_app_addr == 0xffffffff);
    CHECK_OK(TBRW_done_section(p, TBRW_SOFTWARE_SECTION));

    CHECK_OK(TBRW_get_version_info(p, sizeof(version), &version, NULL));
    CHECK(version.sampling_driver_version == 0xffffffff && version.sample_file_version == 0x10);

    CHECK_RC(TBRW_get_user_defined_global(p, 0, NULL, &used), TBRW_BUFFER_TOO_SMALL);
    CHECK(used == sizeof(user_global));
    CHECK_OK(TBRW_get_user_defined_global(p, sizeof(user), user, NULL));
    CHECK(memcmp(user, user_global, sizeof(user_global)) == 0);
}

static TBRW_U32 count_modules(TBRW_MODULE *m, TBRW_U32 size, TBRW_U32 n, void *user)
{
    CHECK(size == n * sizeof(TBRW_MODULE));
    CHECK(m[0].module_size == sizeof(TBRW_MODULE));
    *(TBRW_U32 *)user += n;
    return 1;
}

static TBRW_U32 count_pids(TBRW_PID *pid, TBRW_U32 size, TBRW_U32 n, void *user)
{
    CHECK(size == n * sizeof(TBRW_PID) && pid[0].pid_id == 428);
    *(TBRW_U32 *)user += n;
    return 1;
}

static TBRW_U32 count_tids(TBRW_TID *tid, TBRW_U32 size, TBRW_U32 n, void *user)
{
    CHECK(size == n * sizeof(TBRW_TID) && tid[0].tid_id == 7);
    *(TBRW_U32 *)user += n;
    return 1;
}

static void check_modules_and_processes(TBRW_PTR p)
{
    const TBRW_MODULE *m;
    const TBRW_PID *pid;
    const TBRW_TID *tid;
    TBRW_U32 n = 0;

    CHECK_OK(TBRW_get_one_module(p, 1, &m));
    CHECK(m->module_load_address == 0x10000000 && m->module_length == 0x1000);
    CHECK(m->module_event_when == 100 && m->module_unload_tsc == 5000);
    CHECK(m->module_segment_type == TBRW_MODE_32BIT && m->module_code_selector == 0x1B);
    CHECK(strcmp(fx_string(p, m->module_name), "lib\xc3\xa9\xe4\xb8\xad.so") == 0);
    CHECK_RC(TBRW_get_one_module(p, 3, &m), TBRW_ENTRY_NOT_FOUND);
    CHECK_OK(TBRW_enumerate_modules(p, count_modules, &n, 1));
    CHECK(n == 2);
    CHECK_RC(TBRW_enumerate_modules(p, count_modules, &n, 4), TBRW_INVALID_READ_START);

    CHECK_OK(TBRW_get_one_pid(p, 0, &pid));
    CHECK(pid->pid_id == 428 && pid->pid_event_when == 5);
    CHECK(strcmp(fx_string(p, pid->pid_name), "navigator") == 0);
    CHECK_OK(TBRW_get_one_tid(p, 0, &tid));
    CHECK(tid->tid_associated_pid == 428 && tid->tid_id == 7);
    CHECK(strcmp(fx_string(p, tid->tid_name), "main") == 0);
    n = 0;
    CHECK_OK(TBRW_enumerate_processes(p, count_pids, &n, 0));
    CHECK(n == 1);
    n = 0;
    CHECK_OK(TBRW_enumerate_threads(p, count_tids, &n, 0));
    CHECK(n == 1);
}

static TBRW_U32 check_events_cb(TBRW_EVENT *ev, TBRW_U32 size, TBRW_U32 n, void *user)
{
    CHECK(n == 1 && size == sizeof(TBRW_EVENT) + sizeof(TBRW_EVENT_DETAIL));
    CHECK(ev[0].event_sav == 2000000 && ev[0].event_flags == TBRW_EVENT_EBS);
    CHECK(ev[0].event_num_details == 1 && ev[0].event_detail_array != NULL);
    if (ev[0].event_detail_array)
        CHECK(ev[0].event_detail_array[0].detail_value == 0xffe17b80);
    CHECK(strcmp(fx_string(user, ev[0].event_name), "SampleEvent") == 0);
    return 1;
}

static TBRW_U32 check_descs_cb(TBRW_SAMPREC_DESC_ENTRY *d, TBRW_U32 size, TBRW_U32 n, void *user)
{
    (void)user;
    CHECK(n == 2 && size == 2 * sizeof(*d));
    CHECK(d[0].desc_type == ST_LEGACY_SAMPLE_RECORD && d[0].desc_offset == 0);
    /* the guide's offset 0 for the TSC resolves to "after the legacy record" */
    CHECK(d[1].desc_type == ST_TIME_STAMP && d[1].desc_offset == 32 && d[1].desc_data_size == 8);
    return 1;
}

struct data_check {
    TBRW_U64 next;
    int calls;
};

static TBRW_U32 check_data_cb(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct data_check *c = user;
    const TBRW_U8 *rec = data;

    CHECK(size == n * 40);
    for (TBRW_U32 i = 0; i < n; i++, c->next++) {
        TBRW_SampleRecordPC pc;
        TBRW_U64 tsc;
        memcpy(&pc, rec + i * 40, sizeof(pc));
        memcpy(&tsc, rec + i * 40 + 32, sizeof(tsc));
        if (memcmp(&pc, &samples[c->next], sizeof(pc)) != 0 || tsc != tscs[c->next]) {
            CHECK(!"record differs");
            return 2;
        }
    }
    c->calls++;
    return 1;
}

static TBRW_U32 stop_at_once(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    (void)data;
    (void)size;
    (void)n;
    ++*(int *)user;
    return 0;
}

static TBRW_U32 fail_with_77(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    (void)data;
    (void)size;
    (void)n;
    (void)user;
    return 7777;
}

static TBRW_U32 check_custom_cb(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    const struct custom_record *r = data;

    (void)user;
    CHECK(n == 100 && size == 100 * sizeof(*r));
    CHECK(r[5].ip == 0x10000005 && r[5].tsc == 205 && r[99].cookie == 0xC0FFEE00 + 99);
    CHECK(r[5].pid == 428 && r[5].tid == 9);
    return 1;
}

static void check_streams(TBRW_PTR p)
{
    TBRW_U32 nstreams = 0, used = 0;
    TBRW_STREAM_INFO info;
    struct data_check c = {0, 0};
    int calls = 0;
    TBRW_U8 user[8];
    TBRW_U64 records;
    TBRW_U32 record_size;

    CHECK_OK(TBRW_get_number_data_streams(p, &nstreams));
    CHECK(nstreams == 2);
    CHECK_OK(TBRW_reading_stream(p, 0));
    CHECK_OK(TBRW_reading_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_get_stream_info(p, 0, sizeof(info), &info, &used));
    CHECK(used == sizeof(info) && info.sampling_duration == 20000);
    CHECK(info.stream_type == TBRW_SAMPLING_STREAM);
    CHECK(info.sampling_end_time.dwLowDateTime == 1566932352);
    CHECK(strcmp(fx_string(p, info.comment), "sample_comment") == 0);
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_enumerate_events(p, 0, check_events_cb, p, 0));
    CHECK_OK(TBRW_enumerate_data_descriptor_entries(p, 0, check_descs_cb, NULL));
    CHECK_OK(tb5_data_shape(p, 0, &records, &record_size));
    CHECK(records == NSAMPLES && record_size == 40);
    CHECK_OK(TBRW_enumerate_data(p, 0, check_data_cb, &c, 0));
    CHECK(c.next == NSAMPLES && c.calls >= 1);
    c.next = NSAMPLES - 10;
    CHECK_OK(TBRW_enumerate_data(p, 0, check_data_cb, &c, NSAMPLES - 10));
    CHECK(c.next == NSAMPLES);
    CHECK_OK(TBRW_enumerate_data(p, 0, stop_at_once, &calls, 0));
    CHECK(calls == 1);
    CHECK_RC(TBRW_enumerate_data(p, 0, fail_with_77, NULL, 0), 7777);
    CHECK_RC(TBRW_enumerate_data(p, 0, stop_at_once, &calls, NSAMPLES + 1),
             TBRW_INVALID_READ_START);
    CHECK_OK(TBRW_done_stream(p, 0));

    CHECK_OK(TBRW_get_stream_info(p, 1, sizeof(info), &info, NULL));
    CHECK(info.stream_type == TBRW_CUSTOM_STREAM);
    CHECK(strcmp(fx_string(p, info.comment), "custom stream") == 0);
    CHECK_OK(TBRW_enumerate_data(p, 1, check_custom_cb, NULL, 0));
    CHECK_OK(TBRW_get_user_defined_stream(p, 1, sizeof(user), user, &used));
    CHECK(used == sizeof(user_stream) && memcmp(user, user_stream, used) == 0);
    CHECK_RC(TBRW_get_user_defined_stream(p, 0, sizeof(user), user, &used), TBRW_SECTION_NOT_EXIST);
}

static void test_every_section_round_trips(void)
{
    const char *path = tb5_scratch("full.tb5");
    TBRW_PTR p;

    make_inputs();
    write_full(path);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_verify(p));
    check_hardware(p);
    check_software(p);
    check_modules_and_processes(p);
    check_streams(p);
    CHECK_OK(TBRW_close(p));
}

static void test_guide_piecewise_records(void)
{
    const char *path = tb5_scratch("pieces.tb5");
    TBRW_PTR p;
    struct data_check c = {0, 0};

    make_inputs();
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    fx_write_globals(p, modules, 3);
    fx_write_stream0(p, samples, tscs, 0);
    CHECK_OK(TBRW_close(p));
    /* The guide (6.10) adds the TBRW_SampleRecordPC and its TSC in two calls. */
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    fx_write_globals(p, modules, 3);
    {
        TBRW_SAMPREC_DESC_ENTRY pc = {0}, ts = {0};
        TBRW_STREAM_INFO info = {0};
        TBRW_EVENT ev = {0};
        pc.desc_size = ts.desc_size = sizeof(pc);
        pc.desc_type = ST_LEGACY_SAMPLE_RECORD;
        pc.desc_data_size = sizeof(TBRW_SampleRecordPC);
        ts.desc_type = ST_TIMESTAMP;
        ts.desc_data_size = sizeof(TBRW_SampleRecordTSC);
        info.stream_info_size = sizeof(info);
        info.stream_type = TBRW_SAMPLING_STREAM;
        ev.event_size = sizeof(ev);
        CHECK_OK(TBRW_writing_stream(p, 0));
        CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));
        CHECK_OK(TBRW_set_stream_info(p, 0, &info));
        CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));
        CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));
        CHECK_OK(TBRW_add_event(p, 0, &ev));
        CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));
        CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));
        CHECK_OK(TBRW_add_data_descriptor_entry(p, 0, &pc));
        CHECK_OK(TBRW_add_data_descriptor_entry(p, 0, &ts));
        CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));
        CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_DATA_SECTION));
        for (int i = 0; i < 1000; i++) {
            TBRW_SampleRecordTSC tsc = {tscs[i]};
            CHECK_OK(TBRW_add_data(p, 0, sizeof(TBRW_SampleRecordPC), &samples[i]));
            CHECK_OK(TBRW_add_data(p, 0, sizeof(TBRW_SampleRecordTSC), &tsc));
        }
        CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_DATA_SECTION));
        CHECK_OK(TBRW_done_stream(p, 0));
    }
    CHECK_OK(TBRW_close(p));
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_enumerate_data(p, 0, check_data_cb, &c, 0));
    CHECK(c.next == 1000);
    CHECK_OK(TBRW_close(p));
}

static void test_flipped_byte_is_caught(void)
{
    const char *path = tb5_scratch("flip.tb5");
    long size;
    TBRW_PTR p;

    make_inputs();
    fx_write_file(path, modules, 3, samples, tscs, NSAMPLES);
    size = fx_file_size(path);
    CHECK(size > 1000);
    /* A byte in the middle of the sample data, a zstd frame (test_zstd checks how each way a
     * frame can be damaged is told): opening is fine, verify is not. */
    fx_flip_byte(path, size / 2);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    TBRW_U32 rc = TBRW_verify(p);
    CHECK(rc == TBRW_CHECKSUM_MISMATCH || rc == TBRW_CORRUPT_FILE);
    CHECK_OK(TBRW_close(p));
    fx_flip_byte(path, size / 2);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));
    /* In the directory (just before the 48-byte trailer) or the header: open fails. */
    fx_flip_byte(path, size - 48 - 5);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_CHECKSUM_MISMATCH);
    fx_flip_byte(path, size - 48 - 5);
    fx_flip_byte(path, 30);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_CHECKSUM_MISMATCH);
    CHECK(p == NULL);
}

static void test_damaged_files_have_distinct_errors(void)
{
    const char *path = tb5_scratch("damage.tb5");
    const TBRW_U8 bad_magic = 'X', version3[2] = {3, 0};
    long size;
    TBRW_PTR p;

    make_inputs();
    fx_write_file(path, modules, 3, samples, tscs, 100);
    size = fx_file_size(path);
    fx_truncate(path, size - 10);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_TRUNCATED_FILE);
    fx_truncate(path, 40);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_TRUNCATED_FILE);
    fx_truncate(path, 5);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_TRUNCATED_FILE);

    fx_write_file(path, modules, 3, samples, tscs, 100);
    fx_poke(path, 1, &bad_magic, 1);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_BAD_MAGIC);

    fx_write_file(path, modules, 3, samples, tscs, 100);
    fx_poke(path, 8, version3, 2);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_INCOMPATIBLE_VERSION);

    CHECK_RC(TBRW_open(&p, tb5_wide(tb5_scratch("missing.tb5")), TBRW_FILE_READ),
             TBRW_FILE_OPEN_FAILED);
    {
        FILE *f = fopen(path, "wb");
        fputs("this is not a tb5 file at all, just some text that goes on for a while", f);
        fclose(f);
    }
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ), TBRW_BAD_MAGIC);
}

static TBRW_U32 count_records(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    (void)data;
    (void)size;
    *(TBRW_U64 *)user += n;
    return 1;
}

static void test_append_stream_and_abort(void)
{
    const char *path = tb5_scratch("append.tb5");
    TBRW_PTR p;
    TBRW_U32 n = 0;
    TBRW_U64 records = 0;
    long size;

    make_inputs();
    fx_write_file(path, modules, 3, samples, tscs, 500);
    size = fx_file_size(path);

    /* An aborted append leaves the file exactly as it was. */
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    write_stream1(p);
    CHECK_OK(TBRW_abort_cleanup_and_close(p));
    CHECK(fx_file_size(path) == size);

    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_OK(TBRW_get_number_data_streams(p, &n));
    CHECK(n == 1);
    write_stream1(p);
    CHECK_OK(TBRW_close(p));

    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_get_number_data_streams(p, &n));
    CHECK(n == 2);
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_enumerate_data(p, 0, count_records, &records, 0));
    CHECK(records == 500);
    CHECK_OK(TBRW_enumerate_data(p, 1, check_custom_cb, NULL, 0));
    CHECK_OK(TBRW_close(p));

    /* A file created and aborted is gone. */
    path = tb5_scratch("aborted.tb5");
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    fx_write_globals(p, modules, 3);
    CHECK_OK(TBRW_abort_cleanup_and_close(p));
    CHECK(fx_file_size(path) == -1);
}

static void test_version_and_errors(void)
{
    TBRW_U32 major = 0, minor = 0;
    const TBRW_CHAR *text = NULL;

    CHECK_OK(TBRW_get_version(&major, &minor));
    CHECK(major == 2 && minor == 3);
    CHECK_OK(TBRW_error_string(TBRW_BUFFER_TOO_SMALL, &text));
    CHECK(text && wcscmp(text, L"buffer too small") == 0);
    CHECK_OK(TBRW_error_string(TBRW_TRUNCATED_FILE, &text));
    CHECK(text && wcsstr(text, L"truncated") != NULL);
    CHECK_RC(TBRW_error_string(123456, &text), TBRW_INVALID_ERROR_CODE);
}

int main(void)
{
    static const struct tb5_test tests[] = {
        TB5_TEST(test_every_section_round_trips), TB5_TEST(test_guide_piecewise_records),
        TB5_TEST(test_flipped_byte_is_caught),    TB5_TEST(test_damaged_files_have_distinct_errors),
        TB5_TEST(test_append_stream_and_abort),   TB5_TEST(test_version_and_errors),
    };
    return tb5_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
