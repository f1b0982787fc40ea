/* The CPUs the firmware lists: ACPI MADT processor-local-APIC (and x2APIC) entries. */
#ifndef ACART_ARCH_X86_ACPI_MADT_H
#define ACART_ARCH_X86_ACPI_MADT_H

#include <stdint.h>

/* Fills apic_ids with the enabled CPUs' APIC IDs, boot CPU included; returns how many,
 * or a negative value when no MADT was found. */
int acpi_madt_cpus(uint32_t *apic_ids, int max);

#endif
