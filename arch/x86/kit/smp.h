/* For a board that uses the kit (installed with libacart_x86.a): Starting application processors
 * and running a function on every CPU. */
#ifndef ACART_ARCH_X86_SMP_H
#define ACART_ARCH_X86_SMP_H

#include <stdint.h>

#define SMP_STACK_SIZE 16384

/* Called on each AP once it is running in 32-bit mode with its GDT, IDT, LAPIC and
 * per-CPU data set up, interrupts still disabled. Must not return. */
typedef void (*smp_ap_entry_fn)(uint32_t cpu_index);

/* Starts every enabled CPU the ACPI MADT lists (INIT-SIPI-SIPI, one at a time) and
 * returns the number of CPUs online, boot CPU included. */
uint32_t smp_start_aps(smp_ap_entry_fn entry);
uint32_t smp_num_cpus(void);

/* Prepares the boot CPU (index 0): GDT with per-CPU GS, IDT, LAPIC, SSE. */
void smp_init_boot_cpu(void);

/* The boot CPU's stack, which the loader's entry code set up (APs get theirs here). */
void smp_set_boot_stack(uint8_t *bottom, uint8_t *top);

/* Runs fn(arg) on every online CPU, the caller's own included, and returns when all have
 * finished. The others run it from the TRAP_VECTOR_CALL IPI handler with interrupts
 * off. Calls are serialised; do not call from an NMI handler. */
typedef void (*smp_call_fn)(void *arg);
void smp_call_all(smp_call_fn fn, void *arg);

#endif
