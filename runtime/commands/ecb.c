/*
 * ecb.c - event control block decoding and sampling plans (see ecb.h).
 *
 * The payload arrives from the network, so it is read field by field from the byte
 * buffer (memcpy of each field at its wire offset) instead of being cast: the buffer may
 * be unaligned, may be short, and copying the 1728-byte header whole would cost stack
 * the network context does not have.
 */
#include "ecb.h"

#include <string.h>

#define ECB_HEADER_SIZE sizeof(struct sep_ecb_header)
#define ECB_ENTRY_SIZE  sizeof(struct sep_event_reg)

#define HDR(field) offsetof(struct sep_ecb_header, field)
#define REG(field) offsetof(struct sep_event_reg, field)

/* Architectural performance-monitoring MSRs the plan needs to recognise. */
#define MSR_PMC0             0xC1u
#define MSR_A_PMC0           0x4C1u
#define MSR_PERFEVTSEL0      0x186u
#define MSR_FIXED_CTR0       0x309u
#define MSR_FIXED_CTR_CTRL   0x38Du
#define MSR_PERF_GLOBAL_CTRL 0x38Fu
#define MSR_LBR_SELECT_ECB   0x1C8u

static const uint32_t extra_msrs[ECB_MAX_EXTRA] = {0x1A6u, 0x1A7u, 0x3F6u, 0x3F7u};

#define EVTSEL_INT      (1ull << 20) /* interrupt on overflow */
#define EVTSEL_IN_TXCP  (1ull << 33) /* checkpointed: rolled back when a transaction aborts */
#define FIXED_CTRL_PMI  0x8u         /* per-counter field bit 3 */
#define FIXED_CTRL_BITS 4

const char *ecb_strerror(int err)
{
    switch (err) {
    case ECB_OK:
        return "success";
    case ECB_ERR_NULL:
        return "missing argument";
    case ECB_ERR_TRUNCATED:
        return "ECB shorter than its header";
    case ECB_ERR_VERSION:
        return "unknown ECB version";
    case ECB_ERR_SIZE:
        return "ECB length is not header plus whole entries, or disagrees with size_of_allocation";
    case ECB_ERR_TOO_MANY_ENTRIES:
        return "ECB has more entries than acart keeps";
    case ECB_ERR_NUM_ENTRIES:
        return "ECB num_entries exceeds the entries sent";
    case ECB_ERR_RANGE:
        return "ECB register range outside num_entries";
    case ECB_ERR_OPERATION:
        return "ECB operation slot mistyped or outside the entries";
    case ECB_ERR_REG_TYPE:
        return "ECB entry with unknown register type";
    case ECB_ERR_NOT_CORE:
        return "ECB is not for the core PMU";
    case ECB_ERR_COUNTER:
        return "ECB data entry is not a distinct core counter MSR";
    case ECB_ERR_COUNTER_WIDTH:
        return "ECB counter width mask invalid or preload wider than the counter";
    case ECB_ERR_TXCP_SAMPLING:
        return "ECB samples a checkpointed (IN_TXCP) count: overflow, abort and rollback "
               "would loop; count it instead";
    default:
        return "unknown ECB error";
    }
}

static uint8_t rd8(const uint8_t *p)
{
    return *p;
}

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* [start, start + count) lies within [0, limit); computed in 64 bits so a hostile start
 * near UINT32_MAX cannot wrap. */
static int range_within(struct ecb_range r, uint32_t limit)
{
    return (uint64_t)r.start + r.count <= limit;
}

static struct ecb_range read_range(const uint8_t *hdr, size_t start_off, size_t count_off)
{
    struct ecb_range r = {rd32(hdr + start_off), rd32(hdr + count_off)};
    return r;
}

static int reg_type_known(uint8_t t)
{
    switch (t) {
    case SEP_REG_EMPTY:
    case SEP_REG_CCCR:
    case SEP_REG_ESCR:
    case SEP_REG_DATA:
    case SEP_REG_DATA_RO_DELTA:
    case SEP_REG_DATA_RO_SS:
    case SEP_REG_METRICS:
        return 1;
    default:
        return 0;
    }
}

static void read_entry(const uint8_t *e, struct ecb_entry *out)
{
    out->reg_type = rd8(e + REG(reg_type));
    out->prog_type = rd8(e + REG(reg_prog_type));
    out->event_index = rd16(e + REG(event_id_index));
    out->desc_id = rd16(e + REG(desc_id));
    out->flags = rd16(e + REG(flags));
    out->counter_event_offset = rd16(e + REG(counter_event_offset));
    out->core_event_id = rd32(e + REG(core_event_id));
    out->reg_id = rd32(e + REG(event_reg_id) + offsetof(struct sep_event_reg_id, reg_id));
    out->value = rd64(e + REG(reg_value));
    out->max_bits = rd64(e + REG(max_bits));
    out->counter_type = (uint8_t)rd32(e + REG(counter_type));
    out->rw_type = rd8(e + REG(reg_rw_type));
    const uint8_t *id = e + REG(event_reg_id);
    out->data_size = (uint8_t)rd32(id + offsetof(struct sep_event_reg_id, data_size));
    out->pci_bus = (uint8_t)rd32(id + offsetof(struct sep_event_reg_id, pci_bus_no));
    out->pci_dev = (uint8_t)rd32(id + offsetof(struct sep_event_reg_id, pci_dev_no));
    out->pci_func = (uint8_t)rd32(id + offsetof(struct sep_event_reg_id, pci_func_no));
}

static void read_bar(const uint8_t *hdr, struct ecb_bar *bar)
{
    const uint8_t *d = hdr + HDR(pcidev_entry_node);
    bar->bus = (uint8_t)rd32(d + offsetof(struct sep_pci_device_entry, bus_no));
    bar->dev = (uint8_t)rd32(d + offsetof(struct sep_pci_device_entry, dev_no));
    bar->func = (uint8_t)rd32(d + offsetof(struct sep_pci_device_entry, func_no));
    bar->bar_offset = (uint16_t)rd32(d + offsetof(struct sep_pci_device_entry, bar_offset));
    bar->bar_mask = rd64(d + offsetof(struct sep_pci_device_entry, bar_mask));
    bar->base_offset = rd32(d + offsetof(struct sep_pci_device_entry, base_offset_for_mmio));
}

static int decode_operations(const uint8_t *hdr, struct ecb *out)
{
    for (uint32_t i = 0; i < SEP_MAX_PMU_OPERATIONS; i++) {
        const uint8_t *op = hdr + HDR(operations) + i * sizeof(struct sep_pmu_operation);
        uint32_t type = rd32(op + offsetof(struct sep_pmu_operation, operation_type));
        struct ecb_range r = {rd32(op + offsetof(struct sep_pmu_operation, register_start)),
                              rd32(op + offsetof(struct sep_pmu_operation, register_len))};
        /* The host files operation t in slot t; an unused slot is all zero. */
        if (type != i && (type != 0 || r.start != 0 || r.count != 0))
            return ECB_ERR_OPERATION;
        if (!range_within(r, out->entry_count))
            return ECB_ERR_OPERATION;
        out->operations[i] = r;
    }
    return ECB_OK;
}

int ecb_decode(const void *bytes, size_t len, struct ecb *out)
{
    const uint8_t *hdr = bytes;

    if (bytes == NULL || out == NULL)
        return ECB_ERR_NULL;
    if (len < ECB_HEADER_SIZE)
        return ECB_ERR_TRUNCATED;
    memset(out, 0, sizeof *out);

    out->version = rd8(hdr + HDR(version));
    if (out->version != SEP_ECB_VERSION)
        return ECB_ERR_VERSION;

    size_t entry_bytes = len - ECB_HEADER_SIZE;
    out->size_of_allocation = rd32(hdr + HDR(size_of_allocation));
    if (entry_bytes % ECB_ENTRY_SIZE != 0)
        return ECB_ERR_SIZE;
    /* size_of_allocation counts header and entries; 0 means the host did not fill it. */
    if (out->size_of_allocation != 0 && out->size_of_allocation != len)
        return ECB_ERR_SIZE;
    if (entry_bytes / ECB_ENTRY_SIZE > ECB_MAX_ENTRIES)
        return ECB_ERR_TOO_MANY_ENTRIES;
    out->entry_count = (uint32_t)(entry_bytes / ECB_ENTRY_SIZE);

    out->num_entries = rd32(hdr + HDR(num_entries));
    if (out->num_entries > out->entry_count)
        return ECB_ERR_NUM_ENTRIES;

    out->flags = rd16(hdr + HDR(flags));
    out->group_id = rd32(hdr + HDR(group_id));
    out->num_events = rd32(hdr + HDR(num_events));
    out->device_type = rd32(hdr + HDR(device_type));
    out->descriptor_id = rd32(hdr + HDR(descriptor_id));
    out->group_offset = rd32(hdr + HDR(group_offset));
    read_bar(hdr, &out->bar);
    out->cccr = read_range(hdr, HDR(cccr_start), HDR(cccr_pop));
    out->escr = read_range(hdr, HDR(escr_start), HDR(escr_pop));
    out->data = read_range(hdr, HDR(data_start), HDR(data_pop));
    out->metric = read_range(hdr, HDR(metric_start), HDR(metric_pop));
    if (!range_within(out->cccr, out->num_entries) || !range_within(out->escr, out->num_entries) ||
        !range_within(out->data, out->num_entries) || !range_within(out->metric, out->num_entries))
        return ECB_ERR_RANGE;

    int err = decode_operations(hdr, out);
    if (err != ECB_OK)
        return err;

    for (uint32_t i = 0; i < out->entry_count; i++) {
        read_entry(hdr + ECB_HEADER_SIZE + (size_t)i * ECB_ENTRY_SIZE, &out->entries[i]);
        if (!reg_type_known(out->entries[i].reg_type))
            return ECB_ERR_REG_TYPE;
    }
    return ECB_OK;
}

static int is_msr_entry(const struct ecb_entry *e)
{
    return e->reg_type != SEP_REG_EMPTY && e->prog_type <= 1;
}

/* The written (non-empty) MSR entry for msr, or NULL. */
static const struct ecb_entry *find_msr(const struct ecb *ecb, uint32_t msr)
{
    for (uint32_t i = 0; i < ecb->entry_count; i++) {
        if (is_msr_entry(&ecb->entries[i]) && ecb->entries[i].reg_id == msr)
            return &ecb->entries[i];
    }
    return NULL;
}

/* Which counter an MSR is: returns 0 and fills kind/index, or -1. */
static int classify_counter(uint32_t msr, uint8_t *kind, uint8_t *index)
{
    if (msr >= MSR_PMC0 && msr < MSR_PMC0 + ECB_MAX_GENERAL) {
        *kind = ECB_COUNTER_GENERAL;
        *index = (uint8_t)(msr - MSR_PMC0);
    } else if (msr >= MSR_A_PMC0 && msr < MSR_A_PMC0 + ECB_MAX_GENERAL) {
        *kind = ECB_COUNTER_GENERAL;
        *index = (uint8_t)(msr - MSR_A_PMC0);
    } else if (msr >= MSR_FIXED_CTR0 && msr < MSR_FIXED_CTR0 + ECB_MAX_FIXED) {
        *kind = ECB_COUNTER_FIXED;
        *index = (uint8_t)(msr - MSR_FIXED_CTR0);
    } else {
        return -1;
    }
    return 0;
}

static void attach_control(const struct ecb *ecb, struct ecb_counter *c)
{
    const struct ecb_entry *ctl;

    if (c->kind == ECB_COUNTER_GENERAL) {
        c->control_msr = MSR_PERFEVTSEL0 + c->index;
        ctl = find_msr(ecb, c->control_msr);
        if (ctl == NULL)
            return;
        c->control = ctl->value;
        c->event_code = (uint8_t)(ctl->value & 0xFF);
        c->umask = (uint8_t)((ctl->value >> 8) & 0xFF);
        c->pmi = (ctl->value & EVTSEL_INT) != 0;
    } else {
        c->control_msr = MSR_FIXED_CTR_CTRL;
        ctl = find_msr(ecb, c->control_msr);
        if (ctl == NULL)
            return;
        c->control = (ctl->value >> (FIXED_CTRL_BITS * c->index)) & 0xF;
        c->pmi = (c->control & FIXED_CTRL_PMI) != 0;
    }
    c->has_control = 1;
}

static int plan_counter(const struct ecb *ecb, uint32_t entry, struct ecb_counter *c)
{
    const struct ecb_entry *e = &ecb->entries[entry];

    memset(c, 0, sizeof *c);
    if (e->prog_type > 1 || classify_counter(e->reg_id, &c->kind, &c->index) != 0)
        return ECB_ERR_COUNTER;
    /* A width mask is 2^k - 1; the counter counts up from the preload and interrupts when
     * it wraps past the mask, so the preload must fit inside it. */
    if (e->max_bits == 0 || (e->max_bits & (e->max_bits + 1)) != 0 ||
        (e->value & ~e->max_bits) != 0)
        return ECB_ERR_COUNTER_WIDTH;

    c->entry = (uint16_t)entry;
    c->event_index = e->event_index;
    c->desc_id = e->desc_id;
    c->core_event_id = e->core_event_id;
    c->flags = e->flags;
    c->msr = e->reg_id;
    c->preload = e->value;
    c->width_mask = e->max_bits;
    c->sample_after = (0 - e->value) & e->max_bits;
    if (c->sample_after == 0)
        c->sample_after = e->max_bits + 1; /* a zero preload waits a whole period */
    attach_control(ecb, c);
    /* A checkpointed count is rolled back when a transaction aborts, and the overflow's
     * PMI aborts it: sampling such a counter loops (Linux's hsw_hw_config() refuses it). */
    if (c->kind == ECB_COUNTER_GENERAL && c->pmi && (c->control & EVTSEL_IN_TXCP))
        return ECB_ERR_TXCP_SAMPLING;
    return ECB_OK;
}

int ecb_plan_sampling(const struct ecb *ecb, struct ecb_plan *plan)
{
    if (ecb == NULL || plan == NULL)
        return ECB_ERR_NULL;
    memset(plan, 0, sizeof *plan);
    if (ecb->device_type != SEP_DEVICE_CORE)
        return ECB_ERR_NOT_CORE;

    for (uint32_t i = 0; i < ecb->entry_count; i++) {
        if (ecb->entries[i].reg_type != SEP_REG_DATA)
            continue;
        /* At most ECB_MAX_COUNTERS distinct counters exist, so a full plan means the
         * next one repeats a counter. */
        if (plan->num_counters == ECB_MAX_COUNTERS)
            return ECB_ERR_COUNTER;
        struct ecb_counter *c = &plan->counters[plan->num_counters];
        int err = plan_counter(ecb, i, c);
        if (err != ECB_OK)
            return err;
        uint64_t bit = 1ull << (c->kind == ECB_COUNTER_FIXED ? 32 + c->index : c->index);
        if (plan->enable_mask & bit)
            return ECB_ERR_COUNTER;
        plan->enable_mask |= bit;
        plan->num_counters++;
    }

    for (uint32_t i = 0; i < ECB_MAX_EXTRA; i++) {
        const struct ecb_entry *x = find_msr(ecb, extra_msrs[i]);
        if (x == NULL)
            continue;
        plan->extra[plan->num_extra].msr = x->reg_id;
        plan->extra[plan->num_extra].value = x->value;
        plan->num_extra++;
    }

    const struct ecb_entry *global = find_msr(ecb, MSR_PERF_GLOBAL_CTRL);
    if (global != NULL) {
        plan->has_global_ctrl = 1;
        plan->global_ctrl = global->value;
    }
    const struct ecb_entry *lbr_select = find_msr(ecb, MSR_LBR_SELECT_ECB);
    if (lbr_select != NULL)
        plan->lbr_select = lbr_select->value;
    return ECB_OK;
}
