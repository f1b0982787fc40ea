/* acart export perf (DIR|FILE.tb5) -o perf.data: the samples as a perf.data file, which
 * perf report, perf script and the tools built on them (hotspot, Firefox Profiler through
 * perf script) read. The layout is perf's own (tools/perf/Documentation/perf.data-file-
 * format.txt, include/uapi/linux/perf_event.h): a file header, one attribute per event, a
 * data section of COMM, MMAP and SAMPLE records, and the feature sections perf names
 * events and the host with. perf symbolizes by itself, from the ELF files the MMAP records
 * name, so this exporter only says where each module was: the image's loadable segments
 * from IMAGE's program headers, the other modules as the target reported them. */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "export_input.h"
#include "out_file.h"
#include "profile_open.h"
#include "sample_stacks.h"
#include "tally.h"

static const char usage[] =
    "usage: acart export perf (DIR|FILE.tb5) -o FILE [--elf IMAGE]\n"
    "\n"
    "Writes the samples as a perf.data file that perf report and perf script read\n"
    "(perf report --stdio -i FILE --no-children --sort sym gives the shares of\n"
    "acart report's functions). Each event is one perf event of its name (type raw,\n"
    "config its index), each sample a SAMPLE record with its CPU, task (pid, tid), time\n"
    "(the target's TSC in nanoseconds), period (the sample-after value) and call chain\n"
    "(the sampled address, then each caller's call instruction: the return address\n"
    "minus 1, so perf names the caller's function and line as acart does). Each task\n"
    "gets a COMM record with its name (an interrupt handler's tid its handler's). The\n"
    "image gets an MMAP record per loadable segment of IMAGE, naming IMAGE's absolute\n"
    "path, from which perf reads symbols and lines (no build-id is recorded, so perf\n"
    "takes the file as it is); other modules get one MMAP record naming the path the\n"
    "target reported, at their load time.\n"
    "\n"
    "  -o, --output FILE   the file to write (required)\n"
    "  -e, --elf IMAGE     ELF image of the target's code (without it perf shows addresses)\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

/* include/uapi/linux/perf_event.h and tools/perf/util/header.h. */
#define PERF_MAGIC             0x32454c4946524550ull /* "PERFILE2" */
#define PERF_TYPE_RAW          4
#define PERF_ATTR_SIZE         112 /* PERF_ATTR_SIZE_VER5 */
#define PERF_RECORD_MMAP       1
#define PERF_RECORD_COMM       3
#define PERF_RECORD_SAMPLE     9
#define PERF_RECORD_MISC_USER  2
#define PERF_CONTEXT_USER      ((uint64_t)-512)
#define PERF_SAMPLE_IP         (1u << 0)
#define PERF_SAMPLE_TID        (1u << 1)
#define PERF_SAMPLE_TIME       (1u << 2)
#define PERF_SAMPLE_CALLCHAIN  (1u << 5)
#define PERF_SAMPLE_CPU        (1u << 7)
#define PERF_SAMPLE_PERIOD     (1u << 8)
#define PERF_SAMPLE_IDENTIFIER (1u << 16)
#define ATTR_EXCLUDE_KERNEL    (1u << 5)
#define ATTR_EXCLUDE_HV        (1u << 6)
#define ATTR_MMAP              (1u << 8)
#define ATTR_COMM              (1u << 9)
#define ATTR_SAMPLE_ID_ALL     (1u << 18)
#define HEADER_HOSTNAME        3
#define HEADER_NRCPUS          7
#define HEADER_EVENT_DESC      12
#define PERF_FILE_HEADER_SIZE  104
#define PERF_NAME_ALIGN        64

/* Every record carries the same sample type: the identifier first, so perf finds the
 * event of any record, and sample_id_all puts pid, tid, time, cpu and the identifier
 * after MMAP and COMM records too, which lets perf order them with the samples. */
#define SAMPLE_TYPE                                                                                \
    (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                \
     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct perf {
    struct export_input in;
    FILE *f;
    char *image_path;   /* IMAGE's absolute path, for the MMAP records */
    struct tally tasks; /* pid << 32 | tid of every sample */
    uint64_t *pids;
    size_t num_pids;
    uint64_t *chain;        /* one sample's call chain */
    const uint64_t *period; /* per event index */
};

#define STOP_WRITE_FAILED 1
#define STOP_NO_MEMORY    2

/* Event e's perf identifier: its index + 1, so that 0 stays unused. */
static uint64_t event_id(uint32_t index)
{
    return (uint64_t)index + 1;
}

static uint64_t ns_of(const struct perf *x, uint64_t tsc)
{
    uint64_t hz = x->in.p.session.tsc_hz ? x->in.p.session.tsc_hz : 1000000000;
    /* Split so that neither product overflows for any TSC below 18 GHz. */
    return tsc / hz * 1000000000 + tsc % hz * 1000000000 / hz;
}

static void put_u16(FILE *f, uint16_t v)
{
    fwrite(&v, sizeof v, 1, f); /* perf.data is in the writer's byte order: x86 */
}
static void put_u32(FILE *f, uint32_t v)
{
    fwrite(&v, sizeof v, 1, f);
}
static void put_u64(FILE *f, uint64_t v)
{
    fwrite(&v, sizeof v, 1, f);
}

static void record_header(FILE *f, uint32_t type, uint16_t misc, size_t size)
{
    put_u32(f, type);
    put_u16(f, misc);
    put_u16(f, (uint16_t)size);
}

/* sample_id_all's trailer of a non-sample record. */
static void sample_id(const struct perf *x, uint32_t pid, uint32_t tid, uint64_t tsc)
{
    put_u32(x->f, pid);
    put_u32(x->f, tid);
    put_u64(x->f, tsc ? ns_of(x, tsc) : 0);
    put_u32(x->f, 0);
    put_u32(x->f, 0);
    put_u64(x->f, event_id(x->in.p.session.events[0].index));
}

#define SAMPLE_ID_SIZE 32

/* A string padded with NULs to a multiple of 8 bytes (at least one NUL). */
static size_t padded(const char *s)
{
    return (strlen(s) + 1 + 7) / 8 * 8;
}

static void put_padded(FILE *f, const char *s, size_t size)
{
    size_t n = strlen(s);
    fwrite(s, 1, n, f);
    for (; n < size; n++)
        fputc(0, f);
}

static void write_comm(struct perf *x, uint32_t pid, uint32_t tid)
{
    char name[256];
    sample_stacks_task_name(&x->in.p.session, pid, tid, name, sizeof name);
    /* perf keeps 16 bytes of a comm (TASK_COMM_LEN) in places; the record takes more. */
    size_t len = padded(name);
    record_header(x->f, PERF_RECORD_COMM, 0, 8 + 8 + len + SAMPLE_ID_SIZE);
    put_u32(x->f, pid);
    put_u32(x->f, tid);
    put_padded(x->f, name, len);
    sample_id(x, pid, tid, 0);
}

static void write_mmap(struct perf *x, uint32_t pid, uint64_t tsc, uint64_t addr, uint64_t len,
                       uint64_t pgoff, const char *path)
{
    size_t n = padded(path);
    record_header(x->f, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, 8 + 8 + 24 + n + SAMPLE_ID_SIZE);
    put_u32(x->f, pid);
    put_u32(x->f, pid);
    put_u64(x->f, addr);
    put_u64(x->f, len);
    put_u64(x->f, pgoff);
    put_padded(x->f, path, n);
    sample_id(x, pid, pid, tsc);
}

/* The image's loadable segments as MMAP records for process pid: perf maps an address to
 * a file offset through them (address - start + pgoff) and finds symbols by offset. */
static int write_image_mmaps(struct perf *x, const struct module_info *m, uint32_t pid,
                             struct diag *d)
{
    int fd = open(x->in.elf, O_RDONLY);
    if (fd < 0)
        return diag_fail(d, DIAG_INPUT, "%s: cannot open", x->in.elf);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    size_t n = 0;
    int rc = 0;
    if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n) != 0) {
        rc = diag_fail(d, DIAG_INPUT, "%s: not a usable ELF image: %s", x->in.elf, elf_errmsg(-1));
    } else {
        /* A position-independent image sits where the target loaded its module. */
        uint64_t bias = eh.e_type == ET_DYN && m ? m->load_address : 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_memsz)
                write_mmap(x, pid, m ? m->tsc : 0, bias + ph.p_vaddr, ph.p_memsz, ph.p_offset,
                           x->image_path);
        }
    }
    elf_end(elf);
    close(fd);
    return rc;
}

static bool is_image(const struct perf *x, const struct module_info *m)
{
    return x->in.sym && strcmp(m->name, symbols_image_name(x->in.sym)) == 0;
}

/* Every module for every process that can see it (global modules for all). */
static int write_mmaps(struct perf *x, struct diag *d)
{
    const struct profile *p = &x->in.p;
    for (size_t k = 0; k < x->num_pids; k++) {
        uint32_t pid = (uint32_t)x->pids[k];
        bool image_seen = false;
        for (size_t i = 0; i < p->num_modules; i++) {
            const struct module_info *m = &p->modules[i];
            if (!(m->global || m->pid == 0 || m->pid == pid))
                continue;
            if (is_image(x, m)) {
                image_seen = true;
                int rc = write_image_mmaps(x, m, pid, d);
                if (rc)
                    return rc;
            } else {
                write_mmap(x, pid, m->tsc, m->load_address, m->length, 0, m->path);
            }
        }
        /* No module record for the image (an old collection): its link addresses. */
        int rc;
        if (!image_seen && x->in.sym && (rc = write_image_mmaps(x, NULL, pid, d)))
            return rc;
    }
    return 0;
}

static int collect_tasks(const struct sample *batch, size_t n, void *ctx)
{
    struct perf *x = ctx;
    for (size_t i = 0; i < n; i++)
        if (tally_add(&x->tasks, (uint64_t)batch[i].pid << 32 | batch[i].tid, 0, 1) != 0)
            return STOP_NO_MEMORY;
    return 0;
}

static int write_samples(const struct sample *batch, size_t n, void *ctx)
{
    struct perf *x = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct sample *s = &batch[i];
        size_t nr = 0;
        x->chain[nr++] = PERF_CONTEXT_USER;
        x->chain[nr++] = s->ip;
        for (uint32_t k = 0; k < s->num_callers; k++)
            x->chain[nr++] = s->callers[k] - 1;
        record_header(x->f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 6 * 8 + 8 + 8 * nr);
        put_u64(x->f, event_id(s->event));
        put_u64(x->f, s->ip);
        put_u32(x->f, s->pid);
        put_u32(x->f, s->tid);
        put_u64(x->f, ns_of(x, s->tsc));
        put_u32(x->f, s->cpu);
        put_u32(x->f, 0);
        put_u64(x->f, x->period[s->event]);
        put_u64(x->f, nr);
        fwrite(x->chain, sizeof *x->chain, nr, x->f);
    }
    return ferror(x->f) ? STOP_WRITE_FAILED : 0;
}

static void put_attr(const struct perf *x, const struct session_event *ev)
{
    unsigned char attr[PERF_ATTR_SIZE] = {0};
    uint32_t type = PERF_TYPE_RAW, size = PERF_ATTR_SIZE;
    uint64_t config = ev->index, period = ev->sample_after, sample_type = SAMPLE_TYPE;
    uint64_t flags =
        ATTR_EXCLUDE_KERNEL | ATTR_EXCLUDE_HV | ATTR_MMAP | ATTR_COMM | ATTR_SAMPLE_ID_ALL;
    uint16_t max_stack = (uint16_t)(x->in.p.callstack_depth + 1);
    memcpy(attr + 0, &type, 4);
    memcpy(attr + 4, &size, 4);
    memcpy(attr + 8, &config, 8);
    memcpy(attr + 16, &period, 8);
    memcpy(attr + 24, &sample_type, 8);
    memcpy(attr + 40, &flags, 8);
    memcpy(attr + 108, &max_stack, 2);
    fwrite(attr, 1, sizeof attr, x->f);
}

/* A perf string: u32 length (a multiple of 64, the NUL included), the bytes, NULs. */
static size_t perf_string(FILE *f, const char *s)
{
    size_t len = (strlen(s) + 1 + PERF_NAME_ALIGN - 1) / PERF_NAME_ALIGN * PERF_NAME_ALIGN;
    if (f) {
        put_u32(f, (uint32_t)len);
        put_padded(f, s, len);
    }
    return 4 + len;
}

/* The feature sections after the data: their table, then HOSTNAME, NRCPUS, EVENT_DESC. */
static void write_features(struct perf *x, uint64_t at)
{
    const struct session *s = &x->in.p.session;
    uint64_t hostname = perf_string(NULL, s->hostname), nrcpus = 8;
    uint64_t desc = 8;
    for (size_t e = 0; e < s->num_events; e++)
        desc += PERF_ATTR_SIZE + 4 + perf_string(NULL, s->events[e].name) + 8;
    uint64_t offset = at + 3 * 16;
    put_u64(x->f, offset);
    put_u64(x->f, hostname);
    put_u64(x->f, offset + hostname);
    put_u64(x->f, nrcpus);
    put_u64(x->f, offset + hostname + nrcpus);
    put_u64(x->f, desc);
    perf_string(x->f, s->hostname);
    put_u32(x->f, s->num_cpus);
    put_u32(x->f, s->num_cpus);
    put_u32(x->f, (uint32_t)s->num_events);
    put_u32(x->f, PERF_ATTR_SIZE);
    for (size_t e = 0; e < s->num_events; e++) {
        put_attr(x, &s->events[e]);
        put_u32(x->f, 1);
        perf_string(x->f, s->events[e].name);
        put_u64(x->f, event_id(s->events[e].index));
    }
}

static void write_header(struct perf *x, uint64_t attrs, uint64_t data, uint64_t data_size)
{
    size_t nev = x->in.p.session.num_events;
    uint64_t features = 1ull << HEADER_HOSTNAME | 1ull << HEADER_NRCPUS | 1ull << HEADER_EVENT_DESC;
    put_u64(x->f, PERF_MAGIC);
    put_u64(x->f, PERF_FILE_HEADER_SIZE);
    put_u64(x->f, PERF_ATTR_SIZE + 16);
    put_u64(x->f, attrs);
    put_u64(x->f, nev * (PERF_ATTR_SIZE + 16));
    put_u64(x->f, data);
    put_u64(x->f, data_size);
    put_u64(x->f, 0); /* event_types: unused since perf 3.x */
    put_u64(x->f, 0);
    put_u64(x->f, features);
    put_u64(x->f, 0);
    put_u64(x->f, 0);
    put_u64(x->f, 0);
}

static int write_file(struct perf *x, const char *output, struct diag *d)
{
    const struct session *s = &x->in.p.session;
    size_t nev = s->num_events;
    struct out_file o;
    int rc = out_file_open(&o, output, d);
    if (rc)
        return rc;
    x->f = o.f;
    /* Header, each event's id, the attributes, then the data. */
    uint64_t ids = PERF_FILE_HEADER_SIZE, attrs = ids + 8 * nev;
    uint64_t data = attrs + nev * (PERF_ATTR_SIZE + 16);
    write_header(x, attrs, data, 0);
    for (size_t e = 0; e < nev; e++)
        put_u64(x->f, event_id(s->events[e].index));
    for (size_t e = 0; e < nev; e++) {
        put_attr(x, &s->events[e]);
        put_u64(x->f, ids + 8 * e);
        put_u64(x->f, 8);
    }
    for (size_t i = 0; i < x->tasks.capacity; i++)
        if (x->tasks.occupied[i])
            write_comm(x, (uint32_t)(x->tasks.keys[i] >> 32), (uint32_t)x->tasks.keys[i]);
    if ((rc = write_mmaps(x, d)) == 0) {
        rc = profile_scan(&x->in.p, write_samples, x, d);
        if (rc == STOP_WRITE_FAILED)
            rc = diag_fail(d, DIAG_OUTPUT, "%s: write error", output);
    }
    long end = ftell(x->f);
    if (!rc && end < 0)
        rc = diag_fail(d, DIAG_OUTPUT, "%s: write error", output);
    if (!rc) {
        write_features(x, (uint64_t)end);
        if (fseek(x->f, 0, SEEK_SET) != 0)
            rc = diag_fail(d, DIAG_OUTPUT, "%s: cannot seek", output);
        else
            write_header(x, attrs, data, (uint64_t)end - data);
    }
    if (rc) {
        out_file_discard(&o);
        return rc;
    }
    return out_file_commit(&o, d);
}

/* The pids of the tasks, sorted and distinct. */
static int list_pids(struct perf *x)
{
    x->pids = malloc((x->tasks.used + 1) * sizeof *x->pids);
    if (!x->pids)
        return -1;
    for (size_t i = 0; i < x->tasks.capacity; i++) {
        if (!x->tasks.occupied[i])
            continue;
        uint64_t pid = x->tasks.keys[i] >> 32;
        size_t k = 0;
        while (k < x->num_pids && x->pids[k] != pid)
            k++;
        if (k == x->num_pids)
            x->pids[x->num_pids++] = pid;
    }
    return 0;
}

static int run(struct perf *x, const char *source, const char *elf, const char *output,
               struct diag *d)
{
    int rc = export_input_open(&x->in, source, elf, 0, "export perf", d);
    if (rc)
        return rc;
    if (elf && !(x->image_path = realpath(elf, NULL)))
        return diag_fail(d, DIAG_INPUT, "%s: cannot resolve its path", elf);
    elf_version(EV_CURRENT);
    const struct session *s = &x->in.p.session;
    uint64_t *period = calloc(SESSION_MAX_EVENTS, sizeof *period);
    x->period = period;
    x->chain = malloc(((size_t)x->in.p.callstack_depth + 2) * sizeof *x->chain);
    if (!period || !x->chain || tally_init(&x->tasks, 1) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (size_t e = 0; e < s->num_events; e++)
        period[s->events[e].index] = s->events[e].sample_after;
    /* First pass: the tasks, whose COMM and MMAP records come before the samples. */
    rc = profile_scan(&x->in.p, collect_tasks, x, d);
    if (rc == STOP_NO_MEMORY || (!rc && list_pids(x) != 0))
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (rc)
        return rc;
    profile_check_counts(&x->in.p, "export perf");
    return write_file(x, output, d);
}

int export_perf(int argc, char **argv)
{
    const char *source, *output, *elf;
    int status = export_input_args(argc, argv, "export perf", usage, &source, &output, &elf);
    if (status >= 0)
        return status;
    struct perf x;
    memset(&x, 0, sizeof x);
    struct diag d = {0};
    int rc = run(&x, source, elf, output, &d);
    free(x.image_path);
    free(x.pids);
    free(x.chain);
    free((void *)x.period);
    tally_free(&x.tasks);
    export_input_close(&x.in);
    return rc ? diag_report("export perf", &d) : ACART_EXIT_OK;
}
