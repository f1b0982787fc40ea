/* MSR access that survives a #GP (msr_safe.S): for MSRs the host names, which this CPU
 * may not have. Needs the platform's #GP handler to call aca_fixup_gp() first. */
#ifndef ACART_ARCH_X86_MSR_SAFE_H
#define ACART_ARCH_X86_MSR_SAFE_H

#include <stdint.h>

/* Return 0, or -1 when the CPU raised #GP. */
int msr_read_safe(uint32_t msr, uint64_t *value);
int msr_write_safe(uint32_t msr, uint64_t value);

#endif
