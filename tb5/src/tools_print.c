/*
 * tools_print.c - tb5_print, the guide's print_tb5: every section of a file as text.
 * The file is opened read-only; unbound streams are bound in memory so that records
 * can be shown with their module, process and thread, and a per-module sample count
 * closes each stream.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "samprec_shared.h"
#include "tb5_internal.h"
#include "tb5_tools.h"
#include "text_escape.h"

struct printer {
    TBRW_PTR p;
    FILE *out;
    TBRW_U64 index; /* of the next entry an enumeration prints */
    char text[512]; /* the last string looked up */
};

/* The text of a string id, escaped for a terminal (the file's strings are untrusted) and
 * cut to fit; "-" for the NULL string. */
static const char *str(struct printer *pr, TBRW_STRING_OR_ID id)
{
    char *s;
    size_t len;

    if (id.soi_uniqueid == 0)
        return "-";
    if (tb5_string_utf8(tb5_handle(pr->p), id.soi_uniqueid, &s, &len) != TBRW_SUCCESS)
        return "(bad string)";
    text_escape_terminal(pr->text, sizeof(pr->text), s);
    free(s);
    return pr->text;
}

static void print_hardware(struct printer *pr)
{
    TBRW_U32 need = 0;
    TBRW_SYSTEM *sys;

    if (TBRW_get_system(pr->p, 0, NULL, &need) != TBRW_BUFFER_TOO_SMALL)
        return;
    sys = malloc(need);
    if (!sys || TBRW_get_system(pr->p, need, sys, NULL) != TBRW_SUCCESS) {
        free(sys);
        return;
    }
    fprintf(pr->out, "[hardware] %u node(s)\n", sys->system_num_nodes);
    for (TBRW_U32 n = 0; n < sys->system_num_nodes; n++) {
        const TBRW_NODE *node = &sys->node_array[n];
        fprintf(pr->out, "  node %u: %u cpu(s), %u used, %" PRIu64 " MiB\n", node->node_id,
                node->node_num_available, node->node_num_used,
                (uint64_t)node->node_physical_memory);
        for (TBRW_U32 c = 0; c < node->node_num_available; c++) {
            const TBRW_CPU *cpu = &node->cpu_array[c];
            fprintf(pr->out,
                    "    cpu %u: arch %u, %u MHz, fsb %u MHz, L2 %u KiB, L3 %u KiB, "
                    "tsc offset %" PRId64 ", package %u core %u thread %u\n",
                    cpu->cpu_number, cpu->cpu_native_arch_type, cpu->cpu_speed_mhz,
                    cpu->cpu_fsb_mhz, cpu->cpu_cache_L2, cpu->cpu_cache_L3,
                    (int64_t)cpu->cpu_tsc_offset, cpu->cpu_package_num, cpu->cpu_core_num,
                    cpu->cpu_hardware_thread_num);
            for (TBRW_U32 a = 0; a < cpu->num_cpu_arch_array; a++) {
                const TBRW_CPU_ARCH *arch = &cpu->cpu_arch_array[a];
                for (TBRW_U32 k = 0; k < arch->arch_num_cpuid; k++) {
                    if (arch->arch_type == TBRW_GST_ITANIUM) {
                        const TBRW_CPUID_IA64 *id = &arch->cpuid_ia64_array[k];
                        fprintf(pr->out, "      cpuid[%#" PRIx64 "] = %#" PRIx64 "\n",
                                (uint64_t)id->cpuid_select, (uint64_t)id->cpuid_val);
                    } else {
                        const TBRW_CPUID_IA32 *id = &arch->cpuid_ia32_array[k];
                        fprintf(pr->out, "      cpuid(%#x) = %08x %08x %08x %08x\n",
                                id->cpuid_eax_input, id->cpuid_eax, id->cpuid_ebx, id->cpuid_ecx,
                                id->cpuid_edx);
                    }
                }
            }
        }
    }
    free(sys);
}

static void print_software(struct printer *pr)
{
    TBRW_HOST host;
    TBRW_OS os;
    TBRW_APPLICATION app;
    TBRW_VERSION_INFO v;

    fprintf(pr->out, "[software]\n");
    if (TBRW_get_host(pr->p, sizeof(host), &host, NULL) == TBRW_SUCCESS) {
        fprintf(pr->out, "  host: %s", str(pr, host.host_name));
        fprintf(pr->out, " (%s)\n", str(pr, host.host_ip_address));
    }
    if (TBRW_get_os(pr->p, sizeof(os), &os, NULL) == TBRW_SUCCESS) {
        fprintf(pr->out, "  os: platform %#x, %u.%u build %u: %s", os.os_platform, os.os_major,
                os.os_minor, os.os_build, str(pr, os.os_name));
        fprintf(pr->out, " %s\n", str(pr, os.os_name_extra));
    }
    if (TBRW_get_application(pr->p, sizeof(app), &app, NULL) == TBRW_SUCCESS)
        fprintf(pr->out,
                "  application: page %u, granularity %u, addresses %#" PRIx64 "..%#" PRIx64 "\n",
                app.app_page_size, app.app_alloc_granularity, (uint64_t)app.app_min_app_addr,
                (uint64_t)app.app_max_app_addr);
    if (TBRW_get_version_info(pr->p, sizeof(v), &v, NULL) == TBRW_SUCCESS)
        fprintf(pr->out, "[version info] sampling driver %#x, bind %#x, sample file %#x\n",
                v.sampling_driver_version, v.bind_version, v.sample_file_version);
}

static TBRW_U32 print_modules_cb(TBRW_MODULE *m, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct printer *pr = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n; i++, pr->index++) {
        fprintf(pr->out,
                "  #%" PRIu64 " pid %u [%#" PRIx64 ", %#" PRIx64 ") load %" PRIu64
                " unload %" PRId64 " flags %#x cs %#x %s",
                (uint64_t)pr->index, m[i].module_associated_pid, (uint64_t)m[i].module_load_address,
                (uint64_t)(m[i].module_load_address + m[i].module_length),
                (uint64_t)m[i].module_event_when, (int64_t)m[i].module_unload_tsc,
                m[i].module_flags, m[i].module_code_selector, str(pr, m[i].module_name));
        fprintf(pr->out, " (%s)\n", str(pr, m[i].module_path));
    }
    return TB5_CB_MORE;
}

static void print_modules(struct printer *pr)
{
    const struct tb5_section *sec = tb5_find(tb5_handle(pr->p), TB5_K_MODULES, TB5_GLOBAL);

    if (!sec)
        return;
    fprintf(pr->out, "[modules] %" PRIu64 "\n", (uint64_t)sec->record_count);
    pr->index = 0;
    TBRW_enumerate_modules(pr->p, print_modules_cb, pr, 0);
}

static TBRW_U32 print_pids_cb(TBRW_PID *pid, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct printer *pr = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n; i++) {
        fprintf(pr->out, "  pid %u created %" PRIu64 ": %s", pid[i].pid_id,
                (uint64_t)pid[i].pid_event_when, str(pr, pid[i].pid_name));
        fprintf(pr->out, " (%s)\n", str(pr, pid[i].pid_path));
    }
    return TB5_CB_MORE;
}

static TBRW_U32 print_tids_cb(TBRW_TID *tid, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct printer *pr = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n; i++)
        fprintf(pr->out, "  tid %u of pid %u: %s\n", tid[i].tid_id, tid[i].tid_associated_pid,
                str(pr, tid[i].tid_name));
    return TB5_CB_MORE;
}

static void print_processes(struct printer *pr)
{
    const struct tb5 *tb = tb5_handle(pr->p);
    const struct tb5_section *pids = tb5_find(tb, TB5_K_PROCESSES, TB5_GLOBAL);
    const struct tb5_section *tids = tb5_find(tb, TB5_K_THREADS, TB5_GLOBAL);

    if (!pids || !tids)
        return;
    fprintf(pr->out, "[processes] %" PRIu64 "%s\n", (uint64_t)pids->record_count,
            tb5_pidtid_derived(tb) ? " (derived by binding)" : "");
    TBRW_enumerate_processes(pr->p, print_pids_cb, pr, 0);
    fprintf(pr->out, "[threads] %" PRIu64 "\n", (uint64_t)tids->record_count);
    TBRW_enumerate_threads(pr->p, print_tids_cb, pr, 0);
}

/* User-defined sections: only their size, their bytes mean nothing to us. */
static void print_user(struct printer *pr, const char *what, int global, TBRW_U32 stream)
{
    TBRW_U32 size = 0;
    TBRW_U32 rc = global ? TBRW_get_user_defined_global(pr->p, 0, NULL, &size)
                         : TBRW_get_user_defined_stream(pr->p, stream, 0, NULL, &size);

    if (rc == TBRW_BUFFER_TOO_SMALL)
        fprintf(pr->out, "[%s] %u bytes\n", what, size);
}

static TBRW_U32 print_events_cb(TBRW_EVENT *ev, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct printer *pr = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n; i++) {
        fprintf(pr->out, "    event %u: %s", ev[i].event_id, str(pr, ev[i].event_name));
        fprintf(pr->out, " (%s) sav %" PRIu64 " %s, %u detail(s)\n", str(pr, ev[i].event_arch_name),
                (uint64_t)ev[i].event_sav,
                (ev[i].event_flags & TBRW_EVENT_MODE_MASK) == TBRW_EVENT_EBS ? "EBS" : "TBS",
                ev[i].event_num_details);
        for (TBRW_U32 k = 0; k < ev[i].event_num_details; k++)
            fprintf(pr->out, "      %s %#" PRIx64 " = %#" PRIx64 " (method %u, %u bits)\n",
                    ev[i].event_detail_array[k].detail_access ? "write" : "read",
                    (uint64_t)ev[i].event_detail_array[k].detail_address,
                    (uint64_t)ev[i].event_detail_array[k].detail_value,
                    ev[i].event_detail_array[k].detail_method,
                    ev[i].event_detail_array[k].detail_access_size);
    }
    return TB5_CB_MORE;
}

static TBRW_U32 print_descs_cb(TBRW_SAMPREC_DESC_ENTRY *d, TBRW_U32 size, TBRW_U32 n, void *user)
{
    struct printer *pr = user;

    (void)size;
    for (TBRW_U32 i = 0; i < n; i++)
        fprintf(pr->out, "    field @%u, %u bytes: type %#x subtype %#x %s\n", d[i].desc_offset,
                d[i].desc_data_size, d[i].desc_type, d[i].desc_subtype, str(pr, d[i].desc_name));
    return TB5_CB_MORE;
}

struct record_walk {
    struct printer *pr;
    TBRW_U32 stream;
    TBRW_U64 index;
    TBRW_U64 max;         /* records to print */
    TBRW_U64 *per_module; /* [nmodules + 1]: the last counts samples of no module */
    TBRW_U64 nmodules;
};

static void print_legacy(FILE *out, const uint8_t *rec, TBRW_U32 size)
{
    TBRW_SampleRecordPC pc;

    memcpy(&pc, rec, sizeof(pc));
    if (pc.IA64PC)
        fprintf(out, "ip %#" PRIx64, (uint64_t)pc.iip);
    else
        fprintf(out, "ip %#x", pc.eip);
    fprintf(out, " cs %#x cpu %u pid %u tid %u event %u", pc.cs, pc.cpuNum, pc.pidRecIndex, pc.tid,
            pc.eventIndex);
    if (size >= sizeof(pc) + sizeof(TBRW_U64))
        fprintf(out, " tsc %" PRIu64, tb5_get64(rec + sizeof(pc)));
}

static TBRW_U32 records_cb(const void *data, TBRW_U32 size, TBRW_U64 n,
                           const DATA_BIND_STRUCT *binds, TBRW_U32 bind_size, void *user)
{
    struct record_walk *w = user;
    TBRW_U32 rs = (TBRW_U32)(size / n);

    (void)bind_size;
    for (TBRW_U64 i = 0; i < n; i++, w->index++) {
        const uint8_t *rec = (const uint8_t *)data + i * rs;
        TBRW_U64 m = binds[i].module_index;
        w->per_module[m < w->nmodules ? m : w->nmodules]++;
        if (w->index >= w->max)
            continue;
        fprintf(w->pr->out, "    #%" PRIu64 " ", (uint64_t)w->index);
        if (w->stream == 0) {
            print_legacy(w->pr->out, rec, rs);
        } else {
            for (TBRW_U32 k = 0; k < rs && k < 32; k++)
                fprintf(w->pr->out, "%02x", rec[k]);
        }
        if (m < w->nmodules) {
            const TBRW_MODULE *mod;
            if (TBRW_get_one_module(w->pr->p, m, &mod) == TBRW_SUCCESS)
                fprintf(w->pr->out, " -> %s", str(w->pr, mod->module_name));
        } else {
            fprintf(w->pr->out, " -> (no module)");
        }
        fprintf(w->pr->out, "\n");
    }
    return TB5_CB_MORE;
}

static void print_module_counts(struct printer *pr, const struct record_walk *w)
{
    fprintf(pr->out, "    samples per module:\n");
    for (TBRW_U64 m = 0; m <= w->nmodules; m++) {
        const TBRW_MODULE *mod;
        if (!w->per_module[m])
            continue;
        if (m == w->nmodules)
            fprintf(pr->out, "      %10" PRIu64 "  (no module)\n", (uint64_t)w->per_module[m]);
        else if (TBRW_get_one_module(pr->p, m, &mod) == TBRW_SUCCESS)
            fprintf(pr->out, "      %10" PRIu64 "  #%" PRIu64 " %s\n", (uint64_t)w->per_module[m],
                    (uint64_t)m, str(pr, mod->module_name));
    }
}

static void print_records(struct printer *pr, TBRW_U32 stream, TBRW_U64 max)
{
    const struct tb5_section *mods = tb5_find(tb5_handle(pr->p), TB5_K_MODULES, TB5_GLOBAL);
    struct record_walk w = {pr, stream, 0, max, NULL, mods ? mods->record_count : 0};
    TBRW_U32 bound = 0, rc;

    TBRW_is_bound(pr->p, stream, &bound);
    rc = TBRW_dobind(pr->p, stream);
    if (rc) {
        fprintf(pr->out, "    (not bound: %s)\n", tb5_strerror(rc));
        return;
    }
    fprintf(pr->out, "    %s\n", bound ? "bound in the file" : "bound for printing");
    w.per_module = calloc(w.nmodules + 1, sizeof(*w.per_module));
    if (!w.per_module)
        return;
    rc = TBRW_bind_enumerate_data(pr->p, stream, records_cb, &w, 0);
    if (rc)
        fprintf(pr->out, "    (records: %s)\n", tb5_strerror(rc));
    if (max && w.index > max)
        fprintf(pr->out, "    ... %" PRIu64 " more\n", (uint64_t)(w.index - max));
    print_module_counts(pr, &w);
    free(w.per_module);
}

static void print_stream(struct printer *pr, TBRW_U32 s, TBRW_U64 max)
{
    TBRW_STREAM_INFO info;
    TBRW_U64 records;
    TBRW_U32 record_size;

    fprintf(pr->out, "[stream %u]\n", s);
    if (TBRW_get_stream_info(pr->p, s, sizeof(info), &info, NULL) == TBRW_SUCCESS) {
        fprintf(pr->out, "  info: type %u, duration %u ms, interval %u us, comment %s\n",
                info.stream_type, info.sampling_duration, info.sampling_interval,
                str(pr, info.comment));
        fprintf(pr->out, "  command line: %s\n", str(pr, info.command_line));
        fprintf(pr->out, "  cpu mask: %s\n", str(pr, info.cpu_mask));
    }
    fprintf(pr->out, "  events:\n");
    TBRW_enumerate_events(pr->p, s, print_events_cb, pr, 0);
    fprintf(pr->out, "  data description:\n");
    TBRW_enumerate_data_descriptor_entries(pr->p, s, print_descs_cb, pr);
    print_user(pr, "  user-defined", 0, s);
    if (tb5_data_shape(pr->p, s, &records, &record_size) == TBRW_SUCCESS) {
        fprintf(pr->out, "  data: %" PRIu64 " record(s) of %u bytes\n", (uint64_t)records,
                record_size);
        print_records(pr, s, max);
    }
}

int tb5_print(FILE *out, const char *path, unsigned long long max_records)
{
    struct printer pr = {NULL, out, 0, {0}};
    TBRW_U32 nstreams = 0, rc;

    if (!out || !path)
        return TBRW_UNEXPECTED_NULL_PTR;
    rc = tb5_open_path(&pr.p, path, TBRW_FILE_READ);
    if (rc)
        return (int)rc;
    rc = TBRW_verify(pr.p);
    fprintf(out, "tb5 file %s: %s\n", path, rc ? tb5_strerror(rc) : "verified");
    if (rc == TBRW_SUCCESS || rc == TBRW_REQUIRED_SECTION_MISSING) {
        print_hardware(&pr);
        print_software(&pr);
        print_modules(&pr);
        print_user(&pr, "user-defined global", 1, 0);
        TBRW_get_number_data_streams(pr.p, &nstreams);
        fprintf(out, "[streams] %u\n", nstreams);
        for (TBRW_U32 s = 0; s < nstreams; s++)
            print_stream(&pr, s, max_records ? max_records : UINT64_MAX);
        print_processes(&pr);
    }
    TBRW_close(pr.p);
    return (int)(rc == TBRW_REQUIRED_SECTION_MISSING ? TBRW_SUCCESS : rc);
}
