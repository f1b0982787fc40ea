/* Intel PT in `acart collect --pt` (see collect_pt.h). */
#include "collect_pt.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect_net.h"
#include "file_util.h"

/* MTC every 2^3 crystal ticks when the CPU offers it: a time stamp every few hundred
 * nanoseconds (Linux perf's default too). */
#define DEFAULT_MTC_FREQ 3

int collect_pt_add_filter(struct collect_pt_options *opt, const char *arg)
{
    if (opt->num_filters == ACART_PT_MAX_RANGES)
        return -1;
    opt->filters[opt->num_filters++] = arg;
    return 0;
}

/* "START-END" (END inclusive, any base strtoull takes): 1 and the range, else 0. */
static int parse_range(const char *arg, uint64_t *start, uint64_t *end)
{
    const char *dash = strchr(arg, '-');
    char *stop;

    if (!dash || dash == arg || !dash[1] || arg[0] == '-')
        return 0;
    errno = 0;
    *start = strtoull(arg, &stop, 0);
    if (stop != dash || errno)
        return 0;
    *end = strtoull(dash + 1, &stop, 0);
    return !*stop && !errno && dash[1] != '-' && dash[1] != '+';
}

/* A function symbol of the fixed-address ELF image at path: 1 and its [start, end], 0 if
 * it has none of that name, or a diag failure. */
static int elf_function(const char *path, const char *name, uint64_t *start, uint64_t *end,
                        struct diag *d)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return diag_fail(d, DIAG_USAGE, "--elf %s: %s", path, strerror(errno));
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    int found = 0;
    if (!e || !gelf_getehdr(e, &eh)) {
        found = diag_fail(d, DIAG_USAGE, "--elf %s: not an ELF file", path);
    } else if (eh.e_type != ET_EXEC) {
        found = diag_fail(d, DIAG_USAGE,
                          "--elf %s: a position-independent image: give --pt-filter START-END "
                          "(the addresses it runs at) or its module's name",
                          path);
    } else {
        Elf_Scn *scn = NULL;
        while (!found && (scn = elf_nextscn(e, scn)) != NULL) {
            GElf_Shdr sh;
            Elf_Data *data;
            if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
                !(data = elf_getdata(scn, NULL)))
                continue;
            for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
                GElf_Sym sym;
                const char *sname;
                if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
                    !sym.st_size || !(sname = elf_strptr(e, sh.sh_link, sym.st_name)) ||
                    strcmp(sname, name) != 0)
                    continue;
                *start = sym.st_value;
                *end = sym.st_value + sym.st_size - 1;
                found = 1;
                break;
            }
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return found;
}

static int lowest_bit(uint32_t v)
{
    for (int i = 0; i < 16; i++)
        if (v & (1u << i))
            return i;
    return -1;
}

static int build_config(struct collect_pt *pt, struct diag *d)
{
    const struct collect_pt_options *o = &pt->opt;
    struct acart_pt_config *c = &pt->config;
    const struct acart_pt_info *in = &pt->info;

    memset(c, 0, sizeof *c);
    c->version = 1;
    c->mode = o->snapshot ? ACART_PT_MODE_SNAPSHOT : ACART_PT_MODE_FULL;
    c->flags = o->cpl ? o->cpl : ACART_PT_OS | ACART_PT_USER;
    if (!o->no_tsc)
        c->flags |= ACART_PT_TSC;
    if (!o->no_mtc && (in->caps & ACART_PT_CAP_MTC) && in->mtc_periods) {
        c->flags |= ACART_PT_MTC;
        c->mtc_freq = (in->mtc_periods & (1u << DEFAULT_MTC_FREQ))
                          ? DEFAULT_MTC_FREQ
                          : (uint8_t)lowest_bit(in->mtc_periods);
    }
    if (o->cyc) {
        if (!(in->caps & ACART_PT_CAP_PSB_CYC))
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "--pt-cyc: the target's CPU has no cycle-accurate mode "
                             "(CPUID.14H:EBX[1])");
        c->flags |= ACART_PT_CYC;
        c->cyc_thresh = (uint8_t)lowest_bit(in->cyc_thresholds);
    }
    if (!o->snapshot && (!(in->caps & ACART_PT_CAP_TOPA_MULTI) || !(in->caps & ACART_PT_CAP_PMI)))
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--pt: the target's trace unit cannot be drained while it traces (it "
                         "has no multi-entry ToPA output); use --pt-snapshot");
    if (o->num_filters > in->num_ranges)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--pt-filter: %zu ranges asked, the target's CPU filters %" PRIu32,
                         o->num_filters, in->num_ranges);
    c->num_filters = (uint8_t)o->num_filters;
    for (size_t i = 0; i < o->num_filters; i++) {
        struct acart_pt_filter *f = &c->filters[i];
        uint64_t start = 0, end = 0;
        f->cfg = ACART_PT_RANGE_FILTER;
        if (parse_range(o->filters[i], &start, &end)) {
            if (start > end)
                return diag_fail(d, DIAG_USAGE, "--pt-filter %s: the start is after the end",
                                 o->filters[i]);
            f->start = start;
            f->end = end;
            continue;
        }
        if (!(pt->filter_names[i] = strdup(o->filters[i])))
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        int found = o->elf ? elf_function(o->elf, o->filters[i], &start, &end, d) : 0;
        if (found < 0)
            return found;
        if (found) {
            f->start = start;
            f->end = end;
        } else if (strlen(o->filters[i]) < sizeof f->module) {
            memcpy(f->module, o->filters[i], strlen(o->filters[i])); /* the target's module */
        } else {
            return diag_fail(d, DIAG_USAGE, "--pt-filter %s: no function of that name%s%s",
                             o->filters[i], o->elf ? " in " : " (give --elf IMAGE)",
                             o->elf ? o->elf : "");
        }
    }
    return 0;
}

int collect_pt_configure(struct collect_pt *pt, struct collect_link *l, uint32_t num_cpus,
                         struct diag *d)
{
    struct acart_extensions ext = {0};
    int rc = link_request(l, ACART_OP_EXTENSIONS, NULL, 0, &ext, sizeof ext, sizeof ext, NULL, d);
    if (rc && l->last_status == SEP_STATUS_DRIVER_COMM_FAILED)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--pt: %s:%s does not speak acart's extensions: it is no acart board, "
                         "and has no Intel PT for acart",
                         l->host, l->port);
    if (rc)
        return rc;
    if (!(ext.extensions & ACART_EXT_PT))
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "--pt: %s:%s runs an acart without Intel PT support", l->host, l->port);
    if ((rc = link_request(l, ACART_OP_PT_INFO, NULL, 0, &pt->info, sizeof pt->info,
                           sizeof pt->info, NULL, d)))
        return rc;
    if (!pt->info.present) {
        pt->info.why[sizeof pt->info.why - 1] = 0;
        return diag_fail(d, COLLECT_DIAG_TARGET, "--pt: %s:%s has no Intel PT: %s", l->host,
                         l->port, pt->info.why);
    }
    if ((rc = build_config(pt, d)))
        return rc;
    rc = link_request(l, ACART_OP_PT_CONFIG, &pt->config, sizeof pt->config, &pt->reply,
                      sizeof pt->reply, sizeof pt->reply, NULL, d);
    if (rc && l->last_status == SEP_STATUS_BAD_PARAMETER) {
        for (size_t i = 0; i < pt->config.num_filters; i++)
            if (pt->config.filters[i].module[0])
                return diag_fail(d, COLLECT_DIAG_TARGET,
                                 "--pt-filter %s: no function of that name%s%s and the target "
                                 "reports no module of that name (its console says which "
                                 "setting it refused)",
                                 pt->filter_names[i], pt->opt.elf ? " in " : "",
                                 pt->opt.elf ? pt->opt.elf : "");
    }
    if (rc)
        return rc;
    pt->num_cpus = num_cpus;
    return 0;
}

int collect_pt_open_channel(struct collect_link *l, struct link_data *out, struct diag *d)
{
    struct sep_first_msg first;
    struct sep_data_first_msg answer;
    char address[64];
    size_t got = 0;
    int fd = -1;

    memset(&first, 0, sizeof first);
    first.msg_size = sizeof first;
    first.proto_version = SEP_PROTOCOL_VERSION;
    int rc =
        net_connect(l->host, l->port, l->timeout_s, l->timeout_s, &fd, address, sizeof address);
    if (rc == NET_OK)
        rc = net_send_all(fd, &first, sizeof first, l->timeout_s);
    if (rc == NET_OK)
        rc = net_recv_exact(fd, &answer, sizeof answer, l->timeout_s, &got);
    if (rc != NET_OK) {
        if (fd >= 0)
            close(fd);
        return diag_fail(d, COLLECT_DIAG_TARGET, "%s:%s: the PT data connection: %s", l->host,
                         l->port, net_strerror(rc));
    }
    if (answer.proto_version != SEP_PROTOCOL_VERSION || answer.data_type != ACART_DATA_PT) {
        close(fd);
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "%s:%s: the PT data connection answered as data type %u, expected "
                         "%u (Intel PT)",
                         l->host, l->port, answer.data_type, ACART_DATA_PT);
    }
    out->fd = fd;
    out->type = ACART_DATA_PT;
    out->id = 0;
    return 0;
}

int collect_pt_open_files(struct collect_pt *pt, const char *dir, struct diag *d)
{
    pt->cpus = calloc(pt->num_cpus, sizeof *pt->cpus);
    if (!pt->cpus)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    for (uint32_t i = 0; i < pt->num_cpus; i++) {
        char name[32];
        snprintf(name, sizeof name, "pt-cpu%" PRIu32 ".bin", i);
        if (!(pt->cpus[i].path = file_join(dir, name)))
            return diag_fail(d, DIAG_NOMEM, "out of memory");
        if (!(pt->cpus[i].file = fopen(pt->cpus[i].path, "wb")))
            return diag_fail(d, DIAG_OUTPUT, "%s: %s", pt->cpus[i].path, strerror(errno));
    }
    return 0;
}

static void feed_fail(struct collect_pt *pt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void feed_fail(struct collect_pt *pt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pt->error, sizeof pt->error, fmt, ap);
    va_end(ap);
    pt->failed = 1;
}

static int add_loss(struct collect_pt_cpu *c, uint64_t offset, uint64_t bytes)
{
    /* Two losses with nothing kept between are one. */
    if (c->num_lost && c->lost[c->num_lost - 1].offset == offset) {
        c->lost[c->num_lost - 1].bytes += bytes;
        return 0;
    }
    if (c->num_lost == c->cap_lost) {
        size_t cap = c->cap_lost ? 2 * c->cap_lost : 8;
        struct session_pt_loss *l = realloc(c->lost, cap * sizeof *l);
        if (!l)
            return -1;
        c->lost = l;
        c->cap_lost = cap;
    }
    c->lost[c->num_lost].offset = offset;
    c->lost[c->num_lost].bytes = bytes;
    c->num_lost++;
    return 0;
}

/* A whole chunk header: checked against what arrived before it. */
static void take_header(struct collect_pt *pt)
{
    struct acart_pt_chunk *h = &pt->chunk;
    memcpy(h, pt->header, sizeof *h);
    pt->header_fill = 0;
    if (h->cpu >= pt->num_cpus) {
        feed_fail(pt, "a chunk for CPU %u of %" PRIu32, h->cpu, pt->num_cpus);
        return;
    }
    struct collect_pt_cpu *c = &pt->cpus[h->cpu];
    if (c->ended) {
        feed_fail(pt, "a chunk for CPU %u after its end", h->cpu);
        return;
    }
    if (h->offset != c->bytes) {
        feed_fail(pt, "CPU %u: a chunk at offset %" PRIu64 " after %" PRIu64 " bytes", h->cpu,
                  (uint64_t)h->offset, c->bytes);
        return;
    }
    switch (h->type) {
    case ACART_PT_CHUNK_DATA:
        if (h->length == 0 || h->length > ACART_PT_CHUNK_MAX)
            feed_fail(pt, "CPU %u: a data chunk of %" PRIu32 " bytes", h->cpu, h->length);
        pt->payload_left = h->length;
        return;
    case ACART_PT_CHUNK_LOST:
    case ACART_PT_CHUNK_END:
        if (h->length) {
            feed_fail(pt, "CPU %u: a loss or end chunk with %" PRIu32 " payload bytes", h->cpu,
                      h->length);
            return;
        }
        if (h->type == ACART_PT_CHUNK_END) {
            c->ended = 1;
            c->wrapped = (h->value & 1) != 0;
        } else if (add_loss(c, h->offset, h->value)) {
            feed_fail(pt, "out of memory");
        }
        return;
    }
    feed_fail(pt, "CPU %u: a chunk of unknown type %u", h->cpu, h->type);
}

void collect_pt_feed(struct collect_pt *pt, const uint8_t *buf, size_t len)
{
    while (len && !pt->failed) {
        if (pt->payload_left) {
            struct collect_pt_cpu *c = &pt->cpus[pt->chunk.cpu];
            size_t n = len < pt->payload_left ? len : pt->payload_left;
            if (fwrite(buf, 1, n, c->file) != n) {
                pt->write_failed = 1;
                feed_fail(pt, "%s: %s", c->path, strerror(errno));
                return;
            }
            c->bytes += n;
            pt->payload_left -= (uint32_t)n;
            buf += n;
            len -= n;
            continue;
        }
        size_t n = sizeof pt->header - pt->header_fill;
        if (n > len)
            n = len;
        memcpy(pt->header + pt->header_fill, buf, n);
        pt->header_fill += n;
        buf += n;
        len -= n;
        if (pt->header_fill == sizeof pt->header)
            take_header(pt);
    }
}

static int read_status(struct collect_pt *pt, struct collect_link *l, struct diag *d)
{
    size_t min = offsetof(struct acart_pt_status, cpu) + pt->num_cpus * sizeof pt->status.cpu[0];
    if (pt->num_cpus > ACART_MAX_PT_CPUS)
        return diag_fail(d, COLLECT_DIAG_TARGET, "PT_STATUS covers at most %d CPUs",
                         ACART_MAX_PT_CPUS);
    return link_request(l, ACART_OP_PT_STATUS, NULL, 0, &pt->status, min, min, NULL, d);
}

int collect_pt_poll_frozen(struct collect_pt *pt, struct collect_link *l, int *frozen,
                           struct diag *d)
{
    int rc = read_status(pt, l, d);
    *frozen = !rc && pt->status.frozen;
    return rc;
}

int collect_pt_freeze(struct collect_link *l, struct diag *d)
{
    return link_request(l, ACART_OP_PT_FREEZE, NULL, 0, NULL, 0, 0, NULL, d);
}

int collect_pt_results(struct collect_pt *pt, struct collect_link *l, struct diag *d)
{
    int rc = 0;
    for (uint32_t i = 0; i < pt->num_cpus; i++) {
        struct collect_pt_cpu *c = &pt->cpus[i];
        if (c->file && fclose(c->file) != 0 && !rc)
            rc = diag_fail(d, DIAG_OUTPUT, "%s: %s", c->path, strerror(errno));
        c->file = NULL;
    }
    if (rc || (rc = read_status(pt, l, d)))
        return rc;
    if (pt->header_fill || pt->payload_left)
        return diag_fail(d, COLLECT_DIAG_TARGET, "the PT channel ended inside a chunk");
    if (pt->status.num_cpus != pt->num_cpus)
        return diag_fail(d, COLLECT_DIAG_TARGET,
                         "PT_STATUS: %" PRIu32 " CPUs, the handshake %" PRIu32, pt->status.num_cpus,
                         pt->num_cpus);
    for (uint32_t i = 0; i < pt->num_cpus; i++) {
        const struct collect_pt_cpu *c = &pt->cpus[i];
        if (!c->ended)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "CPU %" PRIu32 ": the PT channel closed before its trace ended", i);
        if (c->bytes != pt->status.cpu[i].bytes)
            return diag_fail(d, COLLECT_DIAG_TARGET,
                             "CPU %" PRIu32 ": received %" PRIu64 " bytes of trace, the target "
                             "reports %" PRIu64 " sent (PT_STATUS)",
                             i, c->bytes, (uint64_t)pt->status.cpu[i].bytes);
    }
    return 0;
}

struct session_pt *collect_pt_session(struct collect_pt *pt)
{
    struct session_pt *s = calloc(1, sizeof *s);
    if (!s || !(s->per_cpu = calloc(pt->num_cpus, sizeof *s->per_cpu))) {
        free(s);
        return NULL;
    }
    s->mode = pt->config.mode == ACART_PT_MODE_SNAPSHOT ? SESSION_PT_SNAPSHOT : SESSION_PT_FULL;
    s->rtit_ctl = pt->reply.rtit_ctl;
    s->cpuid_15_eax = pt->info.cpuid_15_eax;
    s->cpuid_15_ebx = pt->info.cpuid_15_ebx;
    s->cpuid_15_ecx = pt->info.cpuid_15_ecx;
    s->mtc_freq = (uint32_t)(pt->reply.rtit_ctl >> 14) & 0xf;
    s->nom_freq = pt->info.nom_freq;
    s->num_filters = pt->config.num_filters;
    for (size_t i = 0; i < s->num_filters; i++) {
        s->filters[i].start = pt->reply.filters[i].start;
        s->filters[i].end = pt->reply.filters[i].end;
        s->filters[i].name = pt->filter_names[i]; /* handed over */
        pt->filter_names[i] = NULL;
    }
    if (s->mode == SESSION_PT_SNAPSHOT && pt->status.frozen) {
        static const enum session_pt_freeze reasons[] = {
            SESSION_PT_FREEZE_HOST, SESSION_PT_FREEZE_API, SESSION_PT_FREEZE_EXCEPTION};
        s->has_freeze = 1;
        s->freeze_reason = pt->status.freeze_reason < 3 ? reasons[pt->status.freeze_reason]
                                                        : SESSION_PT_FREEZE_HOST;
        s->freeze_code = pt->status.freeze_code;
        s->freeze_tsc = pt->status.freeze_tsc;
    }
    for (uint32_t i = 0; i < pt->num_cpus; i++) {
        struct collect_pt_cpu *c = &pt->cpus[i];
        s->per_cpu[i].bytes = c->bytes;
        s->per_cpu[i].wrapped = c->wrapped;
        s->per_cpu[i].lost = c->lost; /* handed over */
        s->per_cpu[i].num_lost = c->num_lost;
        c->lost = NULL;
        c->num_lost = c->cap_lost = 0;
    }
    return s;
}

void collect_pt_summary(const struct collect_pt *pt, FILE *out)
{
    static const char *const reasons[] = {"the host", "aca_trace_freeze", "an exception"};
    uint64_t bytes = 0, lost = 0;
    uint32_t losses = 0, unknown = 0, errors = 0;
    for (uint32_t i = 0; i < pt->num_cpus; i++) {
        bytes += pt->cpus[i].bytes;
        lost += pt->status.cpu[i].lost_bytes;
        losses += pt->status.cpu[i].lost_events;
        unknown += pt->status.cpu[i].lost_unknown;
        errors += pt->status.cpu[i].errors;
    }
    /* A lower bound: the target counts what its trace unit wrote while the ring was full,
     * not what ran while the unit was stopped, and a loss of unknown size as 0. */
    char lost_text[128];
    snprintf(lost_text, sizeof lost_text,
             "at least %" PRIu64 " bytes lost in %" PRIu32 " losses (%" PRIu32 " of unknown size)",
             lost, losses, unknown);
    fprintf(out, "Intel PT, %s mode: %" PRIu64 " bytes of trace in pt-cpu<N>.bin (",
            pt->config.mode == ACART_PT_MODE_SNAPSHOT ? "snapshot" : "full", bytes);
    for (uint32_t i = 0; i < pt->num_cpus; i++)
        fprintf(out, "%scpu%" PRIu32 " %" PRIu64, i ? ", " : "", i, pt->cpus[i].bytes);
    fprintf(out, ")");
    if (pt->config.mode == ACART_PT_MODE_SNAPSHOT && pt->status.frozen)
        fprintf(out, ", frozen by %s (%" PRIu32 ") on cpu %" PRIu32,
                pt->status.freeze_reason < 3 ? reasons[pt->status.freeze_reason] : "?",
                pt->status.freeze_code, pt->status.freeze_cpu);
    else if (pt->config.mode == ACART_PT_MODE_FULL)
        fprintf(out, ", %s", losses ? lost_text : "no trace lost");
    fprintf(out, "\n");
    if (losses)
        fprintf(stderr,
                "acart collect: warning: the target's trace buffers filled: %s, shown as gaps "
                "by acart pt: trace less (--pt-filter), give the target more trace memory, or "
                "use immediate transfer\n",
                lost_text);
    if (errors)
        fprintf(stderr,
                "acart collect: warning: the trace unit reported %" PRIu32 " operational errors "
                "(IA32_RTIT_STATUS.Error)\n",
                errors);
}

void collect_pt_free(struct collect_pt *pt)
{
    for (uint32_t i = 0; pt->cpus && i < pt->num_cpus; i++) {
        if (pt->cpus[i].file)
            fclose(pt->cpus[i].file);
        free(pt->cpus[i].path);
        free(pt->cpus[i].lost);
    }
    free(pt->cpus);
    for (size_t i = 0; i < ACART_PT_MAX_RANGES; i++)
        free(pt->filter_names[i]);
    memset(pt, 0, sizeof *pt);
}
