#include "gdt.h"

#include <stdint.h>

/* Base 0, limit 4 GiB, 4 KiB granularity, 32-bit; access byte 0x9a (code) or 0x92 (data). */
static const uint64_t gdt[] __attribute__((aligned(8))) = {
    0,
    0x00cf9a000000ffffull,
    0x00cf92000000ffffull,
};

_Static_assert(sizeof(gdt) / sizeof(gdt[0]) == 3, "null, code, data");

void gdt_init(void)
{
    static struct table_register gdtr;
    gdtr.limit = sizeof(gdt) - 1;
    gdtr.base = (uint32_t)gdt;
    __asm__ volatile("lgdt %0\n\t"
                     "ljmp %1, $1f\n"
                     "1:\n\t"
                     "movw %w2, %%ax\n\t"
                     "movw %%ax, %%ds\n\t"
                     "movw %%ax, %%es\n\t"
                     "movw %%ax, %%fs\n\t"
                     "movw %%ax, %%gs\n\t"
                     "movw %%ax, %%ss\n\t" ::"m"(gdtr),
                     "i"(GDT_KERNEL_CODE), "r"((uint32_t)GDT_KERNEL_DATA)
                     : "eax", "memory");
}
