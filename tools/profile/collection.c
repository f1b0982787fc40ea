/* A collection folder: session.json, module.bin (module records as the module channel
 * sent them) and cpu<N>.bin (sample records as CPU channel N sent them). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acart_wire.h"
#include "collection.h"
#include "file_util.h"

/* Records are decoded into batches of up to this many samples. */
#define SCAN_BATCH 4096
/* Bytes read from a CPU file at a time: up to SCAN_CHUNK, no more than the largest file
 * needs, but at least the largest record (the buffer must hold one). */
#define SCAN_CHUNK (1u << 20)

static char *cpu_file(const char *dir, uint32_t cpu)
{
    char name[32];
    snprintf(name, sizeof name, "cpu%" PRIu32 ".bin", cpu);
    return file_join(dir, name);
}

static int module_from_record(struct profile *p, const char *path, const unsigned char *rec,
                              size_t avail, uint64_t offset, size_t *used, struct diag *d)
{
    struct sep_module_record mr;
    if (avail < sizeof mr)
        return diag_fail(d, DIAG_INPUT,
                         "%s: byte %" PRIu64 ": truncated module record (%zu of 80 bytes)", path,
                         offset, avail);
    memcpy(&mr, rec, sizeof mr);
    if (mr.path_length == 0 || (size_t)mr.rec_length < sizeof mr + mr.path_length)
        return diag_fail(d, DIAG_INPUT,
                         "%s: byte %" PRIu64 ": record length %u does not hold the 80-byte "
                         "record and its %u path bytes",
                         path, offset, mr.rec_length, mr.path_length);
    if (mr.rec_length > avail)
        return diag_fail(d, DIAG_INPUT,
                         "%s: byte %" PRIu64 ": module record of %u bytes, only %zu left", path,
                         offset, mr.rec_length, avail);
    const char *name = (const char *)rec + sizeof mr;
    if (memchr(name, '\0', mr.path_length) != name + mr.path_length - 1)
        return diag_fail(d, DIAG_INPUT,
                         "%s: byte %" PRIu64 ": path is not %u bytes ending in its only NUL", path,
                         offset, mr.path_length);
    *used = mr.rec_length;
    /* Lifetimes (docs/sep-protocol.md section 6): a load record carries its load TSC in
     * tsc (0: loaded before anything, like the image); an unload record, after its load in
     * the stream, the unload TSC in unload_tsc. A load's own unload_tsc is not read: acart
     * leaves it all ones, and the reference agent puts the time of the record there. A
     * module never unloaded lives to the end; an unload without a load ends nothing, and
     * without TSC_USED a record's times are no TSCs: its module lives throughout. */
    bool timed = (mr.flags & SEP_MODREC_TSC_USED) != 0;
    if (mr.segment_bits & SEP_MODREC_SEG_UNLOAD) {
        if (timed)
            profile_unload_module(p, mr.pid_rec_index, mr.load_addr64, name, mr.unload_tsc);
        return 0;
    }
    struct module_info m = {
        .path = (char *)name,
        .load_address = mr.load_addr64,
        .length = mr.length64,
        .tsc = timed ? mr.tsc : 0,
        .pid = mr.pid_rec_index,
        .selector = mr.selector,
        .mode = (uint8_t)(mr.segment_bits & SEP_MODREC_SEG_TYPE_MASK),
        .exe = (mr.flags & SEP_MODREC_EXE) != 0,
        .global = (mr.flags & SEP_MODREC_GLOBAL_MODULE) != 0,
    };
    return profile_add_module(p, &m, d);
}

static int read_modules(struct profile *p, const char *dir, struct diag *d)
{
    char *path = file_join(dir, "module.bin");
    if (!path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct stat st;
    int rc = 0;
    if (stat(path, &st) != 0 && errno == ENOENT) {
        /* No module channel: the session's own list, if any, is all there is. */
        for (size_t i = 0; i < p->session.num_modules && !rc; i++) {
            const struct session_module *sm = &p->session.modules[i];
            struct module_info m = {.path = sm->path,
                                    .load_address = sm->load_address,
                                    .length = sm->length,
                                    .global = true};
            rc = profile_add_module(p, &m, d);
        }
        free(path);
        return rc;
    }
    char *data;
    size_t len;
    rc = file_read_all(path, &data, &len, d);
    if (rc) {
        free(path);
        return rc;
    }
    for (size_t off = 0; !rc && off < len;) {
        size_t used = 0;
        rc = module_from_record(p, path, (unsigned char *)data + off, len - off, off, &used, d);
        off += used;
    }
    free(data);
    free(path);
    return rc;
}

/* With every record 48 bytes, record counts follow from file sizes. */
static int count_records(struct profile *p, const char *dir, struct diag *d)
{
    bool fixed = true;
    for (size_t i = 0; i < p->session.num_descriptors; i++)
        fixed &= p->session.descriptors[i].sample_size == SESSION_SAMPLE_RECORD_MIN;
    for (uint32_t cpu = 0; cpu < p->session.num_cpus; cpu++) {
        char *path = cpu_file(dir, cpu);
        if (!path)
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        struct stat st;
        if (stat(path, &st) != 0) {
            int rc = diag_fail(d, DIAG_INPUT, "%s: %s (session.json lists %" PRIu32 " CPUs)", path,
                               strerror(errno), p->session.num_cpus);
            free(path);
            return rc;
        }
        if (!S_ISREG(st.st_mode)) {
            int rc = diag_fail(d, DIAG_INPUT, "%s: %s, not a file of sample records", path,
                               S_ISDIR(st.st_mode) ? "a directory" : "a special file");
            free(path);
            return rc;
        }
        if (fixed && st.st_size % SESSION_SAMPLE_RECORD_MIN != 0) {
            int rc = diag_fail(d, DIAG_INPUT,
                               "%s: %lld bytes is not a whole number of 48-byte sample records",
                               path, (long long)st.st_size);
            free(path);
            return rc;
        }
        free(path);
        p->input_bytes += (uint64_t)st.st_size;
        p->records_per_cpu[cpu] = (uint64_t)st.st_size / SESSION_SAMPLE_RECORD_MIN;
    }
    p->records_known = fixed;
    if (fixed)
        for (uint32_t cpu = 0; cpu < p->session.num_cpus; cpu++)
            p->num_records += p->records_per_cpu[cpu];
    return 0;
}

int collection_open(const char *dir, struct profile *p, struct diag *d)
{
    char *path = file_join(dir, "session.json");
    if (!path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    int rc = session_read(path, &p->session, d);
    free(path);
    if (rc)
        return rc;
    p->reported_counts = true;
    p->records_per_cpu = calloc(p->session.num_cpus, sizeof *p->records_per_cpu);
    if (!p->records_per_cpu)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if ((rc = read_modules(p, dir, d)) || (rc = count_records(p, dir, d)))
        return rc;
    if ((rc = profile_finish_modules(p, true, d)))
        return rc;
    p->callstack_depth = session_callstack_depth(&p->session);
    const struct session_lbr *l = p->session.lbr;
    if (l) {
        p->lbr.depth = (uint8_t)(l->depth > LBR_MAX_ENTRIES ? LBR_MAX_ENTRIES : l->depth);
        p->lbr.format = (uint8_t)l->format;
        p->lbr.arch = l->format == LBR_FORMAT_ARCH;
        p->lbr.has_info = (uint8_t)l->has_info;
        if (l->call_stack && p->callstack_depth < p->lbr.depth)
            p->callstack_depth = p->lbr.depth;
    }
    return 0;
}

static void decode(const struct sep_sample_pc *r, struct sample *s)
{
    if (r->bit_fields2 & SEP_SAMPLE_IA64PC) {
        s->ip = r->iip;
        s->psr = r->ipsr;
        s->csd = 0;
    } else {
        /* eip, eflags and the code segment descriptor share the iip/ipsr bytes. */
        s->ip = (uint32_t)r->iip;
        s->psr = (uint32_t)(r->iip >> 32);
        s->csd = r->ipsr;
    }
    s->tsc = r->tsc;
    s->pid = r->pid_rec_index;
    s->tid = r->tid;
    s->cpu = r->cpu_and_os & SEP_SAMPLE_CPU_NUM_MASK;
    s->cs = r->cs;
    s->event =
        (uint8_t)((r->bit_fields2 & SEP_SAMPLE_EVENT_INDEX_MASK) >> SEP_SAMPLE_EVENT_INDEX_SHIFT);
    s->mode = (uint8_t)((r->cpu_and_os >> SEP_SAMPLE_CODE_MODE_SHIFT) & 3u);
}

struct cpu_scan {
    struct profile *p;
    const char *path;
    profile_sample_fn *fn;
    void *ctx;
    struct sample *batch;
    size_t n, cap; /* samples in the batch, and its room */
    size_t chunk;  /* bytes of the read buffer */
    uint64_t records;
    /* The batch's call stacks: room for a whole batch of the deepest, reused every batch. */
    uint64_t *callers;
    size_t callers_used;
    /* The batch's LBR stacks: LBR_MAX_ENTRIES per sample. */
    struct lbr_entry *branches;
};

static int flush(struct cpu_scan *cs)
{
    int rc = cs->n ? cs->fn(cs->batch, cs->n, cs->ctx) : 0;
    cs->n = 0;
    cs->callers_used = 0;
    return rc;
}

/* The return addresses of rec's call stack, up to the first 0, into the batch's room. */
static void read_callers(struct cpu_scan *cs, const struct session_descriptor *desc,
                         const unsigned char *rec, struct sample *smp)
{
    smp->callers = NULL;
    smp->num_callers = 0;
    uint64_t *out = cs->callers + cs->callers_used;
    uint32_t n = 0;
    /* A stack copy, unwound with the image's CFI, gives the callers when the record has it
     * (and replaces a frame-pointer walk, which it would only repeat). */
    if (desc && desc->stack_copy_size && cs->p->unwind) {
        n = cs->p->unwind(cs->p->unwind_ctx, rec + desc->stack_copy_offset, desc->stack_copy_size,
                          out, cs->p->callstack_depth);
        if (n) {
            smp->callers = out;
            smp->num_callers = n;
            cs->callers_used += n;
        }
        return;
    }
    if (!desc || desc->callstack_size == 0)
        return;
    for (uint32_t i = 0; i < desc->callstack_size / 8; i++) {
        uint64_t ra;
        memcpy(&ra, rec + desc->callstack_offset + 8 * i, sizeof ra);
        if (ra == 0)
            break;
        out[n++] = ra;
    }
    if (n) {
        smp->callers = out;
        smp->num_callers = n;
        cs->callers_used += n;
    }
}

/* The record's memory information (docs/sep-protocol.md 6.4): present when the target
 * wrote any of it, which it does only for load-latency samples. */
static void read_memory(const struct session_descriptor *desc, const unsigned char *rec,
                        struct sample *smp)
{
    smp->has_memory = false;
    smp->data_address = smp->data_source = smp->latency = 0;
    if (!desc || desc->latency_size < SEP_LATENCY_INFO_FILLED)
        return;
    struct sep_latency_info info;
    memset(&info, 0, sizeof info);
    memcpy(&info, rec + desc->latency_offset, SEP_LATENCY_INFO_FILLED);
    smp->data_address = info.linear_address;
    smp->data_source = info.data_source;
    smp->latency = info.latency;
    smp->has_memory = info.linear_address || info.data_source || info.latency;
}

/* The record's LBR registers into a snapshot, decoded newest first; in call-stack mode
 * they are also its callers (profile.h). */
static void read_branches(struct cpu_scan *cs, const unsigned char *rec, struct sample *smp)
{
    const struct session_lbr *l = cs->p->session.lbr;
    smp->branches = NULL;
    smp->num_branches = 0;
    if (!l)
        return;
    struct lbr_snapshot snap;
    memset(&snap, 0, sizeof snap);
    for (uint32_t i = 0; i < l->num_regs; i++) {
        uint64_t v;
        memcpy(&v, rec + l->offset + 8 * i, sizeof v);
        const struct session_lbr_reg *g = &l->regs[i];
        if (g->kind == SESSION_LBR_TOS)
            snap.tos = v;
        else if (g->kind == SESSION_LBR_FROM)
            snap.from[g->index] = v;
        else if (g->kind == SESSION_LBR_TO)
            snap.to[g->index] = v;
        else if (g->kind == SESSION_LBR_INFO)
            snap.info[g->index] = v;
    }
    struct lbr_entry *out = cs->branches + cs->n * LBR_MAX_ENTRIES;
    smp->num_branches = lbr_decode(&cs->p->lbr, &snap, out, LBR_MAX_ENTRIES);
    smp->branches = smp->num_branches ? out : NULL;
    if (!l->call_stack || !smp->num_branches)
        return;
    uint64_t *callers = cs->callers + cs->callers_used;
    for (uint32_t i = 0; i < smp->num_branches; i++)
        callers[i] = out[i].from + 1;
    smp->callers = callers;
    smp->num_callers = smp->num_branches;
    cs->callers_used += smp->num_branches;
}

/* Decodes the whole records in buf[0..len); returns the bytes used, or -1 after an error. */
static long long decode_chunk(struct cpu_scan *cs, const unsigned char *buf, size_t len,
                              uint64_t file_offset, int *rc, struct diag *d)
{
    size_t off = 0;
    while (len - off >= sizeof(struct sep_sample_pc)) {
        struct sep_sample_pc r;
        memcpy(&r, buf + off, sizeof r);
        const struct session_descriptor *desc =
            session_descriptor(&cs->p->session, r.descriptor_id);
        uint32_t size = session_record_size(&cs->p->session, r.descriptor_id);
        if (size == 0) {
            *rc = diag_fail(d, DIAG_INPUT,
                            "%s: byte %" PRIu64 ": descriptor_id %" PRIu32
                            " is not among session.json's descriptors",
                            cs->path, file_offset + off, r.descriptor_id);
            return -1;
        }
        if (len - off < size)
            break;
        struct sample *smp = &cs->batch[cs->n];
        decode(&r, smp);
        if (smp->event >= cs->p->session.num_events || smp->cpu >= cs->p->session.num_cpus) {
            *rc = diag_fail(d, DIAG_INPUT,
                            "%s: byte %" PRIu64 ": sample of event %u on CPU %u, but session.json "
                            "lists %zu event(s) and %" PRIu32 " CPU(s)",
                            cs->path, file_offset + off, smp->event, smp->cpu,
                            cs->p->session.num_events, cs->p->session.num_cpus);
            return -1;
        }
        read_callers(cs, desc, buf + off, smp);
        read_branches(cs, buf + off, smp);
        read_memory(desc, buf + off, smp);
        cs->n++;
        cs->records++;
        off += size;
        if (cs->n == cs->cap && (*rc = flush(cs)))
            return -1;
    }
    return (long long)off;
}

static int scan_cpu(struct cpu_scan *cs, unsigned char *buf, uint64_t *bytes_done, struct diag *d)
{
    FILE *f = fopen(cs->path, "rb");
    if (!f)
        return diag_fail(d, DIAG_INPUT, "%s: %s", cs->path, strerror(errno));
    size_t have = 0;
    uint64_t offset = 0; /* file offset of buf[0] */
    int rc = 0;
    for (;;) {
        size_t got = fread(buf + have, 1, cs->chunk - have, f);
        if (got == 0)
            break;
        have += got;
        long long used = decode_chunk(cs, buf, have, offset, &rc, d);
        if (used < 0)
            break;
        memmove(buf, buf + used, have - (size_t)used);
        have -= (size_t)used;
        offset += (uint64_t)used;
        *bytes_done += (uint64_t)used;
        if (cs->p->progress)
            cs->p->progress(*bytes_done, cs->p->progress_ctx);
    }
    if (!rc && ferror(f))
        rc = diag_fail(d, DIAG_INPUT, "%s: read error at byte %" PRIu64 ": %s", cs->path,
                       offset + have, strerror(errno));
    else if (!rc && have)
        rc = diag_fail(d, DIAG_INPUT, "%s: ends inside a sample record (%zu bytes left over)",
                       cs->path, have);
    fclose(f);
    if (!rc)
        rc = flush(cs);
    return rc;
}

/* Bytes of the largest CPU file (0 when none can be seen: scanning reports why). */
static uint64_t largest_cpu_file(const struct profile *p)
{
    uint64_t largest = 0;
    for (uint32_t cpu = 0; cpu < p->session.num_cpus; cpu++) {
        char *path = cpu_file(p->source, cpu);
        struct stat st;
        if (path && stat(path, &st) == 0 && (uint64_t)st.st_size > largest)
            largest = (uint64_t)st.st_size;
        free(path);
    }
    return largest;
}

int collection_scan(struct profile *p, profile_sample_fn *fn, void *ctx, struct diag *d)
{
    /* Buffers as large as the files can fill, up to the limits: a small collection is
     * scanned without megabytes it cannot use. */
    uint64_t largest = largest_cpu_file(p);
    size_t cap = largest / SESSION_SAMPLE_RECORD_MIN < SCAN_BATCH
                     ? (size_t)(largest / SESSION_SAMPLE_RECORD_MIN) + 1
                     : SCAN_BATCH;
    size_t chunk = largest < SCAN_CHUNK ? (size_t)largest + 1 : SCAN_CHUNK;
    if (chunk < SESSION_SAMPLE_RECORD_MAX)
        chunk = SESSION_SAMPLE_RECORD_MAX;
    unsigned char *buf = malloc(chunk);
    struct sample *batch = malloc(cap * sizeof *batch);
    /* Frame-pointer and LBR call stacks: both may fill a sample's share. */
    uint64_t *callers = malloc(cap * (2 * (size_t)p->callstack_depth + 1) * sizeof *callers);
    struct lbr_entry *branches =
        p->session.lbr ? malloc(cap * LBR_MAX_ENTRIES * sizeof *branches) : NULL;
    int rc = 0;
    uint64_t bytes_done = 0, total = 0;
    if (!buf || !batch || !callers || (p->session.lbr && !branches))
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    for (uint32_t cpu = 0; !rc && cpu < p->session.num_cpus; cpu++) {
        struct cpu_scan cs = {.p = p,
                              .fn = fn,
                              .ctx = ctx,
                              .batch = batch,
                              .cap = cap,
                              .chunk = chunk,
                              .callers = callers,
                              .branches = branches};
        char *path = cpu_file(p->source, cpu);
        if (!path) {
            rc = diag_fail(d, DIAG_NOMEM, "out of memory");
            break;
        }
        cs.path = path;
        rc = scan_cpu(&cs, buf, &bytes_done, d);
        free(path);
        p->records_per_cpu[cpu] = cs.records;
        total += cs.records;
    }
    if (!rc && !p->records_known) {
        p->records_known = true;
        p->num_records = total;
    }
    free(buf);
    free(batch);
    free(callers);
    free(branches);
    return rc;
}
