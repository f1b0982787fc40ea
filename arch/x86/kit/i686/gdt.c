/* The flat GDT: one code and one data segment for everything, plus one small data
 * segment per CPU whose base is that CPU's struct percpu (loaded into GS). */
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

#define GDT_FIRST_PERCPU 3
#define GDT_FIRST_TSS    (GDT_FIRST_PERCPU + ARCH_MAX_CPUS) /* GDT_TSS_PER_CPU per CPU */

struct percpu percpu_table[ARCH_MAX_CPUS];

/* Referenced by the AP trampoline too (it loads this GDT before entering 32-bit mode). */
struct gdt_entry gdt_table[GDT_FIRST_TSS + GDT_TSS_PER_CPU * ARCH_MAX_CPUS]
    __attribute__((aligned(8))) = {
        [1] = {0xffff, 0, 0, 0x9a, 0xcf, 0}, /* 0x08: code, 4 GiB */
        [2] = {0xffff, 0, 0, 0x92, 0xcf, 0}, /* 0x10: data, 4 GiB */
};

struct {
    uint16_t limit;
    uint32_t base;
} __attribute__((packed)) gdt_pointer = {sizeof(gdt_table) - 1, (uint32_t)gdt_table};

static void set_entry(struct gdt_entry *e, uint32_t base, uint32_t limit, uint8_t access,
                      uint8_t flags)
{
    e->limit_lo = (uint16_t)limit;
    e->base_lo = (uint16_t)base;
    e->base_mid = (uint8_t)(base >> 16);
    e->access = access;
    e->flags_limit_hi = (uint8_t)(flags | ((limit >> 16) & 0xf));
    e->base_hi = (uint8_t)(base >> 24);
}

uint16_t gdt_set_tss(uint32_t index, uint32_t which, const void *tss, uint32_t size)
{
    uint32_t slot = GDT_FIRST_TSS + GDT_TSS_PER_CPU * index + which;
    set_entry(&gdt_table[slot], (uint32_t)(uintptr_t)tss, size - 1, 0x89 /* 32-bit TSS */, 0);
    return (uint16_t)(slot * 8);
}

uint16_t gdt_percpu_selector(uint32_t index)
{
    return (uint16_t)((GDT_FIRST_PERCPU + index) * 8);
}

void gdt_load_cpu(uint32_t index)
{
    struct percpu *p = &percpu_table[index];
    uint32_t base = (uint32_t)p;
    struct gdt_entry *e = &gdt_table[GDT_FIRST_PERCPU + index];

    p->self = p;
    p->index = index;
    e->limit_lo = sizeof(struct percpu) - 1;
    e->base_lo = (uint16_t)base;
    e->base_mid = (uint8_t)(base >> 16);
    e->access = 0x92;
    e->flags_limit_hi = 0x40;
    e->base_hi = (uint8_t)(base >> 24);

    uint16_t gs = (uint16_t)((GDT_FIRST_PERCPU + index) * 8);
    __asm__ volatile("lgdt %0\n\t"
                     "ljmp $0x08, $1f\n"
                     "1:\n\t"
                     "movw $0x10, %%ax\n\t"
                     "movw %%ax, %%ds\n\t"
                     "movw %%ax, %%es\n\t"
                     "movw %%ax, %%ss\n\t"
                     "movw %%ax, %%fs\n\t"
                     "movw %1, %%gs\n\t" ::"m"(gdt_pointer),
                     "r"(gs)
                     : "eax", "memory");
}
