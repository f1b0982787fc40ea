/* For a board that uses the kit (installed with libacart_x86.a): CPUID. Host unit tests (ACART_SIM)
 * answer from the simulated CPU model instead. */
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

struct cpu_signature {
    uint32_t family, model, stepping, signature;
    char vendor[13];
};

static inline void cpuid_put_word(char *out, uint32_t w)
{
    for (int i = 0; i < 4; i++)
        out[i] = (char)(w >> (8 * i));
}

static inline void cpu_read_signature(struct cpu_signature *sig)
{
    struct cpuid_regs r = cpuid(0, 0);
    cpuid_put_word(sig->vendor, r.ebx);
    cpuid_put_word(sig->vendor + 4, r.edx);
    cpuid_put_word(sig->vendor + 8, r.ecx);
    sig->vendor[12] = 0;
    r = cpuid(1, 0);
    sig->signature = r.eax;
    sig->stepping = r.eax & 0xf;
    sig->model = (r.eax >> 4) & 0xf;
    sig->family = (r.eax >> 8) & 0xf;
    if (sig->family == 0xf)
        sig->family += (r.eax >> 20) & 0xff;
    if (sig->family == 0x6 || sig->family >= 0xf)
        sig->model |= ((r.eax >> 16) & 0xf) << 4;
}

/* The calling CPU's APIC ID: the full x2APIC ID from leaf 0xB where the CPU has it, else
 * the 8-bit initial APIC ID of leaf 1. */
static inline uint32_t cpu_apic_id(void)
{
    if (cpuid_max_leaf() >= 0xb && cpuid(0xb, 0).ebx != 0)
        return cpuid(0xb, 0).edx;
    return cpuid(1, 0).ebx >> 24;
}

#endif
