/* A simulated Intel CPU for host tests of arch/x86's PMU code (built with ACART_SIM, where
 * cpuid(), msr_read() and msr_write() are extern functions; sim_cpu.c provides them).
 *
 * It models one logical CPU after the Intel SDM (vol. 3B, performance monitoring, LBR, DS)
 * and is strict: an access to an MSR the model does not implement, a write of reserved
 * bits, a write to a read-only MSR or a full-width counter write without the capability is
 * what a #GP would be on hardware; the simulator records it as a fault and the tests fail.
 *
 * Counters advance only when a test retires events (sim_retire), according to their
 * programming: enable bits in IA32_PERFEVTSELx / IA32_FIXED_CTR_CTRL and
 * IA32_PERF_GLOBAL_CTRL, the privilege level of the retiring code, and freeze-on-PMI
 * (streamlined on v4+: GLOBAL_STATUS bits 58/59 stop counting and LBR recording; before v4
 * the CPU clears GLOBAL_CTRL and DEBUGCTL.LBR). An overflow sets its GLOBAL_STATUS bit and,
 * with INT/PMI set, raises a PMI (a pending flag the test takes). A PEBS-enabled counter's
 * overflow writes a record into the DS buffer, reloads the counter from the DS reset value
 * and raises a PMI with GLOBAL_STATUS bit 62 once the index passes the threshold. Branches
 * the test feeds (sim_branch) are recorded in the LBR stack per the LBR format.
 *
 * Modelled GP events: 0x3C/0x00 core cycles, 0xC0/0x00 instructions, 0xC4/0x00 branches,
 * 0xC5/0x00 mispredicted branches, 0xD0/0x81 loads, 0xD0/0x82 stores, 0x2E/0x4F and
 * 0x2E/0x41 last-level cache references and misses, 0x0E/0x01 uops issued, 0xCD/0x01 and
 * 0x0B/0x10 loads above the load-latency threshold.
 * Fixed counters: 0 instructions, 1 core cycles, 2 reference cycles, 3 slots (4/cycle).
 * One batch passed to sim_retire is atomic: all counters see all of it.
 *
 * Intel PT (SDM vol. 3C, "Intel Processor Trace"), on models whose CPUID leaf 0x14 says
 * so: the IA32_RTIT_* MSRs with the SDM's #GP cases (a write of any of them but
 * IA32_RTIT_CTL while TraceEn is set, a change of IA32_RTIT_CTL that keeps TraceEn set,
 * reserved bits and unsupported encodings, non-canonical ADDRn values, MSRs the CPUID
 * enumeration leaves out), and a trace unit that writes a real packet stream into memory
 * as the simulated code "runs" (sim_pt_run): through the ToPA tables (END, INT with a PMI
 * and GLOBAL_STATUS bit 55, STOP with RTIT_STATUS.Stopped) or a single range that wraps,
 * with the SDM's operational errors (RTIT_STATUS.Error) for malformed tables. Enabling
 * TraceEn with PacketByteCnt 0 (or on CPUs without configurable PSB) starts the output
 * at a PSB, as the hardware's PSB+ at enable does: the source stream skips to its next
 * PSB. Physical addresses are the host's pointers, so the models report MAXPHYADDR 48. */
#ifndef ACART_TESTS_SIM_SIM_CPU_H
#define ACART_TESTS_SIM_SIM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "cpuid.h"
#include "sim_models.h"

/* Power-on state of `model` (all MSRs zero, no faults, ring 0). */
void sim_reset(const struct sim_model *model);

/* State of the code that retires/branches next. */
void sim_set_ring(unsigned ring);         /* CPL: 0 counts as OS, 1-3 as USR */
void sim_set_ip(uint64_t ip);             /* IP of the retiring instruction */
void sim_set_data_address(uint64_t addr); /* its memory operand, for PEBS records */
/* The loads retiring next: their address, latency in core cycles and data source
 * encoding, as PEBS records report them (default: latency 7, source 0x1, an L1 hit). The
 * load-latency events (0xCD/0x01, Nehalem's 0x0B/0x10) count those slower than
 * MSR_PEBS_LD_LAT's threshold while the facility is on (sim_cpu.c). */
void sim_set_load(uint64_t addr, uint16_t latency, uint64_t data_source);

struct sim_events {
    uint64_t instructions, cycles, ref_cycles, branches;
    uint64_t mispredicts, loads, stores, llc_refs, llc_misses, uops;
};

/* Retires one atomic batch of events. The TSC advances by ref_cycles. */
void sim_retire(const struct sim_events *ev);

/* The TSC model (SDM vol. 3B 18.17, "Time-Stamp Counter"): the invariant TSC counts at a
 * constant rate whatever the core does, so the time the code spends on MSR accesses and
 * the CPU on delivering a PMI advance it too. From now on each RDMSR/WRMSR costs
 * `per_msr_access` TSC ticks and each PMI the CPU delivers (sim_take_pmi) `per_pmi`; 0 and
 * 0 at reset (the simulator has no time of its own: how long an access takes is not
 * architectural, so a test says). sim_tsc() reads it, as RDTSC and IA32_TIME_STAMP_COUNTER
 * (MSR 0x10) do. */
void sim_set_tsc_costs(uint32_t per_msr_access, uint32_t per_pmi);

/* A taken branch, recorded by the LBRs if they are enabled and not frozen. */
void sim_branch(uint64_t from, uint64_t to, int mispredicted, uint16_t cycles);

/* Branch kinds, for the LBR filters (MSR_LBR_SELECT, IA32_LBR_CTL) and call-stack mode,
 * where a near call pushes an entry and a near return pops one. sim_branch is a JCC. */
enum sim_branch_kind {
    SIM_BR_JCC,
    SIM_BR_REL_CALL,
    SIM_BR_IND_CALL,
    SIM_BR_RET,
    SIM_BR_IND_JMP,
    SIM_BR_REL_JMP,
    SIM_BR_FAR,
};
void sim_branch_kind(uint64_t from, uint64_t to, enum sim_branch_kind kind, int mispredicted,
                     uint16_t cycles);

/* 1 and clears the flag if a PMI was raised since the last call. */
int sim_take_pmi(void);
unsigned sim_pmi_count(void);

/* Peeks at an MSR's value without the side effects or checks of msr_read. */
uint64_t sim_msr(uint32_t msr);
uint64_t sim_tsc(void);
/* PEBS records written / dropped for lack of buffer space. */
unsigned sim_pebs_records(void);
/* Retires whose PMC3 count the TSX microcode clobbered (TSX_FORCE_ABORT clear). */
uint64_t sim_pmc3_clobbered(void);
unsigned sim_pebs_dropped(void);

/* Overflows of sampling counters (INT/PMI set, or PEBS) so far: the samples the code
 * under test must account for, each delivered or counted as dropped. */
unsigned sim_overflows(void);

/* From now on, each clear of one of `counters`' GLOBAL_STATUS bits (non-PEBS counters)
 * finds the counter overflowed again while it stays enabled, `times` times in all (~0u:
 * for ever): an overflow that keeps coming back while the handler runs, the case of
 * Linux's "perfevents: irq loop stuck!". */
void sim_reassert_overflow(uint64_t counters, unsigned times);

/* ---- Intel PT ---- */

/* The packet stream the trace unit writes, taken in a loop: what the simulated code's
 * execution produces. The caller keeps it alive. */
void sim_pt_source(const uint8_t *stream, size_t len);

/* The code runs on for `bytes` bytes of the stream: while TriggerEn (TraceEn set, no
 * Stopped, no Error) they are written to the output, else they are not traced. */
void sim_pt_run(size_t bytes);

/* Where the trace unit wrote, in order: `source` is the stream position (counting the
 * loop, never wrapping) of the first byte, `address` where it went. Adjacent writes are
 * merged. Returns how many there are (all of them, whatever max). */
struct sim_pt_write {
    uint64_t source, address, bytes;
};
size_t sim_pt_writes(struct sim_pt_write *out, size_t max);

/* Stream bytes run so far (traced or not), and of them written to memory. */
uint64_t sim_pt_position(void);
uint64_t sim_pt_written(void);

/* MSR reads+writes and CPUID calls the code made, for "touched nothing" checks. */
unsigned sim_accesses(void);

/* #GP-equivalent faults so far, the first one's description, and a reset of both. */
unsigned sim_faults(void);
const char *sim_fault_text(void);
void sim_clear_faults(void);

#endif
