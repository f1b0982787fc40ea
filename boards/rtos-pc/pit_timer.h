/* PIT channel 0 as a periodic timer on IRQ 0 (through the 8259), the timer this kernel
 * hands acart for time-based sampling. Not the scheduler tick: that is the LAPIC timer. */
#ifndef RTOS_PC_PIT_TIMER_H
#define RTOS_PC_PIT_TIMER_H

#include "idt.h"

#include <stdint.h>

/* Called from the timer interrupt with the interrupted context. */
typedef void (*pit_timer_fn)(const struct trap_frame *frame);

/* Calls fn about every period_tsc TSC cycles until pit_timer_disarm(). Periods beyond the
 * PIT's 16-bit count are made of several equal PIT periods; periods shorter than
 * PIT_TIMER_MIN_COUNT PIT cycles are raised to that (an interrupt storm would starve the
 * kernel). Interrupts off. */
#define PIT_TIMER_MIN_COUNT 60 /* about 50 us */
void pit_timer_arm(uint64_t period_tsc, pit_timer_fn fn);
void pit_timer_disarm(void);

/* Interrupts the timer delivered since boot (each may be one of several per period). */
uint64_t pit_timer_interrupts(void);

#endif
