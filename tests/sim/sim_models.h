/* The simulated CPU's models (sim_models.c): what each answers to CPUID and
 * IA32_PERF_CAPABILITIES, and the MSR facts CPUID does not give; and the mode every
 * simulated CPU runs in. sim_cpu.h, which runs them, includes this header. */
#ifndef ACART_TESTS_SIM_SIM_MODELS_H
#define ACART_TESTS_SIM_SIM_MODELS_H

#include <stdint.h>

#include "cpuid.h"

/* ---- The CPU's mode ---- */

/* 1 when the simulated CPU runs in IA-32e mode (IA32_EFER.LMA = 1, its 64-bit submode), 0
 * in 32-bit protected mode. The code it runs is this very program's, so the mode is the
 * program's: a 64-bit program stands for acart's x86_64 firmware, a 32-bit one for its i686
 * firmware, which runs in protected mode with EFER.LMA clear (never compatibility mode, the
 * mode a 32-bit Linux program really runs in: that is the host's business, not the
 * simulated firmware's). Decided here from the program, not from anything of the code under
 * test (arch/x86/cpu/code_mode.h), so that the two can disagree and a test show it.
 *
 * What the SDM says differs between the two, as sim_cpu.c models it:
 *  - the DS save area and PEBS records: 64-bit fields in IA-32e mode, and in protected
 *    mode only with DTES64; without it, the 32-bit DS format and 40-byte records (vol. 3B,
 *    "BTS and DS Save Area", "64 Bit Format of the DS Save Area");
 *  - LBR FROM/TO: full 64-bit addresses in 64-bit mode, the upper 32 bits stored as 0
 *    outside it (vol. 3B, "LBR Stack and Intel 64 Processors");
 *  - addresses: the IP, branch addresses and data addresses are 32-bit in protected mode
 *    (vol. 1, "Modes of Operation": 4 GiB of linear address space) and canonical 48-bit
 *    ones in IA-32e mode (vol. 1, "Canonical Addressing"; the models report no 5-level
 *    paging). A test that feeds the simulator any other address is wrong: sim_set_ip,
 *    sim_set_data_address, sim_set_load and sim_branch* abort the program. */
int sim_ia32e(void);

/* What a model answers: CPUID leaves and the MSR facts CPUID does not give. */
struct sim_model {
    const char *name;
    char vendor[13];
    uint32_t max_leaf;
    uint32_t signature; /* CPUID.1:EAX */
    uint32_t leaf1_ecx, leaf1_edx;
    uint32_t leaf7_ebx, leaf7_edx;
    struct cpuid_regs leaf_0a;           /* architectural perfmon */
    struct cpuid_regs leaf_1c;           /* architectural LBR, when leaf7_edx[19] */
    struct cpuid_regs leaf_1a;           /* hybrid core type, when leaf7_edx[15] */
    uint64_t perf_capabilities;          /* IA32_PERF_CAPABILITIES, present with PDCM */
    uint8_t fixed_unreported;            /* fixed counters CPUID.0AH:EDX omits (v2 Core 2) */
    uint8_t pebs_unavailable;            /* IA32_MISC_ENABLE[12] */
    uint8_t pebs_gp;                     /* GP counters with legacy (non-adaptive) PEBS */
    uint8_t lbr_depth;                   /* model-specific LBR stack */
    uint32_t lbr_from, lbr_to, lbr_info; /* lbr_info 0: no LBR_INFO MSRs */
    uint8_t lbr_callstack;               /* MSR_LBR_SELECT bit 9 (else reserved) */
    uint8_t inst_retired_all_limits;     /* Broadwell errata BDM11 and BDM57 */
    struct cpuid_regs leaf_14[2];        /* Intel PT, sub-leaves 0 and 1 */
    struct cpuid_regs leaf_15;           /* TSC / crystal clock */
    uint64_t platform_info;              /* MSR_PLATFORM_INFO; 0: the MSR is absent */
    uint32_t microcode;                  /* revision IA32_BIOS_SIGN_ID reports */
};

/* The models. Values are those of the real parts as far as the SDM and
 * Linux document them; sim_skylake is the reference. */
extern const struct sim_model sim_skylake;         /* 06_5E, v4, 4x48 GP, 3x48 fixed */
extern const struct sim_model sim_skylake_no_fw;   /* without full-width writes */
extern const struct sim_model sim_skylake_no_pebs; /* PEBS disabled in MISC_ENABLE */
extern const struct sim_model sim_haswell;         /* 06_3C, v3: legacy freeze */
extern const struct sim_model sim_nehalem;         /* 06_1A, v3, PEBS format 1 */
extern const struct sim_model sim_sandybridge;     /* 06_2A, v3, format 1, microcode 0x2f */
extern const struct sim_model sim_sandybridge_old; /* ... microcode 0x25: PEBS erratum */
extern const struct sim_model sim_goldmont;        /* 06_5C Apollo Lake */
extern const struct sim_model sim_goldmont_plus;   /* 06_7A, LBR format 6 */
extern const struct sim_model sim_tremont;         /* 06_96 Elkhart Lake, adaptive PEBS */
extern const struct sim_model sim_tigerlake;       /* 06_8C, v5, 8 GP, 4 fixed */
extern const struct sim_model sim_sapphire_rapids; /* 06_8F, architectural LBR */
extern const struct sim_model sim_alderlake_p;     /* 06_97 hybrid: P-core, 8 GP, 4 fixed */
extern const struct sim_model sim_alderlake_e;     /* 06_97 hybrid: E-core, 6 GP, 3 fixed */
extern const struct sim_model sim_gracemont;       /* 06_BE Alder Lake-N: mid-handler ack */
extern const struct sim_model sim_core2;    /* 06_17, v2, fixed counters unreported, LBR format 0 */
extern const struct sim_model sim_qemu_tcg; /* leaf 0xA EAX = 0: no PMU */
extern const struct sim_model sim_perfmon_v1;  /* version 1: not usable */
extern const struct sim_model sim_amd;         /* AuthenticAMD */
extern const struct sim_model sim_broadwell;   /* 06_3D, first PT: one ToPA entry */
extern const struct sim_model sim_pt_topa_one; /* PT with only one-entry ToPA output */

#endif
