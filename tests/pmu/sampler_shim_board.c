/* The board side of the sampler under ACART_SIM: the LAPIC (lapic.h), the trap table
 * (trap.h), the TSC rate (tsc.h) and the port's aca_port_current_task() (acart.h), with
 * PMI and NMI delivery. See sampler_shim.h. */
#include "sampler_shim.h"

#include <string.h>

#include "acart.h"
#include "lapic.h"
#include "pmu.h"
#include "tsc.h"

#define SHIM_TSC_HZ   2000000000ull
#define SHIM_LAPIC_HZ 100000000ull

static struct shim_lapic lapics[SHIM_CPUS];
static uint32_t routed[SHIM_CPUS]; /* the entry lapic_pmi_route() chose, unmasked */
static trap_handler_fn handlers[256];
static unsigned task_calls_off_cpu;

void shim_board_reset(void)
{
    memset(lapics, 0, sizeof(lapics));
    memset(handlers, 0, sizeof(handlers));
    for (uint32_t cpu = 0; cpu < SHIM_CPUS; cpu++) {
        routed[cpu] = LAPIC_LVT_MASKED; /* LVT entries are masked at reset */
        lapics[cpu].lvt_pc = LAPIC_LVT_MASKED;
    }
    task_calls_off_cpu = 0;
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

/* ---- lapic.h ---- */

void lapic_write(uint32_t reg, uint32_t value)
{
    (void)value;
    if (reg == LAPIC_REG_EOI)
        lapics[shim_current_cpu()].eois++;
    else
        lapics[shim_current_cpu()].other_writes++;
}

void lapic_pmi_route(int use_nmi, uint8_t vector)
{
    uint32_t cpu = shim_current_cpu();

    routed[cpu] = use_nmi ? LAPIC_LVT_NMI : vector;
    lapics[cpu].lvt_pc = routed[cpu];
    lapics[cpu].routes++;
}

void lapic_pmi_unmask(void)
{
    uint32_t cpu = shim_current_cpu();
    const struct sim_instance *sim = shim_sim(cpu);

    lapics[cpu].lvt_pc = routed[cpu];
    lapics[cpu].unmasks++;
    lapics[cpu].status_at_unmask = sim->peek_msr(MSR_IA32_PERF_GLOBAL_STATUS);
    lapics[cpu].global_ctrl_at_unmask = sim->peek_msr(MSR_IA32_PERF_GLOBAL_CTRL);
}

void lapic_pmi_mask(void)
{
    uint32_t cpu = shim_current_cpu();

    lapics[cpu].lvt_pc = routed[cpu] | LAPIC_LVT_MASKED;
    lapics[cpu].masks++;
}

uint64_t lapic_timer_hz(void)
{
    return SHIM_LAPIC_HZ;
}

void lapic_timer_start_periodic(uint8_t vector, uint32_t period_ticks)
{
    (void)vector;
    (void)period_ticks;
    lapics[shim_current_cpu()].timer_starts++;
}

void lapic_timer_stop(void)
{
    lapics[shim_current_cpu()].timer_stops++;
}

/* ---- tsc.h ---- */

uint64_t tsc_hz(void)
{
    return SHIM_TSC_HZ;
}

/* ---- trap.h ---- */

void trap_set_handler(uint8_t vector, trap_handler_fn fn)
{
    handlers[vector] = fn;
}

trap_handler_fn trap_get_handler(uint8_t vector)
{
    return handlers[vector];
}

/* Runs the vector's handler on `cpu`, as the CPU's interrupt entry would. */
static int interrupt(uint32_t cpu, uint8_t vector, struct trap_frame *frame)
{
    uint32_t interrupted = shim_current_cpu();

    if (!handlers[vector])
        return SHIM_UNCLAIMED;
    frame->vector = vector;
    shim_set_current_cpu(cpu);
    handlers[vector](frame);
    shim_set_current_cpu(interrupted);
    return SHIM_DELIVERED;
}

int shim_raise_pmi(uint32_t cpu, struct trap_frame *frame)
{
    struct shim_lapic *l = &lapics[cpu];
    uint8_t vector;

    if (!shim_sim(cpu)->take_pmi())
        return SHIM_NO_PMI;
    if (l->lvt_pc & LAPIC_LVT_MASKED)
        return SHIM_LVT_MASKED;
    vector = (l->lvt_pc & 0x700u) == LAPIC_LVT_NMI ? TRAP_VECTOR_NMI : (uint8_t)l->lvt_pc;
    l->lvt_pc |= LAPIC_LVT_MASKED; /* the CPU masks the entry as it delivers the PMI */
    return interrupt(cpu, vector, frame);
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
