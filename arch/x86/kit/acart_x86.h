/* For a board that uses the kit (installed with libacart_x86.a): acart's x86 kit (libacart_x86.a):
 * bring-up for boards that have no OS of their own, and the implementation of acart's platform seam
 * (acart_platform.h) on top of it.
 *
 * Sequence for a kit board (boards/qemu-pc/main.c):
 *   x86_kit_init(boot_stack, boot_stack_top);  first thing, on the boot CPU
 *   trap_set_fatal_handler(report);             optional: how unexpected traps print
 *   x86_kit_start_aps(ap_entry);                the other CPUs, each entering ap_entry
 * then the board's own devices (trap_set_handler on its vectors), its network, and
 * aca_start(). The kit gives acart the LAPIC timer for time-based sampling: a kit board
 * keeps its own periodic tick elsewhere (qemu-pc uses the PIT). */
#ifndef ACART_X86_H
#define ACART_X86_H

#include <stdint.h>

/* On the boot CPU, interrupts off: SSE (CR0/CR4), the TSC rate (CPUID or measured
 * against the PIT), identity paging (4 MiB pages), the GDT with this CPU's GS and task
 * state segments (NMI and #DF run as tasks on their own stacks), the IDT with the MSR #GP
 * fixups, the local APIC (x2APIC when the CPU has it), and the LAPIC timer's rate.
 * `stack_bottom` and `stack_top` bound the stack the boot CPU runs on (for call stacks). */
void x86_kit_init(uint8_t *stack_bottom, uint8_t *stack_top);

/* Leaves the 4 KiB page at `page` (page aligned) unmapped, as a guard below a stack: an
 * overflow then ends in the #DF report, not in silent corruption. The kit guards every
 * AP stack itself; a board guards its boot stack with this. Returns 0 or -1. */
int x86_kit_guard_page(void *page);

/* Starts every other CPU the ACPI MADT lists; each runs entry(cpu_index) on its own
 * 16 KiB stack with interrupts off. Returns the number of CPUs online. */
uint32_t x86_kit_start_aps(void (*entry)(uint32_t cpu_index));

#endif
