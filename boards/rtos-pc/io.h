/* The kernel's CPU primitives: port I/O, interrupt flag, TSC. Named io.h because the
 * qemu-pc board's NIC, PCI and UART drivers, compiled into this kernel from their own
 * folder, include "io.h" for exactly these. */
#ifndef RTOS_PC_IO_H
#define RTOS_PC_IO_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline void cpu_relax(void)
{
    __asm__ volatile("pause" ::: "memory");
}

static inline void irq_enable(void)
{
    __asm__ volatile("sti" ::: "memory");
}

static inline void irq_disable(void)
{
    __asm__ volatile("cli" ::: "memory");
}

/* Returns the previous EFLAGS/RFLAGS so irq_restore() can put IF back as it was. On this
 * one-CPU kernel, interrupts off is the lock that keeps the scheduler's lists consistent.
 * Pointer-sized: pushf/pop take the stack's width (32 bits in protected mode, 64 in long
 * mode). */
static inline uintptr_t irq_save(void)
{
    uintptr_t flags;
    __asm__ volatile("pushf; pop %0; cli" : "=r"(flags)::"memory");
    return flags;
}

static inline void irq_restore(uintptr_t flags)
{
    if (flags & (1u << 9))
        irq_enable();
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}

/* A pointer to a fixed physical address (physical = virtual: no paging on i686, the boot
 * identity map of the low 4 GiB on x86_64). The empty asm
 * hides the constant from GCC, whose bounds checks reject dereferencing literals. */
static inline void *phys_ptr(uintptr_t addr)
{
    void *p;
    __asm__("" : "=r"(p) : "0"(addr));
    return p;
}

#endif
