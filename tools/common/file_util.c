#include "file_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int file_read_all(const char *path, char **data, size_t *len, struct diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_fail(d, DIAG_INPUT, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
        fclose(f);
        return diag_fail(d, DIAG_INPUT, "%s: %s, not a file", path,
                         S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        cap *= 2;
        char *bigger = realloc(buf, cap);
        if (!bigger) {
            free(buf);
            buf = NULL;
        } else {
            buf = bigger;
        }
    }
    int failed = ferror(f), err = errno;
    fclose(f);
    if (!buf)
        return diag_fail(d, DIAG_NOMEM, "%s: out of memory", path);
    if (failed) {
        free(buf);
        return diag_fail(d, DIAG_INPUT, "%s: read error at byte %zu: %s", path, n, strerror(err));
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

int file_write_all(const char *path, const void *data, size_t len, struct diag *d)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return diag_fail(d, DIAG_OUTPUT, "%s: %s", path, strerror(errno));
    size_t written = fwrite(data, 1, len, f);
    int err = written == len ? 0 : errno;
    if (fclose(f) != 0 && !err)
        err = errno;
    if (written != len || err)
        return diag_fail(d, DIAG_OUTPUT, "%s: %s", path, strerror(err ? err : EIO));
    return 0;
}

int file_make_dir(const char *path, struct diag *d)
{
    struct stat st;
    if (mkdir(path, 0777) == 0)
        return 0;
    if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    return diag_fail(d, DIAG_OUTPUT, "%s: cannot create directory: %s", path,
                     strerror(errno == EEXIST ? ENOTDIR : errno));
}

char *file_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}
