/* IDT construction and vector dispatch. */
#include "trap.h"
#include "percpu.h"

struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t zero;
    uint8_t type_attr;
    uint16_t offset_hi;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_gate) == 8, "IDT gate is 8 bytes");

extern const uint32_t isr_stub_table[256];

/* Each CPU has its own IDT: the same interrupt gates, but task gates for NMI and #DF that
 * name that CPU's own TSSs (a TSS is busy while its task runs, so CPUs cannot share). */
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
        uint32_t addr = isr_stub_table[v];
        idt_template[v].offset_lo = (uint16_t)addr;
        idt_template[v].selector = 0x08;
        idt_template[v].zero = 0;
        idt_template[v].type_attr = 0x8e; /* present, ring 0, 32-bit interrupt gate */
        idt_template[v].offset_hi = (uint16_t)(addr >> 16);
    }
}

#define TASK_GATE 0x85 /* present, ring 0, task gate */

void trap_set_task_gate(uint32_t cpu, uint8_t vector, uint16_t tss_selector)
{
    struct idt_gate *g = &idt[cpu][vector];
    g->offset_lo = 0;
    g->selector = tss_selector;
    g->zero = 0;
    g->type_attr = TASK_GATE;
    g->offset_hi = 0;
}

void trap_load_idt(void)
{
    struct idt_gate *mine = idt[this_cpu_index()];
    /* The task gates tss.c set for this CPU stay; everything else is the template. */
    for (int v = 0; v < 256; v++)
        if (mine[v].type_attr != TASK_GATE)
            mine[v] = idt_template[v];
    struct {
        uint16_t limit;
        uint32_t base;
    } __attribute__((packed)) idtr = {sizeof(idt[0]) - 1, (uint32_t)mine};
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
