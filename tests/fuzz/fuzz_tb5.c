/* libFuzzer target: the tb5 reader on a hostile file. The input is the file; it is opened,
 * verified and read in full through the TBRW API by tb5_print (every section, every
 * record, binding in memory), and read again as `acart report` reads a tb5 file
 * (profile_open, profile_scan, the module of every sample). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_files.h"
#include "profile.h"
#include "tb5_tools.h"

static int each_sample(const struct sample *batch, size_t n, void *ctx)
{
    const struct profile *p = ctx;
    for (size_t i = 0; i < n; i++)
        (void)profile_module_at(p, batch[i].ip, batch[i].pid, batch[i].tsc);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    const char *dir = fuzz_dir();
    char path[512];
    snprintf(path, sizeof path, "%s/input.tb5", dir);
    fuzz_write(dir, "input.tb5", data, size);
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    (void)tb5_print(devnull, path, 4096);

    struct profile p;
    struct diag d;
    if (profile_open(path, &p, &d) == 0) {
        (void)profile_scan(&p, each_sample, &p, &d);
        profile_close(&p);
    }
    return 0;
}
