/* PEBS: the per-CPU DS area and decoding of PEBS records by format. */
#include "pebs.h"

#include <stddef.h>

#include "msr.h"
#include "pmu_error.h"

/* Fixed-size record layouts, formats 0-3 (SDM vol. 3B, PEBS record formats of Core 2,
 * Nehalem, Haswell and Skylake). Every one starts RFLAGS at 0x00, the IP after the
 * sampled instruction at 0x08, then the general registers; later formats append fields.
 * Offset 0 means the field is absent. */
struct legacy_layout {
    uint16_t size;
    uint16_t counters;    /* 1-2: IA32_PERF_GLOBAL_STATUS; 3: applicable counters */
    uint16_t memory;      /* data linear address, data source, latency */
    uint16_t eventing_ip; /* the instruction that caused the event */
    uint16_t tsc;
};

static const struct legacy_layout legacy_layouts[] = {
    {0x90, 0, 0, 0, 0},
    {0xb0, 0x90, 0x98, 0, 0},
    {0xc0, 0x90, 0x98, 0xb0, 0},
    {0xc8, 0x90, 0x98, 0xb0, 0xc0},
};

/* Adaptive records (formats 4-6 with PEBS baseline): the basic group, then each group
 * selected in MSR_PEBS_DATA_CFG, in this order. The record-info field repeats the
 * selection in bits [31:0] and gives the record's size in [63:48]. */
#define ADAPTIVE_BASIC_BYTES  0x20 /* record info, IP, applicable counters, TSC */
#define ADAPTIVE_MEMORY_BYTES 0x20 /* address, data source, latency, TSX info */
#define ADAPTIVE_GPR_BYTES    0x90 /* RFLAGS, RIP, RAX..R15 */
#define ADAPTIVE_XMM_BYTES    0x100
#define ADAPTIVE_LBR_BYTES    PEBS_LBR_ENTRY_BYTES /* per entry: FROM, TO, INFO */
#define ADAPTIVE_LAST_FORMAT  6

/* Records are read in the PMI (an NMI): no libc here, whose memcpy may use SSE. The
 * builtin of constant size is inlined even under -ffreestanding (tests/lint's
 * interrupt_paths checks the objects). */
static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;

    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

int pebs_format_supported(uint8_t format, int adaptive)
{
    if (adaptive)
        return format >= 4 && format <= ADAPTIVE_LAST_FORMAT;
    return format < sizeof(legacy_layouts) / sizeof(legacy_layouts[0]);
}

static uint32_t adaptive_size(uint64_t groups)
{
    uint32_t size = ADAPTIVE_BASIC_BYTES;

    if (groups & PEBS_DATA_CFG_MEMORY)
        size += ADAPTIVE_MEMORY_BYTES;
    if (groups & PEBS_DATA_CFG_GPRS)
        size += ADAPTIVE_GPR_BYTES;
    if (groups & PEBS_DATA_CFG_XMMS)
        size += ADAPTIVE_XMM_BYTES;
    if (groups & PEBS_DATA_CFG_LBRS)
        size += ADAPTIVE_LBR_BYTES * (((uint32_t)(groups >> PEBS_DATA_CFG_LBR_SHIFT) & 0xff) + 1);
    return size;
}

uint32_t pebs_record_size(const struct pebs_caps *caps, uint64_t data_cfg)
{
    if (!pebs_format_supported(caps->format, caps->adaptive))
        return 0;
    if (caps->adaptive)
        return adaptive_size(data_cfg);
    return legacy_layouts[caps->format].size;
}

int pebs_setup_cpu(struct pebs_cpu *p, void *memory, uint32_t bytes)
{
    uint8_t *base = memory;
    volatile struct pebs_ds_area *ds = memory;

    if (!memory || ((uintptr_t)memory % PEBS_DS_ALIGN) ||
        bytes < PEBS_DS_HEADER_BYTES + ADAPTIVE_BASIC_BYTES)
        return PMU_ERR_TOO_SMALL;
    /* Runs in the start IPI: a word loop, not libc's memset. */
    for (uint32_t i = 0; i < bytes / sizeof(uint32_t); i++)
        ((volatile uint32_t *)memory)[i] = 0;
    p->ds = ds;
    p->buffer_bytes = bytes - PEBS_DS_HEADER_BYTES;
    p->record_size = 0;
    ds->pebs_base = ds->pebs_index = ds->pebs_max = ds->pebs_threshold =
        (uintptr_t)(base + PEBS_DS_HEADER_BYTES);
    msr_write(MSR_IA32_DS_AREA, (uintptr_t)memory);
    return PMU_OK;
}

int pebs_arm(struct pebs_cpu *p, uint32_t record_size)
{
    volatile struct pebs_ds_area *ds = p->ds;

    if (!ds || !record_size || record_size > p->buffer_bytes)
        return PMU_ERR_TOO_SMALL;
    p->record_size = record_size;
    ds->pebs_index = ds->pebs_base;
    ds->pebs_max = ds->pebs_base + (uint64_t)(p->buffer_bytes / record_size) * record_size;
    /* Reaching the threshold raises the PMI: one record per interrupt. */
    ds->pebs_threshold = ds->pebs_base + record_size;
    return PMU_OK;
}

/* Where counter `counter` (0-7 general, 32-35 fixed) keeps its reset value in
 * pebs_ds_area.reset under PEBS format `format`, or -1 for a counter PEBS cannot reload. */
static int reset_slot(uint8_t format, unsigned counter)
{
    if (counter < 8)
        return (int)counter;
    if (counter >= 32 && counter < 36)
        return (int)(counter - 32) + (format < 5 ? 8 : 32);
    return -1;
}

void pebs_set_reset(struct pebs_cpu *p, const struct pebs_caps *caps, unsigned counter,
                    uint64_t value)
{
    int slot = reset_slot(caps->format, counter);
    if (p->ds && slot >= 0)
        p->ds->reset[slot] = value;
}

static int decode_adaptive(const uint8_t *rec, uint32_t avail, struct pebs_sample *out)
{
    uint64_t info, groups;
    uint32_t size, off = ADAPTIVE_BASIC_BYTES;

    if (avail < ADAPTIVE_BASIC_BYTES)
        return PMU_ERR_RECORD;
    info = rd64(rec);
    groups = info & 0xffffffffull; /* [47:32] is the retire latency on timed PEBS */
    size = (uint32_t)(info >> 48);
    if ((groups & ~PEBS_DATA_CFG_VALID) || size != adaptive_size(groups) || size > avail)
        return PMU_ERR_RECORD;

    out->ip = rd64(rec + 0x08);
    out->counters = rd64(rec + 0x10);
    out->tsc = rd64(rec + 0x18);
    out->have = PEBS_IP_EXACT | PEBS_HAVE_COUNTERS | PEBS_HAVE_TSC;
    if (groups & PEBS_DATA_CFG_MEMORY) {
        out->data_address = rd64(rec + off);
        out->data_source = rd64(rec + off + 0x08);
        out->latency = rd64(rec + off + 0x10);
        out->have |= PEBS_HAVE_MEMORY;
        off += ADAPTIVE_MEMORY_BYTES;
    }
    if (groups & PEBS_DATA_CFG_GPRS) {
        out->rflags = rd64(rec + off);
        out->have |= PEBS_HAVE_RFLAGS;
        off += ADAPTIVE_GPR_BYTES;
    }
    if (groups & PEBS_DATA_CFG_XMMS)
        off += ADAPTIVE_XMM_BYTES;
    if (groups & PEBS_DATA_CFG_LBRS) {
        out->lbr = rec + off;
        out->lbr_count = ((uint32_t)(groups >> PEBS_DATA_CFG_LBR_SHIFT) & 0xff) + 1;
        out->have |= PEBS_HAVE_LBR;
    }
    out->size = size;
    return (int)size;
}

static int decode_legacy(const struct legacy_layout *l, const uint8_t *rec, uint32_t avail,
                         struct pebs_sample *out)
{
    if (avail < l->size)
        return PMU_ERR_RECORD;
    out->rflags = rd64(rec);
    out->ip = rd64(rec + 0x08);
    out->have = PEBS_HAVE_RFLAGS | PEBS_HAVE_COUNTERS;
    if (l->eventing_ip && rd64(rec + l->eventing_ip)) {
        out->ip = rd64(rec + l->eventing_ip);
        out->have |= PEBS_IP_EXACT;
    }
    /* Format 0 (Core 2) has PEBS on IA32_PMC0 only. */
    out->counters = l->counters ? rd64(rec + l->counters) : 1;
    if (l->memory) {
        out->data_address = rd64(rec + l->memory);
        out->data_source = rd64(rec + l->memory + 0x08);
        out->latency = rd64(rec + l->memory + 0x10);
        out->have |= PEBS_HAVE_MEMORY;
    }
    if (l->tsc) {
        out->tsc = rd64(rec + l->tsc);
        out->have |= PEBS_HAVE_TSC;
    }
    out->size = l->size;
    return l->size;
}

int pebs_decode(const struct pebs_caps *caps, const uint8_t *rec, uint32_t avail,
                struct pebs_sample *out)
{
    *out = (struct pebs_sample){0}; /* stores, checked by interrupt_paths */
    if (!pebs_format_supported(caps->format, caps->adaptive))
        return PMU_ERR_RECORD;
    if (caps->adaptive)
        return decode_adaptive(rec, avail, out);
    return decode_legacy(&legacy_layouts[caps->format], rec, avail, out);
}

int pebs_next(const struct pebs_cpu *p, const struct pebs_caps *caps, uint32_t *offset,
              struct pebs_sample *out)
{
    uint64_t base, index;
    uint32_t used;
    int size;

    if (!p->ds || *offset > p->buffer_bytes)
        return PEBS_NEXT_END;
    base = p->ds->pebs_base;
    index = p->ds->pebs_index;
    /* The CPU writes index; trust it only inside the buffer we gave it. Outside, how many
     * records there were is unknown: one malformed record, then the end. */
    if (index < base || index - base > p->buffer_bytes) {
        *offset = p->buffer_bytes + 1;
        return PEBS_NEXT_MALFORMED;
    }
    used = (uint32_t)(index - base);
    if (*offset >= used)
        return PEBS_NEXT_END;
    size = pebs_decode(caps, (const uint8_t *)(uintptr_t)(base + *offset), used - *offset, out);
    if (size > 0) {
        *offset += (uint32_t)size;
        return PEBS_NEXT_RECORD;
    }
    /* Every record of a session has the armed size (the format and PEBS_DATA_CFG are
     * fixed while it runs), so the next one starts a record size on. A tail shorter
     * than a record is one malformed record. */
    *offset = p->record_size && used - *offset > p->record_size ? *offset + p->record_size : used;
    return PEBS_NEXT_MALFORMED;
}

void pebs_rewind(struct pebs_cpu *p)
{
    if (p->ds)
        p->ds->pebs_index = p->ds->pebs_base;
}
