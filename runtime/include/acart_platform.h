/* For a port: everything a port implements or calls. The platform seam (aca_plat_*: what
 * libacart.a needs from the CPU and the RTOS it runs in), the port hooks (aca_port_*),
 * and the calls the port makes into acart (time-based samples, #GP fixups, interrupt
 * attribution, task and module events).
 *
 * A port implements every function below (all are required; none has a default in
 * libacart.a). Two ways to get them:
 *  - link libacart_x86.a, acart's x86 kit, which brings its own GDT with per-CPU GS, IDT,
 *    local APIC, SMP start-up and #GP fixups, and implements this seam for boards that
 *    have no OS of their own (boards/qemu-pc);
 *  - or implement them on top of your RTOS, which keeps its own GDT, IDT, scheduler tick
 *    and interrupt controller (boards/rtos-pc is the worked example).
 * docs/porting.md walks through both. Each function says the context it is called from;
 * "interrupt context" includes NMI: no locks, no blocking, no printing, no libc. */
#ifndef ACART_PLATFORM_H
#define ACART_PLATFORM_H

#include "acart.h"

#include <stdint.h>

/* What acart records from an interrupted context. Ring 0, flat segments; pointer-sized
 * fields, so the same seam serves 32-bit protected mode (EIP, EFLAGS, EBP, ESP) and
 * 64-bit long mode (RIP, RFLAGS, RBP, RSP). */
struct aca_frame {
    uintptr_t ip;    /* EIP/RIP of the interrupted instruction */
    uint32_t cs;     /* its code segment */
    uintptr_t flags; /* its EFLAGS/RFLAGS */
    uintptr_t fp;    /* its EBP/RBP: the start of the frame-pointer chain for call stacks */
    uintptr_t sp;    /* its ESP/RSP (the stack it was running on; aca_plat_stack_bounds) */
};

/* ---- CPUs ---- */

/* The calling CPU's index: dense, 0 .. aca_plat_num_cpus() - 1, stable for the CPU's
 * lifetime. Any context, NMI included: one load of per-CPU data, no locks. */
uint32_t aca_plat_cpu_index(void);

/* CPUs online now. Net context. */
uint32_t aca_plat_num_cpus(void);

/* Runs fn(arg) on every online CPU, the caller's own included, with interrupts disabled
 * on each while fn runs, and returns once all have finished. Net context; never from an
 * interrupt handler. Calls never overlap: acart issues one at a time. */
typedef void (*aca_plat_cpu_fn)(void *arg);
void aca_plat_call_on_all_cpus(aca_plat_cpu_fn fn, void *arg);

/* ---- Interrupts ---- */

/* An interrupt handler of acart's. For the NMI it returns 1 when the NMI was acart's (a
 * counter overflow it handled) and 0 when it was not, so the platform passes it on to
 * whoever else shares the NMI. For a vector the return value is ignored. */
typedef int (*aca_plat_handler_fn)(const struct aca_frame *frame);

/* Installs fn on the NMI, alongside any NMI handler the platform already has: the
 * platform calls fn first for every NMI and then its others, whatever fn returned (NMIs
 * from several sources coalesce into one, so a PMI acart claims may carry another
 * source's NMI; Linux's nmi_handle() runs every handler the same way). Each of the
 * platform's handlers checks its own source; an NMI no handler claims is unknown. Returns
 * 0, or a negative ACA_ERR_* when the platform cannot share its NMI. Net context. */
int aca_plat_nmi_install(aca_plat_handler_fn fn);
void aca_plat_nmi_remove(aca_plat_handler_fn fn);

/* Installs fn on IDT vector `vector` (0x30..0xef) of every CPU, for the performance
 * interrupt when the host or the port chose a vector over NMI. The platform acknowledges
 * nothing itself: fn ends with aca_plat_eoi(). Returns 0 or a negative ACA_ERR_* (the
 * vector is taken). Net context. */
int aca_plat_vector_install(uint8_t vector, aca_plat_handler_fn fn);
void aca_plat_vector_remove(uint8_t vector);

/* End of interrupt for a vector acart installed, on the calling CPU's interrupt
 * controller. Interrupt context. */
void aca_plat_eoi(void);

/* How the local APIC is addressed, which acart needs to route and re-arm the
 * performance-counter LVT entry. acart uses exactly the mode the platform reports and
 * never switches it. */
enum aca_apic_mode {
    ACA_APIC_XAPIC = 0,  /* memory-mapped at aca_plat_apic_mmio_base() */
    ACA_APIC_X2APIC = 1, /* MSRs 0x800.. */
};
enum aca_apic_mode aca_plat_apic_mode(void);
uintptr_t aca_plat_apic_mmio_base(void); /* xAPIC: the identity-mapped register page */

/* ---- The sampling timer (time-based sampling, where there is no usable PMU) ---- */

/* Arms a periodic timer on the calling CPU whose interrupt calls aca_sample_tick() on
 * that CPU about every `period_tsc` TSC ticks, and acknowledges itself. The platform
 * hands acart a timer it does not otherwise use (the LAPIC timer, an HPET comparator, the
 * PIT), never its scheduler tick. Called with interrupts disabled, on each CPU in turn
 * (from aca_plat_call_on_all_cpus). Returns 0, or ACA_ERR_UNSUPPORTED when the platform
 * gives acart no timer: the port then calls aca_sample_tick() from a tick it already has
 * (every tick, with the interrupted context, before it switches tasks), and acart takes
 * one sample per period_tsc at a tick drawn at random, so that the count stays exact and
 * no schedule locks on (docs/porting.md, "Sampling from your scheduler tick"). */
int aca_plat_timer_arm(uint64_t period_tsc);

/* Stops the calling CPU's sampling timer. Same context as aca_plat_timer_arm(). Called
 * after every aca_plat_timer_arm(), also one that returned ACA_ERR_UNSUPPORTED: a port
 * whose own tick samples learns here that sampling ended (and has nothing to stop). */
void aca_plat_timer_disarm(void);

/* ---- Time and stacks ---- */

/* The TSC rate in Hz; never 0 once aca_start() runs (aca_start refuses to start
 * otherwise). Any context. */
uint64_t aca_plat_tsc_hz(void);

/* The bounds [*lo, *hi) of the stack `frame` was running on: the interrupted task's own
 * stack, or the CPU's interrupt stack. Call stacks are followed only inside them.
 * Interrupt context (NMI included). Returns 0, or -1 when unknown (no call stack). */
int aca_plat_stack_bounds(const struct aca_frame *frame, uintptr_t *lo, uintptr_t *hi);

/* ---- Model-specific registers the host names ---- */

/* rdmsr/wrmsr of an MSR the CPU may not have. acart's own aca_msr_read_safe() and
 * aca_msr_write_safe() do the access; when it raises #GP, the port's #GP handler must
 * call aca_fixup_gp() (acart.h) with the faulting EIP/RIP before anything else, and resume
 * where it says. A port that cannot do that makes host-named MSRs fail cleanly only if
 * they exist. */

/* ---- Calls from the platform into acart ---- */

/* One time-based sample of the interrupted context `frame` on the calling CPU. The
 * platform's sampling timer calls it (aca_plat_timer_arm), or the port calls it from a
 * tick it already has when it gives acart no timer. Interrupt context; does nothing
 * unless a time-based collection is running. */
void aca_sample_tick(const struct aca_frame *frame);

/* For the platform's #GP handler, before anything else: when *ip is one of acart's
 * guarded MSR accesses (an MSR the host named that this CPU lacks), moves *ip to that
 * access's failure path and returns 1; the handler then returns from the exception.
 * Returns 0 for any other #GP. */
int aca_fixup_gp(uintptr_t *ip);

/* ---- Port: implemented by the RTOS port (the qemu-pc board is the worked example). ---- */

/* The task running on CPU `cpu` right now. Interrupt context (possibly NMI, on that same
 * CPU): read per-CPU state only, never lock. Return 0 and fill pid/tid, or a negative
 * value when the CPU runs no task (pid = tid = 0 is then recorded). */
int aca_port_current_task(uint32_t cpu, uint32_t *pid, uint32_t *tid);

struct aca_module_info {
    uint32_t pid;    /* 0 for modules shared by everything (the image itself) */
    uint64_t start;  /* load address */
    uint64_t length; /* bytes */
    char name[64];   /* path or name; what reports show */
};

/* Copies up to `max` modules loaded now (the image first) and returns the total. */
int aca_port_module_list(struct aca_module_info *out, int max);

/* One line of acart's own log (no newline), e.g. "acart: listening on 10.0.2.15:9321".
 * Net or task context, never interrupt context. */
void aca_port_log(const char *line);

/* Optional: lwIP's heap and pool use, read from the port's lwip_stats (whether its lwIP
 * keeps MEM_STATS and MEMP_STATS is the port's choice, so libacart never reads lwip_stats
 * itself). acart logs them when a session ends, with the pcbs it counts itself, to show
 * that the session gave back everything it took. libacart.a holds a weak default that
 * returns -1 (not known). Net context. */
struct aca_net_memory {
    uint32_t heap_used;      /* bytes of lwIP's heap (MEM_STATS) */
    uint32_t pbuf_pool_used; /* MEMP_PBUF_POOL in use */
    uint32_t tcp_segs_used;  /* MEMP_TCP_SEG in use */
    uint32_t tcp_pcbs_used;  /* MEMP_TCP_PCB in use */
};
int aca_port_net_memory(struct aca_net_memory *out);

/* ---- Interrupt attribution (optional) ----
 * A sample taken while a CPU runs an interrupt handler belongs to that handler, not to the
 * task it interrupted. The port brackets its handlers with aca_irq_enter(vector) and
 * aca_irq_exit() on the CPU that runs them (nesting up to ACA_IRQ_NEST_MAX deep is
 * followed; deeper levels count as the deepest recorded). Both are a few stores to this
 * CPU's own state, any interrupt context, no locks. Such samples carry pid ACA_IRQ_PID
 * and tid ACA_IRQ_TID(vector); aca_irq_named() (task context, once per vector) gives the
 * host a name for them, "[irq 0x2b e1000]". Samples can only land inside a handler that
 * runs with interrupts enabled, or when sampling is by NMI. */
#define ACA_IRQ_NEST_MAX 8
#define ACA_IRQ_PID      0x7fffff00u
#define ACA_IRQ_TID(v)   (0x7fff0000u | (uint8_t)(v))
void aca_irq_enter(uint8_t vector);
void aca_irq_exit(void);
void aca_irq_named(uint8_t vector, const char *name);

/* ---- Events the port reports while acart runs (any task context, not interrupts). ---- */
void aca_task_created(uint32_t pid, uint32_t tid, const char *name);
void aca_task_renamed(uint32_t pid, uint32_t tid, const char *name);
void aca_task_exited(uint32_t pid, uint32_t tid);
void aca_module_loaded(uint32_t pid, const char *name, uint64_t start, uint64_t length);
void aca_module_unloaded(uint32_t pid, uint64_t start);

/* Optional: the port's scheduler says which task it made current on the calling CPU, where
 * it makes it current, with interrupts off (as a switch is): the same pid and tid that
 * aca_port_current_task gives from then on. A few stores to this CPU's own log, no lock;
 * nothing outside a collection. The host then draws exactly when each task ran on each
 * CPU (acart export perfetto) instead of inferring it from the samples. Interrupt handlers
 * are not switches: aca_irq_enter/aca_irq_exit attribute those. */
void aca_task_switched(uint32_t pid, uint32_t tid);

/* From the port's exception report, before it prints or halts: freezes the Intel PT
 * flight recorder (aca_trace_freeze, acart.h) on the trace that led to the fault. `vector` is the
 * exception's (the host shows it). */
void aca_trace_freeze_exception(uint32_t vector);

#endif
