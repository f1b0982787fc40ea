/* See module_records.h. */
#include "module_records.h"
#include "acart_opts.h"
#include "acart_platform.h"
#include "code_mode.h"
#include "collection.h"
#include "task_events.h"

#include <string.h>

#define MAX_PORT_MODULES 32

static struct aca_module_info port_modules[MAX_PORT_MODULES];
static struct module_event module_events[ACA_MAX_MODULE_EVENTS];

/* One ModuleRecord and its path; the record length is kept a multiple of 8 as the
 * reference does. A load record carries the load TSC (0: loaded before anything, like the
 * image) and an all-ones unload TSC; an unload record has SEP_MODREC_SEG_UNLOAD and the
 * unload TSC (docs/sep-protocol.md section 6). */
static void append_module(uint32_t pid, uint64_t start, uint64_t length, const char *name,
                          int unload, uint64_t tsc)
{
    struct module_stream *m = &collection.modules;
    uint32_t path_len = (uint32_t)strlen(name) + 1;
    if (path_len > 0xffff - sizeof(struct sep_module_record) - 8)
        path_len = 0xffff - sizeof(struct sep_module_record) - 8;
    uint32_t rec_len = ((uint32_t)sizeof(struct sep_module_record) + path_len + 7) & ~7u;
    if (m->len + rec_len > sizeof(m->bytes)) {
        m->overflow++;
        return;
    }
    struct sep_module_record r;
    memset(&r, 0, sizeof(r));
    r.rec_length = (uint16_t)rec_len;
    r.segment_bits = (CPU_LONG_MODE ? SEP_MODE_64BIT : SEP_MODE_32BIT) & SEP_MODREC_SEG_TYPE_MASK;
    if (unload)
        r.segment_bits |= SEP_MODREC_SEG_UNLOAD;
    r.selector = 0x08;    /* the board's one code segment */
    r.segment_number = 2; /* what the reference records on a 32-bit kernel */
    r.flags = SEP_MODREC_EXE | SEP_MODREC_PID_RAW | SEP_MODREC_TSC_USED;
    if (pid == 0)
        r.flags |= SEP_MODREC_GLOBAL_MODULE | SEP_MODREC_GLOBAL_MODULE_TB5;
    r.length64 = length;
    r.load_addr64 = start;
    r.pid_rec_index = pid;
    r.unload_tsc = unload ? tsc : ~0ull;
    r.path_length = (uint16_t)path_len;
    const char *base = strrchr(name, '/');
    r.filename_offset = (uint16_t)(base ? base + 1 - name : 0);
    r.tsc = tsc;
    memcpy(m->bytes + m->len, &r, sizeof(r));
    memset(m->bytes + m->len + sizeof(r), 0, rec_len - sizeof(r));
    memcpy(m->bytes + m->len + sizeof(r), name, path_len - 1);
    m->len += rec_len;
}

void module_records_queue_initial(uint64_t since_tsc)
{
    struct module_stream *m = &collection.modules;
    m->len = m->sent = m->overflow = 0;
    int n = aca_port_module_list(port_modules, MAX_PORT_MODULES);
    if (n > MAX_PORT_MODULES)
        n = MAX_PORT_MODULES;
    for (int i = 0; i < n; i++) {
        port_modules[i].name[sizeof(port_modules[i].name) - 1] = 0;
        append_module(port_modules[i].pid, port_modules[i].start, port_modules[i].length,
                      port_modules[i].name, 0, 0);
    }
    /* Modules the port loaded at run time and that were there at since_tsc: those loaded
     * later, or unloaded since, are load and unload records of module_records_queue_changes,
     * so that every unload the host reads follows its load, however the port's loads race
     * with the start. */
    int e = task_events_modules(module_events, ACA_MAX_MODULE_EVENTS);
    for (int i = 0; i < e; i++) {
        const struct module_event *ev = &module_events[i];
        if (ev->load_tsc < since_tsc && (ev->unload_tsc == 0 || ev->unload_tsc >= since_tsc))
            append_module(ev->pid, ev->start, ev->length, ev->name, 0, ev->load_tsc);
    }
}

void module_records_queue_changes(uint64_t since_tsc)
{
    int e = task_events_modules(module_events, ACA_MAX_MODULE_EVENTS);
    for (int i = 0; i < e; i++) {
        const struct module_event *ev = &module_events[i];
        if (ev->load_tsc >= since_tsc)
            append_module(ev->pid, ev->start, ev->length, ev->name, 0, ev->load_tsc);
        if (ev->unload_tsc && ev->unload_tsc >= since_tsc)
            append_module(ev->pid, ev->start, ev->length, ev->name, 1, ev->unload_tsc);
    }
}
