/* TSC rate against PIT channel 2: in mode 0 it counts down once and its output (port 0x61
 * bit 5) rises at terminal count, so no interrupt is needed. Channel 0 stays free for
 * acart's sampling timer (pit_timer.c). */
#include "tsc.h"
#include "io.h"
#include "pit.h"

static uint64_t hz;

static uint64_t measure_once(void)
{
    const uint16_t ticks = 11932; /* 10 ms */
    uint8_t gate = inb(0x61);
    outb(0x61, (uint8_t)((gate & ~0x02) | 0x01)); /* gate on, speaker off */
    outb(PIT_COMMAND, 0xb0);                      /* channel 2, lo/hi, mode 0 */
    outb(PIT_CHANNEL2, (uint8_t)ticks);
    outb(PIT_CHANNEL2, (uint8_t)(ticks >> 8));
    uint64_t t0 = rdtsc();
    while (!(inb(0x61) & 0x20))
        ;
    uint64_t t1 = rdtsc();
    outb(0x61, gate);
    return (t1 - t0) * PIT_HZ / ticks;
}

void tsc_calibrate(void)
{
    /* The median of three, so one run the host disturbed does not decide. */
    uint64_t a = measure_once(), b = measure_once(), c = measure_once();
    hz = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

uint64_t tsc_hz(void)
{
    return hz;
}

void tsc_delay_us(uint32_t us)
{
    uint64_t t0 = rdtsc(), n = hz / 1000000u * us;
    while (rdtsc() - t0 < n)
        cpu_relax();
}
