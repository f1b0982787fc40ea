/* Built-in events and their event control blocks (see collect_ecb.h).
 *
 * The layout below is a description of the core ECB VTune's SEP host sends for one event
 * group on an architectural-perfmon-v4 core. Building CPU_CLK_UNHALTED.REF_TSC with the
 * default sample-after value from it gives, byte for byte, the ECB in
 * shared/fixtures/aca (tests/collect checks that), so a target that accepts VTune's
 * ECB accepts ours, and the other fixed counters are programmed the same way. */
#include "collect_ecb.h"

#include <string.h>

#include "acart_wire.h"

#define MSR_PMC0               0xC1u
#define MSR_PERFEVTSEL0        0x186u
#define MSR_FIXED_CTR0         0x309u
#define MSR_FIXED_CTR_CTRL     0x38Du
#define MSR_PERF_GLOBAL_STATUS 0x38Eu
#define MSR_PERF_GLOBAL_CTRL   0x38Fu
#define MSR_PERF_GLOBAL_OVF    0x390u
#define MSR_PEBS_ENABLE        0x3F1u
#define MSR_DEBUGCTL           0x1D9u
#define MSR_LBR_SELECT         0x1C8u

/* IA32_DEBUGCTL: freeze LBRs (bit 11) and the counters (bit 12) while a PMI is handled. */
#define DEBUGCTL_FREEZE_ON_PMI 0x1800u
#define DEBUGCTL_LBR           0x1u /* record branches (model-specific LBRs) */
/* One counter's 4-bit field of IA32_FIXED_CTR_CTRL: count in ring 0 (bit 0) and ring 3
 * (bit 1), interrupt on overflow (bit 3). */
#define FIXED_CTRL_FIELD      0xBu
#define FIXED_CTRL_COUNTING   0x3u /* the same without the interrupt */
#define FIXED_CTRL_FIELD_BITS 4
/* IA32_PERFEVTSELx: count in ring 3 (USR) and ring 0 (OS), interrupt on overflow, enable. */
#define EVTSEL_SAMPLING ((1u << 16) | (1u << 17) | (1u << 20) | (1u << 22))
#define EVTSEL_COUNTING ((1u << 16) | (1u << 17) | (1u << 22))
/* IA32_PERF_GLOBAL_CTRL and _OVF_CTRL: fixed counter n is bit 32 + n. */
#define GLOBAL_FIXED_SHIFT 32

/* Where each register goes among the ECB's 22 entries. Slots of counters nobody uses stay
 * empty (type 0), as VTune leaves them. */
enum ecb_slot {
    SLOT_GLOBAL_CTRL = 0,
    SLOT_GLOBAL_OVF = 1,
    SLOT_PEBS_ENABLE = 2,
    SLOT_DEBUGCTL = 3,
    SLOT_FIXED_CTR_CTRL = 4,
    SLOT_EVENT_SELECTS = 5, /* the general counters' event selects */
    SLOT_FIXED_COUNTERS = 9,
    NUM_FIXED_SLOTS = COLLECT_ECB_FIXED_COUNTERS,
    SLOT_GENERAL_COUNTERS = 12,
    SLOT_EXTRAS = 16,        /* off-core response, PEBS extras ... */
    SLOT_LBR_SELECT = 20,    /* ... and the LBR filter, the last of the extras */
    SLOT_GLOBAL_STATUS = 21, /* referenced only by the GLOBAL_STATUS operation */
    NUM_SLOTS = 22,
    NUM_RANGED_SLOTS = 21, /* num_entries: the slots the cccr/escr/data ranges cover */
};

/* The header's three ranges: control registers, extras, counters. */
#define CCCR_START SLOT_GLOBAL_CTRL
#define CCCR_POP   (SLOT_FIXED_COUNTERS - SLOT_GLOBAL_CTRL)
#define ESCR_START SLOT_EXTRAS
#define ESCR_POP   (NUM_RANGED_SLOTS - SLOT_EXTRAS)
#define DATA_START SLOT_FIXED_COUNTERS
#define DATA_POP   (SLOT_EXTRAS - SLOT_FIXED_COUNTERS)

/* What the target does in each phase of programming the PMU, as entry ranges. */
static const struct sep_pmu_operation operations[] = {
    {SEP_PMU_OP_GLOBAL_REGS, SLOT_GLOBAL_CTRL, SLOT_EVENT_SELECTS - SLOT_GLOBAL_CTRL, 0, 0, 0},
    {SEP_PMU_OP_CTRL_GP, SLOT_EVENT_SELECTS, SLOT_FIXED_COUNTERS - SLOT_EVENT_SELECTS, 0, 0, 0},
    {SEP_PMU_OP_DATA_FIXED, SLOT_FIXED_COUNTERS, NUM_FIXED_SLOTS, 0, 0, 0},
    {SEP_PMU_OP_DATA_GP, SLOT_GENERAL_COUNTERS, SLOT_EXTRAS - SLOT_GENERAL_COUNTERS, 0, 0, 0},
    {SEP_PMU_OP_OCR, SLOT_EXTRAS, NUM_RANGED_SLOTS - SLOT_EXTRAS, 0, 0, 0},
    {SEP_PMU_OP_ALL_REG, 0, NUM_RANGED_SLOTS, 0, 0, 0},
    {SEP_PMU_OP_DATA_ALL, SLOT_FIXED_COUNTERS, SLOT_EXTRAS - SLOT_FIXED_COUNTERS, 0, 0, 0},
    {SEP_PMU_OP_GLOBAL_STATUS, SLOT_GLOBAL_STATUS, 1, 0, 0, 0},
};

static const struct collect_event_def builtin_events[] = {
    {.name = "CPU_CLK_UNHALTED.REF_TSC", .fixed_counter = 2, .default_sample_after = 2200000},
    {.name = "CPU_CLK_UNHALTED.THREAD", .fixed_counter = 1, .default_sample_after = 2000003},
    {.name = "INST_RETIRED.ANY", .fixed_counter = 0, .default_sample_after = 2000003},
};

const char *collect_ecb_strerror(int err)
{
    switch (err) {
    case COLLECT_ECB_OK:
        return "success";
    case COLLECT_ECB_ERR_COUNT:
        return "an event group holds 1 to 7 events (3 fixed, 4 general counters)";
    case COLLECT_ECB_ERR_SAME_COUNTER:
        return "two events use the same fixed counter";
    case COLLECT_ECB_ERR_SAMPLE_AFTER:
        return "the sample-after value must be 1 to 2^48-1";
    case COLLECT_ECB_ERR_BUFFER:
        return "buffer too small for an ECB";
    case COLLECT_ECB_ERR_GP:
        return "too many events for the general counters they can use";
    case COLLECT_ECB_ERR_EXTRA:
        return "more offcore events than the two response MSRs, or an extra MSR (load latency, "
               "frontend) wanted with two values";
    case COLLECT_ECB_ERR_PRECISE:
        return "precise (PEBS) sampling needs a general counter";
    default:
        return "unknown ECB error";
    }
}

const struct collect_event_def *collect_event_find(const char *name)
{
    for (size_t i = 0; i < sizeof builtin_events / sizeof builtin_events[0]; i++)
        if (strcmp(builtin_events[i].name, name) == 0)
            return &builtin_events[i];
    return NULL;
}

const struct collect_event_def *collect_event_at(size_t i)
{
    return i < sizeof builtin_events / sizeof builtin_events[0] ? &builtin_events[i] : NULL;
}

const struct collect_event_def *collect_event_default(void)
{
    return &builtin_events[0];
}

static void set_reg(struct sep_event_reg *e, uint8_t type, uint32_t msr, uint64_t value,
                    uint16_t flags)
{
    e->reg_type = type;
    e->event_reg_id.reg_id = msr;
    e->reg_value = value;
    e->flags = flags;
}

_Static_assert(SLOT_FIXED_COUNTERS - SLOT_EVENT_SELECTS == COLLECT_ECB_GP_COUNTERS &&
                   SLOT_EXTRAS - SLOT_GENERAL_COUNTERS == COLLECT_ECB_GP_COUNTERS &&
                   SLOT_GENERAL_COUNTERS - SLOT_FIXED_COUNTERS == COLLECT_ECB_FIXED_COUNTERS,
               "slot layout");

static unsigned bits(unsigned v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Gives general events gp[0..n) distinct counters within their masks, trying the most
 * constrained first and backtracking: at most 4 events on 4 counters. */
static int assign_gp(const struct collect_event *events, const size_t *gp, size_t n, unsigned used,
                     int *counter)
{
    if (n == 0)
        return 1;
    size_t pick = 0;
    for (size_t i = 1; i < n; i++)
        if (bits(events[gp[i]].def->gp_mask & ~used) < bits(events[gp[pick]].def->gp_mask & ~used))
            pick = i;
    size_t rest[COLLECT_ECB_MAX_EVENTS], m = 0;
    for (size_t i = 0; i < n; i++)
        if (i != pick)
            rest[m++] = gp[i];
    unsigned free_mask =
        events[gp[pick]].def->gp_mask & ~used & ((1u << COLLECT_ECB_GP_COUNTERS) - 1);
    for (unsigned k = 0; k < COLLECT_ECB_GP_COUNTERS; k++) {
        if (!(free_mask & (1u << k)))
            continue;
        counter[gp[pick]] = (int)k;
        if (assign_gp(events, rest, m, used | 1u << k, counter))
            return 1;
    }
    return 0;
}

/* The extras slot of each extra MSR, in the order the slots hold them. */
static const uint32_t extra_msrs[] = {COLLECT_ECB_MSR_OFFCORE_RSP_0, COLLECT_ECB_MSR_OFFCORE_RSP_1,
                                      COLLECT_ECB_MSR_PEBS_LD_LAT, COLLECT_ECB_MSR_PEBS_FRONTEND};
#define NUM_EXTRAS (sizeof extra_msrs / sizeof extra_msrs[0])
_Static_assert(NUM_EXTRAS == SLOT_LBR_SELECT - SLOT_EXTRAS, "an extras slot per extra MSR");

/* The event select of general event ev, and the extra MSR it claims (value in vals[]).
 * Offcore events take MSR_OFFCORE_RSP_0, the second one _1 with its alternative code. */
static int general_control(const struct collect_event_def *ev, unsigned *extras_used,
                           uint64_t *vals, uint64_t *evtsel)
{
    *evtsel = ev->evtsel;
    if (!ev->extra_msr)
        return COLLECT_ECB_OK;
    for (size_t x = 0; x < NUM_EXTRAS; x++) {
        if (extra_msrs[x] != ev->extra_msr && !(ev->extra_msr == COLLECT_ECB_MSR_OFFCORE_RSP_0 &&
                                                extra_msrs[x] == COLLECT_ECB_MSR_OFFCORE_RSP_1))
            continue;
        if (extra_msrs[x] == COLLECT_ECB_MSR_OFFCORE_RSP_1 && !ev->alt_evtsel)
            continue;
        int offcore = extra_msrs[x] == COLLECT_ECB_MSR_OFFCORE_RSP_0 ||
                      extra_msrs[x] == COLLECT_ECB_MSR_OFFCORE_RSP_1;
        if (*extras_used & (1u << x)) {
            /* Load latency and frontend events share their MSR when they agree on it. */
            if (!offcore && vals[x] == ev->extra_value)
                return COLLECT_ECB_OK;
            continue;
        }
        *extras_used |= 1u << x;
        vals[x] = ev->extra_value;
        if (extra_msrs[x] == COLLECT_ECB_MSR_OFFCORE_RSP_1)
            *evtsel = ev->alt_evtsel;
        return COLLECT_ECB_OK;
    }
    return COLLECT_ECB_ERR_EXTRA;
}

void collect_ecb_ask_lbr(uint8_t *ecb, uint64_t lbr_select)
{
    struct sep_event_reg e;
    uint8_t *at = ecb + sizeof(struct sep_ecb_header);
    memcpy(&e, at + SLOT_LBR_SELECT * sizeof e, sizeof e);
    e.reg_value = lbr_select;
    memcpy(at + SLOT_LBR_SELECT * sizeof e, &e, sizeof e);
    memcpy(&e, at + SLOT_DEBUGCTL * sizeof e, sizeof e);
    e.reg_value |= DEBUGCTL_LBR;
    memcpy(at + SLOT_DEBUGCTL * sizeof e, &e, sizeof e);
    /* The fixed counters carry the LBR flag already; the general ones get it here, or
     * their samples would carry no LBRs. */
    for (unsigned k = 0; k < COLLECT_ECB_GP_COUNTERS; k++) {
        uint8_t *slot = at + (SLOT_GENERAL_COUNTERS + k) * sizeof e;
        memcpy(&e, slot, sizeof e);
        if (e.reg_type != SEP_REG_DATA)
            continue;
        e.flags |= SEP_EVREG_LBR_VALUE;
        memcpy(slot, &e, sizeof e);
    }
}

int collect_ecb_build(const struct collect_event *events, size_t n, uint8_t *out, size_t cap)
{
    return collect_ecb_build_group(events, n, 0, 0, out, cap);
}

static int build(const struct collect_event *events, size_t n, uint32_t group, uint32_t first_index,
                 int counting, uint8_t *out, size_t cap);

int collect_ecb_build_group(const struct collect_event *events, size_t n, uint32_t group,
                            uint32_t first_index, uint8_t *out, size_t cap)
{
    return build(events, n, group, first_index, 0, out, cap);
}

int collect_ecb_build_counts(const struct collect_event *events, size_t n, uint32_t group,
                             uint32_t first_index, uint8_t *out, size_t cap)
{
    return build(events, n, group, first_index, 1, out, cap);
}

static int build(const struct collect_event *events, size_t n, uint32_t group, uint32_t first_index,
                 int counting, uint8_t *out, size_t cap)
{
    _Static_assert(sizeof(struct sep_ecb_header) + NUM_SLOTS * sizeof(struct sep_event_reg) ==
                       COLLECT_ECB_SIZE,
                   "ECB size");
    struct sep_ecb_header h;
    struct sep_event_reg e[NUM_SLOTS];
    uint64_t enabled = 0, fixed_ctrl = 0, pebs = 0, extra_vals[NUM_EXTRAS] = {0};
    unsigned extras_used = 0;
    size_t gp[COLLECT_ECB_MAX_EVENTS], num_gp = 0;
    int counter[COLLECT_ECB_MAX_EVENTS];

    if (n == 0 || n > COLLECT_ECB_MAX_EVENTS)
        return COLLECT_ECB_ERR_COUNT;
    if (cap < COLLECT_ECB_SIZE)
        return COLLECT_ECB_ERR_BUFFER;
    memset(&h, 0, sizeof h);
    memset(e, 0, sizeof e);

    for (size_t i = 0; i < n; i++) {
        uint64_t sa = events[i].sample_after;
        if (sa == 0 || sa > COLLECT_ECB_MAX_SAMPLE_AFTER)
            return COLLECT_ECB_ERR_SAMPLE_AFTER;
        if (events[i].def->fixed_counter == COLLECT_ECB_NO_FIXED)
            gp[num_gp++] = i;
        else if (events[i].def->precise)
            return COLLECT_ECB_ERR_PRECISE;
    }
    if (num_gp > COLLECT_ECB_GP_COUNTERS || !assign_gp(events, gp, num_gp, 0, counter))
        return COLLECT_ECB_ERR_GP;

    for (size_t i = 0; i < n; i++) {
        const struct collect_event_def *def = events[i].def;
        uint64_t sa = events[i].sample_after;
        struct sep_event_reg *c;
        if (def->fixed_counter == COLLECT_ECB_NO_FIXED) {
            unsigned k = (unsigned)counter[i];
            uint64_t evtsel;
            int err = general_control(def, &extras_used, extra_vals, &evtsel);
            if (err)
                return err;
            enabled |= 1ull << k;
            if (def->precise)
                pebs |= 1ull << k;
            set_reg(&e[SLOT_EVENT_SELECTS + k], SEP_REG_CCCR, MSR_PERFEVTSEL0 + k,
                    evtsel | (counting ? EVTSEL_COUNTING : EVTSEL_SAMPLING), SEP_EVREG_CLEAN_UP);
            c = &e[SLOT_GENERAL_COUNTERS + k];
            /* A precise load-latency event is marked as the reference marks it
             * (EVENT_REG_latency_bit): its samples carry the load's memory information. */
            uint16_t flags = SEP_EVREG_IS_GP_REG;
            if (def->precise)
                flags |= SEP_EVREG_PRECISE;
            if (def->precise && def->extra_msr == COLLECT_ECB_MSR_PEBS_LD_LAT)
                flags |= SEP_EVREG_LATENCY;
            set_reg(c, SEP_REG_DATA, MSR_PMC0 + k,
                    counting ? 0 : (0 - sa) & COLLECT_ECB_MAX_SAMPLE_AFTER, flags);
        } else {
            unsigned k = def->fixed_counter;
            if (k >= COLLECT_ECB_FIXED_COUNTERS || (enabled & (1ull << (GLOBAL_FIXED_SHIFT + k))))
                return COLLECT_ECB_ERR_SAME_COUNTER;
            enabled |= 1ull << (GLOBAL_FIXED_SHIFT + k);
            fixed_ctrl |= (uint64_t)(counting ? FIXED_CTRL_COUNTING : FIXED_CTRL_FIELD)
                          << (FIXED_CTRL_FIELD_BITS * k);
            /* The counter counts up from -sa and interrupts when it wraps. VTune marks its
             * fixed counters' DATA entries with the LBR flag too; we do as it does. */
            c = &e[SLOT_FIXED_COUNTERS + k];
            set_reg(c, SEP_REG_DATA, MSR_FIXED_CTR0 + k,
                    counting ? 0 : (0 - sa) & COLLECT_ECB_MAX_SAMPLE_AFTER,
                    SEP_EVREG_LBR_VALUE | SEP_EVREG_FIXED_REG);
        }
        c->max_bits = COLLECT_ECB_MAX_SAMPLE_AFTER;
        c->event_id_index = (uint16_t)(first_index + i);
        c->desc_id = (uint16_t)group;
        c->core_event_id = first_index + (uint32_t)i;
    }
    /* Zeroed when the collection ends, like the event selects. */
    for (size_t x = 0; x < NUM_EXTRAS; x++)
        if (extras_used & (1u << x))
            set_reg(&e[SLOT_EXTRAS + x], SEP_REG_ESCR, extra_msrs[x], extra_vals[x],
                    SEP_EVREG_CLEAN_UP);

    set_reg(&e[SLOT_GLOBAL_CTRL], SEP_REG_CCCR, MSR_PERF_GLOBAL_CTRL, enabled, SEP_EVREG_GLOBAL);
    set_reg(&e[SLOT_GLOBAL_OVF], SEP_REG_CCCR, MSR_PERF_GLOBAL_OVF, enabled, SEP_EVREG_GLOBAL);
    set_reg(&e[SLOT_PEBS_ENABLE], SEP_REG_CCCR, MSR_PEBS_ENABLE, pebs, SEP_EVREG_GLOBAL);
    set_reg(&e[SLOT_DEBUGCTL], SEP_REG_CCCR, MSR_DEBUGCTL, DEBUGCTL_FREEZE_ON_PMI,
            SEP_EVREG_GLOBAL);
    /* Zeroed when the collection ends, so the counters stop whatever the target does. */
    set_reg(&e[SLOT_FIXED_CTR_CTRL], SEP_REG_CCCR, MSR_FIXED_CTR_CTRL, fixed_ctrl,
            SEP_EVREG_GLOBAL | SEP_EVREG_CLEAN_UP);
    set_reg(&e[SLOT_LBR_SELECT], SEP_REG_ESCR, MSR_LBR_SELECT, 0, SEP_EVREG_GLOBAL);
    /* Named but not written: the target reads it to find which counter overflowed. */
    set_reg(&e[SLOT_GLOBAL_STATUS], SEP_REG_EMPTY, MSR_PERF_GLOBAL_STATUS, 0, 0);

    h.version = SEP_ECB_VERSION;
    h.num_entries = NUM_RANGED_SLOTS;
    h.group_id = group;
    h.num_events = (uint32_t)n;
    h.cccr_start = CCCR_START;
    h.cccr_pop = CCCR_POP;
    h.escr_start = ESCR_START;
    h.escr_pop = ESCR_POP;
    h.data_start = DATA_START;
    h.data_pop = DATA_POP;
    h.size_of_allocation = COLLECT_ECB_SIZE;
    h.device_type = SEP_DEVICE_CORE;
    for (size_t i = 0; i < sizeof operations / sizeof operations[0]; i++)
        h.operations[operations[i].operation_type] = operations[i];

    memcpy(out, &h, sizeof h);
    memcpy(out + sizeof h, e, sizeof e);
    return COLLECT_ECB_SIZE;
}
