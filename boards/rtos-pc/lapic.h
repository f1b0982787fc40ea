/* The local APIC in xAPIC mode (QEMU TCG offers no x2APIC; this kernel never switches
 * to it, and tells acart so through aca_plat_apic_mode). Its timer is the scheduler's
 * tick, which nobody else may touch. */
#ifndef RTOS_PC_LAPIC_H
#define RTOS_PC_LAPIC_H

#include <stdint.h>

#define SCHED_HZ 250 /* the scheduler's tick rate */

/* Enables the local APIC (spurious vector, LINT0 as ExtINT so the 8259s still reach the
 * CPU, LINT1 as NMI) and measures its timer against the TSC. */
void lapic_init(void);

/* Starts the periodic scheduler tick at SCHED_HZ on VEC_SCHED_TICK. */
void lapic_tick_start(void);

void lapic_eoi(void);
uintptr_t lapic_mmio_base(void);
uint32_t lapic_id(void);
uint64_t lapic_timer_hz(void);

/* Ticks counted and the TSC at the first one, so the tick rate can be checked against
 * the TSC (the stats service reports both). */
uint64_t lapic_tick_start_tsc(void);

#endif
