#include "gdt.h"

#include <stdint.h>

#ifdef __x86_64__

/* The 64-bit TSS (SDM 8.7): no task state any more, only the stacks the CPU switches to.
 * rsp0 would be the ring-0 stack of a ring change, which this ring-0 kernel never makes. */
struct tss64 {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7]; /* ist[0] is IST1 */
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

_Static_assert(sizeof(struct tss64) == 104, "the 64-bit TSS is 104 bytes (SDM 8.7)");

/* 4 KiB each, enough for acart's NMI handler (a sample, a call-stack walk) and for the
 * fatal report of a double fault. An NMI arrives on any instruction, also where a task's
 * stack has no room left; the CPU blocks further NMIs until its iretq, and nothing on the
 * NMI path takes an exception whose iretq would unblock them early and let a nested NMI
 * start over at the top of this stack. */
#define IST_STACK_BYTES 4096
static uint8_t ist_stacks[2][IST_STACK_BYTES] __attribute__((aligned(16)));
static struct tss64 tss __attribute__((aligned(16)));

/* Null, 64-bit code (L set, D clear), data, then the TSS descriptor's two halves, filled
 * in by gdt_init() (its base is an address, not a constant). */
static uint64_t gdt[5] __attribute__((aligned(16))) = {
    0,
    0x00209a0000000000ull,
    0x00cf92000000ffffull,
};

static void set_tss_descriptor(void)
{
    uint64_t base = (uint64_t)(uintptr_t)&tss, limit = sizeof(tss) - 1;
    gdt[GDT_TSS / 8] = (limit & 0xffff) | (base & 0xffffff) << 16 |
                       0x89ull << 40 /* present, available 64-bit TSS */ |
                       ((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xff) << 56;
    gdt[GDT_TSS / 8 + 1] = base >> 32; /* base 63:32, then reserved zero */
}

void gdt_init(void)
{
    tss.ist[IST_NMI - 1] = (uint64_t)(uintptr_t)(ist_stacks[0] + IST_STACK_BYTES);
    tss.ist[IST_DF - 1] = (uint64_t)(uintptr_t)(ist_stacks[1] + IST_STACK_BYTES);
    tss.iomap_base = sizeof(tss); /* no I/O permission bitmap */
    set_tss_descriptor();
    static struct table_register gdtr;
    gdtr.limit = sizeof(gdt) - 1;
    gdtr.base = (uintptr_t)gdt;
    /* No far jump with an absolute target in long mode: lretq pops the new CS:RIP. */
    __asm__ volatile("lgdt %0\n\t"
                     "pushq %1\n\t"
                     "leaq 1f(%%rip), %%rax\n\t"
                     "pushq %%rax\n\t"
                     "lretq\n"
                     "1:\n\t"
                     "movw %w2, %%ax\n\t"
                     "movw %%ax, %%ds\n\t"
                     "movw %%ax, %%es\n\t"
                     "movw %%ax, %%fs\n\t"
                     "movw %%ax, %%gs\n\t"
                     "movw %%ax, %%ss\n\t"
                     "ltr %w3" ::"m"(gdtr),
                     "i"(GDT_KERNEL_CODE), "r"((uint32_t)GDT_KERNEL_DATA), "r"((uint32_t)GDT_TSS)
                     : "rax", "memory");
}

#else

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
    gdtr.base = (uintptr_t)gdt;
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

#endif
