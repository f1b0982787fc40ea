/* The kernel's IDT: one stub per vector (isr_stubs.S) into idt_dispatch(), which calls the
 * handler installed for the vector. Exceptions without a handler are fatal; the NMI goes
 * through a chain (nmi_chain_add) so acart's handler can sit in front of the kernel's. */
#ifndef RTOS_PC_IDT_H
#define RTOS_PC_IDT_H

#include <stdint.h>

/* Vectors the kernel itself uses. 0x30..0xef stay free for acart (vector-mode PMI). */
#define VEC_NMI        2
#define VEC_DF         8
#define VEC_GP         13
#define VEC_PIC_BASE   0x20
#define VEC_SCHED_TICK 0xf0
#define VEC_SPURIOUS   0xff

#ifdef __x86_64__
/* What isr_stubs.S pushes: the 15 general registers, the vector, the error code (0 when
 * the CPU pushes none), then the CPU's own RIP, CS, RFLAGS, RSP, SS. In long mode the CPU
 * always pushes SS:RSP, so the interrupted stack pointer is in the frame, also for the NMI
 * and #DF, which arrive on stacks of their own (the TSS's IST, gdt.c). */
struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rdi, rsi, rbp, rbx, rdx, rcx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss;
};

_Static_assert(sizeof(struct trap_frame) == 22 * 8, "isr_stubs.S builds this layout");

static inline uintptr_t *trap_ip_slot(struct trap_frame *f)
{
    return &f->rip;
}

static inline uintptr_t trap_ip(const struct trap_frame *f)
{
    return f->rip;
}

static inline uintptr_t trap_flags(const struct trap_frame *f)
{
    return f->rflags;
}

static inline uintptr_t trap_fp(const struct trap_frame *f)
{
    return f->rbp;
}

static inline uintptr_t trap_interrupted_sp(const struct trap_frame *f)
{
    return f->rsp;
}
#else
/* What isr_stubs.S pushes: pusha's registers, the vector, the error code (0 when the CPU
 * pushes none), then the CPU's own EIP, CS, EFLAGS. Interrupts never change privilege
 * here, so the interrupted ESP is just past eflags (trap_interrupted_sp). */
struct trap_frame {
    uint32_t edi, esi, ebp, esp_pusha, ebx, edx, ecx, eax;
    uint32_t vector, error;
    uint32_t eip, cs, eflags;
};

_Static_assert(sizeof(struct trap_frame) == 13 * 4, "isr_stubs.S builds this layout");

/* uint32_t and uintptr_t are one type on i686. */
static inline uintptr_t *trap_ip_slot(struct trap_frame *f)
{
    return &f->eip;
}

static inline uintptr_t trap_ip(const struct trap_frame *f)
{
    return f->eip;
}

static inline uintptr_t trap_flags(const struct trap_frame *f)
{
    return f->eflags;
}

static inline uintptr_t trap_fp(const struct trap_frame *f)
{
    return f->ebp;
}

static inline uintptr_t trap_interrupted_sp(const struct trap_frame *f)
{
    return (uintptr_t)&f->eflags + 4;
}
#endif

typedef void (*trap_handler_fn)(struct trap_frame *frame);

void idt_init(void);

/* Installs (or with NULL removes) the handler of `vector`. Returns -1 when installing
 * over another handler. */
int idt_set_handler(uint8_t vector, trap_handler_fn fn);

/* An NMI handler in the chain: returns 1 when the NMI was its own. Handlers added with
 * first = 1 run before the others; the chain stops at the first that claims the NMI. */
typedef int (*nmi_handler_fn)(struct trap_frame *frame);
int nmi_chain_add(nmi_handler_fn fn, int first);
void nmi_chain_remove(nmi_handler_fn fn);
uint32_t nmi_unclaimed_count(void);

/* Called first by the #GP handler with a pointer to the faulting EIP/RIP in the saved
 * frame; returns 1 when it moved it to a recovery path (the fault is then resumed, not
 * reported). acart's aca_fixup_gp() is one. */
typedef int (*gp_fixup_fn)(uintptr_t *ip);
void idt_set_gp_fixup(gp_fixup_fn fn);

#endif
