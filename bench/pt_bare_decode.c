/* The floor `acart pt` is measured against (bench/pt_decode_bench.py): libipt's block decoder
 * over a raw trace and nothing else, the loop a user of libipt writes first. The images go
 * through libipt's image section cache as acart's do, so both read memory the same way;
 * events are taken and dropped, blocks only counted.
 *
 *   pt_bare_decode TRACE [--acart-flags] [--nom-freq N] [--mtc-freq N] [--cpuid-0x15 EAX,EBX]
 *                  FILE@ADDR...
 *
 * --acart-flags: the block decoder's flags as `acart pt functions` and `pt calls` set them
 * (a block ends at every jump, a tick event at every branch that moved the time), so the
 * benchmark can tell libipt's own share of acart's cost from acart's.
 *
 * Prints the instructions decoded (the benchmark checks them against acart's) and the
 * decode errors it resynchronised after. */
#include <inttypes.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long long number(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (!s[0] || *end) {
        fprintf(stderr, "pt_bare_decode: not a number: %s\n", s);
        exit(2);
    }
    return v;
}

static uint8_t *load(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        perror(path);
        exit(1);
    }
    uint8_t *data = malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!data || fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        fprintf(stderr, "pt_bare_decode: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *size = (size_t)st.st_size;
    return data;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: pt_bare_decode TRACE [--acart-flags] [--nom-freq N] "
                        "[--mtc-freq N] [--cpuid-0x15 EAX,EBX] FILE@ADDR...\n");
        return 2;
    }
    struct pt_config config;
    pt_config_init(&config);
    size_t size;
    uint8_t *trace = load(argv[1], &size);
    config.begin = trace;
    config.end = trace + size;
    struct pt_image_section_cache *iscache = pt_iscache_alloc("bare");
    struct pt_image *image = pt_image_alloc("bare");
    if (!iscache || !image)
        return 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--acart-flags") == 0) {
            config.flags.variant.block.end_on_jump = 1;
            config.flags.variant.block.enable_tick_events = 1;
        } else if (strcmp(argv[i], "--nom-freq") == 0 && i + 1 < argc) {
            config.nom_freq = (uint8_t)number(argv[++i]);
        } else if (strcmp(argv[i], "--mtc-freq") == 0 && i + 1 < argc) {
            config.mtc_freq = (uint8_t)number(argv[++i]);
        } else if (strcmp(argv[i], "--cpuid-0x15") == 0 && i + 1 < argc) {
            char *comma = strchr(argv[++i], ',');
            if (!comma)
                return 2;
            *comma = '\0';
            config.cpuid_0x15_eax = (uint32_t)number(argv[i]);
            config.cpuid_0x15_ebx = (uint32_t)number(comma + 1);
        } else {
            char *at = strrchr(argv[i], '@');
            struct stat st;
            if (!at)
                return 2;
            *at = '\0';
            if (stat(argv[i], &st) != 0) {
                perror(argv[i]);
                return 1;
            }
            int isid =
                pt_iscache_add_file(iscache, argv[i], 0, (uint64_t)st.st_size, number(at + 1));
            if (isid < 0 || pt_image_add_cached(image, iscache, isid, NULL) < 0) {
                fprintf(stderr, "pt_bare_decode: cannot add %s\n", argv[i]);
                return 1;
            }
        }
    }
    struct pt_block_decoder *dec = pt_blk_alloc_decoder(&config);
    if (!dec || pt_blk_set_image(dec, image) < 0)
        return 1;
    uint64_t insns = 0, errors = 0;
    for (;;) {
        int status = pt_blk_sync_forward(dec);
        if (status < 0)
            break;
        for (;;) {
            while (status & pts_event_pending) {
                struct pt_event ev;
                status = pt_blk_event(dec, &ev, sizeof ev);
                if (status < 0)
                    break;
            }
            if (status < 0 || (status & pts_eos))
                break;
            struct pt_block block;
            status = pt_blk_next(dec, &block, sizeof block);
            insns += block.ninsn;
            if (status < 0)
                break;
        }
        if (status < 0 && status != -pte_eos)
            errors++;
    }
    printf("%" PRIu64 " instructions, %" PRIu64 " errors\n", insns, errors);
    pt_blk_free_decoder(dec);
    pt_image_free(image);
    pt_iscache_free(iscache);
    free(trace);
    return 0;
}
