#include "idt.h"
#include "console.h"
#include "gdt.h"

#include "acart.h"
#include "acart_platform.h"

#include <stddef.h>

#define NMI_CHAIN_MAX 4

#ifdef __x86_64__
struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;  /* bits 2:0: the TSS's interrupt stack to switch to, 0 for none */
    uint8_t type; /* 0x8e: present, ring 0, 64-bit interrupt gate */
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
};

_Static_assert(sizeof(struct idt_gate) == 16, "a long-mode IDT gate is 16 bytes");
#else
struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t zero;
    uint8_t type; /* 0x8e: present, ring 0, 32-bit interrupt gate */
    uint16_t offset_hi;
};

_Static_assert(sizeof(struct idt_gate) == 8, "IDT gate is 8 bytes");
#endif

extern const uintptr_t isr_stub_table[256];

static struct idt_gate idt[256] __attribute__((aligned(16)));
static trap_handler_fn handlers[256];
static nmi_handler_fn nmi_chain[NMI_CHAIN_MAX];
static volatile uint32_t nmi_unclaimed;
static gp_fixup_fn gp_fixup;

static const char *const exception_names[32] = {
    "#DE divide error",
    "#DB debug",
    "NMI",
    "#BP breakpoint",
    "#OF overflow",
    "#BR bound range",
    "#UD invalid opcode",
    "#NM no FPU",
    "#DF double fault",
    "coprocessor",
    "#TS invalid TSS",
    "#NP segment not present",
    "#SS stack fault",
    "#GP general protection",
    "#PF page fault",
    "reserved",
    "#MF x87 error",
    "#AC alignment check",
    "#MC machine check",
    "#XM SIMD error",
    "#VE virtualization",
    "#CP control protection",
};

void idt_init(void)
{
    for (int v = 0; v < 256; v++) {
        idt[v].offset_lo = (uint16_t)isr_stub_table[v];
        idt[v].selector = GDT_KERNEL_CODE;
        idt[v].type = 0x8e;
#ifdef __x86_64__
        idt[v].offset_mid = (uint16_t)(isr_stub_table[v] >> 16);
        idt[v].offset_hi = (uint32_t)(isr_stub_table[v] >> 32);
        idt[v].reserved = 0;
        /* Long mode has no task gates: the NMI (acart's sampling interrupt) and #DF get
         * stacks of their own through the TSS's IST, so they run even when they land on
         * a task whose stack is nearly full, or already overflowed. */
        idt[v].ist = v == VEC_NMI ? IST_NMI : v == VEC_DF ? IST_DF : 0;
#else
        idt[v].offset_hi = (uint16_t)(isr_stub_table[v] >> 16);
        idt[v].zero = 0;
#endif
    }
    static struct table_register idtr;
    idtr.limit = sizeof(idt) - 1;
    idtr.base = (uintptr_t)idt;
    __asm__ volatile("lidt %0" ::"m"(idtr));
}

int idt_set_handler(uint8_t vector, trap_handler_fn fn)
{
    if (fn && handlers[vector] && handlers[vector] != fn)
        return -1;
    __atomic_store_n(&handlers[vector], fn, __ATOMIC_RELEASE);
    return 0;
}

int nmi_chain_add(nmi_handler_fn fn, int first)
{
    for (int i = 0; i < NMI_CHAIN_MAX; i++)
        if (nmi_chain[i] == fn)
            return 0;
    if (nmi_chain[NMI_CHAIN_MAX - 1])
        return -1;
    /* The table is read by the NMI at any moment: entries move one at a time, each store
     * leaving a valid chain (at worst one handler listed twice for an instant). */
    int at = 0;
    if (!first)
        while (nmi_chain[at])
            at++;
    for (int i = NMI_CHAIN_MAX - 1; i > at; i--)
        __atomic_store_n(&nmi_chain[i], nmi_chain[i - 1], __ATOMIC_RELEASE);
    __atomic_store_n(&nmi_chain[at], fn, __ATOMIC_RELEASE);
    return 0;
}

void nmi_chain_remove(nmi_handler_fn fn)
{
    int at = 0;
    while (at < NMI_CHAIN_MAX && nmi_chain[at] != fn)
        at++;
    for (; at < NMI_CHAIN_MAX; at++)
        __atomic_store_n(&nmi_chain[at], at + 1 < NMI_CHAIN_MAX ? nmi_chain[at + 1] : NULL,
                         __ATOMIC_RELEASE);
}

uint32_t nmi_unclaimed_count(void)
{
    return nmi_unclaimed;
}

void idt_set_gp_fixup(gp_fixup_fn fn)
{
    gp_fixup = fn;
}

static void nmi(struct trap_frame *frame)
{
    int claimed = 0;
    /* Every handler sees every NMI (NMIs from several sources coalesce), as Linux's
     * nmi_handle() runs every local handler. */
    for (int i = 0; i < NMI_CHAIN_MAX; i++) {
        nmi_handler_fn fn = __atomic_load_n(&nmi_chain[i], __ATOMIC_ACQUIRE);
        if (!fn)
            break;
        claimed |= fn(frame) != 0;
    }
    if (claimed)
        return;
    /* Nobody's: counted (the stats service shows it), never printed from an NMI. */
    nmi_unclaimed++;
}

#ifdef __x86_64__
#define FATAL_FORMAT "EXCEPTION %lu (%s) error 0x%lx at rip 0x%016lx, rsp 0x%016lx, rbp 0x%016lx\n"
#else
#define FATAL_FORMAT "EXCEPTION %lu (%s) error 0x%lx at eip 0x%08lx, esp 0x%08lx, ebp 0x%08lx\n"
#endif

static void __attribute__((noreturn)) fatal(const struct trap_frame *f)
{
    aca_trace_freeze_exception((uint32_t)f->vector); /* a PT flight recorder keeps the way */
    console_printf(FATAL_FORMAT, (unsigned long)f->vector,
                   f->vector < 32 && exception_names[f->vector] ? exception_names[f->vector]
                                                                : "unexpected vector",
                   (unsigned long)f->error, (unsigned long)trap_ip(f),
                   (unsigned long)trap_interrupted_sp(f), (unsigned long)trap_fp(f));
    for (;;)
        __asm__ volatile("cli; hlt");
}

void idt_dispatch(struct trap_frame *frame);
void idt_dispatch(struct trap_frame *frame)
{
    if (frame->vector == VEC_NMI) {
        nmi(frame);
        return;
    }
    if (frame->vector == VEC_GP && gp_fixup && gp_fixup(trap_ip_slot(frame)))
        return;
    trap_handler_fn fn = __atomic_load_n(&handlers[frame->vector], __ATOMIC_ACQUIRE);
    if (fn)
        fn(frame);
    else
        fatal(frame);
}
