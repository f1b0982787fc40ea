#include "sampler_plan.h"

/* Every counter an ECB plans becomes one event, and one counter of the PMU plan the
 * sampler builds from the events of its group (runtime/sampling/sampler.c). */
_Static_assert(ECB_MAX_COUNTERS <= SAMPLER_MAX_EVENTS, "an event per planned counter");
_Static_assert(ECB_MAX_COUNTERS <= PMU_MAX_COUNTERS, "a PMU plan slot per planned counter");
_Static_assert(ECB_MAX_EXTRA <= PMU_MAX_EXTRA, "a PMU plan slot per extra MSR");

int sampler_group_from_plan(const struct ecb_plan *plan, uint32_t group, struct sampler_config *cfg)
{
    if (cfg->num_events + plan->num_counters > SAMPLER_MAX_EVENTS ||
        cfg->num_extra + plan->num_extra > SAMPLER_MAX_EXTRA)
        return -1;
    for (uint32_t i = 0; i < plan->num_counters; i++) {
        const struct ecb_counter *c = &plan->counters[i];
        struct sampler_event *ev = &cfg->events[cfg->num_events++];
        ev->event_index = c->event_index;
        ev->descriptor_id = c->desc_id;
        ev->sample_after = c->sample_after;
        ev->fixed = c->kind == ECB_COUNTER_FIXED;
        ev->counter = c->index;
        ev->control = c->control;
        ev->precise = (c->flags & SEP_EVREG_PRECISE) != 0;
        ev->group = group;
        ev->lbr = (c->flags & SEP_EVREG_LBR_VALUE) != 0;
        ev->slot = c->core_event_id;
        ev->load_latency = ev->precise && (c->flags & SEP_EVREG_LATENCY) != 0;
    }
    if (group == 0)
        cfg->lbr_select = plan->lbr_select; /* one LBR filter per session: the first group's */
    for (uint32_t i = 0; i < plan->num_extra; i++) {
        cfg->extra[cfg->num_extra].msr = plan->extra[i].msr;
        cfg->extra[cfg->num_extra].value = plan->extra[i].value;
        cfg->extra_group[cfg->num_extra++] = (uint8_t)group;
    }
    return 0;
}

void sampler_events_from_plan(const struct ecb_plan *plan, struct sampler_config *cfg)
{
    cfg->num_events = 0;
    cfg->num_extra = 0;
    sampler_group_from_plan(plan, 0, cfg); /* one plan always fits */
}
