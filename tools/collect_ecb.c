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
/* One counter's 4-bit field of IA32_FIXED_CTR_CTRL: count in ring 0 (bit 0) and ring 3
 * (bit 1), interrupt on overflow (bit 3). */
#define FIXED_CTRL_FIELD      0xBu
#define FIXED_CTRL_FIELD_BITS 4
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
    {"CPU_CLK_UNHALTED.REF_TSC", 2, 2200000},
    {"CPU_CLK_UNHALTED.THREAD", 1, 2000003},
    {"INST_RETIRED.ANY", 0, 2000003},
};

const char *collect_ecb_strerror(int err)
{
    switch (err) {
    case COLLECT_ECB_OK:
        return "success";
    case COLLECT_ECB_ERR_COUNT:
        return "an event group holds 1 to 3 events";
    case COLLECT_ECB_ERR_SAME_COUNTER:
        return "two events use the same counter";
    case COLLECT_ECB_ERR_SAMPLE_AFTER:
        return "the sample-after value must be 1 to 2^48-1";
    case COLLECT_ECB_ERR_BUFFER:
        return "buffer too small for an ECB";
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

int collect_ecb_build(const struct collect_event *events, size_t n, uint8_t *out, size_t cap)
{
    _Static_assert(sizeof(struct sep_ecb_header) + NUM_SLOTS * sizeof(struct sep_event_reg) ==
                       COLLECT_ECB_SIZE,
                   "ECB size");
    struct sep_ecb_header h;
    struct sep_event_reg e[NUM_SLOTS];
    uint64_t enabled = 0, fixed_ctrl = 0;

    if (n == 0 || n > COLLECT_ECB_MAX_EVENTS)
        return COLLECT_ECB_ERR_COUNT;
    if (cap < COLLECT_ECB_SIZE)
        return COLLECT_ECB_ERR_BUFFER;
    memset(&h, 0, sizeof h);
    memset(e, 0, sizeof e);

    for (size_t i = 0; i < n; i++) {
        unsigned k = events[i].def->fixed_counter;
        uint64_t sa = events[i].sample_after;
        if (sa == 0 || sa > COLLECT_ECB_MAX_SAMPLE_AFTER)
            return COLLECT_ECB_ERR_SAMPLE_AFTER;
        if (enabled & (1ull << (GLOBAL_FIXED_SHIFT + k)))
            return COLLECT_ECB_ERR_SAME_COUNTER;
        enabled |= 1ull << (GLOBAL_FIXED_SHIFT + k);
        fixed_ctrl |= (uint64_t)FIXED_CTRL_FIELD << (FIXED_CTRL_FIELD_BITS * k);
        /* The counter counts up from -sa and interrupts when it wraps. VTune marks its
         * fixed counters' DATA entries with the LBR flag too; we do as it does. */
        struct sep_event_reg *c = &e[SLOT_FIXED_COUNTERS + k];
        set_reg(c, SEP_REG_DATA, MSR_FIXED_CTR0 + k, (0 - sa) & COLLECT_ECB_MAX_SAMPLE_AFTER,
                SEP_EVREG_LBR_VALUE | SEP_EVREG_FIXED_REG);
        c->max_bits = COLLECT_ECB_MAX_SAMPLE_AFTER;
        c->event_id_index = (uint16_t)i;
    }

    set_reg(&e[SLOT_GLOBAL_CTRL], SEP_REG_CCCR, MSR_PERF_GLOBAL_CTRL, enabled, SEP_EVREG_GLOBAL);
    set_reg(&e[SLOT_GLOBAL_OVF], SEP_REG_CCCR, MSR_PERF_GLOBAL_OVF, enabled, SEP_EVREG_GLOBAL);
    set_reg(&e[SLOT_PEBS_ENABLE], SEP_REG_CCCR, MSR_PEBS_ENABLE, 0, SEP_EVREG_GLOBAL);
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
    h.group_id = 0;
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
