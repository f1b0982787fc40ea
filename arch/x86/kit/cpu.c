#include "cpu.h"

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
