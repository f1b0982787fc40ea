#include "fuzz_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (dir[0] && system(cmd) != 0)
        fprintf(stderr, "fuzz: cannot remove %s\n", dir);
}

const char *fuzz_dir(void)
{
    if (!dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/acart-fuzz-%ld", base, (long)getpid());
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            perror(dir);
            abort();
        }
        atexit(cleanup);
    }
    return dir;
}

void fuzz_write(const char *d, const char *name, const uint8_t *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", d, name);
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

void fuzz_remove(const char *d, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", d, name);
    if (unlink(path) != 0 && errno != ENOENT && rmdir(path) != 0) {
        perror(path);
        abort();
    }
}
