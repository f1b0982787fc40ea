/* CPU models for the simulator: what each answers to CPUID and IA32_PERF_CAPABILITIES,
 * and its model-specific LBR and PEBS facts. Register values follow the SDM's field
 * layouts; for the parts, the documented counter counts and widths, PERF_CAPABILITIES as
 * such CPUs report it (Skylake client: 0x33c5), LBR geometry as in the SDM model MSR
 * tables. Where a part's exact PERF_CAPABILITIES is not documented (the Atoms), the value
 * is representative of its generation and chosen to exercise a format. */
#include "sim_models.h"

#define BIT(n) (1u << (n))

/* Here rather than in sim_cpu.c, which a board compiles once per simulated CPU: one
 * definition serves them all. Out of line, so that cppcheck, looking at one build, does
 * not take its answer for the only one (knownConditionTrueFalse at every caller). */
int sim_ia32e(void)
{
    return sizeof(void *) == 8;
}

/* CPUID.1 */
#define ECX_DTES64 BIT(2)
#define ECX_PDCM   BIT(15)
#define EDX_DS     BIT(21)
/* CPUID.(7,0) */
#define EBX_HLE      BIT(4)
#define EBX_RTM      BIT(11)
#define EBX_PT       BIT(25)
#define EDX_ARCH_LBR BIT(19)
#define EDX_HYBRID   BIT(15)

/* CPUID.0AH: EAX = version | GP counters << 8 | width << 16 | event-mask length << 24;
 * EDX = fixed counters | fixed width << 5 | AnyThread deprecated << 15. */
#define LEAF_0A_EAX(ver, gp, width, len)  ((ver) | (gp) << 8 | (width) << 16 | (len) << 24)
#define LEAF_0A_EDX(fixed, width, no_any) ((fixed) | (width) << 5 | (no_any) << 15)

/* CPUID.14H: sub-leaf 0 EBX = CR3 filter | PSB+CYC | IP filter | MTC (| PTWRITE | power
 * events), ECX = ToPA | ToPA multi-entry | single range | LIP; sub-leaf 1 EAX = 2 address
 * ranges | MTC periods 0, 3, 6, 9 << 16, EBX = CYC thresholds 0-13 | PSB periods 0-5 << 16:
 * what Skylake client reports (leaf 0x14: 1, 0xf, 0x80000007; 0x02490002, 0x003f3fff); the
 * Goldmont Plus generation adds PTWRITE and power events (EBX 0x3f). */
#define LEAF_14_SKYLAKE                                                                            \
    {                                                                                              \
        {1, 0xf, 0x80000007u, 0},                                                                  \
        {                                                                                          \
            0x02490002, 0x003f3fff, 0, 0                                                           \
        }                                                                                          \
    }
#define LEAF_14_GLP                                                                                \
    {                                                                                              \
        {1, 0x3f, 0x80000007u, 0},                                                                 \
        {                                                                                          \
            0x02490002, 0x003f3fff, 0, 0                                                           \
        }                                                                                          \
    }
/* CPUID.15H: a 24 MHz crystal and TSC = crystal * 250 / 3 = 2 GHz; MSR_PLATFORM_INFO's
 * maximum non-turbo ratio (bits 15:8) 20, so nom_freq x 100 MHz is that TSC rate. */
#define LEAF_15_2GHZ                                                                               \
    {                                                                                              \
        3, 250, 24000000, 0                                                                        \
    }
#define PLATFORM_INFO_20 0x1400ull

#define INTEL "GenuineIntel"

const struct sim_model sim_skylake = {
    .name = "skylake",
    .vendor = INTEL,
    .max_leaf = 0x16,
    .signature = 0x506e3, /* 06_5E stepping 3 */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_HLE | EBX_RTM | EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(4, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    /* LBR format 5, PEBS trap + arch regs, PEBS format 3, SMM freeze, full-width. */
    .perf_capabilities = 0x33c5,
    .pebs_gp = 4,
    .lbr_depth = 32,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = LEAF_14_SKYLAKE,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

const struct sim_model sim_skylake_no_fw = {
    .name = "skylake-no-full-width",
    .vendor = INTEL,
    .max_leaf = 0x16,
    .signature = 0x506e3,
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_HLE | EBX_RTM | EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(4, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    .perf_capabilities = 0x13c5,
    .pebs_gp = 4,
    .lbr_depth = 32,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = LEAF_14_SKYLAKE,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

const struct sim_model sim_skylake_no_pebs = {
    .name = "skylake-pebs-unavailable",
    .vendor = INTEL,
    .max_leaf = 0x16,
    .signature = 0x506e3,
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_HLE | EBX_RTM | EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(4, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    .perf_capabilities = 0x33c5,
    .pebs_unavailable = 1,
    .pebs_gp = 4,
    .lbr_depth = 32,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = LEAF_14_SKYLAKE,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

const struct sim_model sim_haswell = {
    .name = "haswell",
    .vendor = INTEL,
    .max_leaf = 0xd,
    .signature = 0x306c3, /* 06_3C */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_HLE | EBX_RTM,
    .leaf_0a = {LEAF_0A_EAX(3, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    /* LBR format 4 (flags and TSX bits in FROM), PEBS format 2, full-width. */
    .perf_capabilities = 0x22c4,
    .pebs_gp = 4,
    .lbr_depth = 16,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
};

const struct sim_model sim_nehalem = {
    .name = "nehalem",
    .vendor = INTEL,
    .max_leaf = 0xb,
    .signature = 0x106a5, /* 06_1A */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf_0a = {LEAF_0A_EAX(3, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    /* LBR format 3 (mispredict in FROM), PEBS format 1, no full-width writes. */
    .perf_capabilities = 0x1c3,
    .pebs_gp = 4,
    .lbr_depth = 16,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
};

/* Sandy Bridge (06_2A stepping 7): load latency only on PMC3 (Linux's PEBS constraints),
 * PEBS usable from microcode 0x28 on (Linux's intel_snb_pebs_broken). */
#define SANDYBRIDGE(ucode)                                                                         \
    {                                                                                              \
        .name = "sandybridge", .vendor = INTEL, .max_leaf = 0xd, .signature = 0x206a7,             \
        .leaf1_ecx = ECX_DTES64 | ECX_PDCM, .leaf1_edx = EDX_DS,                                   \
        .leaf_0a = {LEAF_0A_EAX(3, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},                        \
        .perf_capabilities = 0x1c3, .pebs_gp = 4, .lbr_depth = 16, .lbr_from = 0x680,              \
        .lbr_to = 0x6c0, .microcode = ucode                                                        \
    }
const struct sim_model sim_sandybridge = SANDYBRIDGE(0x2f);
const struct sim_model sim_sandybridge_old = SANDYBRIDGE(0x25);

const struct sim_model sim_goldmont = {
    .name = "goldmont",
    .vendor = INTEL,
    .max_leaf = 0x15,
    .signature = 0x506c9, /* 06_5C Apollo Lake */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(4, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    .perf_capabilities = 0x33c5,
    .pebs_gp = 4,
    .lbr_depth = 32,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = LEAF_14_SKYLAKE,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

const struct sim_model sim_goldmont_plus = {
    .name = "goldmont_plus",
    .vendor = INTEL,
    .max_leaf = 0x18,
    .signature = 0x706a1, /* 06_7A */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(4, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    /* LBR format 6: cycles in TO[63:48]. */
    .perf_capabilities = 0x33c6,
    .pebs_gp = 4,
    .lbr_depth = 32,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = LEAF_14_GLP,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

const struct sim_model sim_tremont = {
    .name = "tremont",
    .vendor = INTEL,
    .max_leaf = 0x1b,
    .signature = 0x90661, /* 06_96 Elkhart Lake */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(5, 4, 48, 7), 0, 0x7, LEAF_0A_EDX(3, 48, 1)},
    /* PEBS format 4 with baseline (adaptive), full-width. */
    .perf_capabilities = 0x74c5,
    .lbr_depth = 32,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = LEAF_14_GLP,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

const struct sim_model sim_tigerlake = {
    .name = "tigerlake",
    .vendor = INTEL,
    .max_leaf = 0x1b,
    .signature = 0x806c1, /* 06_8C */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(5, 8, 48, 8), 0, 0xf, LEAF_0A_EDX(4, 48, 1)},
    /* Adaptive PEBS format 4, perf metrics, full-width. */
    .perf_capabilities = 0xf4c5,
    .lbr_depth = 32,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = LEAF_14_GLP,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

/* Hybrid Alder Lake (06_97), perfmon v5 on both core types (SDM vol. 3B, "Performance
 * Monitoring for Processors Based on the 12th Generation Intel Core Processor Family";
 * Linux's intel_pmu_init_hybrid()): a P-core (Golden Cove, CPUID.1AH core type 0x40) has 8
 * general counters and fixed counters 0-3, an E-core (Gracemont, 0x20) 6 and 0-2. Only the
 * counters are modelled: no DS, no LBR. */
#define ADL_LEAF7_EDX EDX_HYBRID
const struct sim_model sim_alderlake_p = {
    .name = "alderlake_p",
    .vendor = INTEL,
    .max_leaf = 0x20,
    .signature = 0x90672, /* 06_97 */
    .leaf1_ecx = ECX_PDCM,
    .leaf7_edx = ADL_LEAF7_EDX,
    .leaf_0a = {LEAF_0A_EAX(5, 8, 48, 8), 0, 0xf, LEAF_0A_EDX(4, 48, 1)},
    .leaf_1a = {0x40000001u, 0, 0, 0},
    .perf_capabilities = 0x2000, /* full-width writes */
};
const struct sim_model sim_alderlake_e = {
    .name = "alderlake_e",
    .vendor = INTEL,
    .max_leaf = 0x20,
    .signature = 0x90672, /* 06_97 */
    .leaf1_ecx = ECX_PDCM,
    .leaf7_edx = ADL_LEAF7_EDX,
    .leaf_0a = {LEAF_0A_EAX(5, 6, 48, 8), 0, 0x7, LEAF_0A_EDX(3, 48, 1)},
    .leaf_1a = {0x20000001u, 0, 0, 0},
    .perf_capabilities = 0x2000,
};
/* Alder Lake-N (06_BE): Gracemont cores only, not hybrid; Linux acknowledges its PMIs
 * mid-handler (intel_pmu_init(), case ATOM_GRACEMONT: mid_ack). */
const struct sim_model sim_gracemont = {
    .name = "gracemont",
    .vendor = INTEL,
    .max_leaf = 0x20,
    .signature = 0xb06e0, /* 06_BE */
    .leaf1_ecx = ECX_PDCM,
    .leaf_0a = {LEAF_0A_EAX(5, 6, 48, 8), 0, 0x7, LEAF_0A_EDX(3, 48, 1)},
    .perf_capabilities = 0x2000,
};

const struct sim_model sim_sapphire_rapids = {
    .name = "sapphire_rapids",
    .vendor = INTEL,
    .max_leaf = 0x20,
    .signature = 0x806f8, /* 06_8F */
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_HLE | EBX_RTM | EBX_PT,
    .leaf7_edx = EDX_ARCH_LBR,
    .leaf_0a = {LEAF_0A_EAX(5, 8, 48, 8), 0, 0xf, LEAF_0A_EDX(4, 48, 1)},
    /* Depths 8, 16, 24, 32; CPL, branch-type and call-stack filters; mispredict, timed
     * LBR and branch type fields. */
    .leaf_1c = {0x4000000f, 0x7, 0x7, 0},
    /* LBR format 0x3f (architectural), adaptive PEBS format 4. */
    .perf_capabilities = 0xf4ff,
    .leaf_14 = LEAF_14_GLP,
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};

/* Perfmon v2 whose CPUID.0AH:EDX reports no fixed counters although the three exist
 * (the case behind Linux's "v2 perfmon does not report fixed-purpose events" quirk). */
const struct sim_model sim_core2 = {
    .name = "core2",
    .vendor = INTEL,
    .max_leaf = 0xd,
    .signature = 0x10676, /* 06_17 Penryn */
    .leaf_0a = {LEAF_0A_EAX(2, 2, 40, 7), 0, 0, 0},
    .fixed_unreported = 3,
    /* No PDCM, so no IA32_PERF_CAPABILITIES: LBR format 0, FROM and TO in one MSR. */
    .lbr_depth = 4,
    .lbr_from = 0x40,
    .lbr_to = 0x60,
};

const struct sim_model sim_qemu_tcg = {
    .name = "qemu-tcg", .vendor = INTEL, .max_leaf = 0xd, .signature = 0x663,
    /* No PDCM, no DS; leaf 0xA all zero: version 0. */
};

const struct sim_model sim_perfmon_v1 = {
    .name = "perfmon-v1",
    .vendor = INTEL,
    .max_leaf = 0xa,
    .signature = 0x6ec, /* 06_0E Core Solo/Duo */
    .leaf_0a = {LEAF_0A_EAX(1, 2, 40, 7), 0, 0, 0},
};

const struct sim_model sim_amd = {
    .name = "amd",
    .vendor = "AuthenticAMD",
    .max_leaf = 0x10,
    .signature = 0xa50f00,
};

/* Broadwell, the first generation with Intel PT: ToPA tables of a single entry (MENTRY
 * clear), single-range output, CR3 filtering only, no sub-leaf 1. */
const struct sim_model sim_broadwell = {
    .name = "broadwell",
    .vendor = INTEL,
    .max_leaf = 0x14,
    .signature = 0x306d4, /* 06_3D */
    .inst_retired_all_limits = 1,
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_HLE | EBX_RTM | EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(3, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    .perf_capabilities = 0x32c4,
    .pebs_gp = 4,
    .lbr_depth = 16,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .leaf_14 = {{0, 0x1, 0x80000005u, 0}, {0, 0, 0, 0}},
};

/* Not a real part: Skylake whose trace unit offers only one-entry ToPA output (no
 * multi-entry, no single range), the one output scheme the others leave untested. */
const struct sim_model sim_pt_topa_one = {
    .name = "pt-topa-one-entry",
    .vendor = INTEL,
    .max_leaf = 0x16,
    .signature = 0x506e3,
    .leaf1_ecx = ECX_DTES64 | ECX_PDCM,
    .leaf1_edx = EDX_DS,
    .leaf7_ebx = EBX_HLE | EBX_RTM | EBX_PT,
    .leaf_0a = {LEAF_0A_EAX(4, 4, 48, 7), 0, 0, LEAF_0A_EDX(3, 48, 0)},
    .perf_capabilities = 0x33c5,
    .pebs_gp = 4,
    .lbr_depth = 32,
    .lbr_callstack = 1,
    .lbr_from = 0x680,
    .lbr_to = 0x6c0,
    .lbr_info = 0xdc0,
    .leaf_14 = {{1, 0xf, 0x1, 0}, {0x02490002, 0x003f3fff, 0, 0}},
    .leaf_15 = LEAF_15_2GHZ,
    .platform_info = PLATFORM_INFO_20,
};
