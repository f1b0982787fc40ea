/* IPROBE: the functions of ipr_events.c that the other IPROBE files call. */
#ifndef ACART_IPR_EVENTS_H
#define ACART_IPR_EVENTS_H

#include "ipr_state.h"
#include "ipr_name_source.h"

int ipr_event_known(IPR_EVENT evt);          /* in the table and on this CPU */
int ipr_event_fixed(IPR_EVENT evt);          /* fixed counter j, or -1 */
int ipr_event_gp(IPR_EVENT evt);             /* countable on a GP counter */
IPR_STATUS ipr_event_check(IPR_EVENT evt);   /* IPR__SUCCESS or IPR__INVEVENT */
IPR_CTRMASK ipr_counters_for(IPR_EVENT evt); /* counters that can count it */

/* What to program for evt on a general counter: its event select bits, and the extra MSR
 * it needs (extra->msr 0: none; alt_evtsel as in struct ipr_name_source). */
void ipr_event_encoding(IPR_EVENT evt, uint32_t *evtsel, struct pmu_extra_msr *extra,
                        uint32_t *alt_evtsel);

#endif
