/* Per-CPU control-register setup. */
#ifndef ACART_ARCH_X86_CPU_H
#define ACART_ARCH_X86_CPU_H

#include <stdint.h>

/* picolibc is built for SSE2 (its cross file says -msse2), so every CPU that may run
 * libc code needs CR0.MP/CR4.OSFXSR set before its first call. */
void cpu_enable_sse(void);

struct cpu_signature {
    uint32_t family, model, stepping, signature;
    char vendor[13];
};

void cpu_read_signature(struct cpu_signature *sig);

#endif
