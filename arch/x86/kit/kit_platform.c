/* acart's platform seam (acart_platform.h) for boards that use the x86 kit: per-CPU GS,
 * the kit's IDT, its local APIC and its LAPIC timer, which the kit gives acart alone
 * (a kit board keeps its own ticks elsewhere: the PIT on the legacy PIC, as qemu-pc
 * does). */
#include "acart.h"
#include "acart_platform.h"

#include "io.h"
#include "lapic.h"
#include "percpu.h"
#include "smp.h"
#include "trap.h"
#include "tsc.h"

static aca_plat_handler_fn acart_nmi;
static trap_handler_fn other_nmi; /* the board's NMI handler, when acart's is not its */
static aca_plat_handler_fn acart_vectors[256];
/* LAPIC timer ticks per TSC tick, 32.32 fixed point: arming the timer happens on every CPU
 * with interrupts off, where a 64-bit division would call libgcc. */
static uint64_t lapic_per_tsc_q32;

static void on_general_protection(struct trap_frame *t)
{
    if (!aca_fixup_gp(&t->ip)) /* else: an MSR the host named that this CPU lacks */
        trap_fatal(t);
}

/* Called from x86_kit_init(). Besides the #GP fixups, it makes this file part of every
 * kit link before libacart.a is searched, so the seam is there when acart needs it. */
void kit_platform_init(void)
{
    trap_set_handler(TRAP_VECTOR_GP, on_general_protection);
    if (tsc_hz())
        lapic_per_tsc_q32 = (lapic_timer_hz() << 32) / tsc_hz();
}

static void frame_from_trap(struct aca_frame *f, const struct trap_frame *t)
{
    f->ip = t->ip;
    f->cs = (uint32_t)t->cs;
    f->flags = t->flags;
    f->fp = trap_frame_fp(t);
    f->sp = trap_frame_sp(t);
}

uint32_t aca_plat_cpu_index(void)
{
    return this_cpu_index();
}

uint32_t aca_plat_num_cpus(void)
{
    return smp_num_cpus();
}

void aca_plat_call_on_all_cpus(aca_plat_cpu_fn fn, void *arg)
{
    smp_call_all(fn, arg);
}

static void on_nmi(struct trap_frame *t)
{
    struct aca_frame f;
    frame_from_trap(&f, t);
    aca_plat_handler_fn mine = acart_nmi;
    /* Every handler sees every NMI, as Linux's nmi_handle() runs every local handler: a
     * PMI and another source that raise NMIs together arrive as one, so acart claiming
     * it says nothing about the board's source. */
    if (mine)
        (void)mine(&f);
    if (other_nmi)
        other_nmi(t);
}

int aca_plat_nmi_install(aca_plat_handler_fn fn)
{
    trap_handler_fn prev = trap_get_handler(TRAP_VECTOR_NMI);
    if (prev != on_nmi)
        other_nmi = prev;
    acart_nmi = fn;
    trap_set_handler(TRAP_VECTOR_NMI, on_nmi);
    return ACA_OK;
}

void aca_plat_nmi_remove(aca_plat_handler_fn fn)
{
    if (acart_nmi == fn)
        acart_nmi = 0;
}

static void on_acart_vector(struct trap_frame *t)
{
    struct aca_frame f;
    frame_from_trap(&f, t);
    aca_plat_handler_fn fn = acart_vectors[t->vector & 0xff];
    if (fn)
        fn(&f);
}

int aca_plat_vector_install(uint8_t vector, aca_plat_handler_fn fn)
{
    if (vector < 0x30 || vector >= 0xf0)
        return ACA_ERR_INVALID;
    trap_handler_fn prev = trap_get_handler(vector);
    if (prev && prev != on_acart_vector)
        return ACA_ERR_BUSY;
    acart_vectors[vector] = fn;
    trap_set_handler(vector, on_acart_vector);
    return ACA_OK;
}

void aca_plat_vector_remove(uint8_t vector)
{
    if (trap_get_handler(vector) == on_acart_vector)
        trap_set_handler(vector, 0);
    acart_vectors[vector] = 0;
}

void aca_plat_eoi(void)
{
    lapic_eoi();
}

enum aca_apic_mode aca_plat_apic_mode(void)
{
    return lapic_x2apic_enabled() ? ACA_APIC_X2APIC : ACA_APIC_XAPIC;
}

uintptr_t aca_plat_apic_mmio_base(void)
{
    return lapic_mmio_base();
}

static void on_sampling_timer(struct trap_frame *t)
{
    struct aca_frame f;
    frame_from_trap(&f, t);
    aca_sample_tick(&f);
    lapic_eoi();
}

int aca_plat_timer_arm(uint64_t period_tsc)
{
    if (lapic_per_tsc_q32 == 0)
        return ACA_ERR_STATE;
    /* Below 2^32 TSC ticks (1.6 s at 2.6 GHz) exactly; above, to 16 bits fewer. */
    uint64_t ticks = period_tsc < (1ull << 32) ? (period_tsc * lapic_per_tsc_q32) >> 32
                                               : ((period_tsc >> 16) * lapic_per_tsc_q32) >> 16;
    if (ticks == 0)
        ticks = 1;
    if (ticks > 0xffffffffu)
        ticks = 0xffffffffu;
    trap_set_handler(TRAP_VECTOR_TIMER, on_sampling_timer);
    lapic_timer_start_periodic(TRAP_VECTOR_TIMER, (uint32_t)ticks);
    return ACA_OK;
}

void aca_plat_timer_disarm(void)
{
    lapic_timer_stop();
}

uint64_t aca_plat_tsc_hz(void)
{
    return tsc_hz();
}

int aca_plat_stack_bounds(const struct aca_frame *frame, uintptr_t *lo, uintptr_t *hi)
{
    (void)frame; /* kit boards run everything on the CPU's one stack */
    const struct percpu *p = this_cpu();
    if (!p->stack_bottom || !p->stack_top)
        return -1;
    *lo = (uintptr_t)p->stack_bottom;
    *hi = (uintptr_t)p->stack_top;
    return 0;
}
