/* xAPIC bring-up and the scheduler tick on the LAPIC timer. */
#include "lapic_tick.h"
#include "idt.h"
#include "io.h"
#include "sched.h"
#include "tsc.h"

#define MSR_APIC_BASE 0x1b

#define REG_ID          0x020
#define REG_EOI         0x0b0
#define REG_SVR         0x0f0
#define REG_LVT_TIMER   0x320
#define REG_LVT_LINT0   0x350
#define REG_LVT_LINT1   0x360
#define REG_TIMER_INIT  0x380
#define REG_TIMER_COUNT 0x390
#define REG_TIMER_DIV   0x3e0

#define LVT_MASKED   (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define LVT_EXTINT   (7u << 8)
#define LVT_NMI      (4u << 8)
#define DIV_BY_16    0x3

static volatile uint32_t *regs;
static uint64_t timer_hz;
static uint32_t tick_hz;
static lapic_tick_hook_fn tick_hook;
static uint64_t period_tsc, last_tick_tsc;
static struct lapic_tick_counts counts;

static uint32_t rd(uint32_t reg)
{
    return regs[reg / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
    regs[reg / 4] = v;
}

static void spurious(struct trap_frame *frame)
{
    (void)frame; /* no EOI for the spurious vector */
}

static void tick(struct trap_frame *frame)
{
    uint64_t now = rdtsc();
    if (counts.delivered) {
        uint64_t gap = now - last_tick_tsc;
        uint64_t step = gap * TICK_GAP_STEPS / period_tsc;
        counts.gap_hist[step < TICK_GAP_BUCKETS ? step : TICK_GAP_BUCKETS - 1]++;
        if (gap > counts.max_gap_tsc)
            counts.max_gap_tsc = gap;
    }
    counts.delivered++;
    last_tick_tsc = now;
    wr(REG_EOI, 0);
    /* The interrupted task, before sched_tick() may switch away from it: the tick's
     * sample belongs to whoever ran up to this tick. */
    if (tick_hook)
        tick_hook(frame);
    sched_tick();
}

struct count_pair {
    uint64_t tsc, width;
    uint32_t count;
};

static struct count_pair best_pair(void)
{
    struct count_pair best = {0, UINT64_MAX, 0};
    for (int i = 0; i < 16; i++) {
        uint64_t t0 = rdtsc();
        uint32_t c = rd(REG_TIMER_COUNT);
        uint64_t t1 = rdtsc();
        if (t1 - t0 < best.width)
            best = (struct count_pair){t0 + (t1 - t0) / 2, t1 - t0, c};
    }
    return best;
}

void lapic_init(void)
{
    regs = phys_ptr((uintptr_t)(rdmsr(MSR_APIC_BASE) & 0xfffff000u));
    idt_set_handler(VEC_SPURIOUS, spurious);
    idt_set_handler(VEC_SCHED_TICK, tick);
    wr(REG_SVR, 0x100 | VEC_SPURIOUS);
    wr(REG_LVT_LINT0, LVT_EXTINT);
    wr(REG_LVT_LINT1, LVT_NMI);

    /* Counting down from the top, masked: the slope between two tightly bracketed
     * (TSC, count) pairs 20 ms apart, as tsc.c does against the PIT. */
    wr(REG_TIMER_DIV, DIV_BY_16);
    wr(REG_LVT_TIMER, LVT_MASKED | VEC_SCHED_TICK);
    wr(REG_TIMER_INIT, 0xffffffffu);
    struct count_pair a = best_pair();
    while (rdtsc() - a.tsc < tsc_hz() / 50)
        cpu_relax();
    struct count_pair b = best_pair();
    wr(REG_TIMER_INIT, 0);
    timer_hz = (uint64_t)(a.count - b.count) * tsc_hz() / (b.tsc - a.tsc);
}

void lapic_tick_start(uint32_t hz)
{
    tick_hz = hz;
    wr(REG_LVT_TIMER, LVT_PERIODIC | VEC_SCHED_TICK);
    period_tsc = tsc_hz() / hz;
    wr(REG_TIMER_INIT, (uint32_t)(timer_hz / hz));
}

uint32_t lapic_tick_hz(void)
{
    return tick_hz;
}

void lapic_tick_set_hook(lapic_tick_hook_fn fn)
{
    tick_hook = fn;
}

void lapic_eoi(void)
{
    wr(REG_EOI, 0);
}

uintptr_t lapic_mmio_base(void)
{
    return (uintptr_t)regs;
}

uint32_t lapic_id(void)
{
    return rd(REG_ID) >> 24;
}

uint64_t lapic_timer_hz(void)
{
    return timer_hz;
}

void lapic_tick_counts(struct lapic_tick_counts *out)
{
    uintptr_t flags = irq_save();
    *out = counts;
    irq_restore(flags);
}

void lapic_tick_reset_max_gap(void)
{
    uintptr_t flags = irq_save();
    counts.max_gap_tsc = 0;
    irq_restore(flags);
}

uint64_t lapic_tick_median_gap(const struct lapic_tick_counts *from,
                               const struct lapic_tick_counts *to, uint64_t *counted)
{
    /* Gaps of one period give or take half: merged ticks (two periods or more) would all
     * sit on one side of the median and pull it up by the delivery jitter. */
    const int lo = TICK_GAP_STEPS / 2, hi = TICK_GAP_STEPS + TICK_GAP_STEPS / 2;
    uint64_t total = 0;
    for (int i = lo; i < hi; i++)
        total += to->gap_hist[i] - from->gap_hist[i];
    *counted = total;
    uint64_t seen = 0;
    for (int i = lo; i < hi; i++) {
        seen += to->gap_hist[i] - from->gap_hist[i];
        if (total && 2 * seen >= total)
            return ((uint64_t)i * 2 + 1) * period_tsc / (2 * TICK_GAP_STEPS); /* mid-step */
    }
    return 0;
}
