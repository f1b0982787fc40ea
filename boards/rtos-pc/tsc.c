/* TSC rate against PIT channel 2, read by polling (no interrupt needed). Channel 0 stays
 * free for acart's sampling timer (pit_timer.c). */
#include "tsc.h"
#include "io.h"
#include "pit.h"

static uint64_t hz;

/* A PIT count read between two TSC reads; the narrower the bracket, the surer the pair
 * (the host may deschedule a virtual CPU between any two instructions). */
struct pair {
    uint64_t tsc, width;
    uint16_t count;
};

static uint16_t read_count(void)
{
    outb(PIT_COMMAND, 0x80); /* latch channel 2 */
    uint8_t lo = inb(PIT_CHANNEL2);
    return (uint16_t)(lo | (inb(PIT_CHANNEL2) << 8));
}

static struct pair best_pair(void)
{
    struct pair best = {0, UINT64_MAX, 0};
    for (int i = 0; i < 16; i++) {
        uint64_t t0 = rdtsc();
        uint16_t c = read_count();
        uint64_t t1 = rdtsc();
        if (t1 - t0 < best.width)
            best = (struct pair){t0 + (t1 - t0) / 2, t1 - t0, c};
    }
    return best;
}

/* Channel 2 counts down once from 0xffff (55 ms). The rate is the slope between two
 * tightly bracketed (TSC, count) pairs about 40 ms apart: whatever the host does in
 * between does not matter, only the brackets' widths do (microseconds in 40 ms). */
static uint64_t measure_once(void)
{
    uint8_t gate = inb(0x61);
    outb(0x61, (uint8_t)((gate & ~0x02) | 0x01)); /* gate on, speaker off */
    outb(PIT_COMMAND, 0xb0);                      /* channel 2, lo/hi, mode 0 */
    outb(PIT_CHANNEL2, 0xff);
    outb(PIT_CHANNEL2, 0xff);
    struct pair a = best_pair();
    uint16_t c;
    do
        c = read_count();
    while (c > 12000 && c <= a.count);
    struct pair b = best_pair();
    outb(0x61, gate);
    if (b.count >= a.count)
        return 0;
    return (b.tsc - a.tsc) * PIT_HZ / (uint64_t)(a.count - b.count);
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
