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

/* Channel 2 counts down once from 0xffff (55 ms) and then wraps. The rate is the slope
 * between two tightly bracketed (TSC, count) pairs about 30 ms apart. A virtual CPU the
 * host deschedules misses stretches of that (often 10 ms, sometimes hundreds): a run is
 * kept only if the count never went up between two polls (it wrapped), no pause between
 * two polls was longer than a quarter of the run (a full 55 ms wrap cannot hide), and both
 * ends are bracketed to 0.1 % of the run. Returns 0 for a run not kept. */
static uint64_t measure_once(void)
{
    uint8_t gate = inb(0x61);
    outb(0x61, (uint8_t)((gate & ~0x02) | 0x01)); /* gate on, speaker off */
    outb(PIT_COMMAND, 0xb0);                      /* channel 2, lo/hi, mode 0 */
    outb(PIT_CHANNEL2, 0xff);
    outb(PIT_CHANNEL2, 0xff);
    struct pair a = best_pair();
    uint64_t prev_tsc = a.tsc, max_gap = 0;
    uint16_t prev = a.count, c;
    int wrapped = 0;
    do {
        uint64_t t = rdtsc();
        if (t - prev_tsc > max_gap)
            max_gap = t - prev_tsc;
        prev_tsc = t;
        c = read_count();
        wrapped |= c > prev;
        prev = c;
    } while (c > 30000 && !wrapped);
    struct pair b = best_pair();
    outb(0x61, gate);
    if (b.tsc - prev_tsc > max_gap)
        max_gap = b.tsc - prev_tsc;
    uint64_t span = b.tsc - a.tsc;
    if (wrapped || b.count > c || b.count >= a.count || max_gap * 4 > span ||
        (a.width + b.width) * 500 > span)
        return 0;
    return span * PIT_HZ / (uint64_t)(a.count - b.count);
}

#define CALIBRATION_TRIES 200 /* 30 ms each: gives up after about 6 s */
#define CALIBRATION_AGREE 3   /* runs within 0.1 % of one another */

/* The rate is taken from CALIBRATION_AGREE kept runs that agree, so no single run decides;
 * failing that, from the lowest kept run (a pause the checks above missed makes a run
 * read high, never low). */
int tsc_calibrate(void)
{
    uint64_t kept[CALIBRATION_TRIES];
    int n = 0;
    for (int i = 0; i < CALIBRATION_TRIES; i++) {
        uint64_t r = measure_once();
        if (!r)
            continue;
        kept[n++] = r;
        int agree = 0;
        for (int j = 0; j < n; j++) {
            uint64_t d = kept[j] > r ? kept[j] - r : r - kept[j];
            agree += d * 1000 <= r;
        }
        if (agree >= CALIBRATION_AGREE) {
            hz = r;
            return agree;
        }
    }
    hz = UINT64_MAX;
    for (int j = 0; j < n; j++)
        if (kept[j] < hz)
            hz = kept[j];
    if (n == 0) {
        /* Not one undisturbed run: keep measuring until there is one. */
        while ((hz = measure_once()) == 0)
            ;
    }
    return 1;
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
