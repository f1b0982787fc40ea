/* CPU topology from CPUID: which package, core and SMT thread an APIC ID belongs to. */
#ifndef ACART_ARCH_X86_TOPOLOGY_H
#define ACART_ARCH_X86_TOPOLOGY_H

#include <stdint.h>

struct cpu_topology {
    uint32_t apic_id;
    uint32_t package_id;
    uint32_t core_id;   /* within the package */
    uint32_t thread_id; /* within the core */
};

/* Decodes apic_id with the calling CPU's CPUID (leaf 0xB when present, else leaves 1
 * and 4); every CPU of a homogeneous system decodes IDs the same way. */
void topology_decode(uint32_t apic_id, struct cpu_topology *out);

#endif
