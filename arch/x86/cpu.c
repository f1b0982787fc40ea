#include "cpu.h"
#include "cpuid.h"

#include <string.h>

void cpu_enable_sse(void)
{
    uint32_t cr0, cr4;
    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    cr0 = (cr0 & ~(1u << 2)) | (1u << 1); /* EM off, MP on */
    __asm__ volatile("movl %0, %%cr0" ::"r"(cr0));
    __asm__ volatile("movl %%cr4, %0" : "=r"(cr4));
    cr4 |= (1u << 9) | (1u << 10); /* OSFXSR, OSXMMEXCPT */
    __asm__ volatile("movl %0, %%cr4" ::"r"(cr4));
    __asm__ volatile("fninit");
}

void cpu_read_signature(struct cpu_signature *sig)
{
    struct cpuid_regs r = cpuid(0, 0);
    memcpy(sig->vendor, &r.ebx, 4);
    memcpy(sig->vendor + 4, &r.edx, 4);
    memcpy(sig->vendor + 8, &r.ecx, 4);
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
