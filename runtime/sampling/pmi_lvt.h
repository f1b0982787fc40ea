/* The local APIC's performance-counter LVT entry, addressed the way the platform's APIC
 * is (acart_platform.h: aca_plat_apic_mode), for routing the PMI and re-arming it. */
#ifndef ACART_PMI_LVT_H
#define ACART_PMI_LVT_H

#include <stdint.h>

void pmi_lvt_route(int use_nmi, uint8_t vector); /* on the calling CPU, unmasked */
/* After a PMI: the CPU masked the entry when it delivered it. Does nothing on a CPU whose
 * entry pmi_lvt_mask() masked since it was routed: an NMI that arrives after a stop (the
 * board's, or a late one) must not arm the PMI again. */
void pmi_lvt_unmask(void);
void pmi_lvt_mask(void); /* on the calling CPU, until it is routed again */

#endif
