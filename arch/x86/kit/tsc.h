/* For a board that uses the kit (installed with libacart_x86.a): Time-stamp counter frequency: from
 * CPUID 0x15/0x16 when the CPU reports it, else measured against the PIT (QEMU TCG reports
 * neither). */
#ifndef ACART_ARCH_X86_TSC_H
#define ACART_ARCH_X86_TSC_H

#include <stdint.h>

enum tsc_source { TSC_FROM_CPUID_15, TSC_FROM_CPUID_16, TSC_FROM_PIT };

void tsc_init(void);
uint64_t tsc_hz(void);
enum tsc_source tsc_source(void);
const char *tsc_source_name(void);
void tsc_delay_us(uint32_t us);

#endif
