/*
 * codec.c - the on-disk records of the API structures. Each record is its
 * structure's fields in declaration order, little-endian, packed, with every string
 * replaced by its u64 id in the string pool and every pointer left out (the arrays
 * it points to are stored as records of their own). One table per structure is the
 * whole definition; tests/tb5 checks each table adds up to its record size.
 */
#include <stddef.h>
#include <string.h>

#include "tb5_internal.h"

#define U8(T, f)                                                                                   \
    {                                                                                              \
        offsetof(T, f), TB5_F_U8                                                                   \
    }
#define U16(T, f)                                                                                  \
    {                                                                                              \
        offsetof(T, f), TB5_F_U16                                                                  \
    }
#define U32(T, f)                                                                                  \
    {                                                                                              \
        offsetof(T, f), TB5_F_U32                                                                  \
    }
#define U64(T, f)                                                                                  \
    {                                                                                              \
        offsetof(T, f), TB5_F_U64                                                                  \
    }
#define STR(T, f)                                                                                  \
    {                                                                                              \
        offsetof(T, f), TB5_F_STR                                                                  \
    }
#define CODEC(var, T, size, table)                                                                 \
    const struct tb5_codec var = {#T, size, sizeof(T), table, sizeof(table) / sizeof(table[0])}

static const struct tb5_field host_fields[] = {
    U32(TBRW_HOST, host_size),
    U32(TBRW_HOST, reserved),
    STR(TBRW_HOST, host_ip_address),
    STR(TBRW_HOST, host_name),
};
CODEC(tb5_codec_host, TBRW_HOST, TB5_REC_HOST, host_fields);

static const struct tb5_field os_fields[] = {
    U32(TBRW_OS, os_size),  U32(TBRW_OS, os_platform),   U32(TBRW_OS, os_major),
    U32(TBRW_OS, os_minor), U32(TBRW_OS, os_build),      U32(TBRW_OS, os_extra),
    STR(TBRW_OS, os_name),  STR(TBRW_OS, os_name_extra),
};
CODEC(tb5_codec_os, TBRW_OS, TB5_REC_OS, os_fields);

static const struct tb5_field app_fields[] = {
    U32(TBRW_APPLICATION, app_size),         U32(TBRW_APPLICATION, app_reserved),
    U32(TBRW_APPLICATION, app_page_size),    U32(TBRW_APPLICATION, app_alloc_granularity),
    U64(TBRW_APPLICATION, app_min_app_addr), U64(TBRW_APPLICATION, app_max_app_addr),
};
CODEC(tb5_codec_app, TBRW_APPLICATION, TB5_REC_APP, app_fields);

static const struct tb5_field version_fields[] = {
    U32(TBRW_VERSION_INFO, version_info_size),
    U32(TBRW_VERSION_INFO, sampling_driver_version),
    U32(TBRW_VERSION_INFO, bind_version),
    U32(TBRW_VERSION_INFO, sample_file_version),
};
CODEC(tb5_codec_version, TBRW_VERSION_INFO, TB5_REC_VERSION, version_fields);

static const struct tb5_field pid_fields[] = {
    U32(TBRW_PID, pid_size),  U32(TBRW_PID, pid_id),         U32(TBRW_PID, pid_flags),
    U32(TBRW_PID, reserved),  U64(TBRW_PID, pid_event_when), U32(TBRW_PID, reserved1),
    U32(TBRW_PID, reserved2), STR(TBRW_PID, pid_path),       STR(TBRW_PID, pid_name),
};
CODEC(tb5_codec_pid, TBRW_PID, TB5_REC_PID, pid_fields);

static const struct tb5_field tid_fields[] = {
    U32(TBRW_TID, tid_size),  U32(TBRW_TID, tid_associated_pid), U32(TBRW_TID, tid_id),
    U32(TBRW_TID, tid_flags), U64(TBRW_TID, tid_event_when),     U32(TBRW_TID, reserved1),
    U32(TBRW_TID, reserved2), STR(TBRW_TID, tid_name),
};
CODEC(tb5_codec_tid, TBRW_TID, TB5_REC_TID, tid_fields);

/* module_segment_type is a bit-field: its 32-bit word gets a field type of its own. */
static const struct tb5_field module_fields[] = {
    U32(TBRW_MODULE, module_size),
    U32(TBRW_MODULE, module_reserved),
    U32(TBRW_MODULE, module_associated_pid),
    U32(TBRW_MODULE, module_flags),
    U64(TBRW_MODULE, module_event_when),
    U32(TBRW_MODULE, module_segment_number),
    {0, TB5_F_SEGTYPE},
    U32(TBRW_MODULE, module_code_selector),
    U32(TBRW_MODULE, reserved),
    U64(TBRW_MODULE, module_length),
    U64(TBRW_MODULE, module_load_address),
    U32(TBRW_MODULE, reserved_for_legacy),
    U32(TBRW_MODULE, reserved_for_legacy2),
    U32(TBRW_MODULE, reserved_for_legacy_flags),
    U32(TBRW_MODULE, reserved1),
    U64(TBRW_MODULE, module_unload_tsc),
    STR(TBRW_MODULE, module_path),
    STR(TBRW_MODULE, module_name),
    STR(TBRW_MODULE, module_segment_name),
};
CODEC(tb5_codec_module, TBRW_MODULE, TB5_REC_MODULE, module_fields);

static const struct tb5_field stream_info_fields[] = {
    U32(TBRW_STREAM_INFO, stream_info_size),
    U32(TBRW_STREAM_INFO, sampling_duration),
    U32(TBRW_STREAM_INFO, stream_type),
    U32(TBRW_STREAM_INFO, sampling_interval),
    U32(TBRW_STREAM_INFO, sampling_start_time.dwLowDateTime),
    U32(TBRW_STREAM_INFO, sampling_start_time.dwHighDateTime),
    U32(TBRW_STREAM_INFO, sampling_end_time.dwLowDateTime),
    U32(TBRW_STREAM_INFO, sampling_end_time.dwHighDateTime),
    STR(TBRW_STREAM_INFO, command_line),
    STR(TBRW_STREAM_INFO, cpu_mask),
    STR(TBRW_STREAM_INFO, comment),
};
CODEC(tb5_codec_stream_info, TBRW_STREAM_INFO, TB5_REC_STREAM_INFO, stream_info_fields);

static const struct tb5_field event_fields[] = {
    U32(TBRW_EVENT, event_size),        U32(TBRW_EVENT, event_id),
    U32(TBRW_EVENT, event_num_details), U32(TBRW_EVENT, event_flags),
    U64(TBRW_EVENT, event_sav),         STR(TBRW_EVENT, event_name),
    STR(TBRW_EVENT, event_arch_name),
};
CODEC(tb5_codec_event, TBRW_EVENT, TB5_REC_EVENT, event_fields);

static const struct tb5_field event_detail_fields[] = {
    U32(TBRW_EVENT_DETAIL, detail_size),    U16(TBRW_EVENT_DETAIL, detail_access_size),
    U8(TBRW_EVENT_DETAIL, detail_method),   U8(TBRW_EVENT_DETAIL, detail_access),
    U64(TBRW_EVENT_DETAIL, detail_address), U64(TBRW_EVENT_DETAIL, detail_value),
    U8(TBRW_EVENT_DETAIL, legacy_command),  U8(TBRW_EVENT_DETAIL, reserved1),
    U16(TBRW_EVENT_DETAIL, reserved2),      U32(TBRW_EVENT_DETAIL, reserved3),
};
CODEC(tb5_codec_event_detail, TBRW_EVENT_DETAIL, TB5_REC_EVENT_DETAIL, event_detail_fields);

static const struct tb5_field descriptor_fields[] = {
    U32(TBRW_SAMPREC_DESC_ENTRY, desc_size),       U32(TBRW_SAMPREC_DESC_ENTRY, desc_offset),
    U16(TBRW_SAMPREC_DESC_ENTRY, desc_type),       U16(TBRW_SAMPREC_DESC_ENTRY, desc_subtype),
    U32(TBRW_SAMPREC_DESC_ENTRY, desc_data_size),  U64(TBRW_SAMPREC_DESC_ENTRY, desc_access_offset),
    U8(TBRW_SAMPREC_DESC_ENTRY, desc_access_type), U8(TBRW_SAMPREC_DESC_ENTRY, desc_access_method),
    U8(TBRW_SAMPREC_DESC_ENTRY, desc_sample_flag), U8(TBRW_SAMPREC_DESC_ENTRY, reserved0),
    U32(TBRW_SAMPREC_DESC_ENTRY, reserved1),       STR(TBRW_SAMPREC_DESC_ENTRY, desc_name),
};
CODEC(tb5_codec_descriptor, TBRW_SAMPREC_DESC_ENTRY, TB5_REC_DESCRIPTOR, descriptor_fields);

static const struct tb5_field system_fields[] = {
    U32(TBRW_SYSTEM, system_size),
    U32(TBRW_SYSTEM, system_num_nodes),
};
CODEC(tb5_codec_system, TBRW_SYSTEM, TB5_REC_SYSTEM, system_fields);

static const struct tb5_field node_fields[] = {
    U32(TBRW_NODE, node_size),
    U32(TBRW_NODE, node_type_from_shell),
    U32(TBRW_NODE, node_id),
    U32(TBRW_NODE, node_num_available),
    U32(TBRW_NODE, node_num_used),
    U32(TBRW_NODE, node_reserved),
    U64(TBRW_NODE, node_physical_memory),
};
CODEC(tb5_codec_node, TBRW_NODE, TB5_REC_NODE, node_fields);

static const struct tb5_field cpu_fields[] = {
    U32(TBRW_CPU, cpu_size),
    U32(TBRW_CPU, cpu_number),
    U32(TBRW_CPU, cpu_native_arch_type),
    U32(TBRW_CPU, cpu_intel_processor_number),
    U32(TBRW_CPU, cpu_speed_mhz),
    U32(TBRW_CPU, cpu_fsb_mhz),
    U32(TBRW_CPU, cpu_cache_L2),
    U32(TBRW_CPU, cpu_cache_L3),
    U64(TBRW_CPU, cpu_tsc_offset),
    U16(TBRW_CPU, cpu_package_num),
    U16(TBRW_CPU, cpu_core_num),
    U16(TBRW_CPU, cpu_hardware_thread_num),
    U16(TBRW_CPU, cpu_threads_per_core),
    U32(TBRW_CPU, num_cpu_arch_array),
    U32(TBRW_CPU, cpu_reserved),
};
CODEC(tb5_codec_cpu, TBRW_CPU, TB5_REC_CPU, cpu_fields);

static const struct tb5_field cpu_arch_fields[] = {
    U32(TBRW_CPU_ARCH, arch_size),
    U16(TBRW_CPU_ARCH, arch_type),
    U16(TBRW_CPU_ARCH, arch_num_cpuid),
};
CODEC(tb5_codec_cpu_arch, TBRW_CPU_ARCH, TB5_REC_CPU_ARCH, cpu_arch_fields);

static const struct tb5_field cpuid_ia32_fields[] = {
    U32(TBRW_CPUID_IA32, cpuid_eax_input), U32(TBRW_CPUID_IA32, cpuid_eax),
    U32(TBRW_CPUID_IA32, cpuid_ebx),       U32(TBRW_CPUID_IA32, cpuid_ecx),
    U32(TBRW_CPUID_IA32, cpuid_edx),       U32(TBRW_CPUID_IA32, reserved),
};
CODEC(tb5_codec_cpuid_ia32, TBRW_CPUID_IA32, TB5_REC_CPUID, cpuid_ia32_fields);

static const struct tb5_field cpuid_ia64_fields[] = {
    U64(TBRW_CPUID_IA64, cpuid_select),
    U64(TBRW_CPUID_IA64, cpuid_val),
    U64(TBRW_CPUID_IA64, reserved),
};
CODEC(tb5_codec_cpuid_ia64, TBRW_CPUID_IA64, TB5_REC_CPUID, cpuid_ia64_fields);

const struct tb5_codec *const tb5_all_codecs[] = {
    &tb5_codec_host,       &tb5_codec_os,           &tb5_codec_app,        &tb5_codec_version,
    &tb5_codec_pid,        &tb5_codec_tid,          &tb5_codec_module,     &tb5_codec_stream_info,
    &tb5_codec_event,      &tb5_codec_event_detail, &tb5_codec_descriptor, &tb5_codec_system,
    &tb5_codec_node,       &tb5_codec_cpu,          &tb5_codec_cpu_arch,   &tb5_codec_cpuid_ia32,
    &tb5_codec_cpuid_ia64,
};
const size_t tb5_num_codecs = sizeof(tb5_all_codecs) / sizeof(tb5_all_codecs[0]);

static uint32_t field_bytes(uint8_t type)
{
    switch (type) {
    case TB5_F_U8:
        return 1;
    case TB5_F_U16:
        return 2;
    case TB5_F_U64:
    case TB5_F_STR:
        return 8;
    default:
        return 4;
    }
}

uint32_t tb5_codec_span(const struct tb5_codec *c)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < c->nfields; i++)
        n += field_bytes(c->fields[i].type);
    return n;
}

TBRW_U32 tb5_encode(const struct tb5_codec *c, const void *mem, uint8_t *out, tb5_intern_fn *intern,
                    void *ctx)
{
    const uint8_t *m = mem;

    for (uint32_t i = 0; i < c->nfields; i++) {
        const uint8_t *f = m + c->fields[i].offset;
        uint16_t v16;
        uint32_t v32;
        uint64_t v64;
        switch (c->fields[i].type) {
        case TB5_F_U8:
            *out = *f;
            break;
        case TB5_F_U16:
            memcpy(&v16, f, 2);
            tb5_put16(out, v16);
            break;
        case TB5_F_U32:
            memcpy(&v32, f, 4);
            tb5_put32(out, v32);
            break;
        case TB5_F_U64:
            memcpy(&v64, f, 8);
            tb5_put64(out, v64);
            break;
        case TB5_F_SEGTYPE:
            tb5_put32(out, ((const TBRW_MODULE *)mem)->module_segment_type);
            break;
        case TB5_F_STR: {
            TBRW_STRING_OR_ID s;
            memcpy(&s, f, sizeof(s));
            if (intern) {
                TBRW_U32 rc = intern(ctx, s.soi_ptr, &v64);
                if (rc)
                    return rc;
            } else {
                v64 = s.soi_uniqueid;
            }
            tb5_put64(out, v64);
            break;
        }
        }
        out += field_bytes(c->fields[i].type);
    }
    return TBRW_SUCCESS;
}

void tb5_decode(const struct tb5_codec *c, const uint8_t *in, void *mem)
{
    uint8_t *m = mem;

    memset(mem, 0, c->mem_size);
    for (uint32_t i = 0; i < c->nfields; i++) {
        uint8_t *f = m + c->fields[i].offset;
        uint16_t v16;
        uint32_t v32;
        uint64_t v64;
        switch (c->fields[i].type) {
        case TB5_F_U8:
            *f = *in;
            break;
        case TB5_F_U16:
            v16 = tb5_get16(in);
            memcpy(f, &v16, 2);
            break;
        case TB5_F_U32:
            v32 = tb5_get32(in);
            memcpy(f, &v32, 4);
            break;
        case TB5_F_SEGTYPE:
            ((TBRW_MODULE *)mem)->module_segment_type = tb5_get32(in) & 3u;
            break;
        case TB5_F_U64:
        case TB5_F_STR:
            v64 = tb5_get64(in);
            memcpy(f, &v64, 8);
            break;
        }
        in += field_bytes(c->fields[i].type);
    }
}
