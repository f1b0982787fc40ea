/* See tss.h. The handlers of the two tasks see an ordinary struct trap_frame, built from
 * the state the CPU saved in the interrupted task's TSS, so trap_set_handler() works for
 * vectors 2 and 8 as for any other. */
#include "tss.h"
#include "paging.h"
#include "percpu.h"
#include "trap.h"

struct tss32 {
    uint16_t link, reserved0;
    uint32_t esp0;
    uint16_t ss0, reserved1;
    uint32_t esp1;
    uint16_t ss1, reserved2;
    uint32_t esp2;
    uint16_t ss2, reserved3;
    uint32_t cr3, eip, eflags, eax, ecx, edx, ebx, esp, ebp, esi, edi;
    uint16_t es, reserved4, cs, reserved5, ss, reserved6, ds, reserved7, fs, reserved8, gs,
        reserved9, ldt, reserved10, trap, iomap_base;
};
_Static_assert(sizeof(struct tss32) == 104, "the 32-bit TSS is 104 bytes (SDM 7.2.1)");

enum { TSS_RUN, TSS_NMI, TSS_DF };
_Static_assert(TSS_DF < GDT_TSS_PER_CPU, "every TSS of a CPU has a GDT slot");

struct cpu_tasks {
    struct tss32 tss[GDT_TSS_PER_CPU];
    uint16_t selector[GDT_TSS_PER_CPU];
};

static struct cpu_tasks tasks[ARCH_MAX_CPUS];
static uint8_t task_stacks[ARCH_MAX_CPUS][2][TSS_STACK_SIZE] __attribute__((aligned(16)));

extern const char nmi_task_entry[], df_task_entry[]; /* tss_entry.S */
void nmi_task_main(void);
void df_task_main(uint32_t error_code);

static void prepare_task(struct tss32 *t, uint32_t index, const char *entry, uint8_t *stack)
{
    t->cr3 = paging_cr3();
    t->eip = (uint32_t)(uintptr_t)entry;
    t->eflags = 0x2; /* interrupts off */
    t->esp = (uint32_t)(uintptr_t)(stack + TSS_STACK_SIZE);
    t->cs = 0x08;
    t->ds = t->es = t->ss = t->fs = 0x10;
    t->gs = gdt_percpu_selector(index);
    t->iomap_base = sizeof(struct tss32);
}

/* Every task switch sets CR0.TS, so the first FPU/SSE instruction after an NMI raises #NM.
 * Neither task touches FPU state (the kit is built with -mgeneral-regs-only): the
 * interrupted code's registers are intact, and clearing TS is all there is to do. */
static void on_device_not_available(struct trap_frame *frame)
{
    (void)frame;
    __asm__ volatile("clts");
}

void tss_init_cpu(uint32_t index)
{
    if (index == 0)
        trap_set_handler(TRAP_VECTOR_NM, on_device_not_available);
    struct cpu_tasks *c = &tasks[index];
    /* The running task's TSS is written by the CPU when it switches away; only CR3 is
     * read back on the way in (the CPU never saves CR3). */
    c->tss[TSS_RUN].cr3 = paging_cr3();
    c->tss[TSS_RUN].iomap_base = sizeof(struct tss32);
    prepare_task(&c->tss[TSS_NMI], index, nmi_task_entry, task_stacks[index][0]);
    prepare_task(&c->tss[TSS_DF], index, df_task_entry, task_stacks[index][1]);
    for (uint32_t i = 0; i < GDT_TSS_PER_CPU; i++)
        c->selector[i] = gdt_set_tss(index, i, &c->tss[i], sizeof(c->tss[i]));
    __asm__ volatile("ltr %0" ::"r"(c->selector[TSS_RUN]));
    trap_set_task_gate(index, TRAP_VECTOR_NMI, c->selector[TSS_NMI]);
    trap_set_task_gate(index, TRAP_VECTOR_DF, c->selector[TSS_DF]);
}

/* The task `from` was interrupted in, as the stubs of isr_stubs.S would have framed it. */
static struct tss32 *interrupted_task(struct cpu_tasks *c, const struct tss32 *from)
{
    for (uint32_t i = 0; i < GDT_TSS_PER_CPU; i++)
        if (c->selector[i] == from->link)
            return &c->tss[i];
    return &c->tss[TSS_RUN];
}

static void frame_from_task(struct trap_frame *f, const struct tss32 *t, uint32_t vector,
                            uint32_t error_code)
{
    f->edi = t->edi;
    f->esi = t->esi;
    f->ebp = t->ebp;
    f->esp_at_pusha = t->esp - 20; /* as the stubs' pushal records it */
    f->ebx = t->ebx;
    f->edx = t->edx;
    f->ecx = t->ecx;
    f->eax = t->eax;
    f->vector = vector;
    f->error_code = error_code;
    f->ip = t->eip;
    f->cs = t->cs;
    f->flags = t->eflags;
}

void nmi_task_main(void)
{
    struct cpu_tasks *c = &tasks[this_cpu_index()];
    struct trap_frame f;
    frame_from_task(&f, interrupted_task(c, &c->tss[TSS_NMI]), TRAP_VECTOR_NMI, 0);
    trap_dispatch(&f);
}

void df_task_main(uint32_t error_code)
{
    struct cpu_tasks *c = &tasks[this_cpu_index()];
    struct trap_frame f;
    frame_from_task(&f, interrupted_task(c, &c->tss[TSS_DF]), TRAP_VECTOR_DF, error_code);
    trap_fatal(&f);
}
