/* The trace output in RAM: which scheme, how one block of memory is cut among the CPUs,
 * and finding PSBs in a ring. Nothing here touches an MSR or writes the memory. */
#include "pt_output.h"

#define PAGE_BYTES  4096u
#define MIN_PER_CPU (16u * 1024u)
#define PSB_BYTES   16u
#define MIN_REGIONS 4u /* ToPA regions a CPU gets at least, when its share is small */

static uint32_t pow2_floor(uint32_t v)
{
    uint32_t p = 1;

    while (p <= v / 2)
        p *= 2;
    return v ? p : 0;
}

static int choose_output(const struct pt_caps *caps, uint32_t mode, uint32_t *output)
{
    if (mode == PT_MODE_FULL) {
        /* Draining while tracing needs a PMI at each filled region and a STOP entry ahead
         * of undrained data: several ToPA entries. */
        if (!caps->topa_multi || !caps->pmi)
            return PT_ERR_FULL_NEEDS_TOPA;
        *output = PT_OUT_TOPA;
    } else if (caps->topa_multi) {
        *output = PT_OUT_TOPA;
    } else if (caps->single_range) {
        *output = PT_OUT_SINGLE;
    } else {
        *output = PT_OUT_TOPA_ONE;
    }
    return PT_OK;
}

int pt_output_layout(const struct pt_caps *caps, uint32_t mode, uint8_t *memory, uint32_t bytes,
                     uint32_t num_cpus, struct pt_layout *layout, struct pt_buffer *bufs)
{
    uint32_t output, tables, share, region, regions, per_cpu;
    uintptr_t start = (uintptr_t)memory, data, table_area;
    int err;

    if (!caps || !caps->present)
        return PT_ERR_NO_PT;
    if (!layout || !bufs || num_cpus == 0 || mode > PT_MODE_SNAPSHOT)
        return PT_ERR_INVALID;
    err = choose_output(caps, mode, &output);
    if (err)
        return err;
    if (!memory || (start & (PT_MEMORY_ALIGN - 1)) || bytes < PT_MEMORY_ALIGN)
        return PT_ERR_MEMORY;
    /* The ToPA and OUTPUT_BASE hold physical addresses of at most MAXPHYADDR bits. */
    if (caps->maxphyaddr < 64 && ((uint64_t)(start + bytes - 1) >> caps->maxphyaddr) != 0)
        return PT_ERR_MEMORY;

    /* [discard region (full mode)] [CPU 0] [CPU 1] ... [a 4 KiB ToPA table per CPU and one
     * for the discard region]: regions stay aligned to their size from the 64 KiB-aligned
     * start, tables to 4 KiB. */
    data = start + (mode == PT_MODE_FULL ? PT_DISCARD_BYTES : 0);
    tables = output == PT_OUT_SINGLE ? 0 : num_cpus + (mode == PT_MODE_FULL ? 1 : 0);
    table_area = ((start + bytes) & ~(uintptr_t)(PAGE_BYTES - 1)) - (uintptr_t)tables * PAGE_BYTES;
    if (table_area <= data || (table_area - data) / num_cpus < MIN_PER_CPU)
        return PT_ERR_MEMORY;
    share = (uint32_t)((table_area - data) / num_cpus);

    if (output == PT_OUT_TOPA) {
        region =
            share >= MIN_REGIONS * PT_REGION_MAX ? PT_REGION_MAX : pow2_floor(share / MIN_REGIONS);
        if (region < PAGE_BYTES)
            region = PAGE_BYTES;
        regions = share / region;
        if (regions > PT_TOPA_MAX_REGION)
            regions = PT_TOPA_MAX_REGION;
    } else {
        /* One region of a power-of-two size aligned to its size (single range: the base
         * must not overlap the mask; ToPA: a region is aligned to its size). */
        region = pow2_floor(share);
        while (data & (region - 1))
            region /= 2;
        if (output == PT_OUT_TOPA_ONE && region > (PAGE_BYTES << 15))
            region = PAGE_BYTES << 15; /* the entry's Size field: 4 KiB << 0..15 */
        regions = 1;
    }
    per_cpu = region * regions;
    for (uint32_t i = 0; i < num_cpus; i++) {
        struct pt_buffer *b = &bufs[i];

        b->data = (uint8_t *)(data + (uintptr_t)i * per_cpu);
        b->bytes = per_cpu;
        b->region_bytes = region;
        b->regions = regions;
        b->output = output;
        b->table = tables ? (uint64_t *)(table_area + (uintptr_t)i * PAGE_BYTES) : 0;
    }
    layout->output = output;
    layout->num_cpus = num_cpus;
    layout->discard.data = mode == PT_MODE_FULL ? memory : 0;
    layout->discard.bytes = mode == PT_MODE_FULL ? PT_DISCARD_BYTES : 0;
    layout->discard.region_bytes = layout->discard.bytes;
    layout->discard.regions = mode == PT_MODE_FULL ? 1 : 0;
    layout->discard.output = PT_OUT_TOPA;
    layout->discard.table =
        mode == PT_MODE_FULL ? (uint64_t *)(table_area + (uintptr_t)num_cpus * PAGE_BYTES) : 0;
    return PT_OK;
}

/* A PSB is the pair 02 82 eight times. */
static int psb_at(const struct pt_buffer *buf, uint32_t at)
{
    for (uint32_t j = 0; j < PSB_BYTES; j++) {
        uint32_t k = at + j;

        if (k >= buf->bytes)
            k -= buf->bytes;
        if (buf->data[k] != ((j & 1) ? 0x82 : 0x02))
            return 0;
    }
    return 1;
}

uint32_t pt_find_psb(const struct pt_buffer *buf, uint32_t from, uint32_t len)
{
    if (!buf->bytes || len < PSB_BYTES)
        return len;
    for (uint32_t k = 0; k + PSB_BYTES <= len; k++) {
        uint32_t at = from + k;

        if (at >= buf->bytes)
            at -= buf->bytes;
        if (buf->data[at] == 0x02 && psb_at(buf, at))
            return k;
    }
    return len;
}

void pt_output_write_discard(const struct pt_layout *layout)
{
    const struct pt_buffer *d = &layout->discard;
    uint32_t size = 0;

    if (!d->table)
        return;
    while ((PAGE_BYTES << size) < d->region_bytes)
        size++;
    /* One region that interrupts when full, then END back to this same table: the trace
     * unit goes round it for as long as the ring stays full. */
    d->table[0] = (uint64_t)(uintptr_t)d->data | (uint64_t)size << TOPA_SIZE_SHIFT | TOPA_INT;
    d->table[1] = (uint64_t)(uintptr_t)d->table | TOPA_END;
}
