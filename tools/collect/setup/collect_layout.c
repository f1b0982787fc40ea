/* Sample record layout and its set-up payloads (see collect_layout.h). */
#include "collect_layout.h"

#include <string.h>

#include "collect_ecb.h"

/* The family of PMU the host assumes in INIT (what the conformance suite sends). */
#define DEV_DISPATCH_ID 2

int collect_layout_init(struct collect_layout *l, uint32_t depth)
{
    if (depth > COLLECT_CALLSTACK_MAX_DEPTH)
        return -1;
    memset(l, 0, sizeof *l);
    l->sample_size = (uint32_t)sizeof(struct sep_sample_pc);
    if (depth) {
        l->callstack_offset = l->sample_size;
        l->callstack_size = depth * (uint32_t)sizeof(uint64_t);
        l->sample_size += l->callstack_size;
    }
    return 0;
}

void collect_layout_add_lbr(struct collect_layout *l, uint32_t num_regs)
{
    l->lbr_offset = l->sample_size;
    l->lbr_num_regs = num_regs;
    l->sample_size += num_regs * (uint32_t)sizeof(uint64_t);
}

void collect_layout_add_latency(struct collect_layout *l)
{
    l->latency_offset = l->sample_size;
    l->latency_size = (uint32_t)sizeof(struct sep_latency_info);
    l->sample_size += l->latency_size;
}

void collect_layout_add_stack_copy(struct collect_layout *l, uint32_t stack_bytes)
{
    l->sample_size = (l->sample_size + 7u) & ~7u; /* the area's u64s on 8 bytes */
    l->stack_copy_offset = l->sample_size;
    l->stack_copy_size = ACART_STACK_COPY_HEAD + stack_bytes;
    l->sample_size += l->stack_copy_size;
}

void collect_layout_descriptor(const struct collect_layout *l, struct sep_event_desc *out)
{
    memset(out, 0, sizeof *out);
    out->sample_size = l->sample_size;
    out->lbr_offset = l->lbr_offset;
    out->lbr_num_regs = l->lbr_num_regs;
    out->callstack_offset = l->callstack_offset;
    out->callstack_size = l->callstack_size;
    out->latency_offset_in_sample = l->latency_offset;
    out->latency_size_in_sample = l->latency_size;
    /* Fields SEP reserves: acart's target reads them once the host negotiated its
     * extensions (acart_ext.h). */
    out->reserved2 = l->stack_copy_offset;
    out->reserved3 = l->stack_copy_size;
}

void collect_layout_device(const struct collect_layout *l, uint32_t num_events,
                           struct sep_dev_config *out)
{
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->dispatch_id = DEV_DISPATCH_ID;
    /* Counts would go after everything else in the record; there are none (the record
     * ends there), so a target never writes them over the call stack. */
    out->results_offset = l->sample_size;
    out->max_gp_counters = COLLECT_ECB_GP_COUNTERS;
    out->device_type = SEP_DEVICE_CORE;
    out->num_events = num_events;
    if (l->callstack_size)
        out->enable_bit_fields = SEP_DEV_CFG_COLLECT_OS_CALLSTACKS;
    if (l->lbr_num_regs)
        out->enable_bit_fields |= SEP_DEV_CFG_COLLECT_LBRS | SEP_DEV_CFG_STORE_LBRS;
    if (l->latency_size)
        out->enable_bit_fields |= SEP_DEV_CFG_LATENCY_CAPTURE;
}

void collect_layout_event_config(const struct collect_layout *l, struct sep_event_config *out)
{
    memset(out, 0, sizeof *out);
    out->num_groups = 1;
    out->em_mode = SEP_EM_DISABLED;
    out->em_factor = -1;
    out->em_event_num = -1;
    out->sample_size = l->sample_size;
    out->max_gp_events = COLLECT_ECB_GP_COUNTERS;
    out->max_fixed_counters = COLLECT_ECB_FIXED_COUNTERS;
    out->lbr_offset = l->lbr_offset;
    out->lbr_num_regs = l->lbr_num_regs;
    out->callstack_offset = l->callstack_offset;
    out->callstack_size = l->callstack_size;
    out->latency_offset_in_sample = l->latency_offset;
    out->latency_size_in_sample = l->latency_size;
}
