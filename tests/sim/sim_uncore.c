/* The simulated uncore (see sim_uncore.h). */
#include "sim_uncore.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "uncore_io.h"

#define BIT(n) (1ull << (n))

#define UNC_GLOBAL_CTRL   0xe01u
#define UNC_GLOBAL_STATUS 0xe02u
#define UNC_FIXED_CTRL    0x394u
#define UNC_FIXED_CTR     0x395u
#define UNC_CBO_CONFIG    0x396u
#define UNC_ARB_CTR0      0x3b0u
#define UNC_ARB_SEL0      0x3b2u
#define UNC_CBO_SEL0      0x700u
#define UNC_CBO_CTR0      0x706u
#define UNC_CBO_STRIDE    0x10u

#define GLOBAL_VALID (0x1full | BIT(29) | BIT(30) | BIT(31))
#define GLOBAL_EN    BIT(29)
#define STATUS_VALID (BIT(0) | BIT(1) | BIT(3))
#define FIXED_VALID  (BIT(20) | BIT(22))
#define SEL_EN       BIT(22)
#define SEL_VALID    (0xffffull | BIT(18) | BIT(20) | SEL_EN | BIT(23) | (0x1full << 24))
#define QUALIFIERS   (BIT(18) | BIT(23) | (0x1full << 24))
#define CTR_MASK     (BIT(44) - 1)
#define FIXED_MASK   (BIT(48) - 1)
#define MAX_CBOS     8

static struct {
    enum sim_uncore_kind kind;
    unsigned cbos;
    uint64_t global_ctrl, global_status, fixed_ctrl, fixed_ctr;
    uint64_t arb_sel[2], arb_ctr[2];
    uint64_t cbo_sel[MAX_CBOS][2], cbo_ctr[MAX_CBOS][2];
    uint32_t imc[2]; /* client: reads, writes; Goldmont: slice 0, slice 1 */
    unsigned accesses, faults;
    char fault_text[160];
} U;

static void fault(const char *fmt, ...)
{
    if (U.faults++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(U.fault_text, sizeof(U.fault_text), fmt, ap);
        va_end(ap);
    }
}

void sim_uncore_reset(enum sim_uncore_kind kind, unsigned cbos)
{
    memset(&U, 0, sizeof(U));
    U.kind = kind;
    U.cbos = cbos > MAX_CBOS ? MAX_CBOS : cbos;
}

/* The counter an MSR names, its select, or NULL. */
static uint64_t *msr_slot(uint32_t msr, uint64_t *valid)
{
    *valid = ~0ull;
    if (U.kind != SIM_UNCORE_SKL_CLIENT)
        return NULL;
    switch (msr) {
    case UNC_GLOBAL_CTRL:
        *valid = GLOBAL_VALID;
        return &U.global_ctrl;
    case UNC_GLOBAL_STATUS:
        *valid = STATUS_VALID;
        return &U.global_status;
    case UNC_FIXED_CTRL:
        *valid = FIXED_VALID;
        return &U.fixed_ctrl;
    case UNC_FIXED_CTR:
        *valid = FIXED_MASK;
        return &U.fixed_ctr;
    }
    if (msr >= UNC_ARB_CTR0 && msr < UNC_ARB_CTR0 + 2) {
        *valid = CTR_MASK;
        return &U.arb_ctr[msr - UNC_ARB_CTR0];
    }
    if (msr >= UNC_ARB_SEL0 && msr < UNC_ARB_SEL0 + 2) {
        *valid = SEL_VALID;
        return &U.arb_sel[msr - UNC_ARB_SEL0];
    }
    if (msr >= UNC_CBO_SEL0 && msr < UNC_CBO_SEL0 + U.cbos * UNC_CBO_STRIDE) {
        unsigned n = (msr - UNC_CBO_SEL0) / UNC_CBO_STRIDE, r = msr % UNC_CBO_STRIDE;
        if (r <= 1) {
            *valid = SEL_VALID;
            return &U.cbo_sel[n][r];
        }
        if (r == 6 || r == 7) {
            *valid = CTR_MASK;
            return &U.cbo_ctr[n][r - 6];
        }
    }
    return NULL;
}

int uncore_msr_read(uint32_t msr, uint64_t *value)
{
    uint64_t valid;
    U.accesses++;
    if (U.kind == SIM_UNCORE_SKL_CLIENT && msr == UNC_CBO_CONFIG) {
        *value = U.cbos;
        return 0;
    }
    uint64_t *slot = msr_slot(msr, &valid);
    if (!slot) {
        fault("uncore rdmsr %#x: not implemented", msr);
        return -1;
    }
    *value = *slot;
    return 0;
}

int uncore_msr_write(uint32_t msr, uint64_t value)
{
    uint64_t valid;
    U.accesses++;
    if (U.kind == SIM_UNCORE_SKL_CLIENT && msr == UNC_CBO_CONFIG) {
        fault("uncore wrmsr %#x: read-only", msr);
        return -1;
    }
    uint64_t *slot = msr_slot(msr, &valid);
    if (!slot) {
        fault("uncore wrmsr %#x: not implemented", msr);
        return -1;
    }
    if (value & ~valid) {
        fault("uncore wrmsr %#x <- %#llx: reserved bits %#llx", msr, (unsigned long long)value,
              (unsigned long long)(value & ~valid));
        return -1;
    }
    *slot = value;
    return 0;
}

int uncore_pci_read32(uint8_t bus, uint8_t dev, uint8_t func, uint16_t offset, uint32_t *value)
{
    U.accesses++;
    if (U.kind != SIM_UNCORE_NONE && bus == 0 && dev == 0 && func == 0) {
        switch (offset) {
        case 0x00:
            *value = 0x8086u | (U.kind == SIM_UNCORE_GLM ? 0x5af0u : 0x1904u) << 16;
            return 0;
        case 0x48:
            *value = SIM_MCHBAR | 1u; /* MCHBAREN */
            return 0;
        case 0x4c:
            *value = 0;
            return 0;
        }
    }
    fault("PCI config read %x:%x.%x offset %#x: not modelled", bus, dev, func, offset);
    return -1;
}

int uncore_mmio_read32(uint64_t phys, uint32_t *value)
{
    U.accesses++;
    uint64_t first = U.kind == SIM_UNCORE_GLM ? SIM_MCHBAR + 0x6868u : SIM_MCHBAR + 0x5050u;
    if (U.kind != SIM_UNCORE_NONE && phys >= first && phys < first + 8 && phys % 4 == 0) {
        *value = U.imc[(phys - first) / 4];
        return 0;
    }
    fault("MMIO read %#llx: nothing modelled there", (unsigned long long)phys);
    return -1;
}

static uint64_t sel_count(uint64_t sel, uint16_t event, uint64_t n)
{
    if (!(U.global_ctrl & GLOBAL_EN) || !(sel & SEL_EN) || (sel & QUALIFIERS) ||
        (sel & 0xffff) != event)
        return 0;
    return n;
}

void sim_uncore_run(const struct sim_uncore_traffic *t)
{
    if (U.kind == SIM_UNCORE_SKL_CLIENT) {
        if ((U.global_ctrl & GLOBAL_EN) && (U.fixed_ctrl & SEL_EN))
            U.fixed_ctr = (U.fixed_ctr + t->uclk) & FIXED_MASK;
        for (unsigned i = 0; i < 2; i++)
            U.arb_ctr[i] =
                (U.arb_ctr[i] + sel_count(U.arb_sel[i], 0x0181, t->arb_requests)) & CTR_MASK;
        for (unsigned n = 0; n < U.cbos; n++)
            for (unsigned i = 0; i < 2; i++)
                U.cbo_ctr[n][i] =
                    (U.cbo_ctr[n][i] + sel_count(U.cbo_sel[n][i], 0x8f34, t->cbo_lookups[n])) &
                    CTR_MASK;
        U.imc[0] += (uint32_t)t->dram_reads;
        U.imc[1] += (uint32_t)t->dram_writes;
    } else if (U.kind == SIM_UNCORE_GLM) {
        U.imc[0] += (uint32_t)t->slice_lines[0];
        U.imc[1] += (uint32_t)t->slice_lines[1];
    }
}

uint64_t sim_uncore_msr(uint32_t msr)
{
    uint64_t valid;
    uint64_t *slot = msr_slot(msr, &valid);
    return slot ? *slot : 0;
}

unsigned sim_uncore_accesses(void)
{
    return U.accesses;
}

unsigned sim_uncore_faults(void)
{
    return U.faults;
}

const char *sim_uncore_fault_text(void)
{
    return U.faults ? U.fault_text : "";
}

void sim_uncore_clear_faults(void)
{
    U.faults = 0;
    U.fault_text[0] = 0;
}
