/* A simulated uncore: the package-scope counters of one simulated socket, reached through
 * arch/x86/pmu/uncore_io.h's functions (which on the target are rdmsr/wrmsr, PCI configuration
 * mechanism #1 and physical memory reads). One per process, shared by all simulated CPUs,
 * as the uncore is shared by the cores of a package.
 *
 * SIM_UNCORE_SKL_CLIENT follows SDM vol. 4's uncore PMU MSRs of 6th-generation Core
 * (06_4E/5E): MSR_UNC_PERF_GLOBAL_CTRL (0xE01: slice PMI selects 4:0, EN 29, wake-on-PMI
 * 30, freeze 31), MSR_UNC_PERF_GLOBAL_STATUS (0xE02: fixed 0, ARB 1, CBo 3),
 * MSR_UNC_PERF_FIXED_CTRL (0x394: overflow propagate 20, EN 22) and the 48-bit UCLK
 * counter MSR_UNC_PERF_FIXED_CTR (0x395), MSR_UNC_CBO_CONFIG (0x396, read only: CBo units
 * in 3:0), two ARB counters (0x3B0/1, selects 0x3B2/3) and per CBo n two counters (0x706/7
 * + 0x10 n, selects 0x700/1 + 0x10 n), 44 bits wide; selects take event 7:0, umask 15:8,
 * edge 18, overflow 20, EN 22, invert 23, cmask 28:24. A counter counts while its EN and
 * GLOBAL_CTRL.EN are set. Modelled events: ARB 0x81/0x01 (UNC_ARB_TRK_REQUESTS.ALL) and
 * CBo 0x34/0x8F (UNC_CBO_CACHE_LOOKUP.ANY_MESI); any other event, or a qualifier
 * (edge, invert, cmask), counts nothing. The IMC's free-running 32-bit DRAM counters sit at
 * MCHBAR + 0x5050 (reads) and + 0x5054 (writes), in 64-byte lines.
 * SIM_UNCORE_GLM models a Goldmont SoC: no uncore MSRs, and the two 32-bit DRAM slice
 * counters VTune's UNC_IMC_DRAM_RW_SLICE0/1 ECB reads, at MCHBAR + 0x6868 and + 0x686C.
 *
 * Both have MCHBAR in the host bridge (PCI 0:0.0) at configuration offset 0x48, set to
 * SIM_MCHBAR with its enable bit. It is strict like sim_cpu.c: an MSR the model lacks, a
 * write of reserved bits or of a read-only register, a PCI read elsewhere than the host
 * bridge's ID and MCHBAR, and any memory read outside the modelled counters are faults. */
#ifndef ACART_TESTS_SIM_SIM_UNCORE_H
#define ACART_TESTS_SIM_SIM_UNCORE_H

#include <stdint.h>

#define SIM_MCHBAR 0xfed10000u

enum sim_uncore_kind {
    SIM_UNCORE_NONE,
    SIM_UNCORE_SKL_CLIENT,
    SIM_UNCORE_GLM,
};

/* Power-on state: counters and controls zero, `cbos` CBo units (SKL client). */
void sim_uncore_reset(enum sim_uncore_kind kind, unsigned cbos);

/* What the package did since the last call; each counter adds what its programming
 * selects. */
struct sim_uncore_traffic {
    uint64_t uclk;           /* uncore clocks: the fixed counter */
    uint64_t arb_requests;   /* requests through the ARB */
    uint64_t cbo_lookups[8]; /* LLC lookups per CBo */
    uint64_t dram_reads;     /* 64-byte lines, client IMC */
    uint64_t dram_writes;
    uint64_t slice_lines[2]; /* 64-byte lines per DRAM slice, Goldmont */
};
void sim_uncore_run(const struct sim_uncore_traffic *t);

/* A register's value without the checks of an access. */
uint64_t sim_uncore_msr(uint32_t msr);
/* Accesses so far (MSR, PCI, MMIO). */
unsigned sim_uncore_accesses(void);

unsigned sim_uncore_faults(void);
const char *sim_uncore_fault_text(void);
void sim_uncore_clear_faults(void);

#endif
