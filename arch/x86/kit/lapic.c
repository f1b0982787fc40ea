/* Local APIC access in xAPIC (MMIO) or x2APIC (MSR) mode. */
#include "lapic.h"
#include "cpuid.h"
#include "io.h"
#include "msr.h"
#include "tsc.h"

#define APIC_BASE_ENABLE (1u << 11)
#define APIC_BASE_X2APIC (1u << 10)
#define X2APIC_MSR_BASE  0x800

static volatile uint32_t *xapic_mmio;
static int use_x2apic = -1;
static uint64_t timer_hz;
static uint32_t pmi_lvt = LAPIC_LVT_MASKED;

uintptr_t lapic_mmio_base(void)
{
    return (uintptr_t)xapic_mmio;
}

int lapic_x2apic_enabled(void)
{
    return use_x2apic == 1;
}

uint32_t lapic_read(uint32_t reg)
{
    if (use_x2apic == 1)
        return (uint32_t)msr_read(X2APIC_MSR_BASE + (reg >> 4));
    return xapic_mmio[reg / 4];
}

void lapic_write(uint32_t reg, uint32_t value)
{
    if (use_x2apic == 1)
        msr_write(X2APIC_MSR_BASE + (reg >> 4), value);
    else
        xapic_mmio[reg / 4] = value;
}

void lapic_init_cpu(void)
{
    uint64_t base = msr_read(MSR_IA32_APIC_BASE);

    if (use_x2apic < 0)
        use_x2apic = (cpuid(1, 0).ecx >> 21) & 1;
    base |= APIC_BASE_ENABLE;
    if (use_x2apic == 1)
        base |= APIC_BASE_X2APIC;
    else
        xapic_mmio = phys_ptr((uint32_t)base & 0xfffff000u);
    msr_write(MSR_IA32_APIC_BASE, base);

    lapic_write(LAPIC_REG_SVR, 0x100 | 0xff); /* enabled, spurious vector 0xff */
    lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_LVT_MASKED);
    lapic_write(LAPIC_REG_LVT_PC, LAPIC_LVT_MASKED);
    lapic_write(LAPIC_REG_LVT_ERROR, LAPIC_LVT_MASKED);
    lapic_write(LAPIC_REG_ESR, 0);
    lapic_write(LAPIC_REG_ESR, 0);
    lapic_eoi();
}

uint32_t lapic_id(void)
{
    uint32_t id = lapic_read(LAPIC_REG_ID);
    return use_x2apic == 1 ? id : id >> 24;
}

static void icr_send(uint32_t apic_id, uint32_t low)
{
    if (use_x2apic == 1) {
        msr_write(X2APIC_MSR_BASE + (LAPIC_REG_ICR >> 4), ((uint64_t)apic_id << 32) | low);
        return;
    }
    while (xapic_mmio[LAPIC_REG_ICR / 4] & (1u << 12)) /* delivery pending */
        cpu_relax();
    xapic_mmio[LAPIC_REG_ICR_HI / 4] = apic_id << 24;
    xapic_mmio[LAPIC_REG_ICR / 4] = low;
}

void lapic_send_init(uint32_t apic_id)
{
    icr_send(apic_id, 0x00004500); /* INIT, level assert */
}

void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
    icr_send(apic_id, 0x00004600u | page);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
    icr_send(apic_id, 0x00004000u | vector);
}

void lapic_send_ipi_all_but_self(uint8_t vector)
{
    icr_send(0, 0x000c4000u | vector); /* shorthand: all excluding self */
}

void lapic_timer_calibrate(void)
{
    /* Count the timer down for a known number of TSC cycles (about 10 ms). */
    uint64_t window = tsc_hz() / 100;
    lapic_write(LAPIC_REG_TIMER_DCR, 0xb); /* divide by 1 */
    lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_LVT_MASKED);
    lapic_write(LAPIC_REG_TIMER_ICR, 0xffffffffu);
    uint64_t t0 = rdtsc();
    while (rdtsc() - t0 < window)
        cpu_relax();
    uint32_t elapsed = 0xffffffffu - lapic_read(LAPIC_REG_TIMER_CCR);
    uint64_t t1 = rdtsc();
    lapic_write(LAPIC_REG_TIMER_ICR, 0);
    timer_hz = (uint64_t)elapsed * tsc_hz() / (t1 - t0);
}

uint64_t lapic_timer_hz(void)
{
    return timer_hz;
}

void lapic_timer_start_periodic(uint8_t vector, uint32_t period_ticks)
{
    lapic_write(LAPIC_REG_TIMER_DCR, 0xb);
    lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_TIMER_PERIODIC | vector);
    lapic_write(LAPIC_REG_TIMER_ICR, period_ticks ? period_ticks : 1);
}

void lapic_timer_stop(void)
{
    lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_LVT_MASKED);
    lapic_write(LAPIC_REG_TIMER_ICR, 0);
}

void lapic_pmi_route(int use_nmi, uint8_t vector)
{
    pmi_lvt = use_nmi ? LAPIC_LVT_NMI : vector;
    lapic_write(LAPIC_REG_LVT_PC, pmi_lvt);
}

void lapic_pmi_unmask(void)
{
    lapic_write(LAPIC_REG_LVT_PC, pmi_lvt);
}

void lapic_pmi_mask(void)
{
    lapic_write(LAPIC_REG_LVT_PC, LAPIC_LVT_MASKED | pmi_lvt);
}
