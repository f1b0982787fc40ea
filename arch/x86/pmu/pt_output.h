/* Intel PT's output in RAM (pt_output.c): the memory the caller gives (no allocation) as a
 * ToPA table of regions, a ToPA table with one region, or one single-range region, split
 * among the CPUs; where a byte of the trace is; the snapshot ring's first PSB. Net
 * context. What the CPU offers and a configuration's IA32_RTIT_CTL are pt.h's. */
#ifndef ACART_ARCH_X86_PT_OUTPUT_H
#define ACART_ARCH_X86_PT_OUTPUT_H

#include <stdint.h>

#include "pt.h"

/* Alignment of the memory given to pt_output_layout (the largest region it cuts). */
#define PT_MEMORY_ALIGN    (64u * 1024u)
#define PT_REGION_MAX      (64u * 1024u)
#define PT_TOPA_ENTRIES    512u                  /* one 4 KiB table */
#define PT_TOPA_MAX_REGION (PT_TOPA_ENTRIES - 1) /* the END entry takes one */
#define PT_DISCARD_BYTES   PT_REGION_MAX

/* One CPU's output: a ring of `bytes` = regions * region_bytes contiguous bytes at data,
 * written in order and wrapping. */
struct pt_buffer {
    uint8_t *data;
    uint32_t bytes;
    uint32_t region_bytes;
    uint32_t regions;
    uint32_t output; /* enum pt_output */
    uint64_t *table; /* ToPA: its 4 KiB-aligned table; NULL for single range */
};

/* The output every CPU gets from one block of memory, and (full mode) the discard region
 * all CPUs write into while their ring is full: pt_output_layout cuts `memory`
 * (PT_MEMORY_ALIGN aligned, identity-mapped) for num_cpus CPUs. */
struct pt_layout {
    uint32_t output; /* enum pt_output, the same for every CPU */
    uint32_t num_cpus;
    struct pt_buffer discard; /* full mode: one region, its table's END pointing to itself */
};

/* Chooses the output the CPU and mode allow (full mode needs ToPA with several regions
 * and the ToPA PMI) and cuts memory into bufs[0..num_cpus) (ToPA tables included) and
 * layout->discard. Writes nothing into the memory. Returns PT_OK, PT_ERR_FULL_NEEDS_TOPA,
 * or PT_ERR_MEMORY when it is too small (under 16 KiB a CPU), misaligned, or beyond
 * MAXPHYADDR. */
int pt_output_layout(const struct pt_caps *caps, uint32_t mode, uint8_t *memory, uint32_t bytes,
                     uint32_t num_cpus, struct pt_layout *layout, struct pt_buffer *bufs);

/* Full mode: writes the discard region's ToPA table (net context, before any CPU is
 * programmed). */
void pt_output_write_discard(const struct pt_layout *layout);

/* The first 16-byte PSB in the ring `buf` read from ring offset `from` for `len` bytes
 * (wrapping at buf->bytes): its distance from `from`, or `len` when there is none. */
uint32_t pt_find_psb(const struct pt_buffer *buf, uint32_t from, uint32_t len);

#endif
