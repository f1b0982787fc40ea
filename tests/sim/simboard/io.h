/* arch/x86/cpu/io.h for the simulated board (acart_simboard): the same functions without the
 * privileged instructions a user process cannot run, and a TSC that follows real time at
 * the board's 2 GHz (the seam's aca_plat_tsc_hz), so the agent's timeouts and a host's
 * durations agree. This folder comes before arch/x86 on the include path. */
#ifndef ACART_ARCH_X86_IO_H
#define ACART_ARCH_X86_IO_H

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

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

/* No physical memory behind this board. */
static inline void *phys_ptr(uintptr_t addr)
{
    (void)addr;
    abort();
}

static inline void cpu_relax(void)
{
    sched_yield();
}

static inline void irq_enable(void) {}

static inline void irq_disable(void) {}

static inline uint32_t irq_save(void)
{
    return 0;
}

static inline void irq_restore(uint32_t flags)
{
    (void)flags;
}

static inline uint64_t rdtsc(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 2000000000ull + (uint64_t)t.tv_nsec * 2;
}

#endif
