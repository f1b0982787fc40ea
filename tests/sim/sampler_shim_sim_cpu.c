/* One simulated CPU of several: sim_cpu.c compiled once per CPU with -DSHIM_SIM_CPU=<k>,
 * its public functions renamed sim<k>_*, so each CPU has a simulator of its own (the
 * simulator keeps its state in one static structure). sampler_shim_cpus.c routes
 * msr_read/msr_write/cpuid to the current CPU's instance. */
#ifndef SHIM_SIM_CPU
#error "build with -DSHIM_SIM_CPU=<cpu index>"
#endif

#define SHIM_CAT_(cpu, name) sim##cpu##_##name
#define SHIM_CAT(cpu, name)  SHIM_CAT_(cpu, name)
#define SHIM_NAME(name)      SHIM_CAT(SHIM_SIM_CPU, name)

/* Every function sim_cpu.c exports; one left out is a duplicate symbol at link time. */
#define sim_reset             SHIM_NAME(sim_reset)
#define sim_set_ring          SHIM_NAME(sim_set_ring)
#define sim_set_ip            SHIM_NAME(sim_set_ip)
#define sim_set_data_address  SHIM_NAME(sim_set_data_address)
#define sim_set_load          SHIM_NAME(sim_set_load)
#define sim_retire            SHIM_NAME(sim_retire)
#define sim_branch            SHIM_NAME(sim_branch)
#define sim_branch_kind       SHIM_NAME(sim_branch_kind)
#define sim_take_pmi          SHIM_NAME(sim_take_pmi)
#define sim_pmi_count         SHIM_NAME(sim_pmi_count)
#define sim_msr               SHIM_NAME(sim_msr)
#define sim_tsc               SHIM_NAME(sim_tsc)
#define sim_set_tsc_costs     SHIM_NAME(sim_set_tsc_costs)
#define sim_pebs_records      SHIM_NAME(sim_pebs_records)
#define sim_pmc3_clobbered    SHIM_NAME(sim_pmc3_clobbered)
#define sim_pebs_dropped      SHIM_NAME(sim_pebs_dropped)
#define sim_overflows         SHIM_NAME(sim_overflows)
#define sim_reassert_overflow SHIM_NAME(sim_reassert_overflow)
#define sim_accesses          SHIM_NAME(sim_accesses)
#define sim_faults            SHIM_NAME(sim_faults)
#define sim_fault_text        SHIM_NAME(sim_fault_text)
#define sim_clear_faults      SHIM_NAME(sim_clear_faults)
#define sim_pt_source         SHIM_NAME(sim_pt_source)
#define sim_pt_run            SHIM_NAME(sim_pt_run)
#define sim_pt_writes         SHIM_NAME(sim_pt_writes)
#define sim_pt_position       SHIM_NAME(sim_pt_position)
#define sim_pt_written        SHIM_NAME(sim_pt_written)
#define cpuid                 SHIM_NAME(cpuid)
#define msr_read              SHIM_NAME(msr_read)
#define msr_write             SHIM_NAME(msr_write)

#include "sim_cpu.c"

#include "sampler_shim.h"

const struct sim_instance SHIM_NAME(instance) = {
    .reset = sim_reset,
    .set_ip = sim_set_ip,
    .set_load = sim_set_load,
    .retire = sim_retire,
    .branch_kind = sim_branch_kind,
    .take_pmi = sim_take_pmi,
    .pmi_count = sim_pmi_count,
    .peek_msr = sim_msr,
    .pebs_records = sim_pebs_records,
    .overflows = sim_overflows,
    .reassert_overflow = sim_reassert_overflow,
    .accesses = sim_accesses,
    .faults = sim_faults,
    .fault_text = sim_fault_text,
    .clear_faults = sim_clear_faults,
    .cpuid_leaf = cpuid,
    .rdmsr = msr_read,
    .wrmsr = msr_write,
    .pt_source = sim_pt_source,
    .pt_run = sim_pt_run,
    .pt_writes = sim_pt_writes,
    .pt_position = sim_pt_position,
    .pt_written = sim_pt_written,
    .tsc = sim_tsc,
    .set_tsc_costs = sim_set_tsc_costs,
};
