/* The board side of the sampler under ACART_SIM: a port that implements acart's platform
 * seam (acart_platform.h) over its own trap table, the performance-counter LVT entry the
 * runtime writes, and the port's aca_port_current_task() (acart.h), with PMI and NMI
 * delivery. See sampler_shim.h. */
#include "sampler_shim.h"

#include <string.h>

#include "acart.h"
#include "acart_platform.h"
#include "lapic.h"
#include "pmu.h"

#define SHIM_TSC_HZ 2000000000ull

static struct shim_lapic lapics[SHIM_CPUS];
static uint32_t routed[SHIM_CPUS]; /* the entry pmi_lvt_route() chose, unmasked */
static trap_handler_fn handlers[256];
static unsigned task_calls_off_cpu;
static unsigned in_interrupt[SHIM_CPUS]; /* interrupt depth per CPU */
static aca_plat_handler_fn acart_nmi;    /* acart's share of the NMI */
static unsigned nmis_declined;           /* NMIs acart did not claim */
static aca_plat_handler_fn acart_vectors[256];
static uint64_t timer_period[SHIM_CPUS];

void shim_board_reset(void)
{
    memset(lapics, 0, sizeof(lapics));
    memset(handlers, 0, sizeof(handlers));
    memset(in_interrupt, 0, sizeof(in_interrupt));
    memset(acart_vectors, 0, sizeof(acart_vectors));
    memset(timer_period, 0, sizeof(timer_period));
    acart_nmi = 0;
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        routed[cpu] = LAPIC_LVT_MASKED; /* LVT entries are masked at reset */
        lapics[cpu].lvt_pc = LAPIC_LVT_MASKED;
    }
    task_calls_off_cpu = 0;
    nmis_declined = 0;
}

unsigned shim_nmis_declined(void)
{
    return nmis_declined;
}

const struct shim_lapic *shim_lapic(uint32_t cpu)
{
    shim_sim(cpu);
    return &lapics[cpu];
}

unsigned shim_task_calls_off_cpu(void)
{
    return task_calls_off_cpu;
}

/* ---- The performance-counter LVT entry, as runtime/sampling/pmi_lvt.c writes it (x2APIC) ---- */

void shim_lvt_pc_write(uint32_t value)
{
    uint32_t cpu = shim_current_cpu();
    const struct sim_instance *sim = shim_sim(cpu);

    lapics[cpu].lvt_pc = value;
    if (value & LAPIC_LVT_MASKED) {
        lapics[cpu].masks++;
    } else if (in_interrupt[cpu]) {
        /* Re-armed inside the PMI handler. */
        lapics[cpu].unmasks++;
        lapics[cpu].status_at_unmask = sim->peek_msr(MSR_IA32_PERF_GLOBAL_STATUS);
        lapics[cpu].global_ctrl_at_unmask = sim->peek_msr(MSR_IA32_PERF_GLOBAL_CTRL);
    } else {
        routed[cpu] = value;
        lapics[cpu].routes++;
    }
}

/* ---- The platform seam (acart_platform.h), as a port with its own IDT provides it ---- */

static void frame_from_trap(struct aca_frame *f, const struct trap_frame *t)
{
    f->ip = t->ip;
    f->cs = t->cs;
    f->flags = t->flags;
    f->fp = trap_frame_fp(t);
    f->sp = trap_frame_sp(t);
}

aca_plat_handler_fn shim_acart_nmi(void)
{
    return acart_nmi;
}

int aca_plat_nmi_install(aca_plat_handler_fn fn)
{
    acart_nmi = fn;
    return ACA_OK;
}

void aca_plat_nmi_remove(aca_plat_handler_fn fn)
{
    if (acart_nmi == fn)
        acart_nmi = 0;
}

/* The board's IDT entry for a vector acart installed: like the kit's, it hands acart a
 * struct aca_frame. */
static void acart_vector_entry(struct trap_frame *t)
{
    struct aca_frame f;

    frame_from_trap(&f, t);
    if (acart_vectors[t->vector & 0xff])
        acart_vectors[t->vector & 0xff](&f);
}

int aca_plat_vector_install(uint8_t vector, aca_plat_handler_fn fn)
{
    if (handlers[vector] && handlers[vector] != acart_vector_entry)
        return ACA_ERR_BUSY;
    acart_vectors[vector] = fn;
    handlers[vector] = acart_vector_entry;
    return ACA_OK;
}

void aca_plat_vector_remove(uint8_t vector)
{
    if (handlers[vector] == acart_vector_entry)
        handlers[vector] = 0;
    acart_vectors[vector] = 0;
}

void aca_plat_eoi(void)
{
    lapics[shim_current_cpu()].eois++;
}

enum aca_apic_mode aca_plat_apic_mode(void)
{
    return ACA_APIC_X2APIC;
}

uintptr_t aca_plat_apic_mmio_base(void)
{
    return 0;
}

int aca_plat_timer_arm(uint64_t period_tsc)
{
    lapics[shim_current_cpu()].timer_starts++;
    timer_period[shim_current_cpu()] = period_tsc;
    return ACA_OK;
}

void aca_plat_timer_disarm(void)
{
    lapics[shim_current_cpu()].timer_stops++;
    timer_period[shim_current_cpu()] = 0;
}

uint64_t shim_timer_period(uint32_t cpu)
{
    shim_sim(cpu);
    return timer_period[cpu];
}

uint64_t aca_plat_tsc_hz(void)
{
    return SHIM_TSC_HZ;
}

int aca_plat_stack_bounds(const struct aca_frame *frame, uintptr_t *lo, uintptr_t *hi)
{
    (void)frame;
    (void)lo;
    (void)hi;
    return -1; /* the simulated CPUs run no code: no stack to walk */
}

/* ---- The board's own trap table ---- */

void trap_set_handler(uint8_t vector, trap_handler_fn fn)
{
    handlers[vector] = fn;
}

trap_handler_fn trap_get_handler(uint8_t vector)
{
    return handlers[vector];
}

/* Runs the vector's handler on `cpu`, as the CPU's interrupt entry would. The NMI goes to
 * acart first and then to the board's handler, whatever acart answered. */
static int interrupt(uint32_t cpu, uint8_t vector, struct trap_frame *frame)
{
    uint32_t interrupted = shim_current_cpu();
    int result = SHIM_DELIVERED;

    frame->vector = vector;
    shim_set_current_cpu(cpu);
    in_interrupt[cpu]++;
    if (vector == TRAP_VECTOR_NMI) {
        struct aca_frame f;
        const struct sim_instance *sim = shim_sim(cpu);
        /* In LBR call-stack mode, the board's NMI entry calls acart's handler through a
         * pointer, and that call and its return are branches the LBRs record unless
         * frozen or stopped (SDM vol. 3B, "LBR Stack": near calls and returns; in call-stack
         * mode a call pushes, a return pops). Only there: elsewhere the tests look at
         * stacks frozen before the handler, and its return is not what they test.
         * Call-stack mode is MSR_LBR_SELECT bit 9 with DEBUGCTL.LBR on model-specific LBRs,
         * IA32_LBR_CTL bit 3 (CALL_STACK) with bit 0 (LBREn) on architectural LBRs (SDM
         * vol. 3B, "Last Branch Records": "LBR Call-Stack Mode" and IA32_LBR_CTL's
         * fields). A peek at the MSR the model lacks reads 0. */
        const uint64_t lbren_call_stack = 1u << 0 | 1u << 3;
        int call_stack = (sim->peek_msr(MSR_LBR_CTL) & lbren_call_stack) == lbren_call_stack ||
                         ((sim->peek_msr(MSR_IA32_DEBUGCTL) & 1) &&
                          (sim->peek_msr(MSR_LBR_SELECT) & LBR_SEL_CALL_STACK));
        uint64_t handler = (uint64_t)(uintptr_t)acart_nmi;

        frame_from_trap(&f, frame);
        if (call_stack && acart_nmi)
            sim->branch_kind(SHIM_NMI_ENTRY_CALL, handler, SIM_BR_IND_CALL, 0, 1);
        /* Every handler sees every NMI, as the kit's and Linux's nmi_handle() run them. */
        int claimed = acart_nmi && acart_nmi(&f);
        if (call_stack && acart_nmi)
            sim->branch_kind(handler + 0x40, SHIM_NMI_ENTRY_CALL + 2, SIM_BR_RET, 0, 1);
        if (!claimed)
            nmis_declined++;
        if (handlers[vector])
            handlers[vector](frame);
        else if (!claimed && !acart_nmi)
            result = SHIM_UNCLAIMED;
    } else if (handlers[vector]) {
        handlers[vector](frame);
    } else {
        result = SHIM_UNCLAIMED;
    }
    in_interrupt[cpu]--;
    shim_set_current_cpu(interrupted);
    return result;
}

/* The PMI through the local APIC's LVT performance-counter entry (SDM vol. 3A, "Local
 * Vector Table", the Mask flag: "(0) enables reception of the interrupt and (1) inhibits
 * reception of the interrupt. When the local APIC handles a performance-monitoring
 * counters interrupt, it automatically sets the mask flag in the corresponding LVT entry.
 * This flag will remain set until software clears it."):
 * - while the entry is masked the PMI is not received, and not held either: the LVT keeps
 *   no pending state for it (Delivery Status only tracks an interrupt already sent, and an
 *   NMI-mode entry is always edge-triggered, "Trigger Mode"). The overflow's status bit
 *   stays set; only a later PMI, or software reading GLOBAL_STATUS, finds it;
 * - delivering it sets the mask, which is why every PMI handler unmasks the entry (Linux
 *   intel_pmu_handle_irq(): apic_write(APIC_LVTPC, APIC_DM_NMI), early or late_ack). */
int shim_raise_pmi(uint32_t cpu, struct trap_frame *frame)
{
    struct shim_lapic *l = &lapics[cpu];
    uint8_t vector;

    if (!shim_sim(cpu)->take_pmi())
        return SHIM_NO_PMI;
    if (l->lvt_pc & LAPIC_LVT_MASKED)
        return SHIM_LVT_MASKED; /* lost: inhibited, not held */
    vector = (l->lvt_pc & 0x700u) == LAPIC_LVT_NMI ? TRAP_VECTOR_NMI : (uint8_t)l->lvt_pc;
    l->lvt_pc |= LAPIC_LVT_MASKED; /* set as the local APIC handles the PMI */
    return interrupt(cpu, vector, frame);
}

void shim_timer_tick(uint32_t cpu, const struct trap_frame *frame)
{
    uint32_t interrupted = shim_current_cpu();
    struct aca_frame f;

    frame_from_trap(&f, frame);
    shim_set_current_cpu(cpu);
    in_interrupt[cpu]++;
    aca_sample_tick(&f);
    in_interrupt[cpu]--;
    shim_set_current_cpu(interrupted);
}

int shim_raise_nmi(uint32_t cpu, struct trap_frame *frame)
{
    shim_sim(cpu);
    return interrupt(cpu, TRAP_VECTOR_NMI, frame);
}

/* ---- acart.h port ---- */

int aca_port_current_task(uint32_t cpu, uint32_t *pid, uint32_t *tid)
{
    /* Interrupt context on `cpu` itself: asking about another CPU is a port misuse. */
    if (cpu != shim_current_cpu())
        task_calls_off_cpu++;
    if (cpu == SHIM_IDLE_CPU)
        return -1;
    *pid = SHIM_PID_BASE + cpu;
    *tid = SHIM_TID_BASE + cpu;
    return 0;
}
