/*
 * msr_policy.h - which MSRs the host may make acart read or write.
 *
 * The host programs the PMU by sending MSR indices and values (ECB entries, READ_MSR,
 * WRITE_MSR). Writing an arbitrary MSR can reprogram the machine (APIC base, SMRR, EFER
 * ...), so every host-supplied index goes through msr_policy_check() first. Only the
 * performance-monitoring MSRs are listed, each readable or read-write; counter and LBR
 * ranges are bounded by what the CPU reports, passed in with msr_policy_configure().
 * Until configured, the counter and LBR ranges are empty (fail closed).
 *
 * The Intel PT MSRs (IA32_RTIT_*) are listed too, but for the host to read only: their
 * output registers hold physical addresses the trace unit writes to, so only acart's own
 * trace code writes them, into memory it owns, and it checks each one here first
 * (msr_policy_check_own). They exist in the list only on a CPU with PT, ADDRn_A/B only
 * for the address ranges it has.
 *
 * The uncore's registers go through the same list: the client uncore MSRs (global control
 * and status, the UCLK fixed counter, the ARB and the CBo counters, CBo units bounded by
 * MSR_UNC_CBO_CONFIG) on models that have them, and, for memory-mapped IMC counters, the
 * one PCI configuration register that holds the memory controller's BAR (MCHBAR, device
 * 0:0.0 at 0x48, read only) and a read-only window of offsets from that BAR. Nothing else
 * in PCI configuration space or memory is reachable from the host.
 */
#ifndef ACART_RUNTIME_MSR_POLICY_H
#define ACART_RUNTIME_MSR_POLICY_H

#include <stdint.h>

enum msr_policy_error {
    MSR_POLICY_OK = 0,
    MSR_POLICY_ERR_UNLISTED = -1,  /* not a performance-monitoring MSR acart allows */
    MSR_POLICY_ERR_READ_ONLY = -2, /* listed, but the host may only read it */
    MSR_POLICY_ERR_INDEX = -3,     /* a counter, LBR or PT range beyond what this CPU has */
    MSR_POLICY_ERR_MODE = -4,      /* an MSR of IA-32e mode only, on a 32-bit target */
};

const char *msr_policy_strerror(int err);

/* What the CPU has (CPUID leaf 0AH, IA32_PERF_CAPABILITIES, the model's LBR table). */
struct msr_policy_limits {
    uint8_t num_gp_counters;    /* CPUID.0AH:EAX[15:8] */
    uint8_t num_fixed_counters; /* CPUID.0AH:EDX[4:0] */
    uint8_t full_width_writes;  /* IA32_PERF_CAPABILITIES bit 13: IA32_A_PMCx exist */
    uint8_t lbr_depth;          /* LBR entries; 0 when the model has none */
    uint32_t lbr_from_base;     /* first MSR_LASTBRANCH_n_FROM_IP (0x680, or 0x40 on older) */
    uint32_t lbr_to_base;       /* first MSR_LASTBRANCH_n_TO_IP (0x6C0, or 0x60) */
    uint32_t lbr_info_base;     /* first MSR_LBR_INFO_n (0xDC0), 0 when absent */
    uint8_t pt;                 /* Intel PT: the IA32_RTIT_* MSRs exist */
    uint8_t pt_output;          /* ... with output to memory: OUTPUT_BASE, OUTPUT_MASK_PTRS */
    uint8_t pt_ranges;          /* ADDRn_A/B pairs, CPUID.(14H,1):EAX[2:0] */
    uint8_t uncore_client;   /* the client uncore MSRs exist (runtime/uncore/uncore.c's models) */
    uint8_t uncore_cbos;     /* CBo units with counters */
    uint16_t imc_mmio_first; /* MCHBAR-relative IMC counter window; 0 and 0: none */
    uint16_t imc_mmio_len;
};

/* Sets the limits for all later checks. Call once at start, before any host request. */
void msr_policy_configure(const struct msr_policy_limits *limits);

/* 0 if the host may read (write == 0) or write (write != 0) msr, else a negative
 * MSR_POLICY_ERR_*. */
int msr_policy_check(uint32_t msr, int write);

/* 0 if acart's own code (not the host) may write msr: the read-write MSRs and those
 * only acart writes (Intel PT's); else a negative MSR_POLICY_ERR_*. */
int msr_policy_check_own(uint32_t msr);

/* 1 when msr is a core-PMU register of the list: the counters and their selects, fixed
 * and global controls, PEBS and the DS area, the extra MSRs of events (offcore response,
 * load latency, frontend), LBRs and IA32_DEBUGCTL (its freeze-on-PMI bits). These are what
 * an IPROBE owner programs or relies on, so a host may not write them while IPROBE holds
 * the counters (cmd_msr.c). 0 for the uncore's, the trace unit's, read-only and unlisted
 * MSRs. */
int msr_policy_core_pmu(uint32_t msr);

/* The architectural name of msr (e.g. "IA32_PMC", "IA32_DEBUGCTL") when the policy allows
 * it on this CPU, else NULL. For logs. */
const char *msr_policy_name(uint32_t msr);

/* 0 if the host may read (write == 0) or write the 32-bit PCI configuration register at
 * offset of bus:dev.func, else a negative MSR_POLICY_ERR_*. */
int pci_policy_check(uint8_t bus, uint8_t dev, uint8_t func, uint16_t offset, int write);

/* 0 if the host may read (write == 0) or write size bytes at offset from the BAR held in
 * the PCI configuration register bar_offset of bus:dev.func, else MSR_POLICY_ERR_*. */
int mmio_policy_check(uint8_t bus, uint8_t dev, uint8_t func, uint16_t bar_offset, uint64_t offset,
                      uint32_t size, int write);

#endif
