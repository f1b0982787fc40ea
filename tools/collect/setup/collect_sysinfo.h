/* The target's system configuration (the GET_SYS_CONFIG blob) as `acart collect` uses it:
 * per-CPU topology and counters for SET_CPU_TOPOLOGY and session.json, and the CPU
 * vendor. The blob comes from the network: every offset and count is checked against
 * its length before anything is read. */
#ifndef ACART_TOOLS_COLLECT_SYSINFO_H
#define ACART_TOOLS_COLLECT_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

#include "acart_wire.h"
#include "diag.h"

struct sysinfo_cpu {
    uint32_t apic_id; /* CPUID.0BH:EDX, else CPUID.01H:EBX[31:24] */
    uint16_t package, core, thread;
    uint16_t module, num_modules;
    uint32_t core_type;
    uint32_t perfmon_version, gp_counters, fixed_counters;
    uint32_t cpuid7_edx, cpuid1c_eax, cpuid1c_ebx; /* architectural LBR; 0 when absent */
};

struct sysinfo {
    char vendor[13]; /* CPUID.00H of CPU 0, "" when absent */
    uint32_t num_cpus;
    struct sysinfo_cpu *cpus; /* by CPU number */
};

/* Decodes len bytes of a GET_SYS_CONFIG reply from a target with num_cpus CPUs.
 * Returns 0, or COLLECT_DIAG_TARGET (a malformed blob) / DIAG_NOMEM with a message. */
int sysinfo_parse(const void *blob, size_t len, uint32_t num_cpus, struct sysinfo *out,
                  struct diag *d);

/* For a target without a system configuration: every CPU its own core of one package. */
int sysinfo_flat(uint32_t num_cpus, struct sysinfo *out, struct diag *d);

/* One SET_CPU_TOPOLOGY entry per CPU (out has si->num_cpus of them). The first CPU of each
 * package is its socket master, of each core its core master, of each module its module
 * master; every CPU is its own thread master. */
void sysinfo_topology(const struct sysinfo *si, struct sep_cpu_topology *out);

void sysinfo_free(struct sysinfo *si);

#endif
