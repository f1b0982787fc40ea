/* The kit's bring-up sequence (acart_x86.h), in the one order that works: SSE before any
 * libc call, the TSC rate before anything that waits, the IDT before the APIC. */
#include "acart_x86.h"

#include "cpu.h"
#include "lapic.h"
#include "paging.h"
#include "smp.h"
#include "tsc.h"

void kit_platform_init(void); /* kit_platform.c */

void x86_kit_init(uint8_t *stack_bottom, uint8_t *stack_top)
{
    cpu_enable_sse();
    tsc_init();
    paging_init();
    smp_init_boot_cpu();
    smp_set_boot_stack(stack_bottom, stack_top);
    lapic_timer_calibrate();
    kit_platform_init();
}

int x86_kit_guard_page(void *page)
{
    return paging_guard_page(page);
}

uint32_t x86_kit_start_aps(void (*entry)(uint32_t cpu_index))
{
    return smp_start_aps(entry);
}
