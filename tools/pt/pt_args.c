#include "pt_args.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char pt_args_common_help[] =
    "The input is a collection folder (acart collect --pt), or a raw Intel PT trace file\n"
    "(perf's AUX data, a hypervisor's buffer), decoded as CPU 0 with the options below.\n"
    "  -e, --elf IMAGE[@ADDR]  an ELF image of the traced code (repeat for more modules):\n"
    "                        at ADDR (where its first segment's page ran), else a\n"
    "                        fixed-address image at its link addresses, a position-\n"
    "                        independent one where module.bin says it ran\n"
    "  -r, --raw FILE@ADDR   raw memory: FILE's bytes are the code at ADDR (no names)\n"
    "                        (an image given later wins where two overlap)\n"
    "  -c, --cpu N           only CPU N (default: every CPU)\n"
    "  -h, --help            show this help\n"
    "For a raw trace (a collection's session.json says these):\n"
    "  --cpu-model F/M[/S]|none  the CPU that traced (family/model[/stepping], decimal or\n"
    "                        0x hex): libipt applies its errata; none (default): none\n"
    "  --mtc-freq N          IA32_RTIT_CTL.MTCFreq (0-15)\n"
    "  --nom-freq N          the nominal (max non-turbo) ratio, MSR_PLATFORM_INFO[15:8]\n"
    "  --cpuid-0x15.eax N    CPUID.15H:EAX, the TSC/crystal ratio's denominator\n"
    "  --cpuid-0x15.ebx N    CPUID.15H:EBX, its numerator\n"
    "  --tsc-hz HZ           the TSC rate, for microseconds (default: nom-freq x 100 MHz)\n"
    "  --addr-filter A-B     an address range that filtered the trace (ADDRn_CFG 1)\n"
    "  --addr-stop A-B       one that stopped it (ADDRn_CFG 2); up to 4 ranges in all\n";

enum {
    OPT_CPU_MODEL = 256,
    OPT_MTC_FREQ,
    OPT_NOM_FREQ,
    OPT_CPUID_EAX,
    OPT_CPUID_EBX,
    OPT_TSC_HZ,
    OPT_ADDR_FILTER,
    OPT_ADDR_STOP,
    OPT_NO_PAD,
};

/* The part of arg before its last '@' (a copy kept in a), and the address after it; -1 if
 * there is no '@', no file name or no address. */
static int parse_place(struct pt_args *a, const char *arg, const char **path, uint64_t *addr)
{
    const char *at = strrchr(arg, '@');
    if (!at || at == arg || cli_parse_uint(at + 1, UINT64_MAX, addr) != 0)
        return -1;
    char *copy = strndup(arg, (size_t)(at - arg));
    if (!copy)
        return -1;
    a->paths[a->num_paths++] = copy;
    *path = copy;
    return 0;
}

/* "6/85/4", "6/0x55", "none". */
static int parse_cpu_model(const char *arg, struct pt_raw_config *raw)
{
    if (strcmp(arg, "none") == 0) {
        raw->cpu_family = raw->cpu_model = raw->cpu_stepping = 0;
        return 0;
    }
    char buf[64];
    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    char *parts[4] = {0};
    size_t n = 0;
    for (char *p = buf; n < 4;) {
        parts[n++] = p;
        char *slash = strchr(p, '/');
        if (!slash)
            break;
        *slash = '\0';
        p = slash + 1;
    }
    uint64_t f, m, s = 0;
    if (n < 2 || n > 3 || cli_parse_uint(parts[0], UINT16_MAX, &f) != 0 || f == 0 ||
        cli_parse_uint(parts[1], UINT8_MAX, &m) != 0 ||
        (n == 3 && cli_parse_uint(parts[2], UINT8_MAX, &s) != 0))
        return -1;
    raw->cpu_family = (uint32_t)f;
    raw->cpu_model = (uint32_t)m;
    raw->cpu_stepping = (uint32_t)s;
    return 0;
}

/* "START-END", END inclusive as in IA32_RTIT_ADDRn_B. */
static int parse_range(const char *arg, uint64_t *start, uint64_t *end)
{
    const char *dash = strchr(arg, '-');
    char buf[64];
    if (!dash || dash == arg || (size_t)(dash - arg) >= sizeof buf)
        return -1;
    memcpy(buf, arg, (size_t)(dash - arg));
    buf[dash - arg] = '\0';
    if (cli_parse_uint(buf, UINT64_MAX, start) != 0 ||
        cli_parse_uint(dash + 1, UINT64_MAX, end) != 0 || *end < *start)
        return -1;
    return 0;
}

/* A raw-trace option's number into *out. */
static int raw_number(struct pt_args *a, const char *option, const char *arg, uint64_t max,
                      uint32_t *out)
{
    uint64_t v;
    if (!a->raw_option)
        a->raw_option = option;
    if (cli_parse_uint(arg, max, &v) != 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int add_source(struct pt_args *a, bool raw, const char *arg, const char *name,
                      const char *usage)
{
    struct pt_code_source *src = &a->sources[a->num_sources];
    memset(src, 0, sizeof *src);
    src->raw = raw;
    src->path = arg;
    if (raw) {
        if (parse_place(a, arg, &src->path, &src->address) != 0)
            return cli_usage_error(name, usage,
                                   "--raw %s: expected FILE@ADDRESS, the file's bytes being the "
                                   "memory at ADDRESS (e.g. text.bin@0x401000)",
                                   arg);
    } else if (strrchr(arg, '@') && access(arg, F_OK) != 0) {
        /* An '@' in the name of a file that exists is part of the name. */
        if (parse_place(a, arg, &src->path, &src->address) != 0)
            return cli_usage_error(name, usage,
                                   "--elf %s: expected IMAGE or IMAGE@ADDRESS (e.g. "
                                   "libfoo.so@0x7f0000000000)",
                                   arg);
        src->placed = true;
    }
    a->num_sources++;
    return -1;
}

int pt_args_parse(int argc, char **argv, const char *name, const char *usage, bool needs_image,
                  struct pt_args *a)
{
    static const struct option longopts[] = {
        {"elf", required_argument, NULL, 'e'},
        {"raw", required_argument, NULL, 'r'},
        {"cpu", required_argument, NULL, 'c'},
        {"blocks", no_argument, NULL, 'b'},
        {"max-depth", required_argument, NULL, 'd'},
        {"top", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {"cpu-model", required_argument, NULL, OPT_CPU_MODEL},
        {"mtc-freq", required_argument, NULL, OPT_MTC_FREQ},
        {"nom-freq", required_argument, NULL, OPT_NOM_FREQ},
        {"cpuid-0x15.eax", required_argument, NULL, OPT_CPUID_EAX},
        {"cpuid-0x15.ebx", required_argument, NULL, OPT_CPUID_EBX},
        {"tsc-hz", required_argument, NULL, OPT_TSC_HZ},
        {"addr-filter", required_argument, NULL, OPT_ADDR_FILTER},
        {"addr-stop", required_argument, NULL, OPT_ADDR_STOP},
        {"no-pad", no_argument, NULL, OPT_NO_PAD},
        {NULL, 0, NULL, 0},
    };
    static char full[8192];
    snprintf(full, sizeof full, "%s\n%s", usage, pt_args_common_help);
    memset(a, 0, sizeof *a);
    a->cpu = -1;
    a->max_depth = UINT64_MAX;
    a->top = 20;
    a->sources = calloc((size_t)argc, sizeof *a->sources);
    a->paths = calloc((size_t)argc, sizeof *a->paths);
    if (!a->sources || !a->paths)
        return ACART_EXIT_FAILURE;
    int opt, rc;
    uint64_t v, start, end;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "e:r:c:bd:t:o:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'e':
        case 'r':
            if ((rc = add_source(a, opt == 'r', optarg, name, full)) >= 0)
                return rc;
            break;
        case 'c':
            if (cli_parse_uint(optarg, UINT32_MAX, &v) != 0)
                return cli_usage_error(name, full, "--cpu: expected a CPU number, not %s", optarg);
            a->cpu = (int64_t)v;
            break;
        case 'b':
            a->blocks = true;
            break;
        case 'd':
            if (cli_parse_uint(optarg, UINT32_MAX, &a->max_depth) != 0)
                return cli_usage_error(name, full, "--max-depth: expected a number, not %s",
                                       optarg);
            break;
        case 't':
            if (cli_parse_uint(optarg, UINT32_MAX, &a->top) != 0)
                return cli_usage_error(name, full, "--top: expected a number, not %s", optarg);
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'h':
            return cli_help(full);
        case OPT_CPU_MODEL:
            if (!a->raw_option)
                a->raw_option = "--cpu-model";
            if (parse_cpu_model(optarg, &a->raw) != 0)
                return cli_usage_error(name, full,
                                       "--cpu-model %s: expected FAMILY/MODEL[/STEPPING] "
                                       "(e.g. 6/85/4) or none",
                                       optarg);
            break;
        case OPT_MTC_FREQ:
            if (raw_number(a, "--mtc-freq", optarg, 15, &a->raw.mtc_freq) != 0)
                return cli_usage_error(name, full, "--mtc-freq: expected 0 to 15, not %s", optarg);
            break;
        case OPT_NOM_FREQ:
            if (raw_number(a, "--nom-freq", optarg, 255, &a->raw.nom_freq) != 0)
                return cli_usage_error(name, full, "--nom-freq: expected 0 to 255, not %s", optarg);
            break;
        case OPT_CPUID_EAX:
            if (raw_number(a, "--cpuid-0x15.eax", optarg, UINT32_MAX, &a->raw.cpuid_15_eax) != 0)
                return cli_usage_error(name, full,
                                       "--cpuid-0x15.eax: expected a 32-bit number, "
                                       "not %s",
                                       optarg);
            break;
        case OPT_CPUID_EBX:
            if (raw_number(a, "--cpuid-0x15.ebx", optarg, UINT32_MAX, &a->raw.cpuid_15_ebx) != 0)
                return cli_usage_error(name, full,
                                       "--cpuid-0x15.ebx: expected a 32-bit number, "
                                       "not %s",
                                       optarg);
            break;
        case OPT_TSC_HZ:
            if (!a->raw_option)
                a->raw_option = "--tsc-hz";
            if (cli_parse_uint(optarg, UINT64_MAX, &a->raw.tsc_hz) != 0 || !a->raw.tsc_hz)
                return cli_usage_error(name, full, "--tsc-hz: expected a rate in Hz, not %s",
                                       optarg);
            break;
        case OPT_ADDR_FILTER:
        case OPT_ADDR_STOP: {
            const char *what = opt == OPT_ADDR_FILTER ? "--addr-filter" : "--addr-stop";
            if (!a->raw_option)
                a->raw_option = what;
            if (parse_range(optarg, &start, &end) != 0)
                return cli_usage_error(name, full,
                                       "%s %s: expected START-END (END inclusive, e.g. "
                                       "0x401000-0x401fff)",
                                       what, optarg);
            size_t n = a->raw.num_filters;
            if (n == SESSION_PT_MAX_FILTERS)
                return cli_usage_error(name, full, "%s %s: at most %d address ranges", what, optarg,
                                       SESSION_PT_MAX_FILTERS);
            a->raw.filters[n].start = start;
            a->raw.filters[n].end = end;
            a->raw.addr_cfg |= (uint64_t)(opt == OPT_ADDR_FILTER ? 1 : 2) << (4 * n);
            a->raw.num_filters++;
            break;
        }
        case OPT_NO_PAD:
            a->no_pad = true;
            break;
        default:
            return cli_usage_error(name, full, "unknown option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error(name, full, "expected one collection folder or trace file");
    a->input = argv[optind];
    /* What is not a folder is a trace file; one that does not exist is reported as such
     * when it is opened. */
    struct stat st;
    a->raw_trace = stat(a->input, &st) != 0 || !S_ISDIR(st.st_mode);
    if (a->raw_option && !a->raw_trace)
        return cli_usage_error(name, full,
                               "%s: only for a raw trace file; %s is a collection folder, "
                               "whose session.json says it",
                               a->raw_option, a->input);
    if (needs_image && !a->num_sources)
        return cli_usage_error(name, full, "an image is required: --elf IMAGE or --raw FILE@ADDR");
    return -1;
}

void pt_args_free(struct pt_args *a)
{
    for (size_t i = 0; i < a->num_paths; i++)
        free(a->paths[i]);
    free(a->paths);
    free(a->sources);
    memset(a, 0, sizeof *a);
}

int pt_args_open(struct pt_input *in, const struct pt_args *a, const char *name)
{
    struct diag d = {0};
    int rc = a->raw_trace ? pt_input_open_raw(in, a->input, &a->raw, a->sources, a->num_sources, &d)
                          : pt_input_open_sources(in, a->input, a->sources, a->num_sources, &d);
    if (rc != 0)
        return diag_report(name, &d);
    if (a->cpu >= 0 && (uint64_t)a->cpu >= in->p.session.num_cpus) {
        pt_input_close(in);
        if (a->raw_trace)
            fprintf(stderr, "acart %s: %s: --cpu %" PRId64 ": a trace file is CPU 0 only\n", name,
                    a->input, a->cpu);
        else
            fprintf(stderr,
                    "acart %s: %s: --cpu %" PRId64 ": the collection has CPUs 0 to %" PRIu32 "\n",
                    name, a->input, a->cpu, in->p.session.num_cpus - 1);
        return ACART_EXIT_USAGE;
    }
    return -1;
}

uint32_t pt_args_first_cpu(const struct pt_args *a)
{
    return a->cpu < 0 ? 0 : (uint32_t)a->cpu;
}

uint32_t pt_args_end_cpu(const struct pt_args *a, const struct pt_input *in)
{
    return a->cpu < 0 ? in->p.session.num_cpus : (uint32_t)a->cpu + 1;
}
