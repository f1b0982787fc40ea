/* IDT construction and vector dispatch. */
#include "trap.h"
#include "percpu.h"

#ifdef __x86_64__
/* SDM 6.14.1: 16 bytes, with the interrupt stack table index in bits 2:0 of byte 4. */
struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_gate) == 16, "long-mode IDT gate is 16 bytes");
#else
struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t zero;
    uint8_t type_attr;
    uint16_t offset_hi;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_gate) == 8, "IDT gate is 8 bytes");
#endif

#define INTERRUPT_GATE 0x8e /* present, ring 0, interrupt gate (32- or 64-bit per mode) */
#define TASK_GATE      0x85 /* present, ring 0, task gate (32-bit mode only) */

extern const uintptr_t isr_stub_table[256];

/* Each CPU has its own IDT: the same interrupt gates, but NMI and #DF entries of its own:
 * in 32-bit mode task gates that name that CPU's own TSSs (a TSS is busy while its task
 * runs, so CPUs cannot share), in long mode the stacks of that CPU's TSS. */
static struct idt_gate idt_template[256];
static struct idt_gate idt[ARCH_MAX_CPUS][256] __attribute__((aligned(8)));
static volatile trap_handler_fn handlers[256];
static trap_handler_fn fatal_handler;

void trap_set_fatal_handler(trap_handler_fn fn)
{
    fatal_handler = fn;
}

void trap_fatal(struct trap_frame *frame)
{
    if (fatal_handler)
        fatal_handler(frame);
    for (;;)
        __asm__ volatile("cli; hlt");
}

void trap_init(void)
{
    for (int v = 0; v < 256; v++) {
        uintptr_t addr = isr_stub_table[v];
        struct idt_gate *g = &idt_template[v];
        g->offset_lo = (uint16_t)addr;
        g->selector = 0x08;
        g->type_attr = INTERRUPT_GATE;
#ifdef __x86_64__
        g->offset_mid = (uint16_t)(addr >> 16);
        g->offset_hi = (uint32_t)((uint64_t)addr >> 32);
#else
        g->offset_hi = (uint16_t)(addr >> 16);
#endif
    }
}

/* Marks the NMI and #DF entries tss.c gave a CPU, which trap_load_idt() keeps. */
static uint8_t own_entry[ARCH_MAX_CPUS][256];

#ifdef __x86_64__
void trap_set_ist(uint32_t cpu, uint8_t vector, uint8_t ist)
{
    idt[cpu][vector] = idt_template[vector];
    idt[cpu][vector].ist = ist & 7;
    own_entry[cpu][vector] = 1;
}
#else
void trap_set_task_gate(uint32_t cpu, uint8_t vector, uint16_t tss_selector)
{
    struct idt_gate *g = &idt[cpu][vector];
    g->offset_lo = 0;
    g->selector = tss_selector;
    g->zero = 0;
    g->type_attr = TASK_GATE;
    g->offset_hi = 0;
    own_entry[cpu][vector] = 1;
}
#endif

void trap_load_idt(void)
{
    uint32_t cpu = this_cpu_index();
    struct idt_gate *mine = idt[cpu];
    for (int v = 0; v < 256; v++)
        if (!own_entry[cpu][v])
            mine[v] = idt_template[v];
    struct {
        uint16_t limit;
        uintptr_t base;
    } __attribute__((packed)) idtr = {sizeof(idt[0]) - 1, (uintptr_t)mine};
    __asm__ volatile("lidt %0" ::"m"(idtr));
}

void trap_set_handler(uint8_t vector, trap_handler_fn fn)
{
    handlers[vector] = fn;
}

trap_handler_fn trap_get_handler(uint8_t vector)
{
    return handlers[vector];
}

void trap_dispatch(struct trap_frame *frame)
{
    trap_handler_fn fn = handlers[frame->vector & 0xff];
    if (fn)
        fn(frame);
    else
        trap_fatal(frame);
}
