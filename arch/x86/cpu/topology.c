#include "topology.h"
#include "cpuid.h"

static uint32_t bits_for(uint32_t count)
{
    uint32_t b = 0;
    while ((1u << b) < count)
        b++;
    return b;
}

void topology_decode(uint32_t apic_id, struct cpu_topology *out)
{
    uint32_t smt_bits = 0, core_bits = 0;
    uint32_t max = cpuid_max_leaf();

    if (max >= 0xb && cpuid(0xb, 0).ebx != 0) {
        /* Level 0 is SMT; the first level of type core gives the package shift. */
        smt_bits = cpuid(0xb, 0).eax & 0x1f;
        uint32_t pkg_shift = smt_bits;
        for (uint32_t level = 1; level < 8; level++) {
            struct cpuid_regs r = cpuid(0xb, level);
            uint32_t type = (r.ecx >> 8) & 0xff;
            if (type == 0)
                break;
            pkg_shift = r.eax & 0x1f;
        }
        core_bits = pkg_shift - smt_bits;
    } else {
        struct cpuid_regs r1 = cpuid(1, 0);
        uint32_t logical = (r1.edx & (1u << 28)) ? (r1.ebx >> 16) & 0xff : 1;
        uint32_t cores = 1;
        if (max >= 4)
            cores = ((cpuid(4, 0).eax >> 26) & 0x3f) + 1;
        if (logical < cores)
            logical = cores;
        core_bits = bits_for(cores);
        smt_bits = bits_for(logical / cores);
    }
    out->apic_id = apic_id;
    out->thread_id = apic_id & ((1u << smt_bits) - 1);
    out->core_id = (apic_id >> smt_bits) & ((1u << core_bits) - 1);
    out->package_id = apic_id >> (smt_bits + core_bits);
}
