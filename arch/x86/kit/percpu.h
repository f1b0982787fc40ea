/* For a board that uses the kit (installed with libacart_x86.a): Per-CPU data.
 *
 * Each CPU's GS segment has its struct percpu as base (a GDT segment in 32-bit mode, the
 * IA32_GS_BASE MSR in long mode), so the interrupt path finds its
 * own CPU's data with one GS-relative load and no lock, on any CPU count. CPU indexes are
 * dense (0 = boot CPU) in the order CPUs came online; APIC IDs need not be. */
#ifndef ACART_ARCH_X86_PERCPU_H
#define ACART_ARCH_X86_PERCPU_H

#include <stddef.h>
#include <stdint.h>

#ifndef ARCH_MAX_CPUS
#define ARCH_MAX_CPUS 64
#endif

struct percpu {
    struct percpu *self; /* offset 0: read through %gs:0 */
    uint32_t index;      /* read through %gs:offsetof(struct percpu, index) */
    uint32_t apic_id;
    uint32_t online;
    /* The CPU's stack: [stack_bottom, stack_top). Frame-pointer walks in the interrupt
     * path read only inside it. */
    uint8_t *stack_bottom;
    uint8_t *stack_top;
};

extern struct percpu percpu_table[ARCH_MAX_CPUS];

#ifdef ACART_SIM
/* Host tests play several CPUs in one process: they provide these and switch the
 * current CPU themselves. */
uint32_t this_cpu_index(void);
struct percpu *this_cpu(void);
#else
static inline uint32_t this_cpu_index(void)
{
    uint32_t idx;
    __asm__ volatile("movl %%gs:%c1, %0" : "=r"(idx) : "i"(offsetof(struct percpu, index)));
    return idx;
}

static inline struct percpu *this_cpu(void)
{
    struct percpu *p;
    __asm__ volatile("mov %%gs:0, %0" : "=r"(p));
    return p;
}
#endif

/* Loads the shared GDT and points GS at percpu_table[index]; called once per CPU. */
void gdt_load_cpu(uint32_t index);
uint16_t gdt_percpu_selector(uint32_t index); /* the GS selector of CPU index */

/* Each CPU's task state segments (tss.c): its descriptor number `which`. 32-bit mode: the
 * running task's, the NMI task's and the #DF task's; long mode: one TSS, whose interrupt
 * stack table gives NMI and #DF their stacks. */
#ifdef __x86_64__
#define GDT_TSS_PER_CPU 1
#else
#define GDT_TSS_PER_CPU 3
#endif
uint16_t gdt_set_tss(uint32_t index, uint32_t which, const void *tss, uint32_t size);

#endif
