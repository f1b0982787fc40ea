/* tb5_test.c - the test runner, scratch files and fixtures of the tb5 tests. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tb5_test.h"

int check_failures;
static char scratch_dir[256];

static void remove_scratch(void)
{
    DIR *d = opendir(scratch_dir);
    struct dirent *e;
    char path[512];

    if (!d)
        return;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof(path), "%s/%s", scratch_dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(scratch_dir);
}

const char *tb5_scratch(const char *name)
{
    static char path[512];

    if (!scratch_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(scratch_dir, sizeof(scratch_dir), "%s/tb5-test-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(scratch_dir)) {
            perror("mkdtemp");
            exit(2);
        }
        atexit(remove_scratch);
    }
    snprintf(path, sizeof(path), "%s/%s", scratch_dir, name);
    return path;
}

const wchar_t *tb5_wide(const char *path)
{
    static wchar_t wide[512];
    TBRW_U32 n = sizeof(wide) / sizeof(wide[0]);

    if (TBRW_convert_utf8_to_wcs(path, wide, &n) != TBRW_SUCCESS)
        wide[0] = L'\0';
    return wide;
}

int tb5_run_tests(const struct tb5_test *tests, size_t count)
{
    int passed = 0, failed = 0;

    for (size_t i = 0; i < count; i++) {
        int before = check_failures;
        fflush(stdout);
        tests[i].fn();
        if (check_failures == before) {
            passed++;
            printf("ok   %s\n", tests[i].name);
        } else {
            failed++;
            printf("FAIL %s\n", tests[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

TBRW_MODULE fx_module(TBRW_U32 pid, TBRW_U64 address, TBRW_U64 length, TBRW_U64 load_tsc,
                      TBRW_U64 unload_tsc, TBRW_U32 extra_flags, const wchar_t *name)
{
    TBRW_MODULE m;

    memset(&m, 0, sizeof(m));
    m.module_size = sizeof(TBRW_MODULE);
    m.module_load_address = address;
    m.module_length = length;
    m.module_associated_pid = pid;
    m.module_code_selector = 0x1B;
    m.module_event_when = load_tsc;
    m.module_unload_tsc = unload_tsc;
    m.module_segment_type = TBRW_MODE_32BIT;
    m.module_flags = TBRW_MODULE_TSC_USED | TBRW_MODULE_LOADED | extra_flags;
    m.module_path.soi_ptr = (TBRW_CHAR *)name;
    m.module_name.soi_ptr = (TBRW_CHAR *)name;
    m.module_segment_name.soi_ptr = (TBRW_CHAR *)L"";
    return m;
}

TBRW_SampleRecordPC fx_sample(TBRW_U32 pid, TBRW_U32 tid, TBRW_U32 eip, TBRW_U32 event)
{
    TBRW_SampleRecordPC s;

    memset(&s, 0, sizeof(s));
    s.codeMode = TBRW_MODE_32BIT;
    s.eip = eip;
    s.eflags = 0x246;
    s.csd.lowWord = 0xffff;
    s.csd.highWord = 0xcf9b00;
    s.cs = 0x1B;
    s.eventIndex = event;
    s.tidIsRaw = 1;
    s.pidRecIndexRaw = 1;
    s.pidRecIndex = pid;
    s.tid = tid;
    return s;
}

void fx_write_globals(TBRW_PTR p, const TBRW_MODULE *modules, size_t nmodules)
{
    TBRW_CPUID_IA32 cpuid = {0x0, 0xa, 0x756e6547, 0x6c65746e, 0x49656e69, 0};
    TBRW_CPU_ARCH arch;
    TBRW_CPU cpu;
    TBRW_NODE node;
    TBRW_SYSTEM sys;
    TBRW_HOST host;
    TBRW_OS os;
    TBRW_APPLICATION app;
    TBRW_VERSION_INFO version;

    memset(&arch, 0, sizeof(arch));
    arch.arch_size = sizeof(arch);
    arch.arch_type = TBRW_GST_X86;
    arch.arch_num_cpuid = 1;
    arch.cpuid_ia32_array = &cpuid;
    memset(&cpu, 0, sizeof(cpu));
    cpu.cpu_size = sizeof(cpu);
    cpu.cpu_native_arch_type = CPU_ARCHITECTURE_IA32;
    cpu.cpu_intel_processor_number = 8086;
    cpu.cpu_speed_mhz = 3000;
    cpu.cpu_fsb_mhz = 1333;
    cpu.cpu_cache_L2 = 4096;
    cpu.cpu_cache_L3 = 128;
    cpu.cpu_threads_per_core = 1;
    cpu.num_cpu_arch_array = 1;
    cpu.cpu_arch_array = &arch;
    memset(&node, 0, sizeof(node));
    node.node_size = sizeof(node);
    node.node_id = 1;
    node.node_num_available = 1;
    node.node_num_used = 1;
    node.node_physical_memory = 1024;
    node.cpu_array = &cpu;
    memset(&sys, 0, sizeof(sys));
    sys.system_size = sizeof(sys);
    sys.system_num_nodes = 1;
    sys.node_array = &node;
    CHECK_OK(TBRW_writing_section(p, TBRW_HARDWARE_SECTION));
    CHECK_OK(TBRW_set_system(p, &sys));
    CHECK_OK(TBRW_done_section(p, TBRW_HARDWARE_SECTION));

    memset(&host, 0, sizeof(host));
    host.host_size = sizeof(host);
    host.host_ip_address.soi_ptr = (TBRW_CHAR *)L"10.10.10.10";
    host.host_name.soi_ptr = (TBRW_CHAR *)L"testhost.example";
    memset(&os, 0, sizeof(os));
    os.os_size = sizeof(os);
    os.os_platform = TBRW_OSFAMILY_USER_FIRST;
    os.os_major = 5;
    os.os_minor = 1;
    os.os_build = 0xa28;
    os.os_name.soi_ptr = (TBRW_CHAR *)L"acart RTOS";
    os.os_name_extra.soi_ptr = (TBRW_CHAR *)L"32-bit";
    memset(&app, 0, sizeof(app));
    app.app_size = sizeof(app);
    app.app_page_size = 4096;
    app.app_alloc_granularity = 4096;
    app.app_min_app_addr = 0xfffff;
    app.app_max_app_addr = 0xffffffff;
    CHECK_OK(TBRW_writing_section(p, TBRW_SOFTWARE_SECTION));
    CHECK_OK(TBRW_set_host(p, &host));
    CHECK_OK(TBRW_set_os(p, &os));
    CHECK_OK(TBRW_set_application(p, &app));
    CHECK_OK(TBRW_done_section(p, TBRW_SOFTWARE_SECTION));

    version.version_info_size = sizeof(version);
    version.sampling_driver_version = 0xffffffff;
    version.bind_version = 0;
    version.sample_file_version = 0x10;
    CHECK_OK(TBRW_writing_section(p, TBRW_VERSION_INFO_SECTION));
    CHECK_OK(TBRW_set_version_info(p, &version));
    CHECK_OK(TBRW_done_section(p, TBRW_VERSION_INFO_SECTION));

    CHECK_OK(TBRW_writing_section(p, TBRW_MODULE_SECTION));
    for (size_t i = 0; i < nmodules; i++)
        CHECK_OK(TBRW_add_module(p, &modules[i]));
    CHECK_OK(TBRW_done_section(p, TBRW_MODULE_SECTION));
}

void fx_write_stream0(TBRW_PTR p, const TBRW_SampleRecordPC *samples, const TBRW_U64 *tsc,
                      size_t count)
{
    TBRW_STREAM_INFO info;
    TBRW_EVENT_DETAIL detail;
    TBRW_EVENT event;
    TBRW_SAMPREC_DESC_ENTRY pc, ts;
    enum { BATCH = 4096 };
    static uint8_t buf[BATCH * (sizeof(TBRW_SampleRecordPC) + sizeof(TBRW_SampleRecordTSC))];
    const size_t rs = sizeof(TBRW_SampleRecordPC) + sizeof(TBRW_SampleRecordTSC);

    CHECK_OK(TBRW_writing_stream(p, 0));
    memset(&info, 0, sizeof(info));
    info.stream_info_size = sizeof(info);
    info.sampling_duration = 20000;
    info.stream_type = TBRW_SAMPLING_STREAM;
    info.command_line.soi_ptr = (TBRW_CHAR *)L"unknown";
    info.comment.soi_ptr = (TBRW_CHAR *)L"sample_comment";
    info.cpu_mask.soi_ptr = (TBRW_CHAR *)L"none";
    info.sampling_interval = 1000;
    info.sampling_start_time.dwLowDateTime = 1526932352;
    info.sampling_start_time.dwHighDateTime = 29849313;
    info.sampling_end_time.dwLowDateTime = 1566932352;
    info.sampling_end_time.dwHighDateTime = 29849313;
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_set_stream_info(p, 0, &info));
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));

    memset(&detail, 0, sizeof(detail));
    detail.detail_size = sizeof(detail);
    detail.detail_access = 1;
    detail.detail_access_size = 32;
    detail.detail_method = TBRW_MSR;
    detail.detail_address = 0x21;
    detail.detail_value = 0xffe17b80;
    memset(&event, 0, sizeof(event));
    event.event_size = sizeof(event);
    event.event_id = 0;
    event.event_num_details = 1;
    event.event_flags = TBRW_EVENT_EBS;
    event.event_sav = 2000000;
    event.event_name.soi_ptr = (TBRW_CHAR *)L"SampleEvent";
    event.event_arch_name.soi_ptr = (TBRW_CHAR *)L"Core 2";
    event.event_detail_array = &detail;
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_add_event(p, 0, &event));
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));

    /* 6.9, including its TSC entry at desc_offset 0 ("after the previous field"). */
    memset(&pc, 0, sizeof(pc));
    pc.desc_size = sizeof(pc);
    pc.desc_data_size = sizeof(TBRW_SampleRecordPC);
    pc.desc_type = ST_LEGACY_SAMPLE_RECORD;
    pc.desc_sub_type = SST_NONE;
    pc.desc_name.soi_ptr = (TBRW_CHAR *)L"SampleRecord";
    memset(&ts, 0, sizeof(ts));
    ts.desc_size = sizeof(ts);
    ts.desc_data_size = sizeof(TBRW_SampleRecordTSC);
    ts.desc_type = ST_TIMESTAMP;
    ts.desc_sub_type = SST_TSC;
    ts.desc_name.soi_ptr = (TBRW_CHAR *)L"TimeStamp";
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 0, &pc));
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 0, &ts));
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));

    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_DATA_SECTION));
    for (size_t i = 0, n; i < count; i += n) {
        n = count - i;
        if (n > BATCH)
            n = BATCH;
        for (size_t k = 0; k < n; k++) {
            memcpy(buf + k * rs, &samples[i + k], sizeof(TBRW_SampleRecordPC));
            memcpy(buf + k * rs + sizeof(TBRW_SampleRecordPC), &tsc[i + k], sizeof(TBRW_U64));
        }
        CHECK_OK(TBRW_add_data(p, 0, (TBRW_U32)(n * rs), buf));
    }
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_DATA_SECTION));
    CHECK_OK(TBRW_done_stream(p, 0));
}

void fx_write_file(const char *path, const TBRW_MODULE *modules, size_t nmodules,
                   const TBRW_SampleRecordPC *samples, const TBRW_U64 *tsc, size_t count)
{
    TBRW_PTR p;

    CHECK_OK(
        TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    fx_write_globals(p, modules, nmodules);
    fx_write_stream0(p, samples, tsc, count);
    CHECK_OK(TBRW_close(p));
}

const char *fx_string(TBRW_PTR p, TBRW_STRING_OR_ID id)
{
    static wchar_t wide[1024];
    static char utf8[4096];
    TBRW_U32 n = sizeof(utf8);

    if (TBRW_convert_uniqueid_to_string(p, sizeof(wide), &id, wide, NULL) != TBRW_SUCCESS ||
        TBRW_convert_wcs_to_utf8(wide, utf8, &n) != TBRW_SUCCESS)
        return "";
    return utf8;
}

long fx_file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = -1;

    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (f)
        fclose(f);
    return n;
}

void fx_poke(const char *path, long offset, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "r+b");

    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fseek(f, offset, SEEK_SET) == 0);
    CHECK(fwrite(bytes, 1, len, f) == len);
    fclose(f);
}

void fx_flip_byte(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    int c;

    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fseek(f, offset, SEEK_SET) == 0);
    c = fgetc(f);
    CHECK(c != EOF);
    CHECK(fseek(f, offset, SEEK_SET) == 0);
    fputc(c ^ 0x5A, f);
    fclose(f);
}

void fx_truncate(const char *path, long size)
{
    CHECK(truncate(path, size) == 0);
}
