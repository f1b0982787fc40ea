/* Task state segments: NMI and #DF run as their own tasks, on their own stacks.
 *
 * A double fault usually means the stack is gone (an overflow into a guard page, so the
 * CPU cannot push the #PF frame): delivered through a task gate, #DF switches to a fresh
 * stack and the fatal report prints instead of a triple fault. The NMI (acart's PMI among
 * others) gets the same protection: it may arrive at any instruction, also when the
 * interrupted stack has no room left. Each CPU has its own three TSSs (the one the CPU runs
 * in, the NMI's, the #DF's) and its own IDT entries 2 and 8 pointing at its own. */
#ifndef ACART_ARCH_X86_TSS_H
#define ACART_ARCH_X86_TSS_H

#include <stdint.h>

#define TSS_STACK_SIZE 8192

/* On CPU `index`, after gdt_load_cpu() and paging: its TSSs in the GDT, TR loaded, and
 * its IDT entries 2 (NMI) and 8 (#DF) task gates to them (trap_set_task_gate). */
void tss_init_cpu(uint32_t index);

#endif
