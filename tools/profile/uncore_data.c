/* The uncore counts of a collection (see uncore_data.h). */
#include "uncore_data.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "acart_wire.h"
#include "file_util.h"
#include "text_escape.h"
#include "vtune_csv.h"

#define UNCORE_JSON "uncore.json"
#define UNCORE_BIN  "uncore.bin"

void uncore_data_free(struct uncore_data *u)
{
    for (size_t i = 0; i < u->num_events; i++)
        free(u->names[i]);
    free(u->tsc);
    free(u->counts);
    memset(u, 0, sizeof *u);
}

static int number(const cJSON *o, const char *key, double max, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > max)
        return -1;
    *out = v->valuedouble;
    return 0;
}

static int parse_json(const char *text, const char *path, struct uncore_data *u, struct diag *d)
{
    cJSON *root = cJSON_Parse(text);
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "events");
    double size, interval, hz;
    int rc = 0;
    if (!root || number(root, "record_size", 1024, &size) ||
        number(root, "interval_ms", 65535, &interval) || number(root, "tsc_hz", 1e12, &hz) ||
        !cJSON_IsArray(events) || cJSON_GetArraySize(events) < 1 ||
        cJSON_GetArraySize(events) > UNCORE_DATA_MAX_EVENTS ||
        size < sizeof(struct sep_uncore_sample_pc)) {
        rc = diag_fail(d, DIAG_INPUT, "%s: not an uncore description", path);
        goto out;
    }
    u->record_size = (uint32_t)size;
    u->interval_ms = (uint32_t)interval;
    u->tsc_hz = (uint64_t)hz;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
        double offset;
        if (!cJSON_IsString(name) || number(e, "offset", size - 8, &offset) ||
            offset < sizeof(struct sep_uncore_sample_pc)) {
            rc = diag_fail(d, DIAG_INPUT,
                           "%s: event %zu: no name, or its offset is outside "
                           "the record",
                           path, u->num_events);
            goto out;
        }
        if (!(u->names[u->num_events] = strdup(name->valuestring))) {
            rc = diag_fail(d, DIAG_NOMEM, "out of memory");
            goto out;
        }
        u->offsets[u->num_events++] = (uint32_t)offset;
    }
out:
    cJSON_Delete(root);
    return rc;
}

int uncore_data_load(const char *dir, struct uncore_data *u, struct diag *d)
{
    memset(u, 0, sizeof *u);
    char *json_path = file_join(dir, UNCORE_JSON), *bin_path = file_join(dir, UNCORE_BIN);
    char *text = NULL, *bin = NULL;
    size_t text_len = 0, bin_len = 0;
    int rc = 0;
    if (!json_path || !bin_path) {
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        goto out;
    }
    FILE *probe = fopen(json_path, "rb");
    if (!probe) {
        rc = errno == ENOENT ? 1 : diag_fail(d, DIAG_INPUT, "%s: %s", json_path, strerror(errno));
        goto out;
    }
    fclose(probe);
    if ((rc = file_read_all(json_path, &text, &text_len, d)) ||
        (rc = parse_json(text, json_path, u, d)) ||
        (rc = file_read_all(bin_path, &bin, &bin_len, d)))
        goto out;
    if (bin_len % u->record_size) {
        rc = diag_fail(d, DIAG_INPUT,
                       "%s: %zu bytes: the uncore channel ended inside a %" PRIu32 "-byte record",
                       bin_path, bin_len, u->record_size);
        goto out;
    }
    u->num_reads = bin_len / u->record_size;
    u->tsc = calloc(u->num_reads ? u->num_reads : 1, sizeof *u->tsc);
    u->counts = calloc(u->num_reads ? u->num_reads * u->num_events : 1, sizeof *u->counts);
    if (!u->tsc || !u->counts) {
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        goto out;
    }
    for (size_t r = 0; r < u->num_reads; r++) {
        const char *rec = bin + r * u->record_size;
        struct sep_uncore_sample_pc h;
        memcpy(&h, rec, sizeof h);
        if (!(h.flags & SEP_UNCORE_VALID) || (r && h.tsc < u->tsc[r - 1])) {
            rc = diag_fail(d, DIAG_INPUT, "%s: read %zu (byte offset %zu): %s", bin_path, r,
                           r * u->record_size,
                           h.flags & SEP_UNCORE_VALID ? "its TSC goes backwards"
                                                      : "the target could not read the counters");
            goto out;
        }
        u->tsc[r] = h.tsc;
        for (size_t e = 0; e < u->num_events; e++)
            memcpy(&u->counts[r * u->num_events + e], rec + u->offsets[e], sizeof(uint64_t));
    }
out:
    if (rc)
        uncore_data_free(u);
    free(text);
    free(bin);
    free(json_path);
    free(bin_path);
    return rc;
}

static double seconds(const struct uncore_data *u, uint64_t ticks)
{
    return u->tsc_hz ? (double)ticks / (double)u->tsc_hz : 0;
}

/* A column as wide as its escaped name, at least 14. */
static int column_width(const char *raw)
{
    char name[256];
    size_t n = strlen(text_term(name, sizeof name, raw));
    return (int)(n > 14 ? n : 14);
}

int uncore_data_report(const struct uncore_data *u, FILE *out)
{
    fprintf(out, "Uncore: %zu reads, every %" PRIu32 " ms asked\n", u->num_reads, u->interval_ms);
    if (u->num_reads == 0)
        return 0;
    /* The names come from uncore.json, a file: escaped before they reach a terminal. */
    char name[256];
    fprintf(out, "%10s %11s", "time s", "interval ms");
    for (size_t e = 0; e < u->num_events; e++)
        fprintf(out, " %*s", column_width(u->names[e]), text_term(name, sizeof name, u->names[e]));
    fputc('\n', out);
    for (size_t r = 0; r < u->num_reads; r++) {
        uint64_t since = r ? u->tsc[r] - u->tsc[r - 1] : 0;
        fprintf(out, "%10.3f %11.1f", seconds(u, u->tsc[r] - u->tsc[0]), 1000 * seconds(u, since));
        for (size_t e = 0; e < u->num_events; e++) {
            uint64_t now = u->counts[r * u->num_events + e];
            uint64_t before = r ? u->counts[(r - 1) * u->num_events + e] : 0;
            fprintf(out, " %*" PRIu64, column_width(u->names[e]), now - before);
        }
        fputc('\n', out);
    }
    /* The counts since START at the first read cover the time from START to it, which
     * the records do not carry: the rate is taken over the reads after the first. */
    double span = seconds(u, u->tsc[u->num_reads - 1] - u->tsc[0]);
    for (size_t e = 0; e < u->num_events; e++) {
        uint64_t total = u->counts[(u->num_reads - 1) * u->num_events + e];
        uint64_t after_first = total - u->counts[e];
        fprintf(out, "%s: %" PRIu64 " in all", text_term(name, sizeof name, u->names[e]), total);
        if (span > 0)
            fprintf(out, ", %.6g per second", (double)after_first / span);
        fputc('\n', out);
    }
    return 0;
}

int uncore_data_export_csv(const struct uncore_data *u, const char *outdir, const char *hostname,
                           struct diag *d)
{
    char *path = vtune_csv_path(outdir, "uncore", hostname);
    if (!path)
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    struct vtune_table t;
    int rc = vtune_counters_open(&t, path, (const char *const *)u->names, u->num_events, d);
    free(path);
    for (size_t r = 0; !rc && r < u->num_reads; r++)
        if (vtune_counter_row(&t, u->tsc[r], &u->counts[r * u->num_events]) != 0)
            break; /* the close reports the write error */
    return rc ? rc : vtune_table_close(&t, d);
}
