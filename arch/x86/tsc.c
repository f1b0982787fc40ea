/* TSC frequency discovery. */
#include "tsc.h"
#include "cpuid.h"
#include "io.h"

#define PIT_HZ 1193182u

static uint64_t hz;
static enum tsc_source source;

/* PIT channel 2 in mode 0 counts down once; its output bit (port 0x61 bit 5) rises at
 * terminal count, which needs no interrupt and works before the IDT is live. */
static uint64_t tsc_measure_against_pit(void)
{
    const uint16_t ticks = 11932; /* 10 ms */
    uint8_t gate = inb(0x61);
    outb(0x61, (uint8_t)((gate & ~0x02) | 0x01)); /* gate on, speaker off */
    outb(0x43, 0xb0);                             /* channel 2, lo/hi, mode 0 */
    outb(0x42, (uint8_t)ticks);
    outb(0x42, (uint8_t)(ticks >> 8));
    uint64_t t0 = rdtsc();
    while (!(inb(0x61) & 0x20))
        ;
    uint64_t t1 = rdtsc();
    outb(0x61, gate);
    return (t1 - t0) * PIT_HZ / ticks;
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
    /* The median of three runs, so one run disturbed by the host does not decide. */
    uint64_t a = tsc_measure_against_pit(), b = tsc_measure_against_pit();
    uint64_t c = tsc_measure_against_pit();
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
