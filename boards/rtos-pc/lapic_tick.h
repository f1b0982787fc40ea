/* The local APIC in xAPIC mode (QEMU TCG offers no x2APIC; this kernel never switches
 * to it, and tells acart so through aca_plat_apic_mode). Its timer is the scheduler's
 * tick, which nobody else may touch. */
#ifndef RTOS_PC_LAPIC_TICK_H
#define RTOS_PC_LAPIC_TICK_H

#include <stdint.h>

#include "idt.h"

#define SCHED_HZ 250 /* the scheduler's tick rate, unless the command line says sched_hz= */

/* Enables the local APIC (spurious vector, LINT0 as ExtINT so the 8259s still reach the
 * CPU, LINT1 as NMI) and measures its timer against the TSC. */
void lapic_init(void);

/* Starts the periodic scheduler tick at `hz` on VEC_SCHED_TICK. */
void lapic_tick_start(uint32_t hz);

/* The rate lapic_tick_start() was given. */
uint32_t lapic_tick_hz(void);

/* Called from every tick with the interrupted context, before the scheduler may switch
 * tasks: acart's sampling when it has no timer of its own (platform.c). Boot only. */
typedef void (*lapic_tick_hook_fn)(const struct trap_frame *frame);
void lapic_tick_set_hook(lapic_tick_hook_fn fn);

void lapic_eoi(void);
uintptr_t lapic_mmio_base(void);
uint32_t lapic_id(void);
uint64_t lapic_timer_hz(void);

/* The tick as the kernel counted it against the TSC. The gaps between consecutive tick
 * interrupts go into a histogram: its median is the tick's period even when the host
 * leaves a virtual CPU unscheduled and some interrupts merge (they lengthen a few gaps). */
#define TICK_GAP_STEPS   256                  /* histogram steps per tick period */
#define TICK_GAP_BUCKETS (2 * TICK_GAP_STEPS) /* gaps of 0 to 2 periods; longer in the last */
struct lapic_tick_counts {
    uint64_t delivered;   /* tick interrupts taken */
    uint64_t max_gap_tsc; /* longest time between two of them */
    uint32_t gap_hist[TICK_GAP_BUCKETS];
};
void lapic_tick_counts(struct lapic_tick_counts *out);

/* The median gap (TSC cycles) between two snapshots among the gaps of one period give or
 * take half, or 0 without any; *counted says how many gaps that was. */
uint64_t lapic_tick_median_gap(const struct lapic_tick_counts *from,
                               const struct lapic_tick_counts *to, uint64_t *counted);

/* Starts max_gap_tsc over (at the start of a measured window). */
void lapic_tick_reset_max_gap(void);

#endif
