/* Intel PT on one CPU (pt_cpu.c): its IA32_RTIT_* MSRs, written only while TraceEn is clear
 * as the SDM demands, start/pause/stop, the ToPA PMI and the freeze. Each call but the net
 * context's accessors runs on the CPU it acts on, touching only that CPU's MSRs and its
 * struct pt_cpu (pt.h says the contexts). */
#ifndef ACART_ARCH_X86_PT_CPU_H
#define ACART_ARCH_X86_PT_CPU_H

#include <stdint.h>

#include "pt.h"
#include "pt_output.h"

/* Where a CPU stands; every change is an atomic exchange so the PMI, a freeze from any
 * interrupt and the net context's IPIs never both act. */
enum pt_cpu_state {
    PT_CPU_IDLE = 0,    /* programmed (or not), TraceEn clear */
    PT_CPU_TRACING = 1, /* TraceEn set */
    PT_CPU_BUSY = 2,    /* the ToPA PMI handler works, TraceEn clear */
    PT_CPU_PAUSED = 3,  /* TraceEn clear until resumed */
    PT_CPU_DONE = 4,    /* stopped or frozen: the final position is known */
};

#define PT_MAX_LOSSES 16

struct pt_loss {
    uint64_t offset; /* bytes of trace kept before the loss */
    uint64_t bytes;  /* bytes the trace unit wrote into the discard region meanwhile: at
                      * least what it lost (nothing is written between the STOP and the
                      * PMI), 0 when not known */
};

struct pt_cpu {
    const struct pt_caps *caps;
    struct pt_buffer buf;
    const struct pt_buffer *discard; /* full mode */
    uint64_t ctl;                    /* IA32_RTIT_CTL without TraceEn */
    uint32_t mode;                   /* enum pt_mode */
    volatile uint32_t state;         /* enum pt_cpu_state */
    volatile uint32_t stop_pending;  /* a stop came while the PMI handler worked */
    /* Full mode. regions_done is this CPU's (PMI) count of regions filled; regions_freed
     * the net context's count of regions it sent, so free to fill again. */
    volatile uint32_t regions_done;
    volatile uint32_t regions_freed;
    uint32_t region;     /* the ring region being written */
    uint32_t stop_entry; /* the ToPA entry carrying STOP (R: none) */
    uint8_t discarding;  /* the ring is full: output goes to the discard region */
    uint8_t reserved[3];
    uint64_t loss_offset;  /* where the loss being counted began */
    uint64_t discard_laps; /* discard regions filled in this loss */
    /* Full mode: the losses, a ring this CPU appends to (num_losses counts every one
     * recorded) and the net context reads in order; when it is full, later losses are
     * only counted (unrecorded). */
    struct pt_loss losses[PT_MAX_LOSSES];
    volatile uint32_t num_losses;
    volatile uint32_t losses_sent; /* written by the net context */
    uint32_t unrecorded;
    /* Counts for the host. */
    uint64_t lost_bytes;   /* at least this many: see struct pt_loss */
    uint32_t lost_events;  /* losses, recorded or not */
    uint32_t lost_unknown; /* ... of those, of unknown size (counted as 0 in lost_bytes) */
    uint32_t pmis, wraps, errors;
    /* Valid in PT_CPU_DONE: bytes written in the region being filled (full), or the
     * ring's write offset (snapshot). */
    uint32_t tail;
    uint64_t done_tsc; /* TSC when it stopped or froze */
};

/* Ties c to its buffer and configuration (no MSR). */
void pt_cpu_init(struct pt_cpu *c, const struct pt_caps *caps, const struct pt_buffer *buf,
                 const struct pt_buffer *discard, const struct pt_config *cfg, uint64_t ctl);

/* On the CPU itself, TraceEn clear (cleared first if a previous user left it set): zeroes
 * the ring, writes the ToPA table, IA32_RTIT_STATUS, OUTPUT_BASE, OUTPUT_MASK_PTRS and the
 * ADDRn pairs, then IA32_RTIT_CTL without TraceEn. */
void pt_cpu_program(struct pt_cpu *c, const struct pt_config *cfg);
void pt_cpu_start(struct pt_cpu *c);  /* TraceEn set: IDLE -> TRACING */
void pt_cpu_pause(struct pt_cpu *c);  /* TRACING -> PAUSED */
void pt_cpu_resume(struct pt_cpu *c); /* PAUSED -> TRACING */

/* Stops tracing for good and records where the trace ends (the freeze of snapshot
 * mode). Any context on the CPU itself, an exception handler or NMI included; returns 1
 * when this call stopped it, 0 when it was not tracing (already done, or never started). */
int pt_cpu_stop(struct pt_cpu *c, uint64_t tsc);

/* The ToPA PMI: 1 when IA32_PERF_GLOBAL_STATUS bit 55 was set (handled and acknowledged),
 * 0 when this PMI was not the trace unit's. NMI context on the CPU itself. */
int pt_cpu_pmi(struct pt_cpu *c);

/* Net context, any CPU. Full mode: bytes of trace ready to send (whole regions while
 * tracing, everything once done); losses recorded so far, and loss number i (i below
 * that count and at most PT_MAX_LOSSES behind it). */
uint64_t pt_cpu_ready_bytes(const struct pt_cpu *c);
uint32_t pt_cpu_num_losses(const struct pt_cpu *c);
struct pt_loss pt_cpu_loss(const struct pt_cpu *c, uint32_t i);
/* Full mode: the caller has sent the trace up to byte `sent` and the first losses_sent
 * losses; those regions and loss slots may be reused. */
void pt_cpu_sent(struct pt_cpu *c, uint64_t sent, uint32_t losses_sent);

/* Snapshot mode, once done: the ring unrolled from the first PSB after its oldest byte;
 * *first is that PSB's ring offset, the return value the bytes from there on (0 without
 * a PSB), *wrapped whether older trace was overwritten. */
uint32_t pt_cpu_snapshot(const struct pt_cpu *c, uint32_t *first, int *wrapped);

#endif
