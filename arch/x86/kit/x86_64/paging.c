/* See paging.h. Long mode cannot run without paging: the board's entry code (boot.S) ran
 * on tables of its own to get here, and paging_init() replaces them with these: the low
 * 4 GiB identity-mapped with 2 MiB pages (PML4 -> one PDPT -> four page directories),
 * uncached from MMIO_START, and 4 KiB tables only where a guard page splits a 2 MiB page. */
#include "paging.h"

#define PTE_PRESENT  0x001ull
#define PTE_WRITE    0x002ull
#define PTE_PWT      0x008ull
#define PTE_PCD      0x010ull
#define PTE_2M       0x080ull
#define PTE_ADDR     0x000ffffffffff000ull
#define MMIO_START   0xc0000000ull /* uncached above: the local APIC, PCI BARs */
#define SPLIT_TABLES 4             /* 2 MiB regions that may hold guard pages */

static uint64_t pml4[512] __attribute__((aligned(4096)));
static uint64_t pdpt[512] __attribute__((aligned(4096)));
static uint64_t page_dirs[4][512] __attribute__((aligned(4096)));
static uint64_t page_tables[SPLIT_TABLES][512] __attribute__((aligned(4096)));
static uint32_t tables_used;
static int enabled;

static uint64_t table_entry(const void *table)
{
    return (uint64_t)(uintptr_t)table | PTE_PRESENT | PTE_WRITE;
}

static void reload_cr3(void)
{
    __asm__ volatile("mov %0, %%cr3" ::"r"((uintptr_t)pml4) : "memory");
}

void paging_init(void)
{
    pml4[0] = table_entry(pdpt);
    for (uint32_t d = 0; d < 4; d++) {
        pdpt[d] = table_entry(page_dirs[d]);
        for (uint32_t i = 0; i < 512; i++) {
            uint64_t base = ((uint64_t)d << 30) | ((uint64_t)i << 21);
            page_dirs[d][i] = base | PTE_PRESENT | PTE_WRITE | PTE_2M |
                              (base >= MMIO_START ? PTE_PCD | PTE_PWT : 0);
        }
    }
    reload_cr3();
    enabled = 1;
}

void paging_enable_cpu(void)
{
    /* An AP arrives in long mode on these tables already (smp_trampoline.S loads CR3 from
     * paging_cr3()). */
}

uint32_t paging_cr3(void)
{
    return enabled ? (uint32_t)(uintptr_t)pml4 : 0;
}

int paging_guard_page(void *page)
{
    uint64_t addr = (uint64_t)(uintptr_t)page;
    if (!enabled || (addr & 0xfffu) || addr >= (4ull << 30))
        return -1;
    uint64_t *pde = &page_dirs[addr >> 30][(addr >> 21) & 511];
    if (*pde & PTE_2M) {
        if (tables_used == SPLIT_TABLES)
            return -1;
        uint64_t *table = page_tables[tables_used++];
        uint64_t base = addr & ~((1ull << 21) - 1);
        uint64_t cache = *pde & (PTE_PCD | PTE_PWT);
        for (uint32_t i = 0; i < 512; i++)
            table[i] = (base + ((uint64_t)i << 12)) | PTE_PRESENT | PTE_WRITE | cache;
        *pde = table_entry(table);
    }
    uint64_t *table = (uint64_t *)(uintptr_t)(*pde & PTE_ADDR);
    table[(addr >> 12) & 511] = 0;
    reload_cr3();
    return 0;
}
