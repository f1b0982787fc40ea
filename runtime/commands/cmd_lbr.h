/* LBR_INFO's registers (cmd_lbr.c). */
#ifndef ACART_CMD_LBR_H
#define ACART_CMD_LBR_H

#include "acart_opts.h"
#include "collection.h"
#include "sampler.h"

#if ACA_WITH_LBR
/* INIT_PMU: the LBR registers of LBR_INFO into the sampler's configuration, when INIT
 * asked to collect and store LBRs and the first event's descriptor has an LBR area. */
void cmd_lbr_apply(const struct collection *coll, struct sampler_config *sc);
#endif

#endif
