/* `selfmeasure`: firmware that measures itself through IPROBE (ipr.h), with no host.
 *
 * The last CPU runs a control loop: every 100 ms period it filters sensor readings with
 * selfmeasure_filter as many times as the period allows, reads its own counters and prints
 * the cycles per iteration (TSC; with a PMU also core cycles and instructions). Meanwhile
 * IPROBE's time-based samples histogram the whole image by 16-byte buckets (index 0) and
 * the routine alone byte by byte (index 1), and fill sample buffers that IPR_FULL_WRITE
 * puts into the sample file. After the run the file "selfmeasure.ipr" holds the buffers
 * and histograms, offered to `acart fetch`. The other CPUs idle.
 *
 * Boot option selfmeasure=DELAY_MS,SECONDS (default 0,5): wait DELAY_MS before asking for
 * the counters, measure for SECONDS. While a host collection holds the counters,
 * IprAllocate says so and the loop asks again every 500 ms. */
#include "selfmeasure.h"

#include "console.h"
#include "io.h"
#include "tsc.h"

#include "acart_opts.h"

#if !ACA_WITH_IPROBE
/* A board linked with a libacart.a built without IPROBE (ACART_WITH_IPROBE OFF) has no
 * measuring to do: the workload says so and idles. */
void selfmeasure_configure(const char *arg)
{
    (void)arg;
}

void selfmeasure_run(uint32_t cpu)
{
    console_printf("selfmeasure: cpu %lu: this libacart.a is built without IPROBE\n",
                   (unsigned long)cpu);
    irq_enable();
    for (;;)
        __asm__ volatile("hlt");
}
#else
#include "ipr.h"

#include <stdio.h>
#include <stdlib.h>

/* state += (x - state) / 8 over n readings: an exponential smoother, in assembly so its
 * address range is exact (selfmeasure_filter .. selfmeasure_filter_end). */
uint32_t selfmeasure_filter(const uint32_t *x, uint32_t n, uint32_t state);
extern const char selfmeasure_filter_end[];
#ifdef __x86_64__
__asm__(".text\n"
        ".global selfmeasure_filter, selfmeasure_filter_end\n"
        ".type selfmeasure_filter, @function\n"
        ".p2align 4\n"
        "selfmeasure_filter:\n\t"
        "movl %edx, %eax\n"
        "1:\n\t"
        "movl (%rdi), %ecx\n\t"
        "subl %eax, %ecx\n\t"
        "sarl $3, %ecx\n\t"
        "addl %ecx, %eax\n\t"
        "addq $4, %rdi\n\t"
        "decl %esi\n\t"
        "jnz 1b\n\t"
        "ret\n"
        "selfmeasure_filter_end:\n\t"
        ".size selfmeasure_filter, selfmeasure_filter_end - selfmeasure_filter\n");
#else
__asm__(".text\n"
        ".global selfmeasure_filter, selfmeasure_filter_end\n"
        ".type selfmeasure_filter, @function\n"
        ".p2align 4\n"
        "selfmeasure_filter:\n\t"
        "pushl %ebx\n\t"
        "movl 8(%esp), %ecx\n\t"
        "movl 12(%esp), %edx\n\t"
        "movl 16(%esp), %eax\n"
        "1:\n\t"
        "movl (%ecx), %ebx\n\t"
        "subl %eax, %ebx\n\t"
        "sarl $3, %ebx\n\t"
        "addl %ebx, %eax\n\t"
        "addl $4, %ecx\n\t"
        "decl %edx\n\t"
        "jnz 1b\n\t"
        "popl %ebx\n\t"
        "ret\n"
        "selfmeasure_filter_end:\n\t"
        ".size selfmeasure_filter, selfmeasure_filter_end - selfmeasure_filter\n");
#endif

extern const char __text_start[], __text_end[];

#define READINGS  8192
#define PERIOD_MS 100
#define FILE_NAME "selfmeasure.ipr"

static uint32_t readings[READINGS];
static uint32_t delay_ms, seconds = 5;
static volatile uint32_t sink;

void selfmeasure_configure(const char *arg)
{
    char *end;
    delay_ms = (uint32_t)strtoul(arg, &end, 10);
    if (*end == ',')
        seconds = (uint32_t)strtoul(end + 1, NULL, 10);
}

static void wait_ms(uint32_t ms)
{
    uint64_t end = rdtsc() + tsc_hz() / 1000 * ms;
    while (rdtsc() < end)
        cpu_relax();
}

static void say(const char *what, IPR_STATUS st)
{
    console_printf("selfmeasure: %s: %s\n", what, aca_ipr_strerror(st));
}

/* Owns the counters: IprAllocate until a host collection lets go of them. */
static void allocate(void)
{
    IPR_STATUS last = IPR__SUCCESS;
    for (;;) {
        IPR_STATUS st = IprAllocate();
        if (IPR_SUCCESS(st))
            return;
        if (st != last)
            say("IprAllocate", st);
        last = st;
        wait_ms(500);
    }
}

/* The TSC counter samples about every half millisecond: the power of two nearest. */
static IPR_FREQ sample_period(void)
{
    IPR_FREQ p = 1u << 10;
    while (p * 2 <= tsc_hz() / 2000)
        p *= 2;
    return p;
}

static uint32_t select_events(IPR_CPUMASK me, IPR_CTRNUMBER *cycles, IPR_CTRNUMBER *instructions)
{
    IPR_EVENT ev[3] = {IPR_EVENT_TSC};
    IPR_FREQ fr[3] = {sample_period(), 0, 0};
    IPR_SIZE n = 1;
    IPR_FMASK funcs = 0;
    IprAvailableFuncs(&funcs);
    if ((funcs & IPR_FUNC_PMU) &&
        IPR_SUCCESS(IprEventNameToNumber("CPU_CLK_UNHALTED.THREAD", &ev[n], 0)))
        n++;
    if ((funcs & IPR_FUNC_PMU) && IPR_SUCCESS(IprEventNameToNumber("INST_RETIRED.ANY", &ev[n], 0)))
        n++;
    IPR_STATUS st = IprSelectEventsFromArray(me, ev, fr, n, 0);
    if (IPR_SUCCESS(st))
        st = IprSetEvents(me, 0);
    if (!IPR_SUCCESS(st)) {
        say("IprSetEvents", st);
        n = 1;
    }
    *cycles = *instructions = 0;
    if (n > 1)
        IprCounterNumber(me, ev[1], cycles);
    if (n > 2)
        IprCounterNumber(me, ev[2], instructions);
    return n;
}

static void setup_collection(IPR_CPUMASK me)
{
    uint64_t lo = (uintptr_t)selfmeasure_filter, hi = (uintptr_t)selfmeasure_filter_end - 1;
    IPR_STATUS st =
        IprCreateHistogramBuffers(me, IPR_HIST_ADDRESS | IPR_HIST_MODE, (uintptr_t)__text_start,
                                  (uintptr_t)__text_end - 1, 4, 0);
    if (IPR_SUCCESS(st))
        st = IprAddAddressHistogramBuffers(me, lo, hi, 0, 1);
    if (!IPR_SUCCESS(st))
        say("histograms", st);
    /* The whole TSC, the interrupting counter and its 64-bit count too: `acart export
     * perfetto` places the samples in time and draws the counts as counter tracks. */
    st = IprCreateSampleBuffers(
        me, 8, 8192, IPR_DATA_PC | IPR_DATA_TSC | IPR_DATA_CPU | IPR_DATA_CTR | IPR_DATA_COUNT,
        IPR_DATA_TSC | IPR_DATA_COUNT, 0, IPR_FULL_WRITE, 0, 0, 0);
    if (!IPR_SUCCESS(st))
        say("IprCreateSampleBuffers", st);
    st = IprOpenSampleFile(FILE_NAME, 0);
    if (!IPR_SUCCESS(st))
        say("IprOpenSampleFile", st);
}

/* Share of the image histogram's samples that fell inside the routine, from the board's
 * own reading of it (the host test reads the fetched file instead). */
static void report_histogram(IPR_CPUMASK me, IPR_COUNT numctrs)
{
    static IPR_HISTELEM cells[256 * 1024 / sizeof(IPR_HISTELEM)];
    uint64_t lo = (uintptr_t)selfmeasure_filter, hi = (uintptr_t)selfmeasure_filter_end;
    uint64_t buckets = (((uintptr_t)__text_end - (uintptr_t)__text_start) >> 4) + 1;
    if (buckets * numctrs > sizeof(cells) / sizeof(cells[0]))
        return;
    IPR_STATUS st =
        IprReadHistogram(me, 0, cells, (IPR_SIZE)(buckets * numctrs), (uintptr_t)__text_start,
                         IPR_HIST_ADDRESS, 0, IPR_HACTION_COPY);
    if (!IPR_SUCCESS(st)) {
        say("IprReadHistogram", st);
        return;
    }
    uint64_t total = 0, inside = 0;
    for (uint64_t b = 0; b < buckets; b++) {
        uint64_t start = (uintptr_t)__text_start + (b << 4);
        for (IPR_COUNT c = 0; c < numctrs; c++) {
            total += cells[b * numctrs + c];
            if (start < hi && start + 16 > lo)
                inside += cells[b * numctrs + c];
        }
    }
    console_printf("selfmeasure: histogram: %llu of %llu samples in the buckets of "
                   "selfmeasure_filter 0x%llx-0x%llx\n",
                   (unsigned long long)inside, (unsigned long long)total, (unsigned long long)lo,
                   (unsigned long long)hi);
}

static void finish(IPR_CPUMASK me)
{
    int writes = 0, partial = 0, auto_writes = 0;
    IprStop(me, 0);
    IPR_STATUS st = IprWriteSampleBuffers(me, IPR_WRITE_PARTIAL, &writes, &partial);
    if (IPR_SUCCESS(st))
        st = aca_ipr_write_histograms(me, IPR_HIST_ALL, 0);
    if (IPR_SUCCESS(st))
        st = aca_ipr_write_histograms(me, IPR_HIST_ADDRESS, 1);
    if (!IPR_SUCCESS(st))
        say("writing the sample file", st);
    report_histogram(me, IprNumCounters());
    IprCloseSampleFile(&auto_writes, 0);
    IprDeleteBuffers(me);
    IprDeallocate();
    console_printf("selfmeasure: wrote %s: %d sample buffers during the run, %d at the end; "
                   "the counters are free again\n",
                   FILE_NAME, auto_writes, writes);
}

void selfmeasure_run(uint32_t cpu)
{
    IPR_CPUMASK me = 1ull << cpu;
    IPR_CTRNUMBER cycles, instructions;
    IPR_COUNT before[IPR_MAX_COUNTERS], after[IPR_MAX_COUNTERS];
    uint32_t state = 0;

    for (uint32_t i = 0; i < READINGS; i++)
        readings[i] = i * 2654435761u >> 20;
    irq_enable();
    wait_ms(delay_ms);
    allocate();
    uint32_t n = select_events(me, &cycles, &instructions);
    console_printf("selfmeasure: owner of the counters on cpu %lu: %lu events, routine "
                   "selfmeasure_filter 0x%lx-0x%lx\n",
                   (unsigned long)cpu, (unsigned long)n,
                   (unsigned long)(uintptr_t)selfmeasure_filter,
                   (unsigned long)(uintptr_t)selfmeasure_filter_end);
    setup_collection(me);
    IprStart(me, 0);
    for (uint32_t period = 0; period < seconds * (1000 / PERIOD_MS); period++) {
        uint64_t end = rdtsc() + tsc_hz() / 1000 * PERIOD_MS;
        uint32_t iterations = 0;
        aca_ipr_read_all(IPR_CURRENT_CPU, 0, before, IPR_MAX_COUNTERS, IPR_ACTION_COPY);
        while (rdtsc() < end) {
            state = selfmeasure_filter(readings, READINGS, state);
            iterations++;
        }
        aca_ipr_read_all(IPR_CURRENT_CPU, 0, after, IPR_MAX_COUNTERS, IPR_ACTION_COPY);
        sink = state;
        if (n > 2)
            console_printf(
                "selfmeasure: period %lu: %lu iterations, %llu TSC cycles, %llu core "
                "cycles, %llu instructions per iteration\n",
                (unsigned long)period, (unsigned long)iterations,
                (unsigned long long)((after[0] - before[0]) / iterations),
                (unsigned long long)((after[cycles] - before[cycles]) / iterations),
                (unsigned long long)((after[instructions] - before[instructions]) / iterations));
        else
            console_printf("selfmeasure: period %lu: %lu iterations, %llu TSC cycles per "
                           "iteration\n",
                           (unsigned long)period, (unsigned long)iterations,
                           (unsigned long long)((after[0] - before[0]) / iterations));
    }
    finish(me);
    for (;;)
        __asm__ volatile("sti; hlt");
}
#endif
