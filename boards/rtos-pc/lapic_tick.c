/* xAPIC bring-up and the scheduler tick on the LAPIC timer. */
#include "lapic.h"
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
static uint64_t first_tick_tsc;

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
    (void)frame;
    if (!first_tick_tsc)
        first_tick_tsc = rdtsc();
    wr(REG_EOI, 0);
    sched_tick();
}

void lapic_init(void)
{
    regs = phys_ptr((uintptr_t)(rdmsr(MSR_APIC_BASE) & 0xfffff000u));
    idt_set_handler(VEC_SPURIOUS, spurious);
    idt_set_handler(VEC_SCHED_TICK, tick);
    wr(REG_SVR, 0x100 | VEC_SPURIOUS);
    wr(REG_LVT_LINT0, LVT_EXTINT);
    wr(REG_LVT_LINT1, LVT_NMI);

    /* Count down from the top for 10 ms of TSC, masked. */
    wr(REG_TIMER_DIV, DIV_BY_16);
    wr(REG_LVT_TIMER, LVT_MASKED | VEC_SCHED_TICK);
    uint64_t span = tsc_hz() / 100, t0 = rdtsc();
    wr(REG_TIMER_INIT, 0xffffffffu);
    while (rdtsc() - t0 < span)
        cpu_relax();
    uint32_t left = rd(REG_TIMER_COUNT);
    uint64_t t1 = rdtsc();
    wr(REG_TIMER_INIT, 0);
    timer_hz = (uint64_t)(0xffffffffu - left) * tsc_hz() / (t1 - t0);
}

void lapic_tick_start(void)
{
    wr(REG_LVT_TIMER, LVT_PERIODIC | VEC_SCHED_TICK);
    wr(REG_TIMER_INIT, (uint32_t)(timer_hz / SCHED_HZ));
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

uint64_t lapic_tick_start_tsc(void)
{
    return first_tick_tsc;
}
