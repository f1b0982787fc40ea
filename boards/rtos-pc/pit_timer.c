#include "pit_timer.h"
#include "io.h"
#include "pic.h"
#include "pit.h"
#include "tsc.h"

#define PIT_IRQ 0

static pit_timer_fn callback;
static uint32_t interrupts_per_period, countdown;
static volatile uint64_t interrupts;

static void pit_interrupt(struct trap_frame *frame)
{
    interrupts++;
    pit_timer_fn fn = callback;
    if (fn && --countdown == 0) {
        countdown = interrupts_per_period;
        fn(frame);
    }
    pic_eoi(PIT_IRQ);
}

void pit_timer_arm(uint64_t period_tsc, pit_timer_fn fn)
{
    /* PIT cycles per period, bounded first so the product cannot overflow (an hour). */
    uint64_t hz = tsc_hz();
    if (period_tsc > hz * 3600)
        period_tsc = hz * 3600;
    uint64_t count = period_tsc * PIT_HZ / hz;
    if (count < PIT_TIMER_MIN_COUNT)
        count = PIT_TIMER_MIN_COUNT;
    uint64_t parts = (count + 0xffff - 1) / 0xffff;
    uint32_t divisor = (uint32_t)(count / parts);

    pic_mask(PIT_IRQ);
    callback = fn;
    interrupts_per_period = countdown = (uint32_t)parts;
    idt_set_handler(VEC_PIC_BASE + PIT_IRQ, pit_interrupt);
    outb(PIT_COMMAND, 0x34); /* channel 0, lo/hi byte, mode 2 (rate generator) */
    outb(PIT_CHANNEL0, (uint8_t)divisor);
    outb(PIT_CHANNEL0, (uint8_t)(divisor >> 8));
    pic_unmask(PIT_IRQ);
}

void pit_timer_disarm(void)
{
    pic_mask(PIT_IRQ);
    outb(PIT_COMMAND, 0x30); /* channel 0, mode 0 with no count written: stays quiet */
    callback = 0;
}

uint64_t pit_timer_interrupts(void)
{
    return interrupts;
}
