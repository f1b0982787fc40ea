/* libFuzzer target: the tb5 reader on a hostile file. The input is the file; it is opened,
 * verified and read in full through the TBRW API by tb5_print (every section, every
 * record, binding in memory), and read again as `acart report` reads a tb5 file
 * (profile_open, profile_scan, the module of every sample). The seeds include version 2
 * files whose streams are zstd frames, damaged ones among them, and version 1 files. A
 * stream that fails to read as damaged must say where (tb5_error_detail): a frame cut
 * short or corrupted is reported, never left unexplained. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_files.h"
#include "profile_open.h"
#include "tb5_tools.h"

static TBRW_U32 each_batch(void *data, TBRW_U32 size, TBRW_U32 n, void *ctx)
{
    (void)data, (void)size, (void)n, (void)ctx;
    return 1;
}

static void read_streams(const char *path)
{
    TBRW_PTR h;
    TBRW_U32 streams = 0;
    if (tb5_open_path(&h, path, TBRW_FILE_READ) != TBRW_SUCCESS)
        return;
    if (TBRW_get_number_data_streams(h, &streams) == TBRW_SUCCESS) {
        for (TBRW_U32 s = 0; s < streams; s++) {
            TBRW_U32 rc = TBRW_enumerate_data(h, s, each_batch, NULL, 0);
            if ((rc == TBRW_CORRUPT_FILE || rc == TBRW_CHECKSUM_MISMATCH) &&
                !tb5_error_detail(rc)[0]) {
                fprintf(stderr, "stream %u: %s without a detail\n", s, tb5_strerror(rc));
                abort();
            }
        }
    }
    TBRW_close(h);
}

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
    read_streams(path);

    struct profile p;
    struct diag d;
    if (profile_open(path, &p, &d) == 0) {
        (void)profile_scan(&p, each_sample, &p, &d);
        profile_close(&p);
    }
    return 0;
}
