/* See paging.h. */
#include "paging.h"
#include "cpuid.h"

#define PDE_PRESENT  0x001u
#define PDE_WRITE    0x002u
#define PDE_PWT      0x008u
#define PDE_PCD      0x010u
#define PDE_4M       0x080u
#define MMIO_START   0xc0000000u /* uncached above: the local APIC, PCI BARs */
#define SPLIT_TABLES 4           /* 4 MiB regions that may hold guard pages */

static uint32_t page_dir[1024] __attribute__((aligned(4096)));
static uint32_t page_tables[SPLIT_TABLES][1024] __attribute__((aligned(4096)));
static uint32_t tables_used;
static int enabled;

static void load_and_enable(void)
{
    uint32_t cr0, cr4;
    __asm__ volatile("movl %%cr4, %0" : "=r"(cr4));
    __asm__ volatile("movl %0, %%cr4" ::"r"(cr4 | (1u << 4))); /* PSE */
    __asm__ volatile("movl %0, %%cr3" ::"r"((uint32_t)(uintptr_t)page_dir) : "memory");
    __asm__ volatile("movl %%cr0, %0" : "=r"(cr0));
    __asm__ volatile("movl %0, %%cr0" ::"r"(cr0 | (1u << 31)) : "memory");
}

void paging_init(void)
{
    if (!(cpuid(1, 0).edx & (1u << 3)))
        return;
    for (uint32_t i = 0; i < 1024; i++) {
        uint32_t base = i << 22;
        page_dir[i] =
            base | PDE_PRESENT | PDE_WRITE | PDE_4M | (base >= MMIO_START ? PDE_PCD | PDE_PWT : 0);
    }
    load_and_enable();
    enabled = 1;
}

void paging_enable_cpu(void)
{
    if (enabled)
        load_and_enable();
}

uint32_t paging_cr3(void)
{
    return enabled ? (uint32_t)(uintptr_t)page_dir : 0;
}

int paging_guard_page(void *page)
{
    uint32_t addr = (uint32_t)(uintptr_t)page;
    if (!enabled || (addr & 0xfffu))
        return -1;
    uint32_t *pde = &page_dir[addr >> 22];
    if (*pde & PDE_4M) {
        if (tables_used == SPLIT_TABLES)
            return -1;
        uint32_t *table = page_tables[tables_used++];
        uint32_t base = addr & 0xffc00000u;
        for (uint32_t i = 0; i < 1024; i++)
            table[i] = (base + (i << 12)) | PDE_PRESENT | PDE_WRITE;
        *pde = (uint32_t)(uintptr_t)table | PDE_PRESENT | PDE_WRITE;
    }
    uint32_t *table = (uint32_t *)(uintptr_t)(*pde & 0xfffff000u);
    table[(addr >> 12) & 1023] = 0;
    __asm__ volatile("movl %%cr3, %%eax; movl %%eax, %%cr3" ::: "eax", "memory");
    return 0;
}
