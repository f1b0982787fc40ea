/* IPROBE sample files: listing a folder's, reading one whole, and its records checked
 * before any reader sees them (a file from a board is input like any other). */
#define _GNU_SOURCE
#include "ipr_file.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_util.h"

static int is_ipr_file(const char *path)
{
    char magic[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == sizeof magic && strncmp(magic, ACART_IPR_MAGIC, sizeof magic) == 0;
}

static int not_hidden(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

void ipr_file_free_paths(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

int ipr_file_list(const char *dir, char ***paths, size_t *n, struct diag *d)
{
    struct dirent **names;
    *paths = NULL;
    *n = 0;
    int num = scandir(dir, &names, not_hidden, alphasort);
    if (num < 0)
        return diag_fail(d, DIAG_INPUT, "%s: cannot read the folder", dir);
    int rc = 0;
    char **out = calloc((size_t)num + 1, sizeof *out);
    if (!out)
        rc = diag_fail(d, DIAG_NOMEM, "out of memory");
    for (int i = 0; i < num; i++) {
        char *path = rc ? NULL : file_join(dir, names[i]->d_name);
        if (!rc && !path)
            rc = diag_fail(d, DIAG_NOMEM, "out of memory");
        if (path && is_ipr_file(path))
            out[(*n)++] = path;
        else
            free(path);
        free(names[i]);
    }
    free(names);
    if (rc) {
        ipr_file_free_paths(out, *n);
        *n = 0;
        return rc;
    }
    if (!*n) {
        free(out);
        out = NULL;
    }
    *paths = out;
    return 0;
}

int ipr_file_folder(const char *path)
{
    struct stat st;
    struct diag d = {0};
    char **paths;
    size_t n = 0;
    char *session = file_join(path, "session.json");
    int folder = session && stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
                 stat(session, &st) != 0 && ipr_file_list(path, &paths, &n, &d) == 0 && n > 0;
    free(session);
    if (n)
        ipr_file_free_paths(paths, n);
    return folder;
}

int ipr_file_open(struct ipr_file *f, const char *path, struct diag *d)
{
    memset(f, 0, sizeof *f);
    char *data;
    int rc = file_read_all(path, &data, &f->size, d);
    if (rc)
        return rc;
    f->data = (uint8_t *)data;
    if (!(f->path = strdup(path))) {
        ipr_file_close(f);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    if (f->size < sizeof f->header ||
        strncmp((const char *)f->data, ACART_IPR_MAGIC, sizeof f->header.magic) != 0) {
        ipr_file_close(f);
        return diag_fail(d, DIAG_INPUT, "%s: not an IPROBE sample file", path);
    }
    memcpy(&f->header, f->data, sizeof f->header);
    if (f->header.num_counters > ACART_IPR_MAX_COUNTERS) {
        uint32_t n = f->header.num_counters;
        ipr_file_close(f);
        return diag_fail(d, DIAG_INPUT, "%s: %u counters in the header, at most %d", path,
                         (unsigned)n, ACART_IPR_MAX_COUNTERS);
    }
    if (f->header.code_bits != 0 && f->header.code_bits != 32 && f->header.code_bits != 64) {
        uint32_t bits = f->header.code_bits;
        ipr_file_close(f);
        return diag_fail(d, DIAG_INPUT, "%s: code mode of %u bits in the header: 32 or 64", path,
                         (unsigned)bits);
    }
    return 0;
}

void ipr_file_close(struct ipr_file *f)
{
    free(f->data);
    free(f->path);
    memset(f, 0, sizeof *f);
}

/* The bytes of one record holding the items of datcol. */
static uint64_t record_size(uint32_t datcol, uint32_t qdatcol)
{
    uint64_t n = 0;
    for (uint32_t b = 1; b != 0; b <<= 1)
        if (datcol & b)
            n += (qdatcol & b) ? 8 : 4;
    return n;
}

uint64_t ipr_file_item(const uint8_t *record, uint32_t datcol, uint32_t qdatcol, uint32_t bit)
{
    uint32_t off = 0;
    for (uint32_t b = 1; b < bit; b <<= 1)
        if (datcol & b)
            off += (qdatcol & b) ? 8 : 4;
    if (!(datcol & bit))
        return 0;
    uint64_t v = 0;
    memcpy(&v, record + off, (qdatcol & bit) ? 8 : 4);
    return v;
}

void ipr_file_counter_name(const struct ipr_file *f, uint32_t c, char *out, size_t size)
{
    const int field = (int)sizeof f->header.counter_name[0];
    if (c < ACART_IPR_MAX_COUNTERS && f->header.counter_name[c][0])
        snprintf(out, size, "%.*s", field, f->header.counter_name[c]);
    else
        snprintf(out, size, "counter %u", (unsigned)c);
}

static int scan_hist(const struct ipr_file *f, size_t at, const uint8_t *p, uint32_t bytes,
                     const struct ipr_file_visitor *v, void *ctx, struct diag *d)
{
    struct acart_ipr_hist h;
    if (bytes < sizeof h)
        return diag_fail(d, DIAG_INPUT, "%s: the histogram at offset %zu is %u bytes", f->path, at,
                         (unsigned)bytes);
    memcpy(&h, p, sizeof h);
    if (h.gran >= 64)
        return diag_fail(d, DIAG_INPUT, "%s: the histogram at offset %zu has 2^%u-byte buckets",
                         f->path, at, (unsigned)h.gran);
    if ((uint64_t)h.num_buckets * h.num_counters * 4 != bytes - sizeof h)
        return diag_fail(d, DIAG_INPUT,
                         "%s: the histogram at offset %zu: %u buckets of %u counters do not make "
                         "%u bytes",
                         f->path, at, (unsigned)h.num_buckets, (unsigned)h.num_counters,
                         (unsigned)(bytes - sizeof h));
    return v->hist ? v->hist(ctx, &h, (const uint32_t *)(const void *)(p + sizeof h)) : 0;
}

static int scan_sbuffer(const struct ipr_file *f, size_t at, const uint8_t *p, uint32_t bytes,
                        const struct ipr_file_visitor *v, void *ctx, struct diag *d)
{
    struct acart_ipr_sbuffer b;
    if (bytes < sizeof b)
        return diag_fail(d, DIAG_INPUT, "%s: the sample buffer at offset %zu is %u bytes", f->path,
                         at, (unsigned)bytes);
    memcpy(&b, p, sizeof b);
    if (b.used > bytes - sizeof b)
        return diag_fail(d, DIAG_INPUT,
                         "%s: the sample buffer at offset %zu: its records run past it", f->path,
                         at);
    if (b.used && (b.record_bytes == 0 || b.record_bytes < record_size(b.datcol, b.qdatcol)))
        return diag_fail(d, DIAG_INPUT,
                         "%s: the sample buffer at offset %zu: %u-byte records cannot hold their "
                         "data items (0x%x)",
                         f->path, at, (unsigned)b.record_bytes, (unsigned)b.datcol);
    return v->sbuffer ? v->sbuffer(ctx, &b, p + sizeof b) : 0;
}

int ipr_file_scan(const struct ipr_file *f, const struct ipr_file_visitor *v, void *ctx,
                  struct diag *d)
{
    size_t at = sizeof f->header;
    while (at < f->size) {
        struct acart_ipr_record rec;
        if (f->size - at < sizeof rec)
            return diag_fail(d, DIAG_INPUT, "%s: %zu bytes after the last record", f->path,
                             f->size - at);
        memcpy(&rec, f->data + at, sizeof rec);
        const uint8_t *p = f->data + at + sizeof rec;
        if (rec.bytes > f->size - at - sizeof rec)
            return diag_fail(d, DIAG_INPUT, "%s: the record at offset %zu runs past the end",
                             f->path, at);
        int rc = 0;
        if (rec.type == ACART_IPR_REC_USER)
            rc = v->user ? v->user(ctx, p, rec.bytes) : 0;
        else if (rec.type == ACART_IPR_REC_HIST)
            rc = scan_hist(f, at, p, rec.bytes, v, ctx, d);
        else if (rec.type == ACART_IPR_REC_SBUFFER)
            rc = scan_sbuffer(f, at, p, rec.bytes, v, ctx, d);
        /* Other types are a newer writer's: stepped over. */
        if (rc)
            return rc;
        at += (sizeof rec + rec.bytes + 7) & ~(size_t)7;
    }
    return 0;
}
