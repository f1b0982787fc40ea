/* libFuzzer target: the collection reader (tools/profile/session.c, collection.c, counts.c,
 * uncore_data.c) on a hostile folder, as `acart report` and `import` read it: session.json,
 * module.bin and the cpu<N>.bin files (scanned again by `report --latency`'s histograms),
 * then as `report --uncore` and `report --counts` read it: uncore.json with uncore.bin, and
 * counts.csv, and last an IPROBE sample file (samples.ipr) as `report` reads a folder of
 * them (tools/report/ipr_report.c; it reads every file of the folder that starts with the magic)
 * and as `export perfetto` puts them on a timeline (tools/export/ipr_timeline.c).
 * The input holds the files one after another in that order, each ended by the line
 * FILE_SEPARATOR. A file the input does not reach is absent. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counts_report.h"
#include "fuzz_files.h"
#include "ipr_report.h"
#include "ipr_timeline.h"
#include "latency_report.h"
#include "profile_open.h"
#include "uncore_data.h"

#define FILE_SEPARATOR "\n--acart-fuzz-file--\n"

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
    static const char *const names[] = {"session.json", "module.bin", "cpu0.bin",    "cpu1.bin",
                                        "cpu2.bin",     "cpu3.bin",   "uncore.json", "uncore.bin",
                                        COUNTS_FILE,    "samples.ipr"};
    static FILE *devnull;
    if (!devnull && (!(devnull = fopen("/dev/null", "w")) || !freopen("/dev/null", "w", stdout)))
        abort(); /* report --counts and the IPROBE report print to stdout */
    const size_t sep_len = strlen(FILE_SEPARATOR);
    const char *dir = fuzz_dir();
    const uint8_t *p = data, *end = data + size;
    size_t i = 0;
    for (; i < sizeof names / sizeof names[0]; i++) {
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
        if (profile_scan(&prof, each_sample, &prof, &d) == 0)
            (void)latency_report(&prof, NULL, 0, &d);
        profile_close(&prof);
    }
    struct uncore_data u;
    if (uncore_data_load(dir, &u, &d) == 0) {
        (void)uncore_data_report(&u, devnull);
        uncore_data_free(&u);
    }
    (void)counts_report(dir, &d);
    (void)ipr_report(dir, NULL, 0);
    struct ipr_timeline t;
    if (ipr_timeline_open(&t, dir, &d) == 0) {
        ipr_timeline_write(&t, devnull, true, 3, t.first_tsc, 1e-3, NULL);
        ipr_timeline_close(&t);
    }
    return 0;
}
