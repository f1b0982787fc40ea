/* One CPU's trace unit: its IA32_RTIT_* MSRs, the ToPA PMI and the stop or freeze.
 *
 * The SDM's rules this file keeps: every IA32_RTIT_* MSR but IA32_RTIT_CTL is written
 * only while TraceEn is clear, and IA32_RTIT_CTL changes only together with clearing
 * TraceEn or to set it (any other write with TraceEn set is a #GP); the ToPA table is
 * changed only while TraceEn is clear (the unit caches entries); OUTPUT_BASE and
 * OUTPUT_MASK_PTRS are read only with TraceEn clear (they lag behind otherwise). The ToPA
 * PMI follows the SDM's algorithm: clear TraceEn, look, acknowledge bit 55 of
 * IA32_PERF_GLOBAL_STATUS, set TraceEn again.
 *
 * Full mode keeps every byte it can. Each ring region has INT, so each filled region
 * reaches the handler, which counts it (regions_done) for the net context to send; the
 * entry of the last region before undrained data has STOP, so the unit stops rather than
 * overwrite what the host has not received. When it stops, the handler points the unit
 * at the discard region (one region, END back to itself, INT) and counts what goes there
 * as lost (a lower bound: between the STOP and the PMI the unit writes nothing, and what
 * the code ran meanwhile is gone uncounted; a loss with nothing counted is reported as of
 * unknown size), until the net context has freed half the ring; the unit then comes back to
 * the ring with PacketByteCnt cleared, so its first packets are a PSB+ the decoder can
 * synchronise on. Snapshot mode lets the ring wrap; INT on its last region counts wraps. */
#include "pt_cpu.h"

#include "msr.h"
#include "pmu.h"

static uint64_t phys(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* The ToPA Size field of a region: bytes = 4 KiB << size. */
static uint64_t size_field(uint32_t bytes)
{
    uint64_t size = 0;

    while ((4096u << size) < bytes)
        size++;
    return size << TOPA_SIZE_SHIFT;
}

static int claim(struct pt_cpu *c, uint32_t from, uint32_t to)
{
    uint32_t expected = from;

    return __atomic_compare_exchange_n(&c->state, &expected, to, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

static void set_state(struct pt_cpu *c, uint32_t state)
{
    __atomic_store_n(&c->state, state, __ATOMIC_RELEASE);
}

void pt_cpu_init(struct pt_cpu *c, const struct pt_caps *caps, const struct pt_buffer *buf,
                 const struct pt_buffer *discard, const struct pt_config *cfg, uint64_t ctl)
{
    pmu_zero(c, sizeof(*c));
    c->caps = caps;
    c->buf = *buf;
    c->discard = discard;
    c->ctl = ctl & ~RTIT_CTL_TRACE_EN;
    c->mode = cfg->mode;
    c->stop_entry = buf->regions; /* none */
}

/* Full mode: STOP on the last region the unit may fill before the oldest unsent one. */
static void place_stop(struct pt_cpu *c)
{
    uint32_t regions = c->buf.regions;
    uint32_t freed = __atomic_load_n(&c->regions_freed, __ATOMIC_ACQUIRE);
    uint32_t last = (freed + regions - 1) % regions;

    if (last == c->stop_entry)
        return;
    if (c->stop_entry < regions)
        c->buf.table[c->stop_entry] &= ~TOPA_STOP;
    c->buf.table[last] |= TOPA_STOP;
    c->stop_entry = last;
}

static void write_ring_table(struct pt_cpu *c)
{
    const struct pt_buffer *b = &c->buf;
    uint64_t size = size_field(b->region_bytes);

    for (uint32_t i = 0; i < b->regions; i++) {
        uint64_t e = phys(b->data + (uintptr_t)i * b->region_bytes) | size;

        /* Full mode: every region reports; snapshot: the last one, to count wraps. */
        if (c->mode == PT_MODE_FULL || i == b->regions - 1)
            e |= TOPA_INT;
        b->table[i] = e;
    }
    b->table[b->regions] = phys(b->table) | TOPA_END;
}

void pt_cpu_program(struct pt_cpu *c, const struct pt_config *cfg)
{
    const struct pt_buffer *b = &c->buf;
    uint64_t ctl = msr_read(MSR_IA32_RTIT_CTL);

    if (ctl & RTIT_CTL_TRACE_EN)
        msr_write(MSR_IA32_RTIT_CTL, ctl & ~RTIT_CTL_TRACE_EN);
    /* Zeroed, so a PSB found in a single-range ring past the write offset can only be
     * from an earlier lap (pt_cpu_snapshot). */
    pmu_zero(b->data, b->bytes);
    if (b->output == PT_OUT_TOPA) {
        write_ring_table(c);
        if (c->mode == PT_MODE_FULL)
            place_stop(c);
    } else if (b->output == PT_OUT_TOPA_ONE) {
        /* The one entry these CPUs allow, then END back to the table's base. */
        b->table[0] = phys(b->data) | size_field(b->bytes);
        b->table[1] = phys(b->table) | TOPA_END;
    }
    msr_write(MSR_IA32_RTIT_STATUS, 0);
    for (uint32_t n = 0; n < cfg->num_ranges && n < PT_MAX_RANGES; n++) {
        msr_write(MSR_IA32_RTIT_ADDR0_A + 2 * n, cfg->ranges[n].start);
        msr_write(MSR_IA32_RTIT_ADDR0_A + 2 * n + 1, cfg->ranges[n].end);
    }
    if (b->output == PT_OUT_SINGLE) {
        msr_write(MSR_IA32_RTIT_OUTPUT_BASE, phys(b->data));
        msr_write(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, (uint64_t)(b->bytes - 1) | RTIT_MASK_LOWER);
    } else {
        msr_write(MSR_IA32_RTIT_OUTPUT_BASE, phys(b->table));
        msr_write(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, RTIT_MASK_LOWER);
    }
    msr_write(MSR_IA32_RTIT_CTL, c->ctl);
    set_state(c, PT_CPU_IDLE);
}

void pt_cpu_start(struct pt_cpu *c)
{
    if (claim(c, PT_CPU_IDLE, PT_CPU_TRACING))
        msr_write(MSR_IA32_RTIT_CTL, c->ctl | RTIT_CTL_TRACE_EN);
}

void pt_cpu_pause(struct pt_cpu *c)
{
    if (claim(c, PT_CPU_TRACING, PT_CPU_PAUSED))
        msr_write(MSR_IA32_RTIT_CTL, c->ctl);
}

void pt_cpu_resume(struct pt_cpu *c)
{
    if (claim(c, PT_CPU_PAUSED, PT_CPU_TRACING))
        msr_write(MSR_IA32_RTIT_CTL, c->ctl | RTIT_CTL_TRACE_EN);
}

static void record_loss(struct pt_cpu *c, uint64_t offset, uint64_t bytes)
{
    uint32_t n = c->num_losses;

    c->lost_bytes += bytes;
    c->lost_events++;
    if (!bytes)
        c->lost_unknown++;
    if (n - __atomic_load_n(&c->losses_sent, __ATOMIC_ACQUIRE) >= PT_MAX_LOSSES) {
        c->unrecorded++;
        return;
    }
    c->losses[n % PT_MAX_LOSSES].offset = offset;
    c->losses[n % PT_MAX_LOSSES].bytes = bytes;
    __atomic_store_n(&c->num_losses, n + 1, __ATOMIC_RELEASE);
}

static uint64_t kept_bytes(const struct pt_cpu *c)
{
    return (uint64_t)c->regions_done * c->buf.region_bytes;
}

static uint32_t regions_used(const struct pt_cpu *c)
{
    return c->regions_done - __atomic_load_n(&c->regions_freed, __ATOMIC_ACQUIRE);
}

/* Back from the discard region (or from a stop) into the ring, at the start of the
 * region after the last one kept, with PacketByteCnt 0: the unit begins with a PSB+. */
static void enter_ring(struct pt_cpu *c)
{
    c->discarding = 0;
    place_stop(c);
    msr_write(MSR_IA32_RTIT_OUTPUT_BASE, phys(c->buf.table));
    msr_write(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, (uint64_t)c->region << 7 | RTIT_MASK_LOWER);
    msr_write(MSR_IA32_RTIT_STATUS, 0);
}

static void enter_discard(struct pt_cpu *c)
{
    c->discarding = 1;
    c->loss_offset = kept_bytes(c);
    c->discard_laps = 0;
    msr_write(MSR_IA32_RTIT_OUTPUT_BASE, phys(c->discard->table));
    msr_write(MSR_IA32_RTIT_OUTPUT_MASK_PTRS, RTIT_MASK_LOWER);
    msr_write(MSR_IA32_RTIT_STATUS, 0);
}

/* Full mode, TraceEn clear: where the unit got to. `final`: it will not trace again. */
static void account_full(struct pt_cpu *c, int final)
{
    uint64_t status = msr_read(MSR_IA32_RTIT_STATUS);
    uint64_t mask = msr_read(MSR_IA32_RTIT_OUTPUT_MASK_PTRS);
    uint32_t index = (uint32_t)mask >> 7, offset = (uint32_t)(mask >> 32);
    uint32_t regions = c->buf.regions;

    if (status & RTIT_STATUS_ERROR)
        c->errors++;
    if (c->discarding) {
        uint64_t lost = c->discard_laps * c->discard->region_bytes + offset;

        /* Back to the ring once half of it is free, so one slow drain does not make the
         * unit bounce between the two at every region. */
        if (final || regions - regions_used(c) >= (regions + 1) / 2) {
            record_loss(c, c->loss_offset, lost);
            if (!final)
                enter_ring(c);
            c->discarding = 0;
            c->tail = 0;
        }
        return;
    }
    int stopped = (status & RTIT_STATUS_STOPPED) != 0;
    uint32_t filled = (index + regions - c->region) % regions + (stopped ? 1 : 0);

    if (index >= regions)
        filled = 0; /* not a ring entry: an operational error left it there */
    __atomic_store_n(&c->regions_done, c->regions_done + filled, __ATOMIC_RELEASE);
    c->region = (c->region + filled) % regions;
    if (final) {
        c->tail = stopped || index >= regions ? 0 : offset;
        if (stopped) /* the trace between the ring filling and now is gone, size unknown */
            record_loss(c, kept_bytes(c), 0);
    } else if (stopped) {
        if (regions_used(c) < regions) {
            /* The drain freed room since the STOP was placed: back at once, but the
             * trace between the stop and this interrupt is gone. */
            record_loss(c, kept_bytes(c), 0);
            enter_ring(c);
        } else {
            enter_discard(c);
        }
    } else {
        place_stop(c);
    }
}

/* Snapshot mode, TraceEn clear: the ring's write offset. */
static void account_snapshot(struct pt_cpu *c)
{
    uint64_t status = msr_read(MSR_IA32_RTIT_STATUS);
    uint64_t mask = msr_read(MSR_IA32_RTIT_OUTPUT_MASK_PTRS);
    uint32_t offset = (uint32_t)(mask >> 32);

    if (status & RTIT_STATUS_ERROR)
        c->errors++;
    if (c->buf.output == PT_OUT_TOPA) {
        uint32_t index = (uint32_t)mask >> 7;

        offset = index < c->buf.regions ? index * c->buf.region_bytes + offset : 0;
    }
    c->tail = offset < c->buf.bytes ? offset : 0;
}

/* A ToPA PMI raised and not yet taken (IA32_PERF_GLOBAL_STATUS bit 55): taken here. */
static int take_pending_pmi(const struct pt_cpu *c)
{
    if (!c->caps->pmi || !(msr_read(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_TRACE_TOPA))
        return 0;
    msr_write(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_STATUS_TRACE_TOPA);
    return 1;
}

static void finish(struct pt_cpu *c, uint64_t tsc)
{
    int pending = take_pending_pmi(c);

    if (c->mode == PT_MODE_FULL) {
        if (pending && c->discarding)
            c->discard_laps++;
        account_full(c, 1);
    } else {
        if (pending)
            c->wraps++;
        account_snapshot(c);
    }
    c->done_tsc = tsc;
    set_state(c, PT_CPU_DONE);
}

int pt_cpu_stop(struct pt_cpu *c, uint64_t tsc)
{
    for (;;) {
        uint32_t s = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);

        if (s == PT_CPU_BUSY) {
            /* We interrupted the PMI handler on this CPU: it stops when it is done. */
            c->done_tsc = tsc;
            __atomic_store_n(&c->stop_pending, 1, __ATOMIC_RELEASE);
            return 1;
        }
        if (s != PT_CPU_TRACING && s != PT_CPU_PAUSED)
            return 0;
        if (claim(c, s, PT_CPU_BUSY))
            break;
    }
    msr_write(MSR_IA32_RTIT_CTL, c->ctl);
    finish(c, tsc);
    return 1;
}

int pt_cpu_pmi(struct pt_cpu *c)
{
    uint32_t was;

    if (!c->caps || !c->caps->pmi ||
        !(msr_read(MSR_IA32_PERF_GLOBAL_STATUS) & GLOBAL_STATUS_TRACE_TOPA))
        return 0;
    c->pmis++;
    if (claim(c, PT_CPU_TRACING, PT_CPU_BUSY))
        was = PT_CPU_TRACING;
    else if (claim(c, PT_CPU_PAUSED, PT_CPU_BUSY))
        was = PT_CPU_PAUSED;
    else {
        /* Stopped or never started: only the status bit to clear. */
        msr_write(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_STATUS_TRACE_TOPA);
        return 1;
    }
    if (c->mode == PT_MODE_SNAPSHOT) {
        /* Nothing to move: the ring wraps by itself; count the lap. */
        c->wraps++;
        msr_write(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_STATUS_TRACE_TOPA);
    } else {
        if (was == PT_CPU_TRACING)
            msr_write(MSR_IA32_RTIT_CTL, c->ctl);
        if (c->discarding)
            c->discard_laps++;
        account_full(c, 0);
        msr_write(MSR_IA32_PERF_GLOBAL_OVF_CTRL, GLOBAL_STATUS_TRACE_TOPA);
        if (was == PT_CPU_TRACING && !c->stop_pending)
            msr_write(MSR_IA32_RTIT_CTL, c->ctl | RTIT_CTL_TRACE_EN);
    }
    if (__atomic_load_n(&c->stop_pending, __ATOMIC_ACQUIRE)) {
        msr_write(MSR_IA32_RTIT_CTL, c->ctl);
        finish(c, c->done_tsc);
        return 1;
    }
    set_state(c, was);
    return 1;
}

uint64_t pt_cpu_ready_bytes(const struct pt_cpu *c)
{
    int done = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == PT_CPU_DONE;
    uint64_t kept =
        (uint64_t)__atomic_load_n(&c->regions_done, __ATOMIC_ACQUIRE) * c->buf.region_bytes;

    return done ? kept + c->tail : kept;
}

uint32_t pt_cpu_num_losses(const struct pt_cpu *c)
{
    return __atomic_load_n(&c->num_losses, __ATOMIC_ACQUIRE);
}

struct pt_loss pt_cpu_loss(const struct pt_cpu *c, uint32_t i)
{
    return c->losses[i % PT_MAX_LOSSES];
}

void pt_cpu_sent(struct pt_cpu *c, uint64_t sent, uint32_t losses_sent)
{
    __atomic_store_n(&c->regions_freed, (uint32_t)(sent / c->buf.region_bytes), __ATOMIC_RELEASE);
    __atomic_store_n(&c->losses_sent, losses_sent, __ATOMIC_RELEASE);
}

uint32_t pt_cpu_snapshot(const struct pt_cpu *c, uint32_t *first, int *wrapped)
{
    const struct pt_buffer *b = &c->buf;
    uint32_t oldest = 0, len = c->tail;

    *wrapped = c->wraps > 0;
    /* Without a wrap interrupt (single range, one-entry ToPA), a PSB past the write
     * offset of a ring zeroed at start can only have been written on an earlier lap. */
    if (b->output != PT_OUT_TOPA && c->tail < b->bytes)
        *wrapped = pt_find_psb(b, c->tail, b->bytes - c->tail) < b->bytes - c->tail;
    if (*wrapped) {
        oldest = c->tail;
        len = b->bytes;
    }
    uint32_t skip = pt_find_psb(b, oldest, len);

    if (skip >= len)
        return 0;
    *first = (oldest + skip) % b->bytes;
    return len - skip;
}
