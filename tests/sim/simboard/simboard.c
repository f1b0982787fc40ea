/* acart_simboard: the whole target runtime on the host, as a board a real `acart collect`
 * talks to over loopback TCP. Four simulated CPUs (tests/sim's sim_cpu.c, one instance
 * each, strict about the SDM's #GP cases) run a workload whose trace unit writes a real
 * Intel PT packet stream (a pttc trace, read from --trace and replayed in a loop) into the
 * buffers the runtime programmed, while their counters count towards PMU samples and the
 * Skylake package's simulated uncore (tests/sim/sim_uncore.c) counts its traffic; the
 * platform seam is tests/sim's recording board with CPUs as threads
 * (tests/sim/sampler_shim_threads.c), the network the host's sockets (sim_channel.c).
 *
 * It is the only place where capture, the SEP extension, the host's files and the decoder
 * meet in one test (tests/pt/test_pt_capture.py); nothing here runs on a real board.
 *
 * With --rates the CPUs retire events at known rates of real time instead (RATES below,
 * per TSC tick of the board's 2 GHz), in slices short enough that no counter overflows
 * twice in one, and the runtime's sampling timer fires at the period it armed: what a
 * multiplexed collection needs. When a collection stops, the board prints each CPU's
 * events retired while it ran with its counters enabled ("simboard: truth cpu N ..."),
 * the truth a test compares the host's counts with.
 *
 * With --loads every CPU also retires, each millisecond, loads of four kinds that differ by
 * address, latency and data source (LOADS below), interleaved in small batches; when a
 * collection stops the board prints how many of each it retired while counting
 * ("simboard: loads cpu N ..."), the truth of a load-latency test.
 *
 * With --msr-cost NS every MSR access of a simulated CPU spends NS nanoseconds of real time
 * (the board's TSC is real time, so that is what a PMI's MSR accesses cost its CPU), and
 * --slice TICKS shortens --rates' slices for periods below the default slice's events: a
 * PMI storm (test_storm_simboard.py, beside this file), which the PMI budget must hold off
 * while the session stays responsive. --pmi-rate HZ sets the budget's rate (aca_config).
 *
 * --foreign-nmis N raises, with --rates, N NMIs on each CPU that are not the PMU's (one per
 * slice while a collection runs, after the slice's PMI): what a board's other NMI sources
 * do, which acart's handler sees and counts as unclaimed (the console says so at STOP).
 *
 * Usage: acart_simboard --port N [--model skylake|broadwell|tigerlake|sapphirerapids|qemu]
 *          [--trace FILE]
 *          [--pace BYTES | --rates [--slice TICKS]] [--loads] [--transfer immediate|delayed]
 *          [--pt-memory KIB] [--freeze-after BYTES [--freeze-exception VECTOR]]
 *          [--msr-cost NS] [--pmi-rate HZ] [--foreign-nmis N] [--seconds S]
 * Prints the board's log on stdout; exits 3 when a simulated CPU raised a #GP. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acart.h"
#include "acart_opts.h"
#include "acart_platform.h"
#include "io.h"
#include "msr.h"
#include "pt_cpu.h"
#include "sampler.h"
#include "sampler_shim.h"
#include "sim_channel.h"
#include "sim_uncore.h"

#define MODULE_START 0x100000u
#define MODULE_BYTES 0x1000u

static struct {
    const struct sim_model *model;
    uint16_t port;
    const char *trace;
    size_t pace;
    enum aca_transfer_mode transfer;
    uint32_t pt_memory_kib;
    uint64_t freeze_after;
    int freeze_vector; /* -1: aca_trace_freeze(7) */
    double seconds;
    int rates;
    int loads;
    uint64_t slice;
    uint32_t msr_cost_ns;
    uint32_t pmi_rate_hz;
    uint32_t foreign_nmis;
} opt = {&sim_skylake, 0, NULL, 2048, ACA_TRANSFER_IMMEDIATE, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0};

static uint8_t *stream;
static size_t stream_len;

/* ---- the port (acart.h) ---- */

int aca_port_module_list(struct aca_module_info *out, int max)
{
    if (max > 0) {
        memset(out, 0, sizeof *out);
        strcpy(out[0].name, "/boards/sim/demo.elf");
        out[0].start = MODULE_START;
        out[0].length = MODULE_BYTES;
    }
    return 1;
}

void aca_port_log(const char *line)
{
    printf("%s\n", line);
    fflush(stdout);
}

/* The TSC (tests/sim/host/io.h): real time at the board's 2 GHz. */
uint64_t host_tsc(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 2000000000ull + (uint64_t)t.tv_nsec * 2;
}

/* ---- the workload ---- */

static void check_faults(void)
{
    if (sim_uncore_faults()) {
        printf("simboard: the uncore raised #GP: %s\n", sim_uncore_fault_text());
        fflush(stdout);
        exit(3);
    }
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        const struct sim_instance *s = shim_sim(cpu);
        if (s->faults()) {
            printf("simboard: cpu %u raised #GP: %s\n", (unsigned)cpu, s->fault_text());
            fflush(stdout);
            exit(3);
        }
    }
}

static uint64_t traced_on_cpu1;
static int froze;

/* Per CPU, what a test compares the host's view with: the IA32_RTIT_CTL each trace began
 * with, and when the trace stops (a stop or a freeze), where in the stream and how many
 * stream bytes the code ran with TraceEn set (every one of them a byte the unit wrote, or
 * one lost). Looked at between steps, where commands run. */
static int was_tracing[SHIM_CPUS];
static uint64_t traced[SHIM_CPUS];

static void report_trace(uint32_t cpu, int tracing)
{
    const struct sim_instance *s = shim_sim(cpu);

    if (tracing && !was_tracing[cpu]) {
        traced[cpu] = 0;
        printf("simboard: cpu %u traces with IA32_RTIT_CTL 0x%llx\n", (unsigned)cpu,
               (unsigned long long)s->peek_msr(MSR_IA32_RTIT_CTL));
    } else if (!tracing && was_tracing[cpu]) {
        printf("simboard: cpu %u stopped tracing at stream byte %llu, %llu bytes traced\n",
               (unsigned)cpu, (unsigned long long)s->pt_position(),
               (unsigned long long)traced[cpu]);
    }
    fflush(stdout);
    was_tracing[cpu] = tracing;
}

/* --rates: events per 1000 TSC ticks, in struct sim_events order (instructions, cycles,
 * reference cycles, branches, mispredicts, loads, stores, LLC references and misses,
 * uops), the same on every CPU. */
static const uint64_t RATES[10] = {1000, 500, 1000, 200, 10, 333, 143, 20, 5, 1250};
static const char *const RATE_NAMES[10] = {"instructions", "cycles", "ref_cycles", "branches",
                                           "mispredicts",  "loads",  "stores",     "llc_refs",
                                           "llc_misses",   "uops"};
/* 10 us at 2 GHz. A counter that overflows inside a slice is reloaded by the PMI after
 * it, losing what it counted past the overflow (as hardware loses its skid): a slice far
 * below any sample-after value a test uses keeps that loss below 1 %. */
#define SLICE_TSC 20000u

static uint64_t last_tsc[SHIM_CPUS], next_tick[SHIM_CPUS];
static uint64_t truth[SHIM_CPUS][10];
static uint32_t foreign_nmis_raised[SHIM_CPUS];
static int was_running;

static struct trap_frame frame_of(uint32_t cpu)
{
    struct trap_frame frame;
    memset(&frame, 0, sizeof frame);
    frame.ip = MODULE_START + 0x10 * cpu;
    frame.cs = 0x08;
    frame.flags = 0x202;
    return frame;
}

/* --rates: every CPU retires what the time since its last step is worth, slice by slice,
 * taking each PMI at once; then its sampling timer fires if it is due. */
static void rates_step(void)
{
    int running = sampler_is_running();
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        const struct sim_instance *s = shim_sim(cpu);
        struct trap_frame frame = frame_of(cpu);
        /* Per CPU, just before its timer may fire: a switch then times its group's turn
         * at the moment up to which the CPU has run. */
        uint64_t now = rdtsc();
        if (!last_tsc[cpu])
            last_tsc[cpu] = now;
        s->set_ip(frame.ip);
        while (last_tsc[cpu] < now) {
            uint64_t slice = opt.slice ? opt.slice : SLICE_TSC;
            uint64_t t = now - last_tsc[cpu] < slice ? now - last_tsc[cpu] : slice;
            uint64_t n[10];
            int counting = running && s->peek_msr(MSR_IA32_PERF_GLOBAL_CTRL) != 0;
            for (int k = 0; k < 10; k++) {
                n[k] = t * RATES[k] / 1000;
                if (counting)
                    truth[cpu][k] += n[k];
            }
            struct sim_events ev = {n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9]};
            s->retire(&ev);
            shim_raise_pmi(cpu, &frame);
            if (running && foreign_nmis_raised[cpu] < opt.foreign_nmis) {
                foreign_nmis_raised[cpu]++;
                shim_raise_nmi(cpu, &frame);
            }
            last_tsc[cpu] += t;
        }
        uint64_t period = shim_timer_period(cpu);
        if (!period) {
            next_tick[cpu] = 0;
        } else if (!next_tick[cpu]) {
            next_tick[cpu] = now + period;
        } else if (now >= next_tick[cpu]) {
            next_tick[cpu] += period;
            if (next_tick[cpu] <= now)
                next_tick[cpu] = now + period; /* a tick is one interrupt however late */
            shim_timer_tick(cpu, &frame);
        }
    }
    if (was_running && !running) {
        for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
            printf("simboard: truth cpu %u", (unsigned)cpu);
            for (int k = 0; k < 10; k++)
                printf(" %s=%llu", RATE_NAMES[k], (unsigned long long)truth[cpu][k]);
            printf("\n");
        }
        fflush(stdout);
        memset(truth, 0, sizeof truth);
    }
    was_running = running;
}

/* --loads: per millisecond and CPU, loads of each kind: where the loading instruction is
 * (in the image), its operand, latency in core cycles and PEBS data source encoding (bits
 * 3:0 the source, bit 4 an STLB miss). The first are L1 hits, faster than any threshold
 * a load-latency event sets. */
static const struct {
    uint32_t ip;
    uint64_t address;
    uint16_t latency;
    uint64_t source;
    uint64_t per_ms;
} LOADS[] = {
    {MODULE_START + 0x200, 0x200000, 4, 0x01, 4000},
    {MODULE_START + 0x240, 0x201000, 40, 0x03, 1500},
    {MODULE_START + 0x280, 0x202000, 90, 0x04, 1000},
    {MODULE_START + 0x2c0, 0x203000, 400, 0x1a, 500},
};
#define NUM_LOADS  (sizeof LOADS / sizeof LOADS[0])
#define LOAD_BATCH 250 /* below any sample-after value: a batch overflows a counter once */
static uint64_t load_truth[SHIM_CPUS][NUM_LOADS];
static int loads_were_running;

static void retire_loads(uint32_t cpu)
{
    const struct sim_instance *s = shim_sim(cpu);
    int counting = sampler_is_running() && s->peek_msr(MSR_IA32_PERF_GLOBAL_CTRL) != 0;
    uint64_t left[NUM_LOADS];
    for (size_t k = 0; k < NUM_LOADS; k++)
        left[k] = LOADS[k].per_ms;
    for (int more = 1; more;) {
        more = 0;
        for (size_t k = 0; k < NUM_LOADS; k++) {
            if (left[k] == 0)
                continue;
            uint64_t n = left[k] < LOAD_BATCH ? left[k] : LOAD_BATCH;
            struct sim_events ev = {.loads = n};
            s->set_ip(LOADS[k].ip);
            s->set_load(LOADS[k].address, LOADS[k].latency, LOADS[k].source);
            s->retire(&ev);
            /* Taken at once, as the PMI arrives within a few instructions on hardware: a
             * counter frozen on PMI until the step's end would skip the step's later loads. */
            struct trap_frame frame = frame_of(cpu);
            shim_raise_pmi(cpu, &frame);
            if (counting)
                load_truth[cpu][k] += n;
            left[k] -= n;
            more |= left[k] != 0;
        }
    }
}

static void print_load_truth(void)
{
    int running = sampler_is_running();
    if (loads_were_running && !running) {
        for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
            printf("simboard: loads cpu %u", (unsigned)cpu);
            for (size_t k = 0; k < NUM_LOADS; k++)
                printf(" source=0x%llx latency=%u n=%llu", (unsigned long long)LOADS[k].source,
                       (unsigned)LOADS[k].latency, (unsigned long long)load_truth[cpu][k]);
            printf("\n");
        }
        fflush(stdout);
        memset(load_truth, 0, sizeof load_truth);
    }
    loads_were_running = running;
}

/* One millisecond of every CPU: its code retires events and produces `pace` bytes of
 * trace; any PMI it raised (a counter or a trace region) is taken at once. */
static void workload_step(void)
{
    static uint64_t step_count;
    /* The package's traffic in that millisecond: a 1 GHz uncore clock, and rates the
     * uncore test checks its counts against. */
    struct sim_uncore_traffic t = {.uclk = 1000000,
                                   .arb_requests = 5000,
                                   .cbo_lookups = {4000, 3000, 2000, 1000},
                                   .dram_reads = 20000,
                                   .dram_writes = 10000};
    sim_uncore_run(&t);
    if (opt.rates) {
        rates_step();
        return;
    }
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        const struct sim_instance *s = shim_sim(cpu);
        struct sim_events ev = {.instructions = opt.pace,
                                .cycles = opt.pace,
                                .ref_cycles = 2 * opt.pace,
                                .branches = opt.pace / 8};
        struct trap_frame frame;

        memset(&frame, 0, sizeof frame);
        frame.ip = MODULE_START + 0x10 * cpu;
        frame.cs = 0x08;
        frame.flags = 0x202;
        s->set_ip(frame.ip);
        /* A loop's two taken branches, recorded when a session enabled LBRs: its back edge
         * (mispredicted every other millisecond, 6 cycles) and a call-free jump (2 cycles). */
        s->branch_kind(MODULE_START + 0x100, MODULE_START + 0x40, SIM_BR_JCC, (int)(step_count & 1),
                       6);
        s->branch_kind(MODULE_START + 0x48, MODULE_START + 0x100, SIM_BR_REL_JMP, 0, 2);
        s->retire(&ev);
        if (opt.loads)
            retire_loads(cpu);
        if (stream) {
            int tracing = (s->peek_msr(MSR_IA32_RTIT_CTL) & RTIT_CTL_TRACE_EN) != 0;
            report_trace(cpu, tracing);
            s->pt_run(opt.pace);
            if (tracing)
                traced[cpu] += opt.pace;
            if (cpu == 1 && tracing)
                traced_on_cpu1 += opt.pace;
        }
        shim_raise_pmi(cpu, &frame);
        if (cpu == SHIM_CPUS - 1)
            step_count++;
        if (cpu == SHIM_CPUS - 1 && opt.loads)
            print_load_truth();
        if (cpu == 1 && opt.freeze_after && !froze && traced_on_cpu1 >= opt.freeze_after) {
            froze = 1;
            shim_set_current_cpu(1);
            if (opt.freeze_vector >= 0)
                aca_trace_freeze_exception((uint32_t)opt.freeze_vector);
            else
                aca_trace_freeze(7);
            shim_set_current_cpu(0);
            printf("simboard: cpu 1 froze its trace at stream byte %llu\n",
                   (unsigned long long)s->pt_position());
            fflush(stdout);
        }
    }
}

static int load_stream(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    stream = n > 0 ? malloc((size_t)n) : NULL;
    if (!stream || fread(stream, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        return -1;
    }
    fclose(f);
    stream_len = (size_t)n;
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++)
        shim_sim(cpu)->pt_source(stream, stream_len);
    return 0;
}

/* With --rates the CPUs run up to each request (a command runs as its bytes arrive), so a
 * read of the counters sees everything retired until it. Always 1. */
static int run_up_to_now(void)
{
    if (opt.rates)
        rates_step();
    return 1;
}

static int parse(int argc, char **argv)
{
    static const struct option options[] = {
        {"port", required_argument, NULL, 'p'},
        {"model", required_argument, NULL, 'm'},
        {"trace", required_argument, NULL, 't'},
        {"pace", required_argument, NULL, 'a'},
        {"transfer", required_argument, NULL, 'x'},
        {"pt-memory", required_argument, NULL, 'k'},
        {"freeze-after", required_argument, NULL, 'f'},
        {"freeze-exception", required_argument, NULL, 'e'},
        {"seconds", required_argument, NULL, 's'},
        {"rates", no_argument, NULL, 'r'},
        {"loads", no_argument, NULL, 'l'},
        {"slice", required_argument, NULL, 'c'},
        {"msr-cost", required_argument, NULL, 'n'},
        {"pmi-rate", required_argument, NULL, 'b'},
        {"foreign-nmis", required_argument, NULL, 'N'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'p':
            opt.port = (uint16_t)atoi(optarg);
            break;
        case 'm':
            opt.model = !strcmp(optarg, "broadwell")        ? &sim_broadwell
                        : !strcmp(optarg, "tigerlake")      ? &sim_tigerlake
                        : !strcmp(optarg, "sapphirerapids") ? &sim_sapphire_rapids
                        : !strcmp(optarg, "qemu")           ? &sim_qemu_tcg
                                                            : &sim_skylake;
            break;
        case 't':
            opt.trace = optarg;
            break;
        case 'a':
            opt.pace = (size_t)atol(optarg);
            break;
        case 'x':
            opt.transfer =
                !strcmp(optarg, "delayed") ? ACA_TRANSFER_DELAYED : ACA_TRANSFER_IMMEDIATE;
            break;
        case 'k':
            opt.pt_memory_kib = (uint32_t)atoi(optarg);
            break;
        case 'f':
            opt.freeze_after = (uint64_t)atoll(optarg);
            break;
        case 'e':
            opt.freeze_vector = atoi(optarg);
            break;
        case 's':
            opt.seconds = atof(optarg);
            break;
        case 'r':
            opt.rates = 1;
            break;
        case 'l':
            opt.loads = 1;
            break;
        case 'c':
            opt.slice = (uint64_t)atoll(optarg);
            break;
        case 'n':
            opt.msr_cost_ns = (uint32_t)atol(optarg);
            break;
        case 'b':
            opt.pmi_rate_hz = (uint32_t)atol(optarg);
            break;
        case 'N':
            opt.foreign_nmis = (uint32_t)atol(optarg);
            break;
        default:
            return -1;
        }
    }
    return opt.port && opt.pace ? 0 : -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    struct aca_config cfg;

    if (parse(argc, argv)) {
        fprintf(stderr, "usage: acart_simboard --port N "
                        "[--model skylake|broadwell|tigerlake|sapphirerapids|qemu] "
                        "[--trace FILE] [--pace BYTES | --rates] [--loads] "
                        "[--transfer immediate|delayed] "
                        "[--pt-memory KIB] [--freeze-after BYTES [--freeze-exception V]] "
                        "[--slice TICKS] [--msr-cost NS] [--pmi-rate HZ] [--foreign-nmis N] "
                        "[--seconds S]\n");
        return 2;
    }
    shim_power_on(opt.model);
    sim_uncore_reset(opt.model == &sim_skylake ? SIM_UNCORE_SKL_CLIENT : SIM_UNCORE_NONE, 4);
    if (opt.trace && load_stream(opt.trace)) {
        fprintf(stderr, "acart_simboard: cannot read %s\n", opt.trace);
        return 2;
    }
    aca_config_init(&cfg);
    cfg.port = opt.port;
    cfg.transfer = opt.transfer;
    /* The simulated CPUs' time is not the board's: a step catches up on a millisecond or
     * more of their work in a fraction of its real time, and a host thread preempted in a
     * handler takes milliseconds, so a budget on the real-time TSC would throttle what is
     * no storm (and the host's counts, unweighed, would come out too low). No budget
     * unless a test asks for one (--pmi-rate). */
    cfg.pmi_max_rate_hz = opt.pmi_rate_hz ? opt.pmi_rate_hz : ACA_PMI_NO_BUDGET;
    if (opt.pt_memory_kib) {
        cfg.pt_memory_bytes = opt.pt_memory_kib * 1024u;
        cfg.pt_memory = aligned_alloc(PT_MEMORY_ALIGN, cfg.pt_memory_bytes);
    }
    shim_set_msr_cost_ns(opt.msr_cost_ns);
    int err = aca_start(&cfg);
    if (err) {
        fprintf(stderr, "acart_simboard: aca_start: %s\n", aca_strerror(err));
        return 1;
    }
    printf("simboard: %s, %u cpus, listening on 127.0.0.1:%u\n", opt.model->name,
           (unsigned)SHIM_CPUS, (unsigned)opt.port);
    fflush(stdout);
    double end = opt.seconds > 0 ? now_s() + opt.seconds : 0;
    const struct timespec tick = {0, 1000000};
    while (!end || now_s() < end) {
        for (int i = 0; i < 64 && run_up_to_now() && sim_channel_poll(); i++)
            aca_poll();
        run_up_to_now();
        aca_poll();
        workload_step();
        check_faults();
        nanosleep(&tick, NULL);
    }
    return 0;
}
