/* MSR access that survives a #GP: the host may name an MSR this CPU lacks (QEMU TCG has
 * no MSR_PLATFORM_INFO, for one). The faulting rdmsr/wrmsr is listed in the
 * .msr_fixup table; the #GP handler resumes at its fixup, which reports the failure. */
#ifndef ACART_ARCH_X86_MSR_SAFE_H
#define ACART_ARCH_X86_MSR_SAFE_H

#include <stdint.h>

/* Return 0, or -1 when the CPU raised #GP. */
int msr_read_safe(uint32_t msr, uint64_t *value);
int msr_write_safe(uint32_t msr, uint64_t value);

/* Installs the #GP handler that applies the fixups (and reports any other #GP as fatal). */
void msr_safe_init(void);

#endif
