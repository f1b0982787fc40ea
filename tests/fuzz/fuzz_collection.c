/* libFuzzer target: the collection reader (tools/session.c, collection.c) on a hostile
 * folder, as `acart report` and `import` read it: session.json, module.bin and the
 * cpu<N>.bin files. The input holds the files one after another, each ended by the line
 * FILE_SEPARATOR: session.json, module.bin, cpu0.bin, cpu1.bin, ... A file the input does
 * not reach is absent. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_files.h"
#include "profile.h"

#define FILE_SEPARATOR "\n--acart-fuzz-file--\n"
#define MAX_CPU_FILES  4

static int each_sample(const struct sample *batch, size_t n, void *ctx)
{
    const struct profile *p = ctx;
    for (size_t i = 0; i < n; i++) {
        (void)profile_module_at(p, batch[i].ip, batch[i].pid, batch[i].tsc);
        for (uint32_t c = 0; c < batch[i].num_callers; c++)
            (void)profile_module_at(p, batch[i].callers[c], batch[i].pid, batch[i].tsc);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"session.json", "module.bin", "cpu0.bin",
                                        "cpu1.bin",     "cpu2.bin",   "cpu3.bin"};
    const size_t sep_len = strlen(FILE_SEPARATOR);
    const char *dir = fuzz_dir();
    const uint8_t *p = data, *end = data + size;
    size_t i = 0;
    for (; i < 2 + MAX_CPU_FILES; i++) {
        if (p > end || (p == end && i > 0)) {
            fuzz_remove(dir, names[i]);
            continue;
        }
        const uint8_t *next = memmem(p, (size_t)(end - p), FILE_SEPARATOR, sep_len);
        const uint8_t *stop = next ? next : end;
        fuzz_write(dir, names[i], p, (size_t)(stop - p));
        p = next ? next + sep_len : end + 1;
    }

    struct profile prof;
    struct diag d;
    if (profile_open(dir, &prof, &d) == 0) {
        (void)profile_scan(&prof, each_sample, &prof, &d);
        profile_close(&prof);
    }
    return 0;
}
