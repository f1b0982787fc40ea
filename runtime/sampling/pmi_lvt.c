/* See pmi_lvt.h. The only local-APIC register acart touches itself. */
#include "pmi_lvt.h"
#include "acart_opts.h"
#include "acart_platform.h"

#include "msr.h"

#define LVT_PC_OFFSET   0x340
#define X2APIC_LVT_PC   (0x800 + (LVT_PC_OFFSET >> 4))
#define LVT_DELIVER_NMI (4u << 8)
#define LVT_MASKED      (1u << 16)

/* The same entry value on every CPU; written in net context before any CPU arms. */
static uint32_t lvt_value;
/* Per CPU, written only on that CPU: routed and not masked since. */
static volatile uint8_t armed[ACA_MAX_CPUS];

static void lvt_write(uint32_t value)
{
    if (aca_plat_apic_mode() == ACA_APIC_X2APIC)
        msr_write(X2APIC_LVT_PC, value);
    else
        *(volatile uint32_t *)(aca_plat_apic_mmio_base() + LVT_PC_OFFSET) = value;
}

void pmi_lvt_route(uint32_t cpu, int use_nmi, uint8_t vector)
{
    lvt_value = use_nmi ? LVT_DELIVER_NMI : vector;
    lvt_write(lvt_value);
    if (cpu < ACA_MAX_CPUS)
        armed[cpu] = 1;
}

void pmi_lvt_unmask(uint32_t cpu)
{
    if (cpu < ACA_MAX_CPUS && armed[cpu])
        lvt_write(lvt_value);
}

void pmi_lvt_mask(uint32_t cpu)
{
    if (cpu < ACA_MAX_CPUS)
        armed[cpu] = 0;
    lvt_write(LVT_MASKED | lvt_value);
}
