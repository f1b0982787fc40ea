/* acart's platform seam, implemented by the kernel that owns the CPU:
 *  - one CPU: index 0, and "every CPU" is this one with interrupts off;
 *  - the kernel's IDT: acart's NMI handler goes first in the kernel's NMI chain, a vector
 *    acart asks for is installed in the kernel's own table (0x30..0xef are left free);
 *  - xAPIC, the mode this kernel runs the local APIC in; never switched;
 *  - sampling timer: the PIT on IRQ 0, never the LAPIC timer (the scheduler's tick); or,
 *    with `sampling=tick` on the command line, no timer at all: aca_plat_timer_arm()
 *    refuses (ACA_ERR_UNSUPPORTED) and the scheduler tick calls aca_sample_tick(), the
 *    fallback docs/porting.md describes for a platform without a second timer;
 *  - stack bounds: the current task's heap-allocated stack (interrupts run on the
 *    interrupted task's stack: there is no privilege change; on x86_64 the NMI runs on
 *    its IST stack, but the frame's sp is the interrupted RSP, on the task's stack), so
 *    call stacks follow the frame chain down to the task's entry. */
#include "platform.h"
#include "accounting.h"
#include "idt.h"
#include "lapic_tick.h"
#include "pit_timer.h"
#include "sched.h"
#include "io.h"
#include "tsc.h"

#include "acart.h"
#include "acart_platform.h"

#include <stddef.h>

static aca_plat_handler_fn acart_nmi;
static int tick_sampling;
static aca_plat_handler_fn vector_fns[256];

static void to_aca_frame(const struct trap_frame *t, struct aca_frame *f)
{
    /* EIP/RIP, EFLAGS/RFLAGS, EBP/RBP and the interrupted ESP/RSP, whichever mode. */
    f->ip = trap_ip(t);
    f->cs = (uint32_t)t->cs;
    f->flags = trap_flags(t);
    f->fp = trap_fp(t);
    f->sp = trap_interrupted_sp(t);
}

static void sample_tick(const struct trap_frame *t);

void platform_init(int sample_from_tick)
{
    idt_set_gp_fixup(aca_fixup_gp);
    tick_sampling = sample_from_tick;
    /* Every tick goes to acart, which samples only while a collection runs (and counts
     * them during aca_selftest). */
    if (tick_sampling)
        lapic_tick_set_hook(sample_tick);
}

uint32_t aca_plat_cpu_index(void)
{
    return 0;
}

uint32_t aca_plat_num_cpus(void)
{
    return 1;
}

void aca_plat_call_on_all_cpus(aca_plat_cpu_fn fn, void *arg)
{
    uintptr_t flags = irq_save();
    fn(arg);
    irq_restore(flags);
}

static int nmi_to_acart(struct trap_frame *t)
{
    aca_plat_handler_fn fn = __atomic_load_n(&acart_nmi, __ATOMIC_ACQUIRE);
    if (!fn)
        return 0;
    struct aca_frame f;
    to_aca_frame(t, &f);
    return fn(&f);
}

int aca_plat_nmi_install(aca_plat_handler_fn fn)
{
    __atomic_store_n(&acart_nmi, fn, __ATOMIC_RELEASE);
    return nmi_chain_add(nmi_to_acart, 1) == 0 ? ACA_OK : ACA_ERR_BUSY;
}

void aca_plat_nmi_remove(aca_plat_handler_fn fn)
{
    if (acart_nmi != fn)
        return;
    nmi_chain_remove(nmi_to_acart);
    __atomic_store_n(&acart_nmi, NULL, __ATOMIC_RELEASE);
}

static void vector_to_acart(struct trap_frame *t)
{
    aca_plat_handler_fn fn = __atomic_load_n(&vector_fns[t->vector], __ATOMIC_ACQUIRE);
    struct aca_frame f;
    to_aca_frame(t, &f);
    if (fn)
        fn(&f);
    else
        lapic_eoi(); /* removed while one was in flight */
}

int aca_plat_vector_install(uint8_t vector, aca_plat_handler_fn fn)
{
    if (vector < 0x30 || vector > 0xef || !fn)
        return ACA_ERR_INVALID;
    __atomic_store_n(&vector_fns[vector], fn, __ATOMIC_RELEASE);
    if (idt_set_handler(vector, vector_to_acart) != 0) {
        __atomic_store_n(&vector_fns[vector], NULL, __ATOMIC_RELEASE);
        return ACA_ERR_BUSY;
    }
    return ACA_OK;
}

void aca_plat_vector_remove(uint8_t vector)
{
    if (vector < 0x30 || vector > 0xef || !vector_fns[vector])
        return;
    idt_set_handler(vector, NULL);
    __atomic_store_n(&vector_fns[vector], NULL, __ATOMIC_RELEASE);
}

void aca_plat_eoi(void)
{
    lapic_eoi();
}

enum aca_apic_mode aca_plat_apic_mode(void)
{
    return ACA_APIC_XAPIC;
}

uintptr_t aca_plat_apic_mmio_base(void)
{
    return lapic_mmio_base();
}

static void sample_tick(const struct trap_frame *t)
{
    struct aca_frame f;
    to_aca_frame(t, &f);
    aca_sample_tick(&f);
}

int aca_plat_timer_arm(uint64_t period_tsc)
{
    /* The kernel's own accounting window opens exactly when sampling starts. */
    accounting_window_start();
    if (tick_sampling)
        return ACA_ERR_UNSUPPORTED; /* the scheduler tick samples (platform_init) */
    pit_timer_arm(period_tsc, sample_tick);
    return ACA_OK;
}

void aca_plat_timer_disarm(void)
{
    /* acart calls this also after a refused arm: the window ends either way. */
    if (!tick_sampling)
        pit_timer_disarm();
    accounting_window_end();
}

uint64_t aca_plat_tsc_hz(void)
{
    return tsc_hz();
}

int aca_plat_stack_bounds(const struct aca_frame *frame, uintptr_t *lo, uintptr_t *hi)
{
    sched_current_stack(lo, hi);
    return frame->sp >= *lo && frame->sp < *hi ? 0 : -1;
}
