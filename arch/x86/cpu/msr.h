/* For a board that uses the kit (installed with libacart_x86.a): Model-specific register access.
 *
 * On the target these are the rdmsr/wrmsr instructions. Host unit tests build the same
 * arch code with ACART_SIM defined, and then these calls go to a simulated MSR/PMU model
 * (tests/sim/) that follows the Intel SDM, since no machine here has a PMU. */
#ifndef ACART_ARCH_X86_MSR_H
#define ACART_ARCH_X86_MSR_H

#include <stdint.h>

#ifdef ACART_SIM
uint64_t msr_read(uint32_t msr);
void msr_write(uint32_t msr, uint64_t value);
#else
static inline uint64_t msr_read(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

static inline void msr_write(uint32_t msr, uint64_t value)
{
    __asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
                     : "memory");
}
#endif

#define MSR_IA32_APIC_BASE 0x1b
#define MSR_IA32_TSC       0x10
#define MSR_PLATFORM_INFO  0xce

#endif
