#include "cpu.h"

void cpu_enable_sse(void)
{
    unsigned long cr0, cr4;
    __asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
    cr0 = (cr0 & ~(1ul << 2)) | (1ul << 1); /* EM off, MP on */
    __asm__ volatile("mov %0, %%cr0" ::"r"(cr0));
    __asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
    cr4 |= (1ul << 9) | (1ul << 10); /* OSFXSR, OSXMMEXCPT */
    __asm__ volatile("mov %0, %%cr4" ::"r"(cr4));
    __asm__ volatile("fninit");
}
