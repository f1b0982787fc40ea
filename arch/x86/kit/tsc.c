/* TSC frequency discovery. */
#include "tsc.h"
#include "cpuid.h"
#include "io.h"

#define PIT_HZ 1193182u

static uint64_t hz;
static enum tsc_source source;

/* PIT channel 2 as a free-running 16-bit down-counter (mode 2, reload 65536, 55 ms a
 * turn), read by latching. A reading pairs the latched count with the TSC around it and
 * counts only when both TSC reads are close: a virtual CPU the host deschedules between
 * them (or an SMI) makes the pair useless, not wrong. Two good readings ~20 ms apart give
 * the rate, whatever happened to this CPU in between. No interrupt: works before the IDT. */
struct pit_reading {
    uint64_t tsc;
    uint16_t count;
};

static int pit_read(struct pit_reading *r)
{
    uint64_t before = rdtsc();
    outb(0x43, 0x80); /* latch channel 2 */
    uint8_t lo = inb(0x42), hi = inb(0x42);
    uint64_t after = rdtsc();
    r->tsc = before + (after - before) / 2;
    r->count = (uint16_t)(lo | hi << 8);
    return after - before < 200000; /* well under 0.1 ms on any CPU acart runs on */
}

static uint64_t tsc_measure_against_pit(void)
{
    uint8_t gate = inb(0x61);
    outb(0x61, (uint8_t)((gate & ~0x02) | 0x01)); /* gate on, speaker off */
    outb(0x43, 0xb4);                             /* channel 2, lo/hi, mode 2 */
    outb(0x42, 0);
    outb(0x42, 0); /* reload 65536 */
    struct pit_reading start, end;
    uint64_t rate = 0;
    for (int attempt = 0; attempt < 20 && !rate; attempt++) {
        if (!pit_read(&start))
            continue;
        /* About 20 ms of PIT ticks (24000 of 65536): far from a full turn, so the 16-bit
         * difference is the elapsed count even if the loop overshoots a little. */
        uint64_t last = start.tsc, longest_gap = 0;
        do {
            if (!pit_read(&end))
                end.count = start.count; /* unusable pair: keep waiting */
            if (end.tsc - last > longest_gap)
                longest_gap = end.tsc - last;
            last = end.tsc;
        } while ((uint16_t)(start.count - end.count) < 24000);
        uint32_t elapsed = (uint16_t)(start.count - end.count);
        /* A gap of a quarter of the window means this CPU was away long enough for the
         * counter to have turned over unseen: the count no longer says how long. */
        if (longest_gap < (end.tsc - start.tsc) / 4)
            rate = (end.tsc - start.tsc) * PIT_HZ / elapsed;
    }
    outb(0x61, gate);
    return rate;
}

void tsc_init(void)
{
    uint32_t max = cpuid_max_leaf();
    if (max >= 0x15) {
        struct cpuid_regs r = cpuid(0x15, 0);
        if (r.eax && r.ebx && r.ecx) {
            hz = (uint64_t)r.ecx * r.ebx / r.eax;
            source = TSC_FROM_CPUID_15;
            return;
        }
    }
    if (max >= 0x16) {
        struct cpuid_regs r = cpuid(0x16, 0);
        if (r.eax) {
            hz = (uint64_t)r.eax * 1000000u;
            source = TSC_FROM_CPUID_16;
            return;
        }
    }
    /* The median of three good measurements. A measurement fails (0) when this CPU was
     * away for most of its window, as a virtual CPU on a crowded host can be for seconds:
     * keep measuring, boundedly, rather than take a zero rate that every division by it
     * would turn into a #DE. */
    uint64_t good[3] = {0, 0, 0};
    uint32_t n = 0;
    for (int tries = 0; tries < 30 && n < 3; tries++) {
        uint64_t rate = tsc_measure_against_pit();
        if (rate)
            good[n++] = rate;
    }
    uint64_t a = good[0], b = n > 1 ? good[1] : a, c = n > 2 ? good[2] : b;
    hz = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
    source = TSC_FROM_PIT;
}

uint64_t tsc_hz(void)
{
    return hz;
}

enum tsc_source tsc_source(void)
{
    return source;
}

const char *tsc_source_name(void)
{
    switch (source) {
    case TSC_FROM_CPUID_15:
        return "CPUID 0x15";
    case TSC_FROM_CPUID_16:
        return "CPUID 0x16";
    default:
        return "PIT calibration";
    }
}

void tsc_delay_us(uint32_t us)
{
    uint64_t t0 = rdtsc(), n = hz / 1000000u * us;
    while (rdtsc() - t0 < n)
        cpu_relax();
}
