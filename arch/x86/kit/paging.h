/* Identity paging with guard pages. Everything stays where it is (virtual = physical, 4 MiB
 * pages), except single 4 KiB pages unmapped below each stack: a stack overflow then
 * faults at once (and reaches the #DF task, tss.h) instead of overwriting whatever lies
 * below. Without PSE (CPUID.1:EDX.3) paging stays off and guard pages do nothing. */
#ifndef ACART_ARCH_X86_PAGING_H
#define ACART_ARCH_X86_PAGING_H

#include <stdint.h>

void paging_init(void);       /* builds the tables and turns paging on, boot CPU */
void paging_enable_cpu(void); /* the same tables on an application processor */
uint32_t paging_cr3(void);    /* for task state segments: 0 while paging is off */

/* Unmaps the 4 KiB page at `page` (page aligned) on every CPU that enables paging
 * afterwards; call before starting the other CPUs. Returns 0, or -1 (not aligned, paging
 * off, no page table left). */
int paging_guard_page(void *page);

#endif
