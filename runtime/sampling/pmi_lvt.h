/* The local APIC's performance-counter LVT entry, addressed the way the platform's APIC
 * is (acart_platform.h: aca_plat_apic_mode), for routing the PMI and re-arming it. */
#ifndef ACART_PMI_LVT_H
#define ACART_PMI_LVT_H

#include <stdint.h>

/* Each on the calling CPU, `cpu` (its aca_plat_cpu_index(), which every caller has). */
void pmi_lvt_route(uint32_t cpu, int use_nmi, uint8_t vector); /* unmasked */
/* After a PMI: the CPU masked the entry when it delivered it. Does nothing on a CPU whose
 * entry pmi_lvt_mask() masked since it was routed: an NMI that arrives after a stop (the
 * board's, or a late one) must not arm the PMI again. */
void pmi_lvt_unmask(uint32_t cpu);
void pmi_lvt_mask(uint32_t cpu); /* until it is routed again */

#endif
