/* Register access for the uncore (runtime/uncore/uncore.c): package-scope MSRs, PCI configuration
 * space and memory-mapped counters.
 *
 * On the target the MSRs are rdmsr/wrmsr through the #GP-safe path, PCI configuration reads
 * use configuration mechanism #1 (ports 0xCF8/0xCFC, which every PC chipset decodes), and
 * MMIO reads dereference the physical address: the port must map the device's BAR 1:1
 * (the kit maps all 4 GiB so, uncached above 0xC0000000) and the address must lie below
 * 4 GiB, the reach of an i686 pointer. Host tests build with ACART_SIM, where these are the
 * simulated package's (tests/sim/sim_uncore.c). Callers have checked every register
 * against the allowlist (msr_policy.h) first. Each returns 0, or -1 when the access failed
 * (#GP, an address out of reach). */
#ifndef ACART_ARCH_X86_UNCORE_IO_H
#define ACART_ARCH_X86_UNCORE_IO_H

#include <stdint.h>

#ifdef ACART_SIM
int uncore_msr_read(uint32_t msr, uint64_t *value);
int uncore_msr_write(uint32_t msr, uint64_t value);
int uncore_pci_read32(uint8_t bus, uint8_t dev, uint8_t func, uint16_t offset, uint32_t *value);
int uncore_mmio_read32(uint64_t phys, uint32_t *value);
#else
#include "io.h"
#include "msr_safe.h"

static inline int uncore_msr_read(uint32_t msr, uint64_t *value)
{
    return msr_read_safe(msr, value);
}

static inline int uncore_msr_write(uint32_t msr, uint64_t value)
{
    return msr_write_safe(msr, value);
}

static inline int uncore_pci_read32(uint8_t bus, uint8_t dev, uint8_t func, uint16_t offset,
                                    uint32_t *value)
{
    if (dev > 31 || func > 7 || offset > 0xfc || (offset & 3))
        return -1;
    uintptr_t flags = irq_save(); /* the 0xCF8/0xCFC pair must not interleave */
    outl(0xcf8,
         0x80000000u | (uint32_t)bus << 16 | (uint32_t)dev << 11 | (uint32_t)func << 8 | offset);
    *value = inl(0xcfc);
    irq_restore(flags);
    return 0;
}

static inline int uncore_mmio_read32(uint64_t phys, uint32_t *value)
{
    if (phys > 0xfffffffcull || (phys & 3))
        return -1;
    *value = *(volatile uint32_t *)phys_ptr((uintptr_t)phys);
    return 0;
}
#endif

#endif
