/*
 * test_rules.c - the guide's rules, each broken on purpose: required sections
 * (6.2), legacy records in stream 0 only (3.2.2), fixed-size records (3.4), a
 * section or stream opened twice, reading what was never written, writing what
 * exists, appending to an existing stream, access modes.
 */
#include <string.h>

#include "tb5_test.h"

static TBRW_MODULE module;
static TBRW_SampleRecordPC sample;
static TBRW_U64 tsc = 1;

static void make_inputs(void)
{
    module = fx_module(1, 0x1000, 0x100, 0, (TBRW_U64)-1, TBRW_MODULE_IS_EXE, L"m");
    sample = fx_sample(1, 1, 0x1010, 0);
}

static TBRW_PTR create(const char *name)
{
    TBRW_PTR p = NULL;

    CHECK_OK(TBRW_open(&p, tb5_wide(tb5_scratch(name)),
                       TBRW_FILE_READ | TBRW_FILE_WRITE | TBRW_FILE_CREATE_ALWAYS));
    return p;
}

static TBRW_SAMPREC_DESC_ENTRY desc(TBRW_U16 type, TBRW_U32 offset, TBRW_U32 size)
{
    TBRW_SAMPREC_DESC_ENTRY d;

    memset(&d, 0, sizeof(d));
    d.desc_size = sizeof(d);
    d.desc_type = type;
    d.desc_offset = offset;
    d.desc_data_size = size;
    return d;
}

static void set_info(TBRW_PTR p, TBRW_U32 stream)
{
    TBRW_STREAM_INFO info = {0};

    info.stream_info_size = sizeof(info);
    info.stream_type = TBRW_SAMPLING_STREAM;
    CHECK_OK(TBRW_writing_stream_section(p, stream, TBRW_STREAM_INFO_SECTION));
    CHECK_OK(TBRW_set_stream_info(p, stream, &info));
    CHECK_OK(TBRW_done_stream_section(p, stream, TBRW_STREAM_INFO_SECTION));
}

static void test_required_sections(void)
{
    TBRW_PTR p = create("required.tb5");
    TBRW_EVENT ev = {0};
    TBRW_SAMPREC_DESC_ENTRY pc = desc(ST_LEGACY_SAMPLE_RECORD, 0, 32);

    make_inputs();
    /* Stream 0 without events (its records carry event indexes) cannot be done... */
    CHECK_OK(TBRW_writing_stream(p, 0));
    CHECK_RC(TBRW_done_stream(p, 0), TBRW_REQUIRED_SECTION_MISSING);
    set_info(p, 0);
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 0, &pc));
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));
    CHECK_RC(TBRW_done_stream(p, 0), TBRW_REQUIRED_SECTION_MISSING);
    ev.event_size = sizeof(ev);
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_add_event(p, 0, &ev));
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));
    CHECK_OK(TBRW_done_stream(p, 0));
    /* ...and the file misses its global sections and stream 0's data. */
    CHECK_RC(TBRW_verify(p), TBRW_REQUIRED_SECTION_MISSING);
    fx_write_globals(p, &module, 1);
    CHECK_RC(TBRW_verify(p), TBRW_REQUIRED_SECTION_MISSING); /* still no data */
    CHECK_OK(TBRW_close(p));

    /* All there but the module section. */
    p = create("required2.tb5");
    fx_write_globals(p, &module, 1);
    fx_write_stream0(p, &sample, &tsc, 1);
    CHECK_OK(TBRW_verify(p));
    CHECK_OK(TBRW_close(p));
    p = create("required3.tb5");
    {
        TBRW_VERSION_INFO v = {sizeof(v), 0xffffffff, 0, 0x10};
        CHECK_OK(TBRW_writing_section(p, TBRW_VERSION_INFO_SECTION));
        CHECK_OK(TBRW_set_version_info(p, &v));
        CHECK_OK(TBRW_done_section(p, TBRW_VERSION_INFO_SECTION));
    }
    fx_write_stream0(p, &sample, &tsc, 1);
    CHECK_RC(TBRW_verify(p), TBRW_REQUIRED_SECTION_MISSING);
    CHECK_OK(TBRW_close(p));
}

static void test_legacy_records_in_stream0_only(void)
{
    TBRW_PTR p = create("legacy.tb5");
    TBRW_SAMPREC_DESC_ENTRY d;

    CHECK_OK(TBRW_writing_stream(p, 0));
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));
    d = desc(ST_IP, 0, 4);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 0, &d), TBRW_LEGACY_RECORD_MISPLACED);
    d = desc(ST_LEGACY_SAMPLE_RECORD, 0, 16);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 0, &d), TBRW_LEGACY_RECORD_MISPLACED);
    d = desc(ST_LEGACY_SAMPLE_RECORD, 8, 32);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 0, &d), TBRW_LEGACY_RECORD_MISPLACED);
    d = desc(ST_LEGACY_SAMPLE_RECORD, 0, 32);
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 0, &d));
    d = desc(ST_PID, 32, 4);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 0, &d), TBRW_LEGACY_RECORD_MISPLACED);
    d = desc(ST_TIME_STAMP, 32, 8);
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 0, &d));
    d = desc(ST_TIME_STAMP, 40, 8);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 0, &d), TBRW_LEGACY_RECORD_MISPLACED);
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_DATA_DESCRIPTION_SECTION));

    /* Any other stream refuses legacy records (3.2.2). */
    CHECK_OK(TBRW_writing_stream(p, 1));
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION));
    d = desc(ST_LEGACY_SAMPLE_RECORD, 0, 32);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 1, &d), TBRW_LEGACY_RECORD_MISPLACED);
    CHECK_RC(TBRW_done_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION), TBRW_NO_DATA_TO_WRITE);
    CHECK_OK(TBRW_abort_cleanup_and_close(p));
}

static void test_fixed_size_records(void)
{
    TBRW_PTR p = create("fixed.tb5");
    TBRW_SAMPREC_DESC_ENTRY d;
    TBRW_U8 bytes[64] = {0};
    const char *odd = tb5_scratch("odd.bin");
    FILE *f;

    CHECK_OK(TBRW_writing_stream(p, 0));
    CHECK_OK(TBRW_writing_stream(p, 1));
    /* No data before its description. */
    CHECK_RC(TBRW_writing_stream_section(p, 1, TBRW_DATA_SECTION), TBRW_DATA_DESCRIPTION_MISSING);
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION));
    d = desc(ST_IP, 0, 8);
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 1, &d));
    d = desc(ST_PID, 4, 4);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 1, &d), TBRW_DESCRIPTOR_OVERLAP);
    d = desc(ST_PID, 12, 4); /* leaves a gap at 8..11 */
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 1, &d));
    d = desc(ST_TID, 10, 4);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 1, &d), TBRW_DESCRIPTOR_OVERLAP);
    d = desc(ST_TID, 0, 0);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 1, &d), TBRW_UNSUPPORTED_DATA_SIZE);
    d = desc(ST_RESERVED_START + 3, 0, 4);
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 1, &d), TBRW_UNEXPECTED_VALUE);
    d = desc(ST_EVENT_ID, 0, 0); /* extended: computed, takes no bytes */
    CHECK_OK(TBRW_add_data_descriptor_entry(p, 1, &d));
    d.desc_size = 12;
    CHECK_RC(TBRW_add_data_descriptor_entry(p, 1, &d), TBRW_UNSUPPORTED_DATA_SIZE);
    CHECK_OK(TBRW_done_stream_section(p, 1, TBRW_DATA_DESCRIPTION_SECTION));

    /* Records are 16 bytes: fields end at 8 and 16, start at 0 and 12. */
    CHECK_OK(TBRW_writing_stream_section(p, 1, TBRW_DATA_SECTION));
    CHECK_OK(TBRW_add_data(p, 1, 32, bytes));
    CHECK_RC(TBRW_add_data(p, 1, 7, bytes), TBRW_RECORD_SIZE_MISMATCH);
    CHECK_RC(TBRW_add_data(p, 1, 17, bytes), TBRW_RECORD_SIZE_MISMATCH);
    CHECK_OK(TBRW_add_data(p, 1, 8, bytes));  /* ends where the ip ends */
    CHECK_OK(TBRW_add_data(p, 1, 4, bytes));  /* ends where the pid starts */
    CHECK_OK(TBRW_add_data(p, 1, 20, bytes)); /* completes it and one more */
    f = fopen(odd, "wb");
    fwrite(bytes, 1, 30, f);
    fclose(f);
    CHECK_RC(TBRW_add_data_from_file(p, 1, tb5_wide(odd)), TBRW_RECORD_SIZE_MISMATCH);
    CHECK_RC(TBRW_add_data_from_file(p, 1, tb5_wide(tb5_scratch("nope.bin"))),
             TBRW_FILE_OPEN_FAILED);
    CHECK_OK(TBRW_add_data(p, 1, 8, bytes));
    CHECK_RC(TBRW_done_stream_section(p, 1, TBRW_DATA_SECTION), TBRW_RECORD_SIZE_MISMATCH);
    CHECK_OK(TBRW_abort_cleanup_and_close(p));
}

static void test_opened_twice(void)
{
    TBRW_PTR p = create("twice.tb5");

    make_inputs();
    CHECK_OK(TBRW_writing_section(p, TBRW_MODULE_SECTION));
    CHECK_RC(TBRW_writing_section(p, TBRW_MODULE_SECTION), TBRW_SECTION_ALREADY_IN_USE);
    CHECK_RC(TBRW_reading_section(p, TBRW_MODULE_SECTION), TBRW_SECTION_ALREADY_IN_USE);
    CHECK_OK(TBRW_add_module(p, &module));
    CHECK_OK(TBRW_done_section(p, TBRW_MODULE_SECTION));
    CHECK_RC(TBRW_done_section(p, TBRW_MODULE_SECTION), TBRW_UNEXPECTED_VALUE);
    /* written once, for good */
    CHECK_RC(TBRW_writing_section(p, TBRW_MODULE_SECTION), TBRW_SECTION_EXISTS);
    CHECK_OK(TBRW_reading_section(p, TBRW_MODULE_SECTION));
    CHECK_RC(TBRW_reading_section(p, TBRW_MODULE_SECTION), TBRW_SECTION_ALREADY_IN_USE);
    CHECK_OK(TBRW_done_section(p, TBRW_MODULE_SECTION));

    CHECK_OK(TBRW_writing_stream(p, 0));
    CHECK_RC(TBRW_writing_stream(p, 0), TBRW_STREAM_ALREADY_IN_USE);
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));
    CHECK_RC(TBRW_writing_stream_section(p, 0, TBRW_STREAM_INFO_SECTION),
             TBRW_SECTION_ALREADY_IN_USE);
    CHECK_RC(TBRW_done_stream(p, 0), TBRW_STREAM_SECTION_NOT_CLOSED);
    CHECK_RC(TBRW_done_stream_section(p, 0, TBRW_STREAM_INFO_SECTION), TBRW_NO_DATA_TO_WRITE);
    set_info(p, 0);
    CHECK_RC(TBRW_writing_stream_section(p, 0, TBRW_STREAM_INFO_SECTION), TBRW_SECTION_EXISTS);
    CHECK_OK(TBRW_abort_cleanup_and_close(p));

    fx_write_file(tb5_scratch("twice2.tb5"), &module, 1, &sample, &tsc, 1);
    CHECK_OK(TBRW_open(&p, tb5_wide(tb5_scratch("twice2.tb5")), TBRW_FILE_READ));
    CHECK_OK(TBRW_reading_stream(p, 0));
    CHECK_RC(TBRW_reading_stream(p, 0), TBRW_STREAM_ALREADY_IN_USE);
    CHECK_RC(TBRW_dobind(p, 0), TBRW_STREAM_ALREADY_IN_USE);
    CHECK_OK(TBRW_reading_stream_section(p, 0, TBRW_DATA_SECTION));
    CHECK_RC(TBRW_reading_stream_section(p, 0, TBRW_DATA_SECTION), TBRW_SECTION_ALREADY_IN_USE);
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_DATA_SECTION));
    CHECK_OK(TBRW_done_stream(p, 0));
    CHECK_OK(TBRW_dobind(p, 0));
    CHECK_OK(TBRW_close(p));
}

static TBRW_U32 never(void *data, TBRW_U32 size, TBRW_U32 n, void *user)
{
    (void)data;
    (void)size;
    (void)n;
    (void)user;
    CHECK(!"called");
    return 0;
}

static void test_reading_what_was_never_written(void)
{
    TBRW_PTR p = create("never.tb5");
    TBRW_OS os = {0};
    TBRW_HOST host;
    TBRW_VERSION_INFO v;
    TBRW_STREAM_INFO info;
    TBRW_U8 buf[8];
    const TBRW_MODULE *m;

    CHECK_RC(TBRW_reading_section(p, TBRW_HARDWARE_SECTION), TBRW_SECTION_NOT_EXIST);
    CHECK_RC(TBRW_get_system(p, 0, NULL, NULL), TBRW_SECTION_NOT_EXIST);
    CHECK_RC(TBRW_get_one_module(p, 0, &m), TBRW_SECTION_NOT_EXIST);
    os.os_size = sizeof(os);
    CHECK_OK(TBRW_writing_section(p, TBRW_SOFTWARE_SECTION));
    CHECK_OK(TBRW_set_os(p, &os));
    CHECK_RC(TBRW_get_os(p, sizeof(os), &os, NULL), TBRW_SECTION_NOT_READABLE);
    CHECK_OK(TBRW_done_section(p, TBRW_SOFTWARE_SECTION));
    CHECK_OK(TBRW_get_os(p, sizeof(os), &os, NULL));
    CHECK_RC(TBRW_get_host(p, sizeof(host), &host, NULL), TBRW_ENTRY_NOT_FOUND);
    CHECK_RC(TBRW_get_version_info(p, sizeof(v), &v, NULL), TBRW_SECTION_NOT_EXIST);
    CHECK_RC(TBRW_get_user_defined_global(p, sizeof(buf), buf, NULL), TBRW_SECTION_NOT_EXIST);
    CHECK_RC(TBRW_get_stream_info(p, 0, sizeof(info), &info, NULL), TBRW_STREAM_NOT_EXIST);
    CHECK_RC(TBRW_enumerate_data(p, 0, never, NULL, 0), TBRW_STREAM_NOT_EXIST);
    CHECK_OK(TBRW_writing_stream(p, 0));
    set_info(p, 0);
    CHECK_OK(TBRW_get_stream_info(p, 0, sizeof(info), &info, NULL));
    CHECK_RC(TBRW_enumerate_data(p, 0, never, NULL, 0), TBRW_SECTION_NOT_EXIST);
    CHECK_RC(TBRW_get_user_defined_stream(p, 0, sizeof(buf), buf, NULL), TBRW_SECTION_NOT_EXIST);
    CHECK_RC(TBRW_reading_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION),
             TBRW_SECTION_NOT_EXIST);
    CHECK_RC(TBRW_reading_stream(p, 3), TBRW_STREAM_NOT_EXIST);
    CHECK_OK(TBRW_abort_cleanup_and_close(p));
}

static void test_set_style_sections(void)
{
    TBRW_PTR p = create("sets.tb5");
    TBRW_VERSION_INFO v = {sizeof(v), 1, 2, 3};
    TBRW_EVENT ev = {0};
    TBRW_CPUID_IA32 id = {0};
    TBRW_CPU_ARCH arch = {0};
    TBRW_CPU cpu = {0};
    TBRW_NODE node = {0};
    TBRW_SYSTEM sys = {0};

    make_inputs();
    /* set_ and add_ need their section open for writing */
    CHECK_RC(TBRW_set_version_info(p, &v), TBRW_SECTION_NOT_WRITEABLE);
    CHECK_RC(TBRW_add_module(p, &module), TBRW_SECTION_NOT_WRITEABLE);
    CHECK_RC(TBRW_add_data(p, 0, 4, &v), TBRW_STREAM_NOT_EXIST);
    /* nothing set: nothing written, and the section can be tried again */
    CHECK_OK(TBRW_writing_section(p, TBRW_VERSION_INFO_SECTION));
    CHECK_RC(TBRW_done_section(p, TBRW_VERSION_INFO_SECTION), TBRW_NO_DATA_TO_WRITE);
    CHECK_OK(TBRW_writing_section(p, TBRW_VERSION_INFO_SECTION));
    v.version_info_size = 8;
    CHECK_RC(TBRW_set_version_info(p, &v), TBRW_UNSUPPORTED_DATA_SIZE);
    v.version_info_size = sizeof(v);
    CHECK_OK(TBRW_set_version_info(p, &v));
    CHECK_OK(TBRW_done_section(p, TBRW_VERSION_INFO_SECTION));

    /* the hardware tree is checked as it is set */
    sys.system_size = sizeof(sys);
    sys.system_num_nodes = 1;
    sys.node_array = &node;
    node.node_size = sizeof(node);
    node.node_num_available = 1;
    node.cpu_array = &cpu;
    cpu.cpu_size = sizeof(cpu);
    cpu.num_cpu_arch_array = 1;
    cpu.cpu_arch_array = &arch;
    arch.arch_size = sizeof(arch);
    arch.arch_type = 42;
    arch.arch_num_cpuid = 1;
    arch.cpuid_ia32_array = &id;
    CHECK_OK(TBRW_writing_section(p, TBRW_HARDWARE_SECTION));
    CHECK_RC(TBRW_set_system(p, &sys), TBRW_UNSUPPORTED_ARCH_TYPE);
    /* cppcheck-suppress redundantAssignment ; TBRW_set_system read the old value */
    arch.arch_type = TBRW_GST_EM64T;
    /* cppcheck-suppress redundantAssignment */
    arch.arch_num_cpuid = 0;
    CHECK_RC(TBRW_set_system(p, &sys), TBRW_UNEXPECTED_NUM_CPUIDS);
    arch.arch_num_cpuid = 1;
    /* cppcheck-suppress redundantAssignment */
    node.cpu_array = NULL;
    CHECK_RC(TBRW_set_system(p, &sys), TBRW_UNEXPECTED_NULL_PTR);
    node.cpu_array = &cpu;
    CHECK_OK(TBRW_set_system(p, &sys));
    CHECK_OK(TBRW_done_section(p, TBRW_HARDWARE_SECTION));

    CHECK_OK(TBRW_writing_section(p, TBRW_MODULE_SECTION));
    module.module_size = 100;
    CHECK_RC(TBRW_add_module(p, &module), TBRW_UNSUPPORTED_DATA_SIZE);
    CHECK_OK(TBRW_done_section(p, TBRW_MODULE_SECTION));

    /* event ids are positions */
    CHECK_OK(TBRW_writing_stream(p, 0));
    CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));
    ev.event_size = sizeof(ev);
    ev.event_id = 1;
    CHECK_RC(TBRW_add_event(p, 0, &ev), TBRW_UNEXPECTED_VALUE);
    ev.event_id = 0;
    ev.event_num_details = 2;
    CHECK_RC(TBRW_add_event(p, 0, &ev), TBRW_UNEXPECTED_NULL_PTR);
    ev.event_num_details = 0;
    CHECK_OK(TBRW_add_event(p, 0, &ev));
    CHECK_OK(TBRW_done_stream_section(p, 0, TBRW_EVENT_DESCRIPTION_SECTION));
    {
        TBRW_STREAM_INFO info = {0};
        info.stream_info_size = sizeof(info);
        info.stream_type = 99;
        CHECK_OK(TBRW_writing_stream_section(p, 0, TBRW_STREAM_INFO_SECTION));
        CHECK_RC(TBRW_set_stream_info(p, 0, &info), TBRW_UNEXPECTED_VALUE);
        CHECK_RC(TBRW_done_stream_section(p, 0, TBRW_STREAM_INFO_SECTION), TBRW_NO_DATA_TO_WRITE);
    }
    CHECK_OK(TBRW_abort_cleanup_and_close(p));
}

static void test_existing_streams_are_closed_for_writing(void)
{
    const char *path = tb5_scratch("existing.tb5");
    TBRW_PTR p;
    TBRW_U32 n = 0;

    make_inputs();
    fx_write_file(path, &module, 1, &sample, &tsc, 1);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_WRITE));
    CHECK_RC(TBRW_writing_stream(p, 0), TBRW_STREAM_EXISTS);
    CHECK_RC(TBRW_writing_stream_section(p, 0, TBRW_DATA_SECTION), TBRW_STREAM_EXISTS);
    CHECK_RC(TBRW_add_data(p, 0, sizeof(sample), &sample), TBRW_SECTION_NOT_WRITEABLE);
    CHECK_RC(TBRW_writing_stream(p, 2), TBRW_INVALID_STREAM);
    CHECK_RC(TBRW_writing_section(p, TBRW_HARDWARE_SECTION), TBRW_SECTION_EXISTS);
    /* A stream left unfinished at close is dropped, and close says so. */
    CHECK_OK(TBRW_writing_stream(p, 1));
    set_info(p, 1);
    CHECK_OK(TBRW_writing_section(p, TBRW_USER_DEFINED_GLOBAL_SECTION));
    CHECK_RC(TBRW_close(p), TBRW_NOT_ALL_SECTIONS_CLOSED);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_OK(TBRW_get_number_data_streams(p, &n));
    CHECK(n == 1);
    CHECK_OK(TBRW_verify(p));
    CHECK_RC(TBRW_get_user_defined_global(p, 0, NULL, NULL), TBRW_SECTION_NOT_EXIST);
    CHECK_OK(TBRW_close(p));
}

static void test_access_modes(void)
{
    const char *path = tb5_scratch("modes.tb5");
    TBRW_PTR p;

    make_inputs();
    CHECK_RC(TBRW_open(&p, tb5_wide(path), 0), TBRW_INVALID_ACCESS_PERMS);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | TBRW_FILE_CREATE_ALWAYS),
             TBRW_INVALID_ACCESS_PERMS);
    CHECK_RC(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ | 0x100), TBRW_INVALID_ACCESS_PERMS);
    CHECK_RC(TBRW_open(NULL, tb5_wide(path), TBRW_FILE_READ), TBRW_UNEXPECTED_NULL_PTR);
    fx_write_file(path, &module, 1, &sample, &tsc, 1);
    CHECK_OK(TBRW_open(&p, tb5_wide(path), TBRW_FILE_READ));
    CHECK_RC(TBRW_writing_section(p, TBRW_USER_DEFINED_GLOBAL_SECTION), TBRW_INVALID_ACCESS_PERMS);
    CHECK_RC(TBRW_writing_stream(p, 1), TBRW_INVALID_ACCESS_PERMS);
    CHECK_RC(TBRW_reading_section(p, (TBRW_SECTION_IDENTIFIER)9), TBRW_UNKNOWN_SECTION_NUMBER);
    CHECK_OK(TBRW_close(p));
    CHECK_RC(TBRW_close(NULL), TBRW_UNEXPECTED_NULL_PTR);
}

int main(void)
{
    static const struct tb5_test tests[] = {
        TB5_TEST(test_required_sections),
        TB5_TEST(test_legacy_records_in_stream0_only),
        TB5_TEST(test_fixed_size_records),
        TB5_TEST(test_opened_twice),
        TB5_TEST(test_reading_what_was_never_written),
        TB5_TEST(test_set_style_sections),
        TB5_TEST(test_existing_streams_are_closed_for_writing),
        TB5_TEST(test_access_modes),
    };
    return tb5_run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
