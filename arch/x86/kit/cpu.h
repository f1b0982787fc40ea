/* For a board that uses the kit (installed with libacart_x86.a): Per-CPU control-register setup
 * (the x86 kit). */
#ifndef ACART_ARCH_X86_CPU_H
#define ACART_ARCH_X86_CPU_H

#include <stdint.h>

/* picolibc is built for SSE2 (its cross file says -msse2), so every CPU that may run
 * libc code needs CR0.MP/CR4.OSFXSR set before its first call. */
void cpu_enable_sse(void);

#endif
