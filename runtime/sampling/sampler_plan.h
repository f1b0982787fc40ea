/* From the ECB's sampling plan (ecb.h) to the sampler's events (sampler.h): the one place
 * the two vocabularies meet, used by INIT_PMU and by the simulated-PMU test. */
#ifndef ACART_SAMPLER_PLAN_H
#define ACART_SAMPLER_PLAN_H

#include "ecb.h"
#include "sampler.h"

/* Replaces cfg's events with one per planned counter (at most SAMPLER_MAX_EVENTS), in plan
 * order: the event index and descriptor samples carry, the sample-after value, the
 * counter and its control, PEBS when the entry is precise. One group. */
void sampler_events_from_plan(const struct ecb_plan *plan, struct sampler_config *cfg);

/* Appends the plan of event group `group` to cfg's events and extra MSRs, as above.
 * Returns 0, or -1 (cfg unchanged) when they do not fit SAMPLER_MAX_EVENTS or
 * SAMPLER_MAX_EXTRA. */
int sampler_group_from_plan(const struct ecb_plan *plan, uint32_t group,
                            struct sampler_config *cfg);

#endif
