/* The long-mode GDT: a 64-bit code segment and a data segment for everything, a 32-bit
 * code segment for the AP trampoline's way through protected mode, and one 16-byte TSS
 * descriptor per CPU. Per-CPU data is reached through GS, whose base in long mode is the
 * IA32_GS_BASE MSR (a descriptor base would be truncated to 32 bits). */
#include "msr.h"
#include "percpu.h"

struct gdt_entry {
    uint16_t limit_lo;
    uint16_t base_lo;
    uint8_t base_mid;
    uint8_t access;
    uint8_t flags_limit_hi;
    uint8_t base_hi;
} __attribute__((packed));

_Static_assert(sizeof(struct gdt_entry) == 8, "GDT entry is 8 bytes");

#define GDT_FIRST_TSS    4 /* a TSS descriptor takes two entries in long mode (SDM 8.2.3) */
#define MSR_IA32_GS_BASE 0xc0000101u

struct percpu percpu_table[ARCH_MAX_CPUS];

/* Referenced by the AP trampoline too (it loads this GDT in real mode, through the 32-bit
 * code segment 0x18, on its way to long mode). */
struct gdt_entry gdt_table[GDT_FIRST_TSS + 2 * GDT_TSS_PER_CPU * ARCH_MAX_CPUS]
    __attribute__((aligned(16))) = {
        [1] = {0, 0, 0, 0x9a, 0x20, 0},      /* 0x08: 64-bit code (L) */
        [2] = {0xffff, 0, 0, 0x92, 0xcf, 0}, /* 0x10: data */
        [3] = {0xffff, 0, 0, 0x9a, 0xcf, 0}, /* 0x18: 32-bit code, 4 GiB */
};

struct {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed)) gdt_pointer = {sizeof(gdt_table) - 1, (uint64_t)(uintptr_t)gdt_table};

uint16_t gdt_set_tss(uint32_t index, uint32_t which, const void *tss, uint32_t size)
{
    uint32_t slot = GDT_FIRST_TSS + 2 * (GDT_TSS_PER_CPU * index + which);
    uint64_t base = (uint64_t)(uintptr_t)tss;
    struct gdt_entry *e = &gdt_table[slot];
    e->limit_lo = (uint16_t)(size - 1);
    e->base_lo = (uint16_t)base;
    e->base_mid = (uint8_t)(base >> 16);
    e->access = 0x89; /* present, 64-bit TSS, available */
    e->flags_limit_hi = (uint8_t)(((size - 1) >> 16) & 0xf);
    e->base_hi = (uint8_t)(base >> 24);
    /* The upper half: base bits 63:32, then reserved zero. */
    struct gdt_entry *upper = &gdt_table[slot + 1];
    uint32_t high = (uint32_t)(base >> 32);
    __builtin_memcpy(upper, &high, sizeof(high));
    __builtin_memset((uint8_t *)upper + 4, 0, 4);
    return (uint16_t)(slot * 8);
}

uint16_t gdt_percpu_selector(uint32_t index)
{
    (void)index;
    return 0x10; /* GS holds the data segment; its base is the MSR */
}

void gdt_load_cpu(uint32_t index)
{
    struct percpu *p = &percpu_table[index];
    p->self = p;
    p->index = index;
    __asm__ volatile("lgdt %0\n\t"
                     "pushq $0x08\n\t"
                     "leaq 1f(%%rip), %%rax\n\t"
                     "pushq %%rax\n\t"
                     "lretq\n"
                     "1:\n\t"
                     "movw $0x10, %%ax\n\t"
                     "movw %%ax, %%ds\n\t"
                     "movw %%ax, %%es\n\t"
                     "movw %%ax, %%ss\n\t"
                     "movw %%ax, %%fs\n\t"
                     "movw %%ax, %%gs\n\t" ::"m"(gdt_pointer)
                     : "rax", "memory");
    /* After loading GS: a selector load resets the base. */
    msr_write(MSR_IA32_GS_BASE, (uint64_t)(uintptr_t)p);
}
