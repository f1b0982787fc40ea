/* Per-model PMU facts that CPUID does not enumerate (pmu_models.c): the model-specific LBR
 * stack, PEBS counters and data-source encoding, when the PMI is acknowledged, errata.
 * Shared by pmu_probe() and the host tools, which learn the model from the target's
 * system configuration. */
#ifndef ACART_ARCH_X86_PMU_MODELS_H
#define ACART_ARCH_X86_PMU_MODELS_H

#include <stdint.h>

#include "lbr_format.h"

/* How a model's load-latency PEBS records encode the data source (bits 3:0; bit 4 STLB
 * miss, bit 5 locked), after the tables of Linux's arch/x86/events/intel/ds.c: the Sandy
 * Bridge table (pebs_data_source[]), Nehalem's changes to it
 * (intel_pmu_pebs_data_source_nhm) and Skylake's (intel_pmu_pebs_data_source_skl). The
 * host decodes with it (tools/report/latency_report.c); NONE: no load-latency facility known. */
enum pmu_pebs_dse { PMU_DSE_NONE = 0, PMU_DSE_NHM, PMU_DSE_SNB, PMU_DSE_SKL };

struct pmu_model {
    const char *uarch;
    struct lbr_model lbr; /* model-specific LBRs; depth 0: none or architectural */
    uint8_t pebs_gp;      /* GP counters from PMC0 up that can use PEBS; 0: no PEBS */
    uint8_t pmi_ack_late; /* Linux's late_ack: LVT unmasked after re-enabling */
    uint8_t pmi_ack_mid;  /* Linux's mid_ack: just before re-enabling (Gracemont on) */
    uint8_t pebs_dse;     /* enum pmu_pebs_dse */
    uint8_t ldlat_gp;     /* GP counters (bit n: PMCn) the load-latency facility works on;
                             0: none. Linux's INTEL_PLD_CONSTRAINT of the model's PEBS table */
    uint8_t inst_retired_all_limits; /* periods of INST_RETIRED.ALL: >= 128, low 6 bits clear
                                        (Broadwell errata BDM11, BDM57; bdw_limit_period) */
};

/* A PEBS erratum fixed by microcode: on this model and stepping (0xff:
 * any), microcode below min_microcode leaves PEBS unusable. */
struct pebs_quirk {
    uint8_t model; /* family 6 */
    uint8_t stepping;
    uint32_t min_microcode; /* 0xffffffff: no revision fixes it */
    const char *reason;
};

/* The erratum that applies to this CPU, or NULL. */
const struct pebs_quirk *pebs_quirk_lookup(uint32_t family, uint32_t model, uint32_t stepping,
                                           uint32_t microcode);

/* The table row for a family-6 model, or NULL for a model we have no facts for. */
const struct pmu_model *pmu_model_lookup(uint32_t family, uint32_t model);

#endif
