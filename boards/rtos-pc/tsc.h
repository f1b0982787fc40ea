/* The TSC rate, measured against the PIT at boot (QEMU TCG reports it in no CPUID leaf).
 * Also the interface the shared e1000 driver expects ("tsc.h"). */
#ifndef RTOS_PC_TSC_H
#define RTOS_PC_TSC_H

#include <stdint.h>

/* Measures the rate; call once at boot, interrupts off, before anything uses it.
 * Returns how many undisturbed runs agreed on the rate (1: only the lowest of them). */
int tsc_calibrate(void);

uint64_t tsc_hz(void);
void tsc_delay_us(uint32_t us);

#endif
