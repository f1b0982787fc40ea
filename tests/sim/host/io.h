/* arch/x86/cpu/io.h for the host builds of the whole runtime (acart_simboard, fuzz_control):
 * the same functions, without the privileged instructions a user process cannot run.
 * Interrupts are a no-op (nothing interrupts the simulated CPUs), port reads float high as
 * on a bus with nothing behind it, and the TSC is the program's own (host_tsc()). This
 * folder comes before arch/x86 on the include path. */
#ifndef ACART_ARCH_X86_IO_H
#define ACART_ARCH_X86_IO_H

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

static inline void outb(uint16_t port, uint8_t v)
{
    (void)port, (void)v;
}

static inline uint8_t inb(uint16_t port)
{
    (void)port;
    return 0xff;
}

static inline void outl(uint16_t port, uint32_t v)
{
    (void)port, (void)v;
}

static inline uint32_t inl(uint16_t port)
{
    (void)port;
    return 0xffffffffu;
}

/* No physical memory here: the runtime must not reach for any in the paths tested. */
static inline void *phys_ptr(uintptr_t addr)
{
    (void)addr;
    abort();
}

/* The CPUs are threads on a shared host: a CPU spinning for another lets it run. */
static inline void cpu_relax(void)
{
    sched_yield();
}

static inline void irq_enable(void) {}

static inline void irq_disable(void) {}

static inline uintptr_t irq_save(void)
{
    return 0;
}

static inline void irq_restore(uintptr_t flags)
{
    (void)flags;
}

/* The program's TSC: fuzz_control's is a counter the harness advances, so runs repeat;
 * acart_simboard's follows real time at the board's 2 GHz (the seam's aca_plat_tsc_hz), so
 * the agent's timeouts and a host's durations agree. */
uint64_t host_tsc(void);

static inline uint64_t rdtsc(void)
{
    return host_tsc();
}

#endif
