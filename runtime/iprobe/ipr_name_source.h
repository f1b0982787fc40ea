/* For libacart_perfmon.a (perfmon/ipr_perfmon.c) only: the interface through which
 * IPROBE takes event names from a table outside libacart.a. The runtime exports it so
 * that the binding needs none of IPROBE's internals. */
#ifndef ACART_IPR_NAME_SOURCE_H
#define ACART_IPR_NAME_SOURCE_H

#include "ipr.h"

#include <stdint.h>

/* Names beyond the architectural events: perfmon's table of the CPU's model
 * (perfmon/ipr_perfmon.c, in libacart_perfmon.a), set by aca_ipr_use_perfmon. */
struct ipr_name_source {
    uint32_t (*count)(void);
    /* Event i: its name, and 1 with its number and the general counters that can count
     * it; 0 for a name IPROBE cannot number (an event needing an extra MSR); -1 past the
     * end. */
    int (*at)(uint32_t i, const char **name, IPR_EVENT *evt, uint8_t *gp_mask);
    int32_t (*find)(const char *name); /* the index of that name (case ignored), or -1 */
    /* Event i's event select bits and the MSR it needs besides (0: none) with its value;
     * alt_evtsel: its select with MSR_OFFCORE_RSP_1, 0 when it can use only msr. */
    void (*encoding)(uint32_t i, uint32_t *evtsel, uint32_t *msr, uint64_t *value,
                     uint32_t *alt_evtsel);
};
void ipr_set_name_source(const struct ipr_name_source *src);

#endif
