/* The local APIC's performance-counter LVT entry, addressed the way the platform's APIC
 * is (acart_platform.h: aca_plat_apic_mode), for routing the PMI and re-arming it. */
#ifndef ACART_PMI_LVT_H
#define ACART_PMI_LVT_H

#include <stdint.h>

void pmi_lvt_route(int use_nmi, uint8_t vector); /* on the calling CPU, unmasked */
void pmi_lvt_unmask(void); /* after a PMI: the CPU masked the entry when it delivered it */
void pmi_lvt_mask(void);

#endif
