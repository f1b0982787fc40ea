/* The kernel's own flat GDT: ring 0 code and data over all 4 GiB (i686), or a 64-bit code
 * segment, a data segment and the TSS whose interrupt stack table gives the NMI and #DF
 * stacks of their own (x86_64: long mode has no task gates). */
#ifndef RTOS_PC_GDT_H
#define RTOS_PC_GDT_H

#include <stdint.h>

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10

#ifdef __x86_64__
#define GDT_TSS 0x18 /* a 16-byte descriptor: entries 3 and 4 */
/* Interrupt-stack-table slots (an IDT gate's IST field) for the vectors that must run
 * whatever state the interrupted stack is in. */
#define IST_NMI 1
#define IST_DF  2
#endif

/* What lgdt and lidt load: a 32-bit base in protected mode, a 64-bit one in long mode. */
struct table_register {
    uint16_t limit;
    uintptr_t base;
} __attribute__((packed));

/* Loads the GDT and reloads every segment register (and on x86_64 the task register). */
void gdt_init(void);

#endif
