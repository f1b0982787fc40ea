#include "tb5_write.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile_open.h"
#include "samprec_shared.h"
#include "tb5_record.h"
#include "tb5_strings.h"
#include "tb5_tools.h"
#include "tbrw.h"

/* Samples are handed to TBRW_add_data in runs of whole records. */
#define WRITE_BATCH 4096

/* What the guide (7.4, 6.5) asks writers without a sampling driver of their own to set. */
#define VERSION_DRIVER_UNKNOWN 0xFFFFFFFFu
#define VERSION_SAMPLE_FILE    0x10u
/* A bare-metal RTOS is an OS family of our own (FAQ 7.1). */
#define OS_FAMILY_ACART TBRW_OSFAMILY_USER_FIRST

struct writer {
    TBRW_PTR h;
    const char *path;
    struct profile *p;
    struct wide_strings ws;
    struct diag *d;
    struct tb5_sample_record *batch;
    size_t n;
    TBRW_U32 failed_tbrw; /* a TBRW error inside the scan callback */
};

static int tbrw_fail(struct writer *w, TBRW_U32 code, const char *what)
{
    return diag_fail(w->d, DIAG_OUTPUT, "%s: %s: %s", w->path, what, tb5_strerror(code));
}

/* Wide copy of s, or of "" for NULL; the TBRW strings of one file live until it closes. */
static TBRW_CHAR *wide(struct writer *w, const char *s)
{
    const wchar_t *x = wide_string(&w->ws, s ? s : "");
    return (TBRW_CHAR *)(x ? x : L"?");
}

static int section(struct writer *w, TBRW_SECTION_IDENTIFIER id, const char *what,
                   int (*fill)(struct writer *))
{
    TBRW_U32 rc = TBRW_writing_section(w->h, id);
    if (rc)
        return tbrw_fail(w, rc, what);
    int err = fill(w);
    if (err)
        return err;
    rc = TBRW_done_section(w->h, id);
    return rc ? tbrw_fail(w, rc, what) : 0;
}

/* CPUID leaf 1 EAX from family/model/stepping (Intel SDM, CPUID signature encoding). */
static uint32_t cpuid_signature(const struct session *s)
{
    uint32_t family = s->cpu_family, model = s->cpu_model;
    uint32_t base_family = family >= 15 ? 15 : family;
    uint32_t ext_family = family >= 15 ? family - 15 : 0;
    uint32_t ext_model = (family == 6 || family >= 15) ? (model >> 4) & 0xF : 0;
    return (s->cpu_stepping & 0xF) | (model & 0xF) << 4 | base_family << 8 | ext_model << 16 |
           (ext_family & 0xFF) << 20;
}

static uint32_t vendor_word(const char *vendor, int i)
{
    /* The 12 vendor bytes of CPUID leaf 0, not a C string: no terminator. */
    char v[12] = {0};
    if (vendor)
        memcpy(v, vendor, strnlen(vendor, sizeof v));
    uint32_t x;
    memcpy(&x, v + 4 * i, 4);
    return x;
}

static bool target_is_64bit(const struct profile *p)
{
    for (size_t i = 0; i < p->num_modules; i++)
        if (p->modules[i].mode == CODE_MODE_64)
            return true;
    return false;
}

static int fill_hardware(struct writer *w)
{
    const struct session *s = &w->p->session;
    TBRW_CPUID_IA32 cpuid[2] = {
        /* Leaf 0: the vendor string in EBX, EDX, ECX; leaf 1: the signature. */
        {.cpuid_eax_input = 0,
         .cpuid_eax = 1,
         .cpuid_ebx = vendor_word(s->cpu_vendor, 0),
         .cpuid_edx = vendor_word(s->cpu_vendor, 1),
         .cpuid_ecx = vendor_word(s->cpu_vendor, 2)},
        {.cpuid_eax_input = 1, .cpuid_eax = cpuid_signature(s)},
    };
    TBRW_CPU_ARCH arch = {
        .arch_size = sizeof arch,
        .arch_type = target_is_64bit(w->p) ? TBRW_GST_EM64T : TBRW_GST_X86,
        .arch_num_cpuid = 2,
        .cpuid_ia32_array = cpuid,
    };
    TBRW_CPU *cpus = calloc(s->num_cpus, sizeof *cpus);
    if (!cpus)
        return diag_fail(w->d, DIAG_NOMEM, "out of memory");
    for (uint32_t i = 0; i < s->num_cpus; i++) {
        TBRW_CPU *c = &cpus[i];
        c->cpu_size = sizeof *c;
        c->cpu_number = i;
        c->cpu_native_arch_type = CPU_ARCHITECTURE_IA32;
        c->cpu_speed_mhz = (TBRW_U32)(s->tsc_hz / 1000000u);
        c->cpu_threads_per_core = 1;
        c->num_cpu_arch_array = 1;
        c->cpu_arch_array = &arch;
        for (size_t t = 0; t < s->num_topology; t++) {
            if (s->topology[t].cpu != i)
                continue;
            c->cpu_package_num = (TBRW_U16)s->topology[t].package;
            c->cpu_core_num = (TBRW_U16)s->topology[t].core;
            c->cpu_hardware_thread_num = (TBRW_U16)s->topology[t].thread;
        }
    }
    TBRW_NODE node = {
        .node_size = sizeof node,
        .node_id = 0,
        .node_num_available = s->num_cpus,
        .node_num_used = s->num_cpus,
        .cpu_array = cpus,
    };
    TBRW_SYSTEM system = {.system_size = sizeof system, .system_num_nodes = 1, .node_array = &node};
    TBRW_U32 rc = TBRW_set_system(w->h, &system);
    free(cpus);
    return rc ? tbrw_fail(w, rc, "hardware section") : 0;
}

static int fill_software(struct writer *w)
{
    const struct session *s = &w->p->session;
    TBRW_HOST host = {.host_size = sizeof host};
    host.host_name.soi_ptr = wide(w, s->hostname);
    host.host_ip_address.soi_ptr = wide(w, s->address);
    TBRW_OS os = {.os_size = sizeof os, .os_platform = OS_FAMILY_ACART};
    os.os_name.soi_ptr = wide(w, s->os_sysname ? s->os_sysname : "bare metal");
    os.os_name_extra.soi_ptr = wide(w, s->os_release);
    bool wide64 = target_is_64bit(w->p);
    TBRW_APPLICATION app = {
        .app_size = sizeof app,
        .app_page_size = 4096,
        .app_alloc_granularity = 4096,
        .app_min_app_addr = 0,
        .app_max_app_addr = wide64 ? UINT64_MAX : UINT32_MAX,
    };
    TBRW_U32 rc;
    if ((rc = TBRW_set_host(w->h, &host)) || (rc = TBRW_set_os(w->h, &os)) ||
        (rc = TBRW_set_application(w->h, &app)))
        return tbrw_fail(w, rc, "software section");
    return 0;
}

static int fill_version(struct writer *w)
{
    TBRW_VERSION_INFO v = {
        .version_info_size = sizeof v,
        .sampling_driver_version = VERSION_DRIVER_UNKNOWN,
        .bind_version = 0,
        .sample_file_version = VERSION_SAMPLE_FILE,
    };
    TBRW_U32 rc = TBRW_set_version_info(w->h, &v);
    return rc ? tbrw_fail(w, rc, "version info section") : 0;
}

/* A module's place in its process's loads. */
struct load_order {
    uint32_t pid;
    uint64_t tsc;
    size_t index;
};

static int compare_load_order(const void *a, const void *b)
{
    const struct load_order *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tsc != y->tsc)
        return x->tsc < y->tsc ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* first[i]: modules[i] is its process's first load (the guide's 1ST_MODULE_REC_IN_PROCESS). */
static bool *first_loads(const struct profile *p)
{
    struct load_order *order = malloc((p->num_modules ? p->num_modules : 1) * sizeof *order);
    bool *first = calloc(p->num_modules ? p->num_modules : 1, sizeof *first);
    if (!order || !first) {
        free(order);
        free(first);
        return NULL;
    }
    for (size_t i = 0; i < p->num_modules; i++)
        order[i] = (struct load_order){p->modules[i].pid, p->modules[i].tsc, i};
    qsort(order, p->num_modules, sizeof *order, compare_load_order);
    for (size_t k = 0; k < p->num_modules; k++)
        first[order[k].index] = k == 0 || order[k - 1].pid != order[k].pid;
    free(order);
    return first;
}

/* One load record per lifetime, as the guide's module section (6.6) has them: the load
 * TSC (0: before the collection) and the unload TSC (-1: still loaded at the end), so
 * that binding attributes samples at a reused address by time. Modules of pid 0 are the
 * global ones for binding as for our own lookup (module_map.h). */
static int fill_modules(struct writer *w)
{
    bool *first = first_loads(w->p);
    if (!first)
        return diag_fail(w->d, DIAG_NOMEM, "out of memory");
    for (size_t i = 0; i < w->p->num_modules; i++) {
        const struct module_info *m = &w->p->modules[i];
        TBRW_MODULE tm = {
            .module_size = sizeof tm,
            .module_associated_pid = m->pid,
            .module_flags = TBRW_MODULE_TSC_USED | TBRW_MODULE_LOADED |
                            (m->exe ? TBRW_MODULE_IS_EXE : 0) |
                            (m->global || m->pid == 0 ? TBRW_MODULE_GLOBAL_LOAD : 0) |
                            (first[i] ? TBRW_MODULE_1ST_MODULE_REC_IN_PROCESS : 0),
            .module_event_when = m->tsc,
            .module_segment_type = m->mode & 3u,
            .module_code_selector = m->selector,
            .module_length = m->length,
            .module_load_address = m->load_address,
            .module_unload_tsc = m->unload_tsc ? m->unload_tsc : (TBRW_U64)-1,
        };
        tm.module_path.soi_ptr = wide(w, m->path);
        tm.module_name.soi_ptr = wide(w, m->name);
        tm.module_segment_name.soi_ptr = wide(w, "");
        TBRW_U32 rc = TBRW_add_module(w->h, &tm);
        if (rc) {
            free(first);
            return tbrw_fail(w, rc, "module section");
        }
    }
    free(first);
    return 0;
}

static int fill_user_global(struct writer *w)
{
    char *json = session_format(&w->p->session);
    if (!json)
        return diag_fail(w->d, DIAG_NOMEM, "out of memory");
    TBRW_U32 rc = TBRW_set_user_defined_global(w->h, (TBRW_U32)strlen(json) + 1, json);
    free(json);
    return rc ? tbrw_fail(w, rc, "user-defined global section (session)") : 0;
}

static TBRW_FILETIME filetime(time_t t)
{
    /* FILETIME counts 100 ns steps since 1601-01-01. */
    uint64_t ft = ((uint64_t)t + 11644473600ull) * 10000000ull;
    TBRW_FILETIME f = {.dwLowDateTime = (TBRW_U32)ft, .dwHighDateTime = (TBRW_U32)(ft >> 32)};
    return f;
}

static int write_stream_info(struct writer *w)
{
    const struct session *s = &w->p->session;
    double interval_us = (double)s->events[0].sample_after / (double)s->tsc_hz * 1e6;
    TBRW_STREAM_INFO info = {
        .stream_info_size = sizeof info,
        .sampling_duration = (TBRW_U32)(s->duration_s * 1000.0),
        .stream_type = TBRW_SAMPLING_STREAM,
        .sampling_interval = (TBRW_U32)(interval_us + 0.5),
    };
    time_t start;
    if (session_start_time(s, &start) == 0) {
        info.sampling_start_time = filetime(start);
        info.sampling_end_time = filetime(start + (time_t)s->duration_s);
    }
    info.command_line.soi_ptr = wide(w, "acart collect");
    info.cpu_mask.soi_ptr = wide(w, "all");
    char comment[256];
    snprintf(comment, sizeof comment, "acart collection from %s", s->hostname);
    info.comment.soi_ptr = wide(w, comment);
    TBRW_U32 rc = TBRW_set_stream_info(w->h, 0, &info);
    return rc ? tbrw_fail(w, rc, "stream info section") : 0;
}

static int write_events(struct writer *w)
{
    const struct session *s = &w->p->session;
    for (size_t i = 0; i < s->num_events; i++) {
        TBRW_EVENT ev = {
            .event_size = sizeof ev,
            .event_id = s->events[i].index,
            .event_flags = TBRW_EVENT_EBS,
            .event_sav = s->events[i].sample_after,
        };
        ev.event_name.soi_ptr = wide(w, s->events[i].name);
        ev.event_arch_name.soi_ptr = wide(w, s->cpu_vendor ? s->cpu_vendor : "x86");
        TBRW_U32 rc = TBRW_add_event(w->h, 0, &ev);
        if (rc)
            return tbrw_fail(w, rc, "event description section");
    }
    return 0;
}

static int write_data_description(struct writer *w)
{
    TBRW_SAMPREC_DESC_ENTRY pc = {
        .desc_size = sizeof pc,
        .desc_offset = 0,
        .desc_type = ST_LEGACY_SAMPLE_RECORD,
        .desc_subtype = SST_NONE,
        .desc_data_size = sizeof(TBRW_SampleRecordPC),
    };
    pc.desc_name.soi_ptr = wide(w, "SampleRecord");
    TBRW_SAMPREC_DESC_ENTRY tsc = {
        .desc_size = sizeof tsc,
        .desc_offset = offsetof(struct tb5_sample_record, tsc),
        .desc_type = ST_TIME_STAMP,
        .desc_subtype = SST_TSC,
        .desc_data_size = sizeof(TBRW_SampleRecordTSC),
    };
    tsc.desc_name.soi_ptr = wide(w, "TimeStamp");
    TBRW_U32 rc;
    if ((rc = TBRW_add_data_descriptor_entry(w->h, 0, &pc)) ||
        (rc = TBRW_add_data_descriptor_entry(w->h, 0, &tsc)))
        return tbrw_fail(w, rc, "data description section");
    return 0;
}

static int flush_records(struct writer *w)
{
    if (!w->n)
        return 0;
    TBRW_U32 rc = TBRW_add_data(w->h, 0, (TBRW_U32)(w->n * sizeof *w->batch), w->batch);
    w->n = 0;
    if (rc) {
        w->failed_tbrw = rc;
        return 1;
    }
    return 0;
}

static int add_samples(const struct sample *batch, size_t n, void *ctx)
{
    struct writer *w = ctx;
    for (size_t i = 0; i < n; i++) {
        struct tb5_sample_record *r = &w->batch[w->n++];
        tb5_record_from_sample(&batch[i], &r->pc);
        r->tsc.tsc = batch[i].tsc;
        if (w->n == WRITE_BATCH && flush_records(w))
            return 1; /* stops the scan; failed_tbrw says why */
    }
    return 0;
}

static int write_data(struct writer *w)
{
    int rc = profile_scan(w->p, add_samples, w, w->d);
    if (rc == 1 || (!rc && flush_records(w)))
        return tbrw_fail(w, w->failed_tbrw, "data section");
    return rc;
}

static int stream_section(struct writer *w, TBRW_STREAM_SECTION_IDENTIFIER id, const char *what,
                          int (*fill)(struct writer *))
{
    TBRW_U32 rc = TBRW_writing_stream_section(w->h, 0, id);
    if (rc)
        return tbrw_fail(w, rc, what);
    int err = fill(w);
    if (err)
        return err;
    rc = TBRW_done_stream_section(w->h, 0, id);
    return rc ? tbrw_fail(w, rc, what) : 0;
}

static int write_all(struct writer *w)
{
    int rc;
    if ((rc = section(w, TBRW_HARDWARE_SECTION, "hardware section", fill_hardware)) ||
        (rc = section(w, TBRW_SOFTWARE_SECTION, "software section", fill_software)) ||
        (rc = section(w, TBRW_VERSION_INFO_SECTION, "version info section", fill_version)) ||
        (rc = section(w, TBRW_MODULE_SECTION, "module section", fill_modules)) ||
        (rc = section(w, TBRW_USER_DEFINED_GLOBAL_SECTION, "user-defined global section",
                      fill_user_global)))
        return rc;
    TBRW_U32 t = TBRW_writing_stream(w->h, 0);
    if (t)
        return tbrw_fail(w, t, "stream 0");
    if ((rc = stream_section(w, TBRW_STREAM_INFO_SECTION, "stream info section",
                             write_stream_info)) ||
        (rc = stream_section(w, TBRW_EVENT_DESCRIPTION_SECTION, "event description section",
                             write_events)) ||
        (rc = stream_section(w, TBRW_DATA_DESCRIPTION_SECTION, "data description section",
                             write_data_description)) ||
        (rc = stream_section(w, TBRW_DATA_SECTION, "data section", write_data)))
        return rc;
    if ((t = TBRW_done_stream(w->h, 0)))
        return tbrw_fail(w, t, "stream 0");
    return 0;
}

int tb5_write_profile(struct profile *p, const char *path, struct diag *d)
{
    struct writer w = {.path = path, .p = p, .d = d};
    w.batch = malloc(WRITE_BATCH * sizeof *w.batch);
    if (!w.batch)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    TBRW_U32 t =
        tb5_open_path(&w.h, path, TBRW_FILE_CREATE_ALWAYS | TBRW_FILE_WRITE | TBRW_FILE_READ);
    int rc;
    if (t) {
        rc = tbrw_fail(&w, t, "cannot create");
    } else {
        rc = write_all(&w);
        if (rc) {
            TBRW_abort_cleanup_and_close(w.h);
        } else if ((t = TBRW_close(w.h))) {
            rc = tbrw_fail(&w, t, "closing");
            remove(path);
        }
    }
    wide_strings_free(&w.ws);
    free(w.batch);
    return rc;
}

int tb5_bind(const char *path, struct diag *d)
{
    TBRW_PTR h;
    TBRW_U32 t = tb5_open_path(&h, path, TBRW_FILE_READ | TBRW_FILE_WRITE);
    if (t)
        return diag_fail(d, DIAG_OUTPUT, "%s: cannot open to bind: %s", path, tb5_strerror(t));
    if ((t = TBRW_dobind(h, 0))) {
        TBRW_abort_cleanup_and_close(h);
        return diag_fail(d, DIAG_OUTPUT, "%s: binding stream 0: %s", path, tb5_strerror(t));
    }
    if ((t = TBRW_close(h)))
        return diag_fail(d, DIAG_OUTPUT, "%s: closing after binding: %s", path, tb5_strerror(t));
    return 0;
}
