/* Call stacks from stack copies (`acart collect --callstack=dwarf`): each sample's
 * registers and bytes of its stack (struct acart_stack_copy, acart_ext.h), unwound with
 * the image's CFI (.eh_frame, or .debug_frame) by elfutils' unwinder, as Linux perf does
 * for `--call-graph dwarf`. The unwound return addresses become the sample's callers, so
 * every command that reads callers (report --by caller, flamegraph, export) gets them
 * unchanged. */
#ifndef ACART_TOOLS_UNWIND_H
#define ACART_TOOLS_UNWIND_H

#include <stdint.h>

#include "diag.h"

struct unwinder;

/* An unwinder for the ELF image at path, placed like symbols_open places it (ET_EXEC where
 * it was linked, ET_DYN at load_address). Returns 0 or a diag code. */
int unwind_open(const char *path, uint64_t load_address, struct unwinder **out, struct diag *d);
void unwind_close(struct unwinder *u);

/* Unwinds one record's stack copy (copy_size bytes from its struct acart_stack_copy):
 * writes at most max return addresses of the callers of the sampled function, innermost
 * first, and returns how many. The walk ends where the CFI, the copied stack or a register
 * the platform did not record (acart_stack_copy.known) ends it; a copy that says nothing
 * gives 0. */
uint32_t unwind_stack_copy(struct unwinder *u, const unsigned char *copy, uint32_t copy_size,
                           uint64_t *out, uint32_t max);

#endif
