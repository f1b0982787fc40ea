/* Writes a synthetic collection folder, byte for byte what `acart collect` writes
 * (session.json per docs/cli.md, module.bin, cpu<N>.bin with 48-byte records as the board's
 * sampler fills them, each followed by its call stack with --callstack), from a
 * description on the command line. The session JSON is
 * written here by hand from the documented schema, not by the tools' own writer, so the
 * tests also check that the reader accepts what the documentation describes.
 *
 *   synth_collection OUTDIR [options]
 *     --hostname NAME         target.hostname (default "synthbox")
 *     --cpus N                target.num_cpus (default 1)
 *     --tsc-hz HZ             target.tsc_hz (default 2000000000)
 *     --tsc-start T           TSC of CPU c's first sample is T + c (default 1000000)
 *     --tsc-step S            TSC between a CPU's samples (default 1000)
 *     --event NAME:SAV        an event (index = order given; default one REF_TSC event)
 *     --module PATH:LOAD:LEN[:PID:TSC]
 *                             a module (load) record; with PID and TSC as acart sends
 *                             run-time loads (TSC_USED, tsc = TSC, unload_tsc all ones,
 *                             GLOBAL_MODULE for pid 0), else as files written before
 *                             module lifetimes (pid 0, GLOBAL_MODULE, no TSC_USED, zeros)
 *     --unload PATH:LOAD:LEN:PID:TSC
 *                             an unload record (SEG_UNLOAD, unload_tsc = tsc = TSC);
 *                             module and unload records are written in the order given
 *     --task PID:TID:NAME     a task in the session's task list
 *     --run CPU:PID:TID:ADDR:COUNT[:EVENT[:RA,RA,...]]
 *                             COUNT samples at ADDR, appended to CPU's samples, with
 *                             these return addresses as their call stack (innermost
 *                             first; needs --callstack)
 *     --callstack DEPTH       records carry DEPTH return addresses after the 48 bytes
 *                             (descriptor callstack_offset 48, callstack_size 8 * DEPTH),
 *                             zero after a sample's last one; without it the descriptor
 *                             has no callstack members, as files written before them
 *     --lbr FORMAT[:call-stack]  records carry the LBR registers `acart collect --lbr`
 *                             lists for a 16-deep stack of LBR format 4, 5 or 63
 *                             (architectural) after the call stack, and session.json's
 *                             lbr object says so
 *     --branches FROM>TO[/m][/cN],...  the next --run's LBR stack, newest first: /m
 *                             mispredicted, /cN N cycles
 *     --latency               records end in the 40-byte memory information of
 *                             load-latency samples (docs/sep-protocol.md 6.4), which the
 *                             descriptor places (latency_offset, latency_size)
 *     --load ADDR:LATENCY:SOURCE  the next --run's load: data address, latency in cycles
 *                             and PEBS data source encoding (zero without one)
 *     --model N               the CPU model of the target signature (default 85)
 *     --random N:LO:HI:SEED   N samples at addresses in [LO, HI), CPUs in turn, tasks
 *                             1..8 changing every 64 samples of a CPU
 *     --form iip|eip          sample record form: iip/ipsr with IA64PC set, as the board
 *                             sends it (default), or eip/eflags/csd
 *     --dropped N             dropped_per_cpu of every CPU
 *     --report-per-cpu N      report N samples per CPU in session.json instead of the truth
 *     --code-mode 32|64       the code mode of the samples and module records (default 64:
 *                             the tests' images are the host's ELF64 executables)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acart_wire.h"

#define MAX_ITEMS 64
#define MAX_CPUS  64
#define MAX_DEPTH 64

#define LBR_DEPTH 16

struct branch {
    uint64_t from, to;
    int mispredicted;
    uint16_t cycles;
};

struct run {
    uint32_t cpu, pid, tid, event;
    uint64_t addr, count;
    uint64_t stack[MAX_DEPTH];
    uint32_t depth;
    struct branch branches[LBR_DEPTH]; /* newest first */
    uint32_t num_branches;
    uint64_t load[3]; /* address, latency, data source; all 0: no load */
};

static struct {
    const char *dir, *hostname;
    uint32_t cpus;
    uint64_t tsc_hz, tsc_start, tsc_step, dropped;
    int64_t report_per_cpu;
    const char *event_names[MAX_ITEMS];
    uint64_t event_savs[MAX_ITEMS];
    size_t num_events;
    char *modules[MAX_ITEMS];
    int module_unloads[MAX_ITEMS]; /* modules[i] is an unload record */
    size_t num_modules;
    char *tasks[MAX_ITEMS];
    size_t num_tasks;
    struct run runs[1024];
    size_t num_runs;
    uint64_t random_n, random_lo, random_hi, random_seed;
    int eip_form;
    uint32_t callstack_depth;
    int lbr_format; /* -1: no LBRs; else IA32_PERF_CAPABILITIES[5:0] (4, 5 or 63) */
    int lbr_call_stack;
    struct branch pending[LBR_DEPTH]; /* --branches, for the next --run */
    uint32_t num_pending;
    int latency;
    uint64_t pending_load[3]; /* --load, for the next --run */
    uint32_t model;
    uint32_t code_mode; /* SEP_MODE_32BIT or SEP_MODE_64BIT */
    FILE *cpu_files[MAX_CPUS];
    uint64_t written[MAX_CPUS];
} g = {.hostname = "synthbox",
       .cpus = 1,
       .tsc_hz = 2000000000u,
       .tsc_start = 1000000u,
       .tsc_step = 1000u,
       .report_per_cpu = -1,
       .lbr_format = -1,
       .model = 85,
       .code_mode = SEP_MODE_64BIT};

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "synth_collection: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(2);
}

static uint64_t number(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end || !*s)
        die("not a number: %s", s);
    return v;
}

/* Splits s at ':' into at most max fields (the last takes the rest). */
static size_t fields(char *s, char **out, size_t max)
{
    size_t n = 0;
    while (n + 1 < max) {
        out[n++] = s;
        char *colon = strchr(s, ':');
        if (!colon)
            return n;
        *colon = '\0';
        s = colon + 1;
    }
    out[n++] = s;
    return n;
}

/* LBR registers per record: TOS (model-specific), then FROM, TO (and INFO but for format
 * 4) of LBR_DEPTH entries, as `acart collect --lbr` lists them. */
static uint32_t lbr_regs(void)
{
    if (g.lbr_format < 0)
        return 0;
    uint32_t per = g.lbr_format == 4 ? 2 : 3;
    return (g.lbr_format == 63 ? 0 : 1) + per * LBR_DEPTH;
}

/* The stack as the CPU holds it: model-specific entries in a ring whose newest is at TOS
 * (which moves with every record, as it does on a CPU), architectural newest at entry 0;
 * flags and cycles where the format keeps them. */
static void write_lbrs(FILE *f, const struct run *r, uint64_t serial)
{
    uint64_t from[LBR_DEPTH] = {0}, to[LBR_DEPTH] = {0}, info[LBR_DEPTH] = {0};
    uint32_t tos = g.lbr_format == 63 ? 0 : (uint32_t)(serial * 5 + 3) % LBR_DEPTH;
    for (uint32_t k = 0; k < r->num_branches; k++) {
        const struct branch *b = &r->branches[k];
        uint32_t i = g.lbr_format == 63 ? k : (tos + LBR_DEPTH - k) % LBR_DEPTH;
        uint64_t mis = b->mispredicted ? 1ull << 63 : 0;
        from[i] = b->from | (g.lbr_format == 4 ? mis : 0);
        to[i] = b->to;
        info[i] = mis | b->cycles | (g.lbr_format == 63 ? 1ull << 60 : 0);
    }
    uint64_t words[1 + 3 * LBR_DEPTH];
    uint32_t n = 0;
    if (g.lbr_format != 63)
        words[n++] = tos;
    for (uint32_t i = 0; i < LBR_DEPTH; i++) {
        words[n++] = from[i];
        words[n++] = to[i];
        if (g.lbr_format != 4)
            words[n++] = info[i];
    }
    if (fwrite(words, sizeof words[0], n, f) != n)
        die("write error in %s", g.dir);
}

static void write_sample(uint32_t cpu, uint32_t pid, uint32_t tid, uint32_t event, uint64_t addr,
                         const uint64_t *stack, uint32_t depth, const struct run *run)
{
    if (cpu >= g.cpus)
        die("CPU out of range in %s", "--run");
    /* As the board's sampler fills it: the iip/ipsr form for 32-bit code. */
    struct sep_sample_pc r;
    memset(&r, 0, sizeof r);
    uint32_t form = SEP_SAMPLE_IA64PC;
    if (g.eip_form) {
        r.iip = (addr & 0xFFFFFFFFu) | (uint64_t)0x246 << 32; /* eip, eflags */
        r.ipsr = 0x00CF9B000000FFFFull;                       /* a flat code segment */
        form = 0;
    } else {
        r.iip = addr;
        r.ipsr = 0x246;
    }
    r.cs = 0x08;
    r.cpu_and_os =
        (uint16_t)((cpu & SEP_SAMPLE_CPU_NUM_MASK) | (g.code_mode << SEP_SAMPLE_CODE_MODE_SHIFT));
    r.tid = tid;
    r.pid_rec_index = pid;
    r.bit_fields2 = ((event << SEP_SAMPLE_EVENT_INDEX_SHIFT) & SEP_SAMPLE_EVENT_INDEX_MASK) |
                    SEP_SAMPLE_TID_IS_RAW | form | SEP_SAMPLE_PID_RAW;
    r.tsc = g.tsc_start + cpu + g.written[cpu] * g.tsc_step;
    if (fwrite(&r, sizeof r, 1, g.cpu_files[cpu]) != 1)
        die("write error in %s", g.dir);
    /* The call stack, little-endian like the rest, zero-filled to the descriptor's size. */
    for (uint32_t i = 0; i < g.callstack_depth; i++) {
        uint64_t ra = i < depth ? stack[i] : 0;
        if (fwrite(&ra, sizeof ra, 1, g.cpu_files[cpu]) != 1)
            die("write error in %s", g.dir);
    }
    if (g.lbr_format >= 0) {
        static const struct run none;
        write_lbrs(g.cpu_files[cpu], run ? run : &none, g.written[cpu]);
    }
    if (g.latency) {
        /* struct sep_latency_info: address, data source, latency, stack pointer, physical. */
        uint64_t info[5] = {0};
        if (run) {
            info[0] = run->load[0];
            info[1] = run->load[2];
            info[2] = run->load[1];
        }
        if (fwrite(info, sizeof info[0], 5, g.cpu_files[cpu]) != 5)
            die("write error in %s", g.dir);
    }
    g.written[cpu]++;
}

static void write_random(void)
{
    uint64_t x = g.random_seed | 1u, span = (g.random_hi - g.random_lo) / 4u;
    if (g.random_hi <= g.random_lo + 4u)
        die("empty range in %s", "--random");
    for (uint64_t i = 0; i < g.random_n; i++) {
        x ^= x << 13; /* xorshift64: reproducible without libc's rand */
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t cpu = (uint32_t)(i % g.cpus);
        uint32_t task = (uint32_t)((g.written[cpu] / 64u) % 8u) + 1u;
        write_sample(cpu, 1, task, 0, g.random_lo + (x % span) * 4u, NULL, 0, NULL);
    }
}

static void write_modules(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/module.bin", g.dir);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create %s", path);
    for (size_t i = 0; i < g.num_modules; i++) {
        char *v[5];
        size_t n = fields(g.modules[i], v, 5);
        int unload = g.module_unloads[i];
        if (n != 3 && n != 5)
            die("expected PATH:LOAD:LEN[:PID:TSC], not %s", g.modules[i]);
        if (unload && n != 5)
            die("expected PATH:LOAD:LEN:PID:TSC, not %s", g.modules[i]);
        size_t path_len = strlen(v[0]) + 1;
        size_t rec_len = (sizeof(struct sep_module_record) + path_len + 7u) & ~(size_t)7u;
        struct sep_module_record r;
        memset(&r, 0, sizeof r);
        r.rec_length = (uint16_t)rec_len;
        r.segment_bits = (uint16_t)(g.code_mode | (unload ? SEP_MODREC_SEG_UNLOAD : 0));
        r.selector = 0x08;
        r.flags = SEP_MODREC_EXE | SEP_MODREC_PID_RAW | SEP_MODREC_GLOBAL_MODULE;
        if (n == 5) {
            r.pid_rec_index = (uint32_t)number(v[3]);
            r.tsc = number(v[4]);
            r.unload_tsc = unload ? r.tsc : ~0ull;
            r.flags = SEP_MODREC_EXE | SEP_MODREC_PID_RAW | SEP_MODREC_TSC_USED;
            if (r.pid_rec_index == 0)
                r.flags |= SEP_MODREC_GLOBAL_MODULE | SEP_MODREC_GLOBAL_MODULE_TB5;
        }
        r.load_addr64 = number(v[1]);
        r.length64 = number(v[2]);
        r.path_length = (uint16_t)path_len;
        char pad[8] = {0};
        size_t pad_len = rec_len - sizeof r - path_len;
        if (fwrite(&r, sizeof r, 1, f) != 1 || fwrite(v[0], path_len, 1, f) != 1 ||
            (pad_len && fwrite(pad, pad_len, 1, f) != 1))
            die("write error in %s", path);
    }
    if (fclose(f) != 0)
        die("write error in %s", path);
}

static void write_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        /* Control characters as JSON escapes; other bytes, even invalid UTF-8, as given,
         * so the tests can hand the reader hostile names. */
        if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void write_session(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/session.json", g.dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot create %s", path);
    uint64_t total = 0;
    for (uint32_t c = 0; c < g.cpus; c++)
        total += g.report_per_cpu >= 0 ? (uint64_t)g.report_per_cpu : g.written[c];
    fprintf(f, "{\n  \"format\": \"acart-session\",\n  \"version\": 1,\n  \"target\": {\n");
    fprintf(f, "    \"hostname\": ");
    write_json_string(f, g.hostname);
    fprintf(
        f,
        ",\n    \"address\": \"192.0.2.1:9321\",\n"
        "    \"os\": {\"sysname\": \"synth-rtos\", \"release\": \"1.0\", \"version\": \"#1\"},\n"
        "    \"tsc_hz\": %" PRIu64 ",\n    \"num_cpus\": %" PRIu32 ",\n"
        "    \"cpu_signature\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": %" PRIu32
        ", \"stepping\": 4},\n    \"topology\": [",
        g.tsc_hz, g.cpus, g.model);
    for (uint32_t c = 0; c < g.cpus; c++)
        fprintf(f,
                "%s\n      {\"cpu\": %" PRIu32 ", \"apic_id\": %" PRIu32 ", \"package\": 0, "
                "\"core\": %" PRIu32 ", \"thread\": 0}",
                c ? "," : "", c, c * 2, c);
    fprintf(f, "\n    ]\n  },\n  \"transfer\": \"delayed\",\n"
               "  \"started_utc\": \"2025-01-31T12:00:00Z\",\n  \"duration_s\": 2.5,\n"
               "  \"descriptors\": [");
    size_t lbr_offset = sizeof(struct sep_sample_pc) + 8u * g.callstack_depth;
    size_t latency_offset = lbr_offset + 8u * lbr_regs();
    size_t size = latency_offset + (g.latency ? sizeof(struct sep_latency_info) : 0);
    if (g.callstack_depth)
        fprintf(f,
                "{\"id\": 0, \"sample_size\": %zu, \"callstack_offset\": %zu, "
                "\"callstack_size\": %" PRIu32,
                size, sizeof(struct sep_sample_pc), 8u * g.callstack_depth);
    else
        fprintf(f, "{\"id\": 0, \"sample_size\": %zu", size);
    if (g.latency)
        fprintf(f, ", \"latency_offset\": %zu, \"latency_size\": %zu", latency_offset,
                sizeof(struct sep_latency_info));
    fprintf(f, "}");
    fprintf(f, "],\n  \"events\": [");
    for (size_t e = 0; e < g.num_events; e++) {
        fprintf(f, "%s\n    {\"index\": %zu, \"name\": ", e ? "," : "", e);
        write_json_string(f, g.event_names[e]);
        fprintf(f, ", \"sample_after\": %" PRIu64 "}", g.event_savs[e]);
    }
    fprintf(f, "\n  ],\n  \"samples\": {\n    \"total\": %" PRIu64 ",\n    \"per_cpu\": [", total);
    for (uint32_t c = 0; c < g.cpus; c++)
        fprintf(f, "%s%" PRIu64, c ? ", " : "",
                g.report_per_cpu >= 0 ? (uint64_t)g.report_per_cpu : g.written[c]);
    fprintf(f, "],\n    \"dropped_per_cpu\": [");
    for (uint32_t c = 0; c < g.cpus; c++)
        fprintf(f, "%s%" PRIu64, c ? ", " : "", g.dropped);
    fprintf(f, "]\n  },\n  \"tasks\": [");
    for (size_t t = 0; t < g.num_tasks; t++) {
        char *v[3];
        if (fields(g.tasks[t], v, 3) != 3)
            die("expected PID:TID:NAME, not %s", g.tasks[t]);
        fprintf(f, "%s\n    {\"pid\": %" PRIu64 ", \"tid\": %" PRIu64 ", \"name\": ", t ? "," : "",
                number(v[0]), number(v[1]));
        write_json_string(f, v[2]);
        fputc('}', f);
    }
    fprintf(f, "\n  ]");
    if (g.lbr_format >= 0) {
        fprintf(f,
                ",\n  \"lbr\": {\"format\": %d, \"depth\": %d, \"has_info\": %s, "
                "\"call_stack\": %s, \"offset\": %zu, \"registers\": [",
                g.lbr_format, LBR_DEPTH, g.lbr_format == 4 ? "false" : "true",
                g.lbr_call_stack ? "true" : "false", lbr_offset);
        const char *sep = "";
        if (g.lbr_format != 63) {
            fprintf(f, "\"tos\"");
            sep = ", ";
        }
        for (int i = 0; i < LBR_DEPTH; i++) {
            fprintf(f, "%s\"from%d\", \"to%d\"", sep, i, i);
            if (g.lbr_format != 4)
                fprintf(f, ", \"info%d\"", i);
            sep = ", ";
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n}\n");
    if (fclose(f) != 0)
        die("write error in %s", path);
}

static void parse(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        die("usage: synth_collection OUTDIR [options]%s", "");
    g.dir = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--latency") == 0) { /* a flag, the only one */
            g.latency = 1;
            continue;
        }
        if (i + 1 >= argc)
            die("missing value for %s", opt);
        char *val = argv[++i];
        char *v[7];
        if (strcmp(opt, "--hostname") == 0) {
            g.hostname = val;
        } else if (strcmp(opt, "--code-mode") == 0) {
            if (strcmp(val, "32") == 0)
                g.code_mode = SEP_MODE_32BIT;
            else if (strcmp(val, "64") == 0)
                g.code_mode = SEP_MODE_64BIT;
            else
                die("--code-mode: 32 or 64, not %s", val);
        } else if (strcmp(opt, "--cpus") == 0) {
            g.cpus = (uint32_t)number(val);
            if (g.cpus == 0 || g.cpus > MAX_CPUS)
                die("--cpus: 1 to 64, not %s", val);
        } else if (strcmp(opt, "--tsc-hz") == 0) {
            g.tsc_hz = number(val);
        } else if (strcmp(opt, "--tsc-start") == 0) {
            g.tsc_start = number(val);
        } else if (strcmp(opt, "--tsc-step") == 0) {
            g.tsc_step = number(val);
        } else if (strcmp(opt, "--form") == 0) {
            if (strcmp(val, "iip") != 0 && strcmp(val, "eip") != 0)
                die("--form: iip or eip, not %s", val);
            g.eip_form = strcmp(val, "eip") == 0;
        } else if (strcmp(opt, "--callstack") == 0) {
            g.callstack_depth = (uint32_t)number(val);
            if (g.callstack_depth == 0 || g.callstack_depth > MAX_DEPTH)
                die("--callstack: 1 to 64, not %s", val);
        } else if (strcmp(opt, "--dropped") == 0) {
            g.dropped = number(val);
        } else if (strcmp(opt, "--report-per-cpu") == 0) {
            g.report_per_cpu = (int64_t)number(val);
        } else if (strcmp(opt, "--event") == 0 && g.num_events < MAX_ITEMS) {
            if (fields(val, v, 2) != 2)
                die("expected NAME:SAV, not %s", val);
            g.event_names[g.num_events] = v[0];
            g.event_savs[g.num_events++] = number(v[1]);
        } else if ((strcmp(opt, "--module") == 0 || strcmp(opt, "--unload") == 0) &&
                   g.num_modules < MAX_ITEMS) {
            g.module_unloads[g.num_modules] = strcmp(opt, "--unload") == 0;
            g.modules[g.num_modules++] = val;
        } else if (strcmp(opt, "--task") == 0 && g.num_tasks < MAX_ITEMS) {
            g.tasks[g.num_tasks++] = val;
        } else if (strcmp(opt, "--run") == 0 && g.num_runs < sizeof g.runs / sizeof g.runs[0]) {
            size_t n = fields(val, v, 7);
            if (n < 5)
                die("expected CPU:PID:TID:ADDR:COUNT[:EVENT[:RA,...]], not %s", val);
            struct run *r = &g.runs[g.num_runs++];
            memset(r, 0, sizeof *r);
            r->cpu = (uint32_t)number(v[0]);
            r->pid = (uint32_t)number(v[1]);
            r->tid = (uint32_t)number(v[2]);
            r->addr = number(v[3]);
            r->count = number(v[4]);
            r->event = n >= 6 ? (uint32_t)number(v[5]) : 0;
            for (char *ra = n == 7 ? strtok(v[6], ",") : NULL; ra; ra = strtok(NULL, ",")) {
                if (r->depth == MAX_DEPTH)
                    die("more than 64 return addresses in %s", "--run");
                r->stack[r->depth++] = number(ra);
            }
            memcpy(r->branches, g.pending, sizeof r->branches);
            r->num_branches = g.num_pending;
            g.num_pending = 0;
            memcpy(r->load, g.pending_load, sizeof r->load);
            memset(g.pending_load, 0, sizeof g.pending_load);
        } else if (strcmp(opt, "--lbr") == 0) {
            size_t n = fields(val, v, 2);
            g.lbr_format = (int)number(v[0]);
            if (g.lbr_format != 4 && g.lbr_format != 5 && g.lbr_format != 63)
                die("--lbr: format 4, 5 or 63, not %s", v[0]);
            g.lbr_call_stack = n == 2 && strcmp(v[1], "call-stack") == 0;
        } else if (strcmp(opt, "--branches") == 0) {
            g.num_pending = 0;
            for (char *b = strtok(val, ","); b; b = strtok(NULL, ",")) {
                if (g.num_pending == LBR_DEPTH)
                    die("more than 16 branches in %s", "--branches");
                struct branch *x = &g.pending[g.num_pending++];
                char *arrow = strchr(b, '>'), *slash;
                if (!arrow)
                    die("expected FROM>TO[/m][/cCYCLES], not %s", b);
                *arrow = '\0';
                x->from = number(b);
                x->mispredicted = 0;
                x->cycles = 0;
                char *rest = arrow + 1;
                while ((slash = strrchr(rest, '/')) != NULL) {
                    if (strcmp(slash, "/m") == 0)
                        x->mispredicted = 1;
                    else if (slash[1] == 'c')
                        x->cycles = (uint16_t)number(slash + 2);
                    else
                        die("expected /m or /cCYCLES, not %s", slash);
                    *slash = '\0';
                }
                x->to = number(rest);
            }
        } else if (strcmp(opt, "--load") == 0) {
            if (fields(val, v, 3) != 3)
                die("expected ADDR:LATENCY:SOURCE, not %s", val);
            for (int k = 0; k < 3; k++)
                g.pending_load[k] = number(v[k]);
        } else if (strcmp(opt, "--model") == 0) {
            g.model = (uint32_t)number(val);
        } else if (strcmp(opt, "--random") == 0) {
            if (fields(val, v, 4) != 4)
                die("expected N:LO:HI:SEED, not %s", val);
            g.random_n = number(v[0]);
            g.random_lo = number(v[1]);
            g.random_hi = number(v[2]);
            g.random_seed = number(v[3]);
        } else {
            die("unknown or repeated too often: %s", opt);
        }
    }
    if (g.num_events == 0) {
        g.event_names[0] = "CPU_CLK_UNHALTED.REF_TSC";
        g.event_savs[g.num_events++] = 2000000;
    }
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    if (mkdir(g.dir, 0777) != 0 && errno != EEXIST)
        die("cannot create %s", g.dir);
    for (uint32_t c = 0; c < g.cpus; c++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/cpu%" PRIu32 ".bin", g.dir, c);
        g.cpu_files[c] = fopen(path, "wb");
        if (!g.cpu_files[c])
            die("cannot create %s", path);
        setvbuf(g.cpu_files[c], NULL, _IOFBF, 1 << 20);
    }
    for (size_t i = 0; i < g.num_runs; i++) {
        const struct run *r = &g.runs[i];
        if (r->event >= g.num_events)
            die("event out of range in %s", "--run");
        if (r->depth > g.callstack_depth)
            die("a call stack deeper than --callstack in %s", "--run");
        for (uint64_t k = 0; k < r->count; k++)
            write_sample(r->cpu, r->pid, r->tid, r->event, r->addr, r->stack, r->depth, r);
    }
    if (g.random_n)
        write_random();
    for (uint32_t c = 0; c < g.cpus; c++)
        if (fclose(g.cpu_files[c]) != 0)
            die("write error in %s", g.dir);
    write_modules();
    write_session();
    return 0;
}
