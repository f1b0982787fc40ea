/* For a board that uses the kit (installed with libacart_x86.a): Interrupt and exception entry.
 *
 * Every vector has its own stub (isr_stubs.S) that builds a struct trap_frame and calls
 * trap_dispatch(). Code that owns a vector (the board's devices, the runtime's sampling
 * interrupt, the IPI call primitive) claims it with trap_set_handler(). A vector nobody
 * claimed goes to the fatal handler the board registered (trap_set_fatal_handler), which
 * reports it; without one the CPU halts. */
#ifndef ACART_ARCH_X86_TRAP_H
#define ACART_ARCH_X86_TRAP_H

#include <stdint.h>

#ifdef __x86_64__
/* Pushed by x86_64/isr_stubs.S: the general registers, then vector and error code, then
 * the CPU's own frame, which in long mode always holds the interrupted RSP and SS. */
struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rdi, rsi, rbp, rbx, rdx, rcx, rax;
    uint64_t vector;
    uint64_t error_code;
    uintptr_t ip;
    uint64_t cs;
    uintptr_t flags;
    uint64_t sp;
    uint64_t ss;
};

_Static_assert(sizeof(struct trap_frame) == 176, "trap frame layout is fixed by isr_stubs.S");

/* The interrupted code's frame and stack pointers. */
static inline uintptr_t trap_frame_fp(const struct trap_frame *f)
{
    return f->rbp;
}

static inline uintptr_t trap_frame_sp(const struct trap_frame *f)
{
    return f->sp;
}
#else
/* Pushed by i686/isr_stubs.S: pushal, then vector and error code, then the CPU's own
 * frame (EIP, CS, EFLAGS). Ring 0 only, so the CPU pushes no ESP/SS. */
struct trap_frame {
    uint32_t edi, esi, ebp, esp_at_pusha, ebx, edx, ecx, eax;
    uint32_t vector;
    uint32_t error_code;
    uintptr_t ip;
    uint32_t cs;
    uintptr_t flags;
};

_Static_assert(sizeof(struct trap_frame) == 52, "trap frame layout is fixed by isr_stubs.S");

static inline uintptr_t trap_frame_fp(const struct trap_frame *f)
{
    return f->ebp;
}

/* As the stubs' pushal records it (ring 0 to ring 0: the interrupted ESP is just above the
 * frame), and as tss.c rebuilds it for the NMI task, whose frame sits on another stack. */
static inline uintptr_t trap_frame_sp(const struct trap_frame *f)
{
    return f->esp_at_pusha + 20;
}
#endif

#define TRAP_VECTOR_NMI      2
#define TRAP_VECTOR_UD       6
#define TRAP_VECTOR_NM       7
#define TRAP_VECTOR_DF       8
#define TRAP_VECTOR_GP       13
#define TRAP_FIRST_IRQ       0x20
#define TRAP_VECTOR_PIC_BASE 0x20 /* legacy 8259 IRQ 0-15 */
#define TRAP_VECTOR_CALL     0xf0 /* smp_call_all() IPI */
#define TRAP_VECTOR_TIMER    0xf1 /* LAPIC timer */
#define TRAP_VECTOR_SPURIOUS 0xff

/* Handler for a claimed vector. Runs with interrupts disabled (interrupt gates); for
 * the NMI vector it may interrupt any other handler. */
typedef void (*trap_handler_fn)(struct trap_frame *frame);

void trap_init(void);     /* build the IDT once, on the boot CPU */
void trap_load_idt(void); /* this CPU's copy, with its own NMI and #DF entries (tss.c) */
#ifdef __x86_64__
/* Vector `vector` of CPU `cpu` runs on stack `ist` (1..7) of that CPU's TSS (tss.c: NMI
 * and #DF). */
void trap_set_ist(uint32_t cpu, uint8_t vector, uint8_t ist);
#else
/* Vector `vector` of CPU `cpu` enters the task of `tss_selector` (tss.c: NMI and #DF). */
void trap_set_task_gate(uint32_t cpu, uint8_t vector, uint16_t tss_selector);
#endif
void trap_set_handler(uint8_t vector, trap_handler_fn fn);
trap_handler_fn trap_get_handler(uint8_t vector);
void trap_dispatch(struct trap_frame *frame);

/* The board's report of an unexpected exception or interrupt (print vector, error code
 * and registers); the CPU halts when it returns. */
void trap_set_fatal_handler(trap_handler_fn fn);
void trap_fatal(struct trap_frame *frame); /* report through it, then halt this CPU */

#endif
