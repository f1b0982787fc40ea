#include "sampler_plan.h"

/* Every counter an ECB plans becomes one event, and one counter of the PMU plan the
 * sampler builds from the events (runtime/sampler.c). */
_Static_assert(ECB_MAX_COUNTERS <= SAMPLER_MAX_EVENTS, "an event per planned counter");
_Static_assert(ECB_MAX_COUNTERS <= PMU_MAX_COUNTERS, "a PMU plan slot per planned counter");
_Static_assert(ECB_MAX_EXTRA <= PMU_MAX_EXTRA, "a PMU plan slot per extra MSR");

void sampler_events_from_plan(const struct ecb_plan *plan, struct sampler_config *cfg)
{
    cfg->num_events = 0;
    for (uint32_t i = 0; i < plan->num_counters && cfg->num_events < SAMPLER_MAX_EVENTS; i++) {
        const struct ecb_counter *c = &plan->counters[i];
        struct sampler_event *ev = &cfg->events[cfg->num_events++];
        ev->event_index = c->event_index;
        ev->descriptor_id = c->desc_id;
        ev->sample_after = c->sample_after;
        ev->fixed = c->kind == ECB_COUNTER_FIXED;
        ev->counter = c->index;
        ev->control = c->control;
        ev->precise = (c->flags & SEP_EVREG_PRECISE) != 0;
    }
    cfg->num_extra = plan->num_extra;
    for (uint32_t i = 0; i < plan->num_extra; i++) {
        cfg->extra[i].msr = plan->extra[i].msr;
        cfg->extra[i].value = plan->extra[i].value;
    }
}
