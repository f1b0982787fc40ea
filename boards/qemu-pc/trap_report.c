/* The board's report for an exception nobody claimed: vector, error code, registers,
 * then this CPU halts (registered with the kit's trap_set_fatal_handler). First it freezes
 * an Intel PT flight recorder, if a host runs one, so the trace that led here survives. Never
 * returns; printing uses the UART directly so that it works whatever state the faulting code left
 * the console lock in. */
#include "acart.h"
#include "acart_platform.h"
#include "console.h"
#include "io.h"
#include "percpu.h"
#include "serial.h"
#include "trap.h"
#include "trap_report.h"

#include <stdio.h>

static const char *const exception_names[32] = {
    "#DE divide error",
    "#DB debug",
    "NMI",
    "#BP breakpoint",
    "#OF overflow",
    "#BR bound range",
    "#UD invalid opcode",
    "#NM device not available",
    "#DF double fault",
    "coprocessor segment overrun",
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

void trap_report_fatal(struct trap_frame *f)
{
    char buf[1024]; /* the longest report, long mode's, is about 700 bytes */
    unsigned long cr0, cr2, cr3, cr4;
    aca_trace_freeze_exception(f->vector);
    __asm__ volatile("mov %%cr0, %0; mov %%cr2, %1; mov %%cr3, %2; mov %%cr4, %3"
                     : "=r"(cr0), "=r"(cr2), "=r"(cr3), "=r"(cr4));
    const char *name = f->vector < 32 && exception_names[f->vector] ? exception_names[f->vector]
                                                                    : "unexpected interrupt";
    int n =
        snprintf(buf, sizeof(buf), "\nEXCEPTION on cpu %lu: vector %lu (%s) error code 0x%08lx\n",
                 (unsigned long)this_cpu_index(), (unsigned long)f->vector, name,
                 (unsigned long)f->error_code);
#ifdef __x86_64__
    n += snprintf(
        buf + n, sizeof(buf) - (size_t)n,
        "  rip=0x%016lx cs=0x%04lx rflags=0x%08lx\n"
        "  rax=0x%016lx rbx=0x%016lx rcx=0x%016lx rdx=0x%016lx\n"
        "  rsi=0x%016lx rdi=0x%016lx rbp=0x%016lx rsp=0x%016lx\n"
        "  r8=0x%016lx r9=0x%016lx r10=0x%016lx r11=0x%016lx\n"
        "  r12=0x%016lx r13=0x%016lx r14=0x%016lx r15=0x%016lx\n",
        (unsigned long)f->ip, (unsigned long)f->cs, (unsigned long)f->flags, (unsigned long)f->rax,
        (unsigned long)f->rbx, (unsigned long)f->rcx, (unsigned long)f->rdx, (unsigned long)f->rsi,
        (unsigned long)f->rdi, (unsigned long)f->rbp, (unsigned long)f->sp, (unsigned long)f->r8,
        (unsigned long)f->r9, (unsigned long)f->r10, (unsigned long)f->r11, (unsigned long)f->r12,
        (unsigned long)f->r13, (unsigned long)f->r14, (unsigned long)f->r15);
#else
    n += snprintf(buf + n, sizeof(buf) - (size_t)n,
                  "  eip=0x%08lx cs=0x%04lx eflags=0x%08lx\n"
                  "  eax=0x%08lx ebx=0x%08lx ecx=0x%08lx edx=0x%08lx\n"
                  "  esi=0x%08lx edi=0x%08lx ebp=0x%08lx esp=0x%08lx\n",
                  (unsigned long)f->ip, (unsigned long)f->cs, (unsigned long)f->flags,
                  (unsigned long)f->eax, (unsigned long)f->ebx, (unsigned long)f->ecx,
                  (unsigned long)f->edx, (unsigned long)f->esi, (unsigned long)f->edi,
                  (unsigned long)f->ebp, (unsigned long)trap_frame_sp(f));
#endif
    n += snprintf(buf + n, sizeof(buf) - (size_t)n,
                  "  cr0=0x%08lx cr2=0x%08lx cr3=0x%08lx cr4=0x%08lx\n"
                  "cpu %lu halted\n",
                  cr0, cr2, cr3, cr4, (unsigned long)this_cpu_index());
    /* One report at a time (an external NMI reaches every CPU at once), and no other
     * output inside it. */
    static volatile uint32_t report_lock;
    while (__atomic_exchange_n(&report_lock, 1, __ATOMIC_ACQUIRE))
        __asm__ volatile("pause");
    console_take_for_report();
    serial_write(buf, n > 0 ? (unsigned)n : 0);
    console_release_after_report();
    __atomic_store_n(&report_lock, 0, __ATOMIC_RELEASE);
    for (;;)
        __asm__ volatile("cli; hlt");
}
