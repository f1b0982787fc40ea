/* The board around runtime/sampling/sampler.c in host tests (ACART_SIM).
 *
 * SHIM_CPUS simulated CPUs, each with its own instance of sim_cpu.c (its own MSR file,
 * counters, TSC and pending PMI; sampler_shim_sim_cpu.c builds one per CPU), and a
 * "current CPU" that aca_plat_cpu_index(), msr_read(), msr_write() and cpuid() follow.
 * Around them, a port: the platform seam (acart_platform.h) over the board's own trap
 * table (NMI shared with acart, vectors, EOI, sampling timer,
 * aca_plat_call_on_all_cpus() running the function on each CPU in turn), the x2APIC
 * performance-counter LVT entry the runtime writes, and aca_port_current_task(). Each
 * records what was asked of it, so a test can check the calls as well as their effect on
 * the simulated CPUs. */
#ifndef ACART_TESTS_SIM_SAMPLER_SHIM_H
#define ACART_TESTS_SIM_SAMPLER_SHIM_H

#include <stdint.h>

#include "acart_platform.h"
#include "sim_cpu.h"
#include "trap.h"

#define SHIM_CPUS 4

/* The functions of one CPU's simulator instance (see sim_cpu.h for each). */
struct sim_instance {
    void (*reset)(const struct sim_model *model);
    void (*set_ip)(uint64_t ip);
    void (*set_load)(uint64_t addr, uint16_t latency, uint64_t data_source);
    void (*retire)(const struct sim_events *ev);
    void (*branch_kind)(uint64_t from, uint64_t to, enum sim_branch_kind kind, int mispredicted,
                        uint16_t cycles);
    int (*take_pmi)(void);
    unsigned (*pmi_count)(void);
    uint64_t (*peek_msr)(uint32_t msr);
    unsigned (*pebs_records)(void);
    unsigned (*overflows)(void);
    void (*reassert_overflow)(uint64_t counters, unsigned times);
    unsigned (*accesses)(void);
    unsigned (*faults)(void);
    const char *(*fault_text)(void);
    void (*clear_faults)(void);
    struct cpuid_regs (*cpuid_leaf)(uint32_t leaf, uint32_t subleaf);
    uint64_t (*rdmsr)(uint32_t msr);
    void (*wrmsr)(uint32_t msr, uint64_t value);
    void (*pt_source)(const uint8_t *stream, size_t len);
    void (*pt_run)(size_t bytes);
    size_t (*pt_writes)(struct sim_pt_write *out, size_t max);
    uint64_t (*pt_position)(void);
    uint64_t (*pt_written)(void);
    uint64_t (*tsc)(void);
    void (*set_tsc_costs)(uint32_t per_msr_access, uint32_t per_pmi);
};

const struct sim_instance *shim_sim(uint32_t cpu);

/* Every CPU powered on as `model`, the current CPU 0, LAPIC records and the trap table
 * cleared. */
void shim_power_on(const struct sim_model *model);
void shim_set_current_cpu(uint32_t cpu);
uint32_t shim_current_cpu(void);
unsigned shim_smp_calls(void); /* aca_plat_call_on_all_cpus() calls so far */
void shim_board_reset(void);   /* sampler_shim_board.c's part of shim_power_on() */

/* CPUs as threads only (acart_simboard, whose TSC is real time): from now on every MSR
 * access spends `ns` nanoseconds of real time, as one costs a real CPU's time (the TSC
 * model of such a board; sim_set_tsc_costs() is the one of a simulated TSC). */
void shim_set_msr_cost_ns(uint32_t ns);

/* Where the board's NMI entry calls acart's handler (its FROM in the LBRs). */
#define SHIM_NMI_ENTRY_CALL 0xc0001000u

/* The x2APIC MSR of the performance-counter LVT entry, which msr_write() passes to
 * shim_lvt_pc_write() on the current CPU. */
#define SHIM_X2APIC_LVT_PC 0x834
void shim_lvt_pc_write(uint32_t value);

/* acart's NMI handler, while it shares the NMI with the board (NULL otherwise). */
aca_plat_handler_fn shim_acart_nmi(void);

/* The local APIC of one CPU, as the code under test left it. */
struct shim_lapic {
    uint32_t lvt_pc; /* the LVT performance-counter entry (LAPIC_LVT_* | vector) */
    unsigned routes, unmasks, masks, eois, other_writes;
    unsigned timer_starts, timer_stops;
    /* The simulated CPU's state when the LVT entry was last unmasked: tells an unmask
     * before the handler core (overflow still in GLOBAL_STATUS) from one after it
     * (counting re-enabled). */
    uint64_t status_at_unmask, global_ctrl_at_unmask;
};
const struct shim_lapic *shim_lapic(uint32_t cpu);

/* What aca_port_current_task() answers: CPU SHIM_IDLE_CPU runs no task (the sample then
 * carries pid = tid = 0); CPU c otherwise runs pid SHIM_PID_BASE + c, tid SHIM_TID_BASE + c. */
#define SHIM_IDLE_CPU 2
#define SHIM_PID_BASE 1000
#define SHIM_TID_BASE 2000
unsigned shim_task_calls_off_cpu(void); /* calls about a CPU other than the current one */

enum shim_delivery {
    SHIM_DELIVERED = 0,
    SHIM_NO_PMI = -1,     /* the CPU raised no PMI */
    SHIM_LVT_MASKED = -2, /* the LVT entry is masked (or was never routed) */
    SHIM_UNCLAIMED = -3,  /* nobody handles the vector the LVT entry names */
};

/* The LAPIC side of a PMI on `cpu`: takes the simulator's pending PMI and delivers it as
 * the LVT entry says (NMI or its vector), masking the entry as the hardware does, by
 * running that vector's handler on `cpu` with `frame` (its vector field is filled in). */
int shim_raise_pmi(uint32_t cpu, struct trap_frame *frame);

/* An NMI from elsewhere (a watchdog, another CPU) on `cpu`. SHIM_UNCLAIMED without an NMI
 * handler. */
int shim_raise_nmi(uint32_t cpu, struct trap_frame *frame);
/* NMIs acart's handler did not claim (or that came with none installed), since reset. The
 * board's handler sees every NMI, claimed or not. */
unsigned shim_nmis_declined(void);

/* The sampling timer of `cpu` as the runtime armed it: its period in TSC ticks, 0 while
 * disarmed. shim_timer_tick() is its interrupt: aca_sample_tick() on `cpu` with `frame`. */
uint64_t shim_timer_period(uint32_t cpu);
void shim_timer_tick(uint32_t cpu, const struct trap_frame *frame);

/* One-shot: right after the next write on `cpu` that turns counting on (a non-zero
 * IA32_PERF_GLOBAL_CTRL), the CPU retires `ev` and takes any PMI that raises at once, with
 * `frame`, as an NMI arriving in the instructions that follow the WRMSR would. */
void shim_after_enable(uint32_t cpu, const struct sim_events *ev, const struct trap_frame *frame);
/* The hook's shim_raise_pmi() result once it ran; 1 while it is still armed. */
int shim_after_enable_result(uint32_t cpu);

#endif
