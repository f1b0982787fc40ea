/* acart export pprof (DIR|FILE.tb5) -o OUT.pb.gz: the samples as pprof's profile.proto
 * (github.com/google/pprof, proto/profile.proto), gzipped, which go tool pprof, Grafana
 * Pyroscope and Parca read. Encoded with the protobuf writer (protobuf.h) and zlib. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "cli.h"
#include "code_names.h"
#include "commands.h"
#include "export_input.h"
#include "out_file.h"
#include "protobuf.h"

static const char usage[] =
    "usage: acart export pprof (DIR|FILE.tb5) -o OUT.pb.gz [--elf IMAGE]\n"
    "\n"
    "Writes the samples as a gzipped pprof profile (profile.proto), which go tool\n"
    "pprof, Grafana Pyroscope and Parca read: one sample type per event, named as the\n"
    "event (unit \"count\": samples), each sample a distinct call stack with its samples\n"
    "of every event and string labels \"task\" (the task's or interrupt handler's\n"
    "name), \"pid\", \"tid\" and \"cpu\"; a location per code address with its lines, innermost "
    "first\n"
    "(the functions inlined there, then the function acart report names, with their\n"
    "source files and lines from IMAGE's DWARF); a mapping per module. Functions are\n"
    "named as acart report names them: code outside IMAGE is [module] or [unknown].\n"
    "go tool pprof -top -noinlines gives the shares of acart report's functions.\n"
    "\n"
    "  -o, --output FILE   the file to write (required)\n"
    "  -e, --elf IMAGE     ELF image of the target's code\n"
    "  -h, --help          show this help\n"
    "\n"
    "Exit status: 0 done, 2 usage error, 3 bad input, 4 cannot write FILE.\n";

/* profile.proto's field numbers. */
enum {
    PROFILE_SAMPLE_TYPE = 1,
    PROFILE_SAMPLE = 2,
    PROFILE_MAPPING = 3,
    PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5,
    PROFILE_STRING_TABLE = 6,
    PROFILE_TIME_NANOS = 9,
    PROFILE_DURATION_NANOS = 10,
    PROFILE_PERIOD_TYPE = 11,
    PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13,
    PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    VALUE_TYPE_TYPE = 1,
    VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1,
    SAMPLE_VALUE = 2,
    SAMPLE_LABEL = 3,
    LABEL_KEY = 1,
    LABEL_STR = 2,
    MAPPING_ID = 1,
    MAPPING_MEMORY_START = 2,
    MAPPING_MEMORY_LIMIT = 3,
    MAPPING_FILENAME = 5,
    MAPPING_HAS_FUNCTIONS = 7,
    MAPPING_HAS_FILENAMES = 8,
    MAPPING_HAS_LINE_NUMBERS = 9,
    MAPPING_HAS_INLINE_FRAMES = 10,
    LOCATION_ID = 1,
    LOCATION_MAPPING_ID = 2,
    LOCATION_ADDRESS = 3,
    LOCATION_LINE = 4,
    LINE_FUNCTION_ID = 1,
    LINE_LINE = 2,
    FUNCTION_ID = 1,
    FUNCTION_NAME = 2,
    FUNCTION_SYSTEM_NAME = 3,
    FUNCTION_FILENAME = 4,
};

/* A map from 64-bit keys to ids 1, 2, ...: strings by hash and text, functions by their
 * (name, file) string indexes. */
struct intern {
    uint64_t *keys;
    uint64_t *ids; /* 0: empty */
    size_t cap, used;
};

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

struct pprof {
    struct export_input in;
    struct pb_buf out, msg, sub;
    /* The string table: strings[i] is index i; strings[0] is "". */
    char **strings;
    size_t num_strings, strings_cap;
    struct intern string_ids; /* FNV hash of the text -> index + 1, probing on collision */
    struct intern function_ids;
    uint64_t num_functions;
};

static int intern_grow(struct intern *t)
{
    size_t cap = t->cap ? 2 * t->cap : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys), *ids = calloc(cap, sizeof *ids);
    if (!keys || !ids) {
        free(keys);
        free(ids);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->ids[i])
            continue;
        size_t j = (size_t)mix(t->keys[i]) & (cap - 1);
        while (ids[j])
            j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        ids[j] = t->ids[i];
    }
    free(t->keys);
    free(t->ids);
    t->keys = keys;
    t->ids = ids;
    t->cap = cap;
    return 0;
}

static void intern_free(struct intern *t)
{
    free(t->keys);
    free(t->ids);
    memset(t, 0, sizeof *t);
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The string table index of s, added if new; -1 when out of memory. */
static int64_t string_index(struct pprof *x, const char *s)
{
    struct intern *t = &x->string_ids;
    if (!s || !*s)
        return 0;
    /* A failure fails the output too, so that a caller ignoring the -1 is still caught. */
    bool failed_before = x->out.failed;
    x->out.failed = true;
    if ((t->used + 1) * 2 > t->cap && intern_grow(t) != 0)
        return -1;
    uint64_t h = hash_text(s);
    size_t i = (size_t)mix(h) & (t->cap - 1);
    for (; t->ids[i]; i = (i + 1) & (t->cap - 1))
        if (t->keys[i] == h && strcmp(x->strings[t->ids[i] - 1], s) == 0)
            break;
    if (!t->ids[i]) {
        if (x->num_strings == x->strings_cap) {
            size_t cap = 2 * x->strings_cap;
            char **grown = realloc(x->strings, cap * sizeof *grown);
            if (!grown)
                return -1;
            x->strings = grown;
            x->strings_cap = cap;
        }
        if (!(x->strings[x->num_strings] = strdup(s)))
            return -1;
        t->keys[i] = h;
        t->ids[i] = ++x->num_strings;
        t->used++;
    }
    x->out.failed = failed_before;
    return (int64_t)t->ids[i] - 1;
}

/* The id of function (name, file), its Function message written at its first use; 0 when
 * out of memory. */
static uint64_t function_id(struct pprof *x, const char *name, const char *file)
{
    int64_t n = string_index(x, name), f = string_index(x, file);
    struct intern *t = &x->function_ids;
    if (n < 0 || f < 0 || ((t->used + 1) * 2 > t->cap && intern_grow(t) != 0))
        return 0;
    uint64_t key = (uint64_t)n << 32 | (uint64_t)f;
    size_t i = (size_t)mix(key) & (t->cap - 1);
    for (; t->ids[i]; i = (i + 1) & (t->cap - 1))
        if (t->keys[i] == key)
            return t->ids[i];
    t->keys[i] = key;
    t->ids[i] = ++x->num_functions;
    t->used++;
    struct pb_buf fn = {0};
    pb_uint(&fn, FUNCTION_ID, t->ids[i]);
    pb_int(&fn, FUNCTION_NAME, n);
    pb_int(&fn, FUNCTION_SYSTEM_NAME, n);
    if (f)
        pb_int(&fn, FUNCTION_FILENAME, f);
    pb_message(&x->out, PROFILE_FUNCTION, &fn);
    bool failed = pb_failed(&fn);
    pb_free(&fn);
    return failed ? 0 : t->ids[i];
}

static void value_type(struct pprof *x, uint32_t field, const char *type, const char *unit)
{
    pb_reset(&x->sub);
    pb_int(&x->sub, VALUE_TYPE_TYPE, string_index(x, type));
    pb_int(&x->sub, VALUE_TYPE_UNIT, string_index(x, unit));
    pb_message(&x->out, field, &x->sub);
}

static void add_line(struct pprof *x, uint64_t function, int line)
{
    pb_reset(&x->sub);
    pb_uint(&x->sub, LINE_FUNCTION_ID, function);
    if (line > 0)
        pb_int(&x->sub, LINE_LINE, line);
    pb_message(&x->msg, LOCATION_LINE, &x->sub);
}

/* Location place + 1: its address, module and lines, innermost first (pprof: "the last
 * entry represents the caller into which the preceding entries were inlined"). */
static int write_location(struct pprof *x, uint64_t place)
{
    const struct code_place *pl = code_place(&x->in.ss.places, place);
    struct code_location loc;
    char outside[CODE_NAMES_OUTSIDE_SIZE];
    const char *function = code_names_function(x->in.sym, pl, &loc, outside);
    pb_reset(&x->msg);
    pb_uint(&x->msg, LOCATION_ID, place + 1);
    if (pl->module)
        pb_uint(&x->msg, LOCATION_MAPPING_ID, (uint64_t)(pl->module - x->in.p.modules) + 1);
    pb_uint(&x->msg, LOCATION_ADDRESS, pl->address);
    if (loc.num_frames == 0) {
        uint64_t id = function_id(x, function, NULL);
        if (!id)
            return -1;
        add_line(x, id, 0);
    }
    for (size_t i = loc.num_frames; i-- > 0;) {
        const struct code_frame *fr = &loc.frames[i];
        /* The outermost frame is the function report names (its ELF symbol), so that
         * pprof -noinlines and acart report count the same functions. */
        const char *name = i == 0 ? function : fr->function ? fr->function : "[inlined]";
        uint64_t id = function_id(x, name, fr->file);
        if (!id)
            return -1;
        add_line(x, id, fr->line);
    }
    pb_message(&x->out, PROFILE_LOCATION, &x->msg);
    return 0;
}

static void write_mappings(struct pprof *x)
{
    for (size_t i = 0; i < x->in.p.num_modules; i++) {
        const struct module_info *m = &x->in.p.modules[i];
        pb_reset(&x->msg);
        pb_uint(&x->msg, MAPPING_ID, i + 1);
        pb_uint(&x->msg, MAPPING_MEMORY_START, m->load_address);
        pb_uint(&x->msg, MAPPING_MEMORY_LIMIT, m->load_address + m->length);
        pb_int(&x->msg, MAPPING_FILENAME, string_index(x, m->path));
        /* Every location is symbolized already: pprof must not look for the files. */
        pb_uint(&x->msg, MAPPING_HAS_FUNCTIONS, 1);
        pb_uint(&x->msg, MAPPING_HAS_FILENAMES, x->in.sym != NULL);
        pb_uint(&x->msg, MAPPING_HAS_LINE_NUMBERS, x->in.sym != NULL);
        pb_uint(&x->msg, MAPPING_HAS_INLINE_FRAMES, x->in.sym != NULL);
        pb_message(&x->out, PROFILE_MAPPING, &x->msg);
    }
}

static void label(struct pprof *x, const char *key, const char *str)
{
    pb_reset(&x->sub);
    pb_int(&x->sub, LABEL_KEY, string_index(x, key));
    pb_int(&x->sub, LABEL_STR, string_index(x, str));
    pb_message(&x->msg, SAMPLE_LABEL, &x->sub);
}

static int write_samples(struct pprof *x)
{
    const struct sample_stacks *ss = &x->in.ss;
    size_t nev = x->in.p.session.num_events;
    uint64_t *ids = malloc(((size_t)x->in.p.callstack_depth + 1) * sizeof *ids);
    int64_t *values = malloc(nev * sizeof *values);
    if (!ids || !values) {
        free(ids);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < sample_stacks_count(ss); i++) {
        size_t depth;
        const struct sample_context *ctx;
        const uint64_t *counts;
        const uint64_t *stack = sample_stacks_get(ss, i, &depth, &ctx, &counts);
        for (size_t k = 0; k < depth; k++)
            ids[k] = stack[k] + 1;
        for (size_t e = 0; e < nev; e++)
            values[e] = (int64_t)counts[x->in.p.session.events[e].index];
        char task[256];
        sample_stacks_task_name(&x->in.p.session, ctx->pid, ctx->tid, task, sizeof task);
        pb_reset(&x->msg);
        pb_packed_uint(&x->msg, SAMPLE_LOCATION_ID, ids, depth);
        pb_packed_int(&x->msg, SAMPLE_VALUE, values, nev);
        /* String labels all: pprof drops a numeric label of 0 (CPU 0, pid 0), and
         * Pyroscope and Parca index string labels only. */
        char cpu[16], pid[16], tid[16];
        snprintf(cpu, sizeof cpu, "%u", (unsigned)ctx->cpu);
        snprintf(pid, sizeof pid, "%" PRIu32, ctx->pid);
        snprintf(tid, sizeof tid, "%" PRIu32, ctx->tid);
        label(x, "task", task);
        label(x, "cpu", cpu);
        label(x, "pid", pid);
        label(x, "tid", tid);
        pb_message(&x->out, PROFILE_SAMPLE, &x->msg);
    }
    free(ids);
    free(values);
    return 0;
}

static int encode(struct pprof *x)
{
    const struct session *s = &x->in.p.session;
    x->strings_cap = 256;
    if (!(x->strings = calloc(x->strings_cap, sizeof *x->strings)) || !(x->strings[0] = strdup("")))
        return -1;
    x->num_strings = 1;
    for (size_t e = 0; e < s->num_events; e++)
        value_type(x, PROFILE_SAMPLE_TYPE, s->events[e].name, "count");
    pb_int(&x->out, PROFILE_DEFAULT_SAMPLE_TYPE, string_index(x, s->events[0].name));
    value_type(x, PROFILE_PERIOD_TYPE, s->events[0].name, "events");
    pb_int(&x->out, PROFILE_PERIOD, (int64_t)s->events[0].sample_after);
    time_t start;
    if (session_start_time(s, &start) == 0)
        pb_int(&x->out, PROFILE_TIME_NANOS, (int64_t)start * 1000000000);
    pb_int(&x->out, PROFILE_DURATION_NANOS, (int64_t)(s->duration_s * 1e9));
    char comment[1200];
    snprintf(comment, sizeof comment, "acart export pprof of %s (target %s)", x->in.source,
             s->hostname);
    pb_int(&x->out, PROFILE_COMMENT, string_index(x, comment));
    write_mappings(x);
    for (uint64_t place = 0; place < x->in.ss.places.num_places; place++)
        if (write_location(x, place) != 0)
            return -1;
    if (write_samples(x) != 0)
        return -1;
    /* The string table last: every string is interned by now. */
    for (size_t i = 0; i < x->num_strings; i++)
        pb_string(&x->out, PROFILE_STRING_TABLE, x->strings[i]);
    return pb_failed(&x->out) || pb_failed(&x->msg) ? -1 : 0;
}

/* data as a gzip member (RFC 1952) into f. */
static int write_gzip(const struct pb_buf *data, FILE *f)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip header and trailer around the deflate stream. */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    /* cppcheck takes deflate's output buffer for an input */
    unsigned char chunk[65536] = {0};
    z.next_in = data->data;
    z.avail_in = (uInt)data->len; /* a profile is far below 4 GiB */
    int zrc;
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        zrc = deflate(&z, Z_FINISH);
        size_t n = sizeof chunk - z.avail_out;
        if (zrc == Z_STREAM_ERROR || fwrite(chunk, 1, n, f) != n) {
            deflateEnd(&z);
            return -1;
        }
    } while (zrc != Z_STREAM_END);
    deflateEnd(&z);
    return 0;
}

static int run(struct pprof *x, const char *source, const char *elf, const char *output,
               struct diag *d)
{
    int rc = export_input_open(&x->in, source, elf, EXPORT_INPUT_STACKS | EXPORT_INPUT_BY_CONTEXT,
                               "export pprof", d);
    if (rc)
        return rc;
    if (x->in.ss.places.num_places > UINT32_MAX || encode(x) != 0)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    if (x->out.len > UINT32_MAX)
        return diag_fail(d, DIAG_NOMEM,
                         "%s: a profile of %zu bytes is more than zlib takes in one go", output,
                         x->out.len);
    struct out_file o;
    if ((rc = out_file_open(&o, output, d)))
        return rc;
    if (write_gzip(&x->out, o.f) != 0) {
        out_file_discard(&o);
        return diag_fail(d, DIAG_OUTPUT, "%s: write error", output);
    }
    return out_file_commit(&o, d);
}

int export_pprof(int argc, char **argv)
{
    const char *source, *output, *elf;
    int status = export_input_args(argc, argv, "export pprof", usage, &source, &output, &elf);
    if (status >= 0)
        return status;
    struct pprof x;
    memset(&x, 0, sizeof x);
    struct diag d = {0};
    int rc = run(&x, source, elf, output, &d);
    for (size_t i = 0; i < x.num_strings; i++)
        free(x.strings[i]);
    free(x.strings);
    intern_free(&x.string_ids);
    intern_free(&x.function_ids);
    pb_free(&x.out);
    pb_free(&x.msg);
    pb_free(&x.sub);
    export_input_close(&x.in);
    return rc ? diag_report("export pprof", &d) : ACART_EXIT_OK;
}
