/* Decoding one CPU's Intel PT trace with libipt (docs/pt.md): the configuration from
 * session.json's `pt` member, the trace cut at every place the target lost bytes, and a
 * decode loop that goes as far as the trace allows. Where libipt fails, the failure is
 * reported as a gap with its offset and error, and decoding resumes at the next PSB. */
#ifndef ACART_TOOLS_PT_DECODE_H
#define ACART_TOOLS_PT_DECODE_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "session.h"

/* One CPU's pt-cpu<N>.bin. */
struct pt_cpu_trace {
    uint32_t cpu;
    uint8_t *data;
    size_t size;
    const struct session_pt_cpu *info; /* what the target said it sent */
};

enum pt_gap_kind {
    PT_GAP_DECODE,    /* libipt failed at `offset` with `errcode` */
    PT_GAP_NO_SYNC,   /* bytes from `offset` on hold no PSB to start from */
    PT_GAP_LOST,      /* the target dropped `lost_bytes` before `offset` (pt.per_cpu[].lost) */
    PT_GAP_TRUNCATED, /* the file ends at `offset`, `lost_bytes` short of what the target sent */
    PT_GAP_LOOP,      /* a loop that needs no trace came back to `ip`: decoding it would not end */
};

struct pt_gap {
    enum pt_gap_kind kind;
    uint64_t offset;     /* in pt-cpu<N>.bin */
    int errcode;         /* PT_GAP_DECODE: a negative pte_* code */
    uint64_t ip;         /* PT_GAP_DECODE, PT_GAP_LOOP: the last instruction decoded; 0 if none */
    bool has_unmapped;   /* PT_GAP_DECODE, pte_nomap: the address the image lacks is known */
    uint64_t unmapped;   /* then: the address of the instruction libipt could not read */
    uint64_t tsc;        /* the time last known before it */
    uint64_t lost_bytes; /* PT_GAP_LOST, PT_GAP_TRUNCATED */
    bool resynced; /* PT_GAP_DECODE, PT_GAP_NO_SYNC, PT_GAP_LOOP: decoding resumed at resync_offset
                    */
    uint64_t resync_offset;
};

/* What a decode hands on, in trace order. Each callback returns 0 to go on, or a value of
 * its own (a diag code) to stop decoding with it. `tsc` is the time of the last timing
 * update before the instruction (libipt's estimate from TSC, MTC and CYC; relative when the
 * trace has no TSC packet). */
struct pt_sink {
    int (*insn)(void *ctx, const struct pt_insn *insn, uint64_t tsc);
    int (*block)(void *ctx, const struct pt_block *block, uint64_t tsc);
    int (*event)(void *ctx, const struct pt_event *ev);
    int (*gap)(void *ctx, const struct pt_gap *gap);
    /* The trace ends here with tracing on: what ran after the last packet is unknown. */
    int (*end)(void *ctx, uint64_t tsc);
    /* Optional, for following libipt's decoder through the trace (pt_cycles.c): a new
     * decoder over [begin, end) of the file; and where it stands (an offset in the file)
     * when it has synchronised (synced, at the PSB of that offset) and when it has decoded
     * each instruction, block or event, before that item's callback. */
    int (*stretch)(void *ctx, uint64_t begin, uint64_t end);
    int (*position)(void *ctx, uint64_t offset, bool synced);
    void *ctx;
    /* Blocks run on through direct calls (pt_path.h); else a block ends at every call. */
    bool through_calls;
};

/* Reads DIR/pt-cpu<cpu>.bin. */
int pt_trace_load(const char *dir, const struct session *s, uint32_t cpu, struct pt_cpu_trace *t,
                  struct diag *d);
/* Reads path as CPU cpu's trace (a raw trace given on the command line). */
int pt_trace_load_file(const char *path, const struct session *s, uint32_t cpu,
                       struct pt_cpu_trace *t, struct diag *d);
void pt_trace_free(struct pt_cpu_trace *t);

/* Fills the libipt configuration the session describes (all but begin and end). */
void pt_decode_config(const struct session *s, struct pt_config *config);

/* Decodes t into instructions (sink->insn) or, with blocks, blocks of instructions
 * (sink->block), with events and gaps. Returns 0, a callback's stop value, or a diag code
 * when libipt cannot even start (out of memory). */
int pt_decode(const struct pt_cpu_trace *t, const struct pt_config *config, struct pt_image *image,
              bool blocks, const struct pt_sink *sink, struct diag *d);

/* "pte_bad_opc" for -pte_bad_opc: the name of libipt's error code. */
const char *pt_error_name(int errcode);

/* "gap at 0x1234: pte_bad_opc (unknown opcode) after ip 0x101000, resynced at 0x2000" and
 * the like, into buf. A pte_nomap gap names the address that is not in the image. */
void pt_gap_describe(const struct pt_gap *gap, char *buf, size_t size);

#endif
