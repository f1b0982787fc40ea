/* Per-model PMU facts that CPUID does not enumerate: the model-specific LBR stack (depth,
 * MSRs, call-stack mode), how many GP counters can use PEBS, and when the PMI is acknowledged
 * (first thing, as Linux does for a model it does not know; mid-handler; late). Everything else
 * (counter counts and widths, PEBS and LBR record formats, architectural LBR) is read from CPUID
 * and IA32_PERF_CAPABILITIES by pmu_probe().
 *
 * Sources: the Intel SDM (vol. 3B LBR chapters, vol. 4 model MSR tables) and Linux's
 * intel_pmu_init(), which uses the same LBR geometry per model. Model numbers of the
 * families whose event files acart carries follow perfmon's mapfile.csv (SKL, TGL, SPR,
 * GLM, GLP, EHL); tests/pmu checks the table against that file. */
#include "pmu_models.h"

#include "acart_opts.h"

#include <stddef.h>

/* Model-specific LBR MSRs. */
#define LBR_FROM_CORE 0x40 /* Core 2, Bonnell, Silvermont/Airmont: MSR_LASTBRANCH_0_FROM_IP */
#define LBR_TO_CORE   0x60
#define LBR_FROM_NHM  0x680 /* Nehalem and later: MSR_LASTBRANCH_0_FROM_IP */
#define LBR_TO_NHM    0x6c0
#define LBR_INFO_SKL  0xdc0 /* Skylake, Goldmont and later: MSR_LBR_INFO_0 */

/* Rows by microarchitecture. Legacy PEBS works on PMC0-3 at most; adaptive PEBS
 * enumerates its counters, so pmu_probe() ignores pebs_gp there. ldlat_gp is where the
 * load-latency event may count, from Linux's PEBS constraint tables (INTEL_PLD_CONSTRAINT
 * in arch/x86/events/intel/ds.c): 0x100b/0x1cd on PMC0-3 from Nehalem to Skylake but PMC3
 * alone on Sandy and Ivy Bridge, PMC1-7 from Ice Lake on; none on the Atom cores (perfmon
 * lists no load-latency event for them). */
/* The model-specific LBR stacks: depth, MSRs, INFO MSRs, call-stack mode. */
#define LBR_CORE(n)                                                                                \
    {                                                                                              \
        .depth = n, .tos = MSR_LBR_TOS, .from = LBR_FROM_CORE, .to = LBR_TO_CORE                   \
    }
#define LBR_NHM(cs)                                                                                \
    {                                                                                              \
        .depth = 16, .callstack = cs, .tos = MSR_LBR_TOS, .from = LBR_FROM_NHM, .to = LBR_TO_NHM   \
    }
#define LBR_SKL(cs)                                                                                \
    {                                                                                              \
        .depth = 32, .has_info = 1, .callstack = cs, .tos = MSR_LBR_TOS, .from = LBR_FROM_NHM,     \
        .to = LBR_TO_NHM, .info = LBR_INFO_SKL                                                     \
    }

/* Core 2 and Bonnell: LBR format 0 (FROM and TO in the one FROM MSR; the TO MSRs are not
 * read), no PEBS acart decodes (format 0). */
static const struct pmu_model core2 = {.uarch = "core2", .lbr = LBR_CORE(4)};
static const struct pmu_model bonnell = {.uarch = "bonnell", .lbr = LBR_CORE(8)};
static const struct pmu_model nehalem = {
    .uarch = "nehalem", .lbr = LBR_NHM(0), .pebs_gp = 4, .pebs_dse = PMU_DSE_NHM, .ldlat_gp = 0xf};
static const struct pmu_model sandybridge = {.uarch = "sandybridge",
                                             .lbr = LBR_NHM(0),
                                             .pebs_gp = 4,
                                             .pebs_dse = PMU_DSE_SNB,
                                             .ldlat_gp = 0x8};
static const struct pmu_model haswell = {.uarch = "haswell",
                                         .lbr = LBR_NHM(1),
                                         .pebs_gp = 4,
                                         .pmi_ack_late = 1,
                                         .pebs_dse = PMU_DSE_SNB,
                                         .ldlat_gp = 0xf};
/* Haswell's PMU with the INST_RETIRED.ALL period errata. */
static const struct pmu_model broadwell = {.uarch = "broadwell",
                                           .lbr = LBR_NHM(1),
                                           .pebs_gp = 4,
                                           .pmi_ack_late = 1,
                                           .pebs_dse = PMU_DSE_SNB,
                                           .ldlat_gp = 0xf,
                                           .inst_retired_all_limits = 1};
static const struct pmu_model skylake = {.uarch = "skylake",
                                         .lbr = LBR_SKL(1),
                                         .pebs_gp = 4,
                                         .pmi_ack_late = 1,
                                         .pebs_dse = PMU_DSE_SKL,
                                         .ldlat_gp = 0xf};
static const struct pmu_model icelake = {.uarch = "icelake",
                                         .lbr = LBR_SKL(1),
                                         .pebs_gp = 8,
                                         .pmi_ack_late = 1,
                                         .pebs_dse = PMU_DSE_SKL,
                                         .ldlat_gp = 0xfe};
static const struct pmu_model tigerlake = {.uarch = "tigerlake",
                                           .lbr = LBR_SKL(1),
                                           .pebs_gp = 8,
                                           .pmi_ack_late = 1,
                                           .pebs_dse = PMU_DSE_SKL,
                                           .ldlat_gp = 0xfe};
/* Architectural LBR: depth and MSRs come from CPUID leaf 0x1C. */
static const struct pmu_model sapphirerapids = {.uarch = "sapphirerapids",
                                                .pebs_gp = 8,
                                                .pmi_ack_late = 1,
                                                .pebs_dse = PMU_DSE_SKL,
                                                .ldlat_gp = 0xfe};
static const struct pmu_model silvermont = {
    .uarch = "silvermont", .lbr = LBR_CORE(8), .pebs_gp = 1};
static const struct pmu_model goldmont = {.uarch = "goldmont", .lbr = LBR_SKL(0), .pebs_gp = 4};
static const struct pmu_model goldmont_plus = {
    .uarch = "goldmont_plus", .lbr = LBR_SKL(0), .pebs_gp = 4};
static const struct pmu_model tremont = {
    .uarch = "tremont", .lbr = LBR_SKL(1), .pebs_gp = 8, .pmi_ack_late = 1};
/* The small cores from Gracemont on acknowledge mid-handler, once the status is clear and
 * before counting resumes (Linux's mid_ack: the Gracemont and Grand Ridge/Sierra Forest
 * cases of intel_pmu_init(), intel_pmu_init_grt()). Architectural LBR and adaptive PEBS
 * enumerate themselves. */
static const struct pmu_model gracemont = {.uarch = "gracemont", .pebs_gp = 8, .pmi_ack_mid = 1};
static const struct pmu_model crestmont = {.uarch = "crestmont", .pebs_gp = 8, .pmi_ack_mid = 1};
/* Hybrid parts: Linux's one x86_pmu gets late_ack from the big core's setup
 * (intel_pmu_init_glc()) and mid_ack from the small core's (intel_pmu_init_grt()), and its
 * handler then unmasks at both places; acart does the same on every core type. Counters
 * differ per core type: pmu_cpu_init() reads each CPU's own. */
static const struct pmu_model hybrid = {
    .uarch = "hybrid", .pebs_gp = 8, .pmi_ack_late = 1, .pmi_ack_mid = 1};

static const struct {
    uint8_t model;
    const struct pmu_model *row;
} family6[] = {
    {0x0f, &core2},          /* Merom */
    {0x16, &core2},          /* Merom-L */
    {0x17, &core2},          /* Penryn */
    {0x1d, &core2},          /* Dunnington */
    {0x1c, &bonnell},        /* Bonnell */
    {0x26, &bonnell},        /* Bonnell (Lincroft) */
    {0x1a, &nehalem},        /* Nehalem-EP */
    {0x1e, &nehalem},        /* Nehalem */
    {0x1f, &nehalem},        /* Nehalem */
    {0x2e, &nehalem},        /* Nehalem-EX */
    {0x25, &nehalem},        /* Westmere */
    {0x2c, &nehalem},        /* Westmere-EP */
    {0x2f, &nehalem},        /* Westmere-EX */
    {0x2a, &sandybridge},    /* Sandy Bridge */
    {0x2d, &sandybridge},    /* Sandy Bridge-E */
    {0x3a, &sandybridge},    /* Ivy Bridge */
    {0x3e, &sandybridge},    /* Ivy Bridge-E */
    {0x3c, &haswell},        /* Haswell */
    {0x3f, &haswell},        /* Haswell-X */
    {0x45, &haswell},        /* Haswell-L */
    {0x46, &haswell},        /* Haswell-G */
    {0x3d, &broadwell},      /* Broadwell */
    {0x47, &broadwell},      /* Broadwell-G */
    {0x4f, &broadwell},      /* Broadwell-X */
    {0x56, &broadwell},      /* Broadwell-D */
    {0x4e, &skylake},        /* Skylake-L */
    {0x5e, &skylake},        /* Skylake */
    {0x55, &skylake},        /* Skylake-X, Cascade Lake */
    {0x8e, &skylake},        /* Kaby Lake-L */
    {0x9e, &skylake},        /* Kaby Lake, Coffee Lake */
    {0xa5, &skylake},        /* Comet Lake */
    {0xa6, &skylake},        /* Comet Lake-L */
    {0x6a, &icelake},        /* Ice Lake-X */
    {0x6c, &icelake},        /* Ice Lake-D */
    {0x7d, &icelake},        /* Ice Lake */
    {0x7e, &icelake},        /* Ice Lake-L */
    {0xa7, &icelake},        /* Rocket Lake */
    {0x8c, &tigerlake},      /* Tiger Lake-L */
    {0x8d, &tigerlake},      /* Tiger Lake */
    {0x8f, &sapphirerapids}, /* Sapphire Rapids */
    {0xcf, &sapphirerapids}, /* Emerald Rapids */
    {0x37, &silvermont},     /* Bay Trail */
    {0x4a, &silvermont},     /* Merrifield */
    {0x4d, &silvermont},     /* Avoton */
    {0x5a, &silvermont},     /* Moorefield */
    {0x4c, &silvermont},     /* Airmont: Cherry Trail */
    {0x5c, &goldmont},       /* Apollo Lake */
    {0x5f, &goldmont},       /* Denverton */
    {0x7a, &goldmont_plus},  /* Gemini Lake */
    {0x86, &tremont},        /* Snow Ridge */
    {0x96, &tremont},        /* Elkhart Lake */
    {0x9c, &tremont},        /* Jasper Lake */
    {0xbe, &gracemont},      /* Alder Lake-N */
    {0xb6, &crestmont},      /* Grand Ridge */
    {0xaf, &crestmont},      /* Sierra Forest */
    {0x97, &hybrid},         /* Alder Lake */
    {0x9a, &hybrid},         /* Alder Lake-L */
    {0xb7, &hybrid},         /* Raptor Lake */
    {0xba, &hybrid},         /* Raptor Lake-P */
    {0xbf, &hybrid},         /* Raptor Lake-S */
    {0xaa, &hybrid},         /* Meteor Lake-L */
    {0xac, &hybrid},         /* Meteor Lake */
};

const struct pmu_model *pmu_model_lookup(uint32_t family, uint32_t model)
{
    if (family != 6)
        return NULL;
    for (size_t i = 0; i < sizeof(family6) / sizeof(family6[0]); i++) {
        if (family6[i].model == model)
            return family6[i].row;
    }
    return NULL;
}

#if ACA_WITH_PEBS
/* ---- PEBS errata that microcode fixes ----
 *
 * As Linux applies them: with microcode below the revision PEBS is off, and precise
 * sampling is refused with the reason (Linux sets x86_pmu.pebs_broken and refuses precise
 * events). The other per-model PEBS facts are the rows' pebs_gp (PMC0 alone on
 * Silvermont, PMC0-3 on legacy cores) and ldlat_gp. Linux's PEBS isolation table
 * (isolation_ucodes[] in arch/x86/events/intel/core.c) is not here: it decides whether
 * IA32_PEBS_ENABLE must be cleared at each VM entry, and acart runs no guests. */
#define ANY_STEPPING 0xffu
#define NEVER_FIXED  0xffffffffu

static const struct pebs_quirk quirks[] = {
    /* Sandy Bridge client: PEBS is unreliable (hangs) until microcode 0x28
     * (Linux: intel_snb_pebs_broken, "PEBS disabled due to CPU errata, please upgrade
     * microcode"). */
    {0x2a, ANY_STEPPING, 0x28,
     "Sandy Bridge PEBS erratum: microcode below 0x28 (Linux intel_snb_pebs_broken); update the "
     "microcode"},
    /* Sandy Bridge-E/EP: fixed in 0x618 on stepping 6 and 0x70c on stepping 7; Linux
     * treats every other stepping as broken whatever its microcode. */
    {0x2d, 6, 0x618,
     "Sandy Bridge-EP PEBS erratum: microcode below 0x618 on stepping 6 (Linux "
     "intel_snb_pebs_broken); update the microcode"},
    {0x2d, 7, 0x70c,
     "Sandy Bridge-EP PEBS erratum: microcode below 0x70c on stepping 7 (Linux "
     "intel_snb_pebs_broken); update the microcode"},
    {0x2d, ANY_STEPPING, NEVER_FIXED,
     "Sandy Bridge-EP PEBS erratum: no microcode fixes this stepping (Linux "
     "intel_snb_pebs_broken)"},
};

const struct pebs_quirk *pebs_quirk_lookup(uint32_t family, uint32_t model, uint32_t stepping,
                                           uint32_t microcode)
{
    if (family != 6)
        return NULL;
    /* The first row for the model and stepping decides: exact steppings come first. */
    for (size_t i = 0; i < sizeof(quirks) / sizeof(quirks[0]); i++) {
        const struct pebs_quirk *q = &quirks[i];
        if (q->model != model || (q->stepping != ANY_STEPPING && q->stepping != stepping))
            continue;
        return q->min_microcode == NEVER_FIXED || microcode < q->min_microcode ? q : NULL;
    }
    return NULL;
}
#endif
