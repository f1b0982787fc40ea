/* The system configuration blob (COLLECT_SYS_CONFIG / GET_SYS_CONFIG): per-CPU CPUID
 * leaves and topology, read on each CPU itself, and the CPUs' TSC offsets. */
#ifndef ACART_SYSINFO_H
#define ACART_SYSINFO_H

#include <stdint.h>

/* (Re)builds the blob; returns its size in bytes. Net context; runs code on every CPU. */
uint32_t sysinfo_build(void);
const void *sysinfo_blob(uint32_t *size);

/* TSC(cpu) - TSC(cpu 0), measured by sysinfo_build(). */
int64_t sysinfo_tsc_skew(uint32_t cpu);

#endif
