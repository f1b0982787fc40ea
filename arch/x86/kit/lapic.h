/* For a board that uses the kit (installed with libacart_x86.a): Local APIC, in x2APIC mode when
 * CPUID offers it, else xAPIC through MMIO. (QEMU TCG has no x2APIC; hardware and KVM usually do.)
 */
#ifndef ACART_ARCH_X86_LAPIC_H
#define ACART_ARCH_X86_LAPIC_H

#include <stdint.h>

#define LAPIC_REG_ID        0x020
#define LAPIC_REG_EOI       0x0b0
#define LAPIC_REG_SVR       0x0f0
#define LAPIC_REG_ESR       0x280
#define LAPIC_REG_ICR       0x300
#define LAPIC_REG_ICR_HI    0x310
#define LAPIC_REG_LVT_TIMER 0x320
#define LAPIC_REG_LVT_PC    0x340
#define LAPIC_REG_LVT_LINT0 0x350
#define LAPIC_REG_LVT_LINT1 0x360
#define LAPIC_REG_LVT_ERROR 0x370
#define LAPIC_REG_TIMER_ICR 0x380
#define LAPIC_REG_TIMER_CCR 0x390
#define LAPIC_REG_TIMER_DCR 0x3e0

#define LAPIC_LVT_MASKED     (1u << 16)
#define LAPIC_LVT_NMI        (4u << 8)
#define LAPIC_LVT_EXTINT     (7u << 8)
#define LAPIC_TIMER_PERIODIC (1u << 17)

/* Detects and enables the local APIC on the calling CPU; the boot CPU decides the mode
 * and every CPU then uses the same one. */
void lapic_init_cpu(void);
int lapic_x2apic_enabled(void);
uintptr_t lapic_mmio_base(void); /* xAPIC register page (identity-mapped) */
uint32_t lapic_id(void);
uint32_t lapic_read(uint32_t reg);
void lapic_write(uint32_t reg, uint32_t value);

static inline void lapic_eoi(void)
{
    lapic_write(LAPIC_REG_EOI, 0);
}

/* IPIs. Destination is an APIC ID. */
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_ipi_all_but_self(uint8_t vector);

/* LAPIC timer. The rate is measured against the TSC on the boot CPU. */
void lapic_timer_calibrate(void);
uint64_t lapic_timer_hz(void);
void lapic_timer_start_periodic(uint8_t vector, uint32_t period_ticks);
void lapic_timer_stop(void);

/* The performance-counter LVT entry: NMI delivery or a fixed vector. The CPU sets the
 * mask bit when it delivers a PMI; the handler must clear it again (lapic_pmi_unmask). */
void lapic_pmi_route(int use_nmi, uint8_t vector);
void lapic_pmi_unmask(void);
void lapic_pmi_mask(void);

#endif
