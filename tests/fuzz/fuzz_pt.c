/* libFuzzer target: the Intel PT decode path of `acart pt` (tools/pt/pt_decode.c, pt_flow.c,
 * pt_cycles.c) on hostile trace bytes: libipt's instruction or block decoder over a fixed
 * image, gaps and resynchronisation, the cut at bytes the target lost, the call tree and
 * function counts, and the CYC packets' cycles (the packet scan and the second decode).
 * The input is a 5-byte header, then the trace:
 *   byte 0: bit 0 block decoder; bits 4..7 mtc_freq
 *   byte 1: nom_freq
 *   byte 2: CPU model (family 6), for libipt's errata
 *   bytes 3..4: little-endian file offset of a loss (pt.per_cpu[].lost), 0 for none
 * The image is the code of tests/pt/traces' calls.ptt (32-bit, 0x100000), timing.ptt
 * (0x200000), loop64.ptt (0x300000), overflow.ptt (0x400000), resync.ptt (0x500000) and
 * loop.ptt (0x600000, a loop of direct jumps), so the seeds (those traces) decode far. */
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#include "pt_cycles.h"
#include "pt_decode.h"
#include "pt_flow.h"

struct code {
    uint64_t address;
    const uint8_t *bytes;
    size_t size;
};

static const uint8_t calls_code[] = {
    0xb9, 0x02, 0x00, 0x00, 0x00, 0xe8, 0x09, 0x00, 0x00, 0x00, 0xb8, 0x1e, 0x00, 0x10, 0x00, 0xff,
    0xd0, 0x90, 0xf4, 0xe8, 0x04, 0x00, 0x00, 0x00, 0x49, 0x75, 0xf8, 0xc3, 0x90, 0xc3, 0xc3, 0xf4};
static const uint8_t timing_code[] = {0xe8, 0x07, 0x00, 0x00, 0x00, 0xe8, 0x02, 0x00,
                                      0x00, 0x00, 0x90, 0xf4, 0x90, 0xc3, 0xf4};
static const uint8_t loop64_code[] = {0xb8, 0x28, 0x00, 0x00, 0x00, 0xff, 0xc8,
                                      0x75, 0xfc, 0x48, 0xc7, 0xc3, 0x12, 0x00,
                                      0x30, 0x00, 0xff, 0xe3, 0x90, 0xf4, 0xf4};
static const uint8_t overflow_code[] = {0xe8, 0x02, 0x00, 0x00, 0x00, 0x90,
                                        0xf4, 0x90, 0x74, 0x00, 0xc3, 0xf4};
static const uint8_t resync_code[] = {0x90, 0x74, 0x00, 0x90, 0x74, 0x00, 0x90, 0xf4, 0xf4};
static const uint8_t loop_code[] = {0x90, 0xeb, 0xfe, 0x90, 0x90, 0xf4}; /* a jump to itself */

static const struct code image[] = {
    {0x100000, calls_code, sizeof calls_code},   {0x200000, timing_code, sizeof timing_code},
    {0x300000, loop64_code, sizeof loop64_code}, {0x400000, overflow_code, sizeof overflow_code},
    {0x500000, resync_code, sizeof resync_code}, {0x600000, loop_code, sizeof loop_code},
};

static int read_memory(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
                       void *context)
{
    (void)asid;
    (void)context;
    for (size_t i = 0; i < sizeof image / sizeof image[0]; i++) {
        if (ip < image[i].address || ip >= image[i].address + image[i].size)
            continue;
        size_t off = (size_t)(ip - image[i].address), n = image[i].size - off;
        if (n > size)
            n = size;
        memcpy(buffer, image[i].bytes + off, n);
        return (int)n;
    }
    return -pte_nomap;
}

/* A name per image part, and [unknown]; pt_flow needs nothing else of a pt_code. */
static char *names[] = {"[unknown]", "calls", "timing", "loop64", "overflow", "resync", "loop"};
static struct pt_code_function functions[] = {
    {0x100000, 0x100020, 1}, {0x200000, 0x20000f, 2}, {0x300000, 0x300015, 3},
    {0x400000, 0x40000c, 4}, {0x500000, 0x500009, 5}, {0x600000, 0x600006, 6},
};

static int count_block(void *ctx, const struct pt_block *block, uint64_t tsc)
{
    (void)tsc;
    *(uint64_t *)ctx += block->ninsn;
    return 0;
}

static int describe_gap(void *ctx, const struct pt_gap *gap)
{
    char text[512];
    (void)ctx;
    pt_gap_describe(gap, text, sizeof text);
    return 0;
}

/* libipt is Debian's build, without frame pointers. ASan's fast unwinder, walking up from a
 * malloc inside it, follows whatever libipt keeps in %rbp, so nearly every allocation got a
 * stack of its own: its stack depot, which is never freed, grew by about two stacks per
 * execution (fuzz_pt_stack_depot) until a campaign hit the RSS limit. The DWARF unwinder
 * gives true stacks, a few hundred in all, at half the speed. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "fast_unwind_on_malloc=0";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pt_image *pt_image;
    if (!pt_image) {
        pt_image = pt_image_alloc("fuzz");
        if (!pt_image || pt_image_set_callback(pt_image, read_memory, NULL) < 0)
            abort();
    }
    if (size < 5)
        return 0;
    struct session_pt pt = {.mtc_freq = data[0] >> 4,
                            .nom_freq = data[1],
                            .cpuid_15_eax = 2,
                            .cpuid_15_ebx = 176,
                            .rtit_ctl = (uint64_t)(data[0] >> 4) << 14};
    struct session s = {.cpu_family = 6, .cpu_model = data[2], .pt = &pt};
    struct pt_config config;
    pt_decode_config(&s, &config);

    /* One region, the whole address space, so that no block can run from one region into
     * another: the image here is a callback, not the files pt_code_cut rebuilds from. */
    static uint32_t one_region[1] = {PT_CODE_UNKNOWN};
    struct pt_code code = {.image = pt_image,
                           .functions = functions,
                           .num_functions = sizeof functions / sizeof functions[0],
                           .names = names,
                           .num_names = sizeof names / sizeof names[0],
                           .region_names = one_region};
    /* The trace in a buffer of its own, so reads past its end are caught. */
    size_t len = size - 5;
    uint8_t *bytes = malloc(len ? len : 1);
    if (!bytes)
        return 0;
    memcpy(bytes, data + 5, len);
    struct session_pt_loss loss = {.offset = (uint64_t)data[3] | (uint64_t)data[4] << 8,
                                   .bytes = 4096};
    struct session_pt_cpu info = {.bytes = len + 1, .lost = &loss, .num_lost = loss.offset != 0};
    struct pt_cpu_trace t = {.cpu = 0, .data = bytes, .size = len, .info = &info};
    struct diag d = {0};
    if (data[0] & 1) {
        uint64_t insns = 0;
        struct pt_sink sink = {.block = count_block, .gap = describe_gap, .ctx = &insns};
        (void)pt_decode(&t, &config, pt_image, true, &sink, &d);
    } else {
        struct pt_flow f;
        if (pt_flow_init(&f, &code, 0, pt.nom_freq) == 0) {
            (void)pt_flow_decode(&f, &t, &config, &code, true, &d);
            for (size_t i = 0; i < f.num_gaps; i++)
                (void)describe_gap(NULL, &f.gaps[i]);
        }
        pt_flow_free(&f);
    }
    free(bytes);
    return 0;
}
