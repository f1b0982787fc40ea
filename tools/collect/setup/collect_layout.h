/* What the sample records of a collection hold, and the three set-up payloads that tell
 * the target: the sample descriptor (DESC_NEXT), the core device (INIT) and the event
 * group configuration (EM_GROUPS).
 *
 * Every record is the 48-byte struct sep_sample_pc. With call stacks (acart's extension,
 * docs/sep-protocol.md) the host also sets SEP_DEV_CFG_COLLECT_OS_CALLSTACKS in INIT, and
 * each record is followed by callstack_size / 8 little-endian return addresses of the
 * interrupted code's callers, innermost first, zero-filled after the last. A target that
 * cannot walk stacks leaves them zero; the record keeps its size either way. */
#ifndef ACART_TOOLS_COLLECT_LAYOUT_H
#define ACART_TOOLS_COLLECT_LAYOUT_H

#include <stdint.h>

#include "acart_wire.h"

/* Return addresses per record for `--callstack` without a depth, and at most. */
#define COLLECT_CALLSTACK_DEFAULT_DEPTH 16
#define COLLECT_CALLSTACK_MAX_DEPTH     64
/* Stack bytes per record for `--callstack=dwarf` without a size: perf's default is 8 KiB,
 * but firmware frames are small and 2 KiB covers the demo's deepest stacks at a quarter of
 * the cost (bench/results/sample_cost*). */
#define COLLECT_STACK_COPY_DEFAULT 2048

struct collect_layout {
    uint32_t sample_size;      /* bytes of every sample record */
    uint32_t callstack_offset; /* where the call stack starts in a record; 0: none */
    uint32_t callstack_size;   /* its bytes, 8 per return address; 0: none */
    uint32_t lbr_offset;       /* where the LBR registers start (after the call stack); 0: none */
    uint32_t lbr_num_regs;     /* u64 each, as LBR_INFO lists them (docs/sep-protocol.md 6.3) */
    uint32_t latency_offset;   /* struct sep_latency_info of load-latency samples; 0: none */
    uint32_t latency_size;
    /* struct acart_stack_copy and its stack bytes, the last area of a record (acart_ext.h);
     * 0: none. */
    uint32_t stack_copy_offset;
    uint32_t stack_copy_size; /* ACART_STACK_COPY_HEAD + the stack bytes */
};

/* The layout with call stacks of depth return addresses, or none for depth 0. Returns 0,
 * or -1 when depth is above COLLECT_CALLSTACK_MAX_DEPTH. */
int collect_layout_init(struct collect_layout *l, uint32_t depth);

/* Appends num_regs LBR registers to every record; INIT then asks to collect and store
 * LBRs. */
void collect_layout_add_lbr(struct collect_layout *l, uint32_t num_regs);

/* Appends the memory information of load-latency samples (docs/sep-protocol.md 6.4) to
 * every record; INIT then asks for latency capture. */
void collect_layout_add_latency(struct collect_layout *l);

/* Appends the stack copy of --callstack=dwarf, stack_bytes of stack after its head, to
 * every record; it must be the last area added. */
void collect_layout_add_stack_copy(struct collect_layout *l, uint32_t stack_bytes);

/* The DESC_NEXT payload of the collection's only descriptor (descriptor_id 0). */
void collect_layout_descriptor(const struct collect_layout *l, struct sep_event_desc *out);

/* The INIT payload for the core PMU, sampling num_events events. */
void collect_layout_device(const struct collect_layout *l, uint32_t num_events,
                           struct sep_dev_config *out);

/* The EM_GROUPS payload: one event group. */
void collect_layout_event_config(const struct collect_layout *l, struct sep_event_config *out);

#endif
