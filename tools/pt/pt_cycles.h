/* Core cycles per function from the CYC packets of a cycle-accurate trace (docs/pt.md, "How
 * time and cycles are counted").
 *
 * libipt's clock is a TSC estimate: it turns CYC counts into TSC ticks at nom_freq/CBR
 * and rebases at every TSC and MTC packet, so cycles taken back out of it carry its
 * rounding and lose whatever a step back of the estimate hides. The cycles a trace
 * counted are in its CYC packets, so they are summed from there instead: a copy of the
 * trace whose TSC, TMA and MTC packets are PAD bytes and whose CBR packets say ratio 1 is
 * decoded with nom_freq 1. libipt's clock then adds each CYC packet's value exactly, and
 * binds it to the instructions as it binds every time update, so each CYC packet's
 * cycles go to the instructions run since the previous update, as in ptxed. Offsets and
 * control flow are those of the original: only timing packets differ. That decode is not
 * run where it can be avoided: a query decoder follows the one decode through the copy
 * and gives its clock at every block (pt_cycles.c says when it cannot). */
#ifndef ACART_TOOLS_PT_CYCLES_H
#define ACART_TOOLS_PT_CYCLES_H

#include <intel-pt.h>
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "pt_decode.h"
#include "pt_flow.h"

/* Reads t's timing packets into *timing (bytes the packet decoder cannot read are skipped
 * to the next PSB). With counted non-NULL (t->size bytes), also writes there the copy of
 * the trace described above; with one_bit_tnt, one whose TNT packets hold one bit each
 * (TNT-8 04, then PAD), for a query decoder that reads but does not decode it. */
void pt_timing_scan(const struct pt_cpu_trace *t, const struct pt_config *config,
                    struct pt_timing *timing, uint8_t *counted, bool one_bit_tnt);

/* Decodes t into f (pt_flow_init'ed, pt_flow_finish'ed here) and reads its timing packets
 * (f->timing). With count_cycles, f's cycles are those its CYC packets count, when it has
 * some (counted as a decode of the copy would); otherwise libipt's time at the core:bus ratio, an
 * estimate. Where a block runs through more than one region of the code, code's image is
 * cut there (pt_code.h) and f starts over, so f->closed.fn must not be set unless the
 * image is cut everywhere. Returns 0 or a diag code (pt_decode). */
int pt_flow_decode(struct pt_flow *f, const struct pt_cpu_trace *t, const struct pt_config *config,
                   struct pt_code *code, bool count_cycles, struct diag *d);

#endif
