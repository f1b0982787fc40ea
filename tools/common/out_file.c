#include "out_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int out_file_open(struct out_file *o, const char *path, struct diag *d)
{
    memset(o, 0, sizeof *o);
    size_t n = strlen(path);
    o->path = strdup(path);
    o->temp = malloc(n + sizeof ".tmp-XXXXXX");
    if (!o->path || !o->temp) {
        out_file_discard(o);
        return diag_fail(d, DIAG_NOMEM, "out of memory");
    }
    memcpy(o->temp, path, n);
    memcpy(o->temp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
    /* mkstemp, not fopen: the name is fresh, so two exports to one path cannot mix. */
    int fd = mkstemp(o->temp);
    if (fd < 0) {
        int err = errno;
        free(o->temp);
        o->temp = NULL;
        out_file_discard(o);
        return diag_fail(d, DIAG_OUTPUT, "%s: cannot create: %s", path, strerror(err));
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        close(fd);
        out_file_discard(o);
        return diag_fail(d, DIAG_OUTPUT, "%s: cannot create: %s", path, strerror(errno));
    }
    return 0;
}

int out_file_commit(struct out_file *o, struct diag *d)
{
    int err = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        err = errno ? errno : EIO;
    /* mkstemp makes the file 0600; an export is an ordinary file, 0666 less the umask. */
    mode_t mask = umask(0);
    umask(mask);
    if (!err && fchmod(fileno(o->f), 0666 & ~mask) != 0)
        err = errno;
    if (fclose(o->f) != 0 && !err)
        err = errno ? errno : EIO;
    o->f = NULL;
    if (!err && rename(o->temp, o->path) != 0)
        err = errno;
    if (err) {
        char path[512];
        snprintf(path, sizeof path, "%s", o->path);
        out_file_discard(o);
        return diag_fail(d, DIAG_OUTPUT, "%s: write error: %s", path, strerror(err));
    }
    free(o->temp);
    free(o->path);
    o->temp = o->path = NULL;
    return 0;
}

void out_file_discard(struct out_file *o)
{
    if (o->f)
        fclose(o->f);
    if (o->temp)
        unlink(o->temp);
    free(o->temp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
