/* The kernel's IDT: one stub per vector (isr_stubs.S) into idt_dispatch(), which calls the
 * handler installed for the vector. Exceptions without a handler are fatal; the NMI goes
 * through a chain (nmi_chain_add) so acart's handler can sit in front of the kernel's. */
#ifndef RTOS_PC_IDT_H
#define RTOS_PC_IDT_H

#include <stdint.h>

/* Vectors the kernel itself uses. 0x30..0xef stay free for acart (vector-mode PMI). */
#define VEC_NMI        2
#define VEC_GP         13
#define VEC_PIC_BASE   0x20
#define VEC_SCHED_TICK 0xf0
#define VEC_SPURIOUS   0xff

/* What isr_stubs.S pushes: pusha's registers, the vector, the error code (0 when the CPU
 * pushes none), then the CPU's own EIP, CS, EFLAGS. Interrupts never change privilege
 * here, so the interrupted ESP is just past eflags (trap_interrupted_sp). */
struct trap_frame {
    uint32_t edi, esi, ebp, esp_pusha, ebx, edx, ecx, eax;
    uint32_t vector, error;
    uint32_t eip, cs, eflags;
};

_Static_assert(sizeof(struct trap_frame) == 13 * 4, "isr_stubs.S builds this layout");

static inline uint32_t trap_interrupted_sp(const struct trap_frame *f)
{
    return (uint32_t)&f->eflags + 4;
}

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

/* Called first by the #GP handler with a pointer to the faulting EIP; returns 1 when it
 * moved EIP to a recovery path (the fault is then resumed, not reported). */
typedef int (*gp_fixup_fn)(uint32_t *eip);
void idt_set_gp_fixup(gp_fixup_fn fn);

#endif
