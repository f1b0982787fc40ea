/* CPUID. Host unit tests (ACART_SIM) answer from the simulated CPU model instead. */
#ifndef ACART_ARCH_X86_CPUID_H
#define ACART_ARCH_X86_CPUID_H

#include <stdint.h>

struct cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};

#ifdef ACART_SIM
struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf);
#else
static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r;
    __asm__ volatile("cpuid"
                     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
                     : "a"(leaf), "c"(subleaf));
    return r;
}
#endif

static inline uint32_t cpuid_max_leaf(void)
{
    return cpuid(0, 0).eax;
}

#endif
