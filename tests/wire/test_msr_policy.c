/* The MSR allowlist (runtime/commands/msr_policy.c): listed registers, read-only ones, and counter
 * and LBR ranges bounded by the CPU's counts. */
#include <string.h>

#include "acart_check.h"
#include "msr_policy.h"
#include "wire_image.h"

#define R 0
#define W 1

static void test_unconfigured_fails_closed(void)
{
    /* Before msr_policy_configure() no counter and no LBR exists. */
    CHECK_EQ(msr_policy_check(0xC1, R), MSR_POLICY_ERR_INDEX);
    CHECK_EQ(msr_policy_check(0x186, W), MSR_POLICY_ERR_INDEX);
    CHECK_EQ(msr_policy_check(0x309, W), MSR_POLICY_ERR_INDEX);
    CHECK_EQ(msr_policy_check(0x680, R), MSR_POLICY_ERR_UNLISTED);
    /* Single registers do not depend on the counts. */
    CHECK_EQ(msr_policy_check(0x38F, W), MSR_POLICY_OK);
}

static void test_counters(void)
{
    struct msr_policy_limits lim = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&lim);

    for (uint32_t i = 0; i < 4; i++) {
        CHECK_EQ(msr_policy_check(0xC1 + i, W), MSR_POLICY_OK);
        CHECK_EQ(msr_policy_check(0xC1 + i, R), MSR_POLICY_OK);
        CHECK_EQ(msr_policy_check(0x186 + i, W), MSR_POLICY_OK);
    }
    /* Counters 4..7 exist architecturally but not on this CPU. */
    for (uint32_t i = 4; i < 8; i++) {
        CHECK_EQ(msr_policy_check(0xC1 + i, W), MSR_POLICY_ERR_INDEX);
        CHECK_EQ(msr_policy_check(0x186 + i, R), MSR_POLICY_ERR_INDEX);
    }
    /* Past the eight architectural slots it is some other register entirely. */
    CHECK_EQ(msr_policy_check(0xC9, R), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check(0xC0, R), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check(0x185, R), MSR_POLICY_ERR_UNLISTED);

    for (uint32_t i = 0; i < 3; i++)
        CHECK_EQ(msr_policy_check(0x309 + i, W), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x30C, W), MSR_POLICY_ERR_INDEX);
    CHECK_EQ(msr_policy_check(0x30D, W), MSR_POLICY_ERR_UNLISTED);

    /* Full-width counter aliases only when IA32_PERF_CAPABILITIES says they exist. */
    CHECK_EQ(msr_policy_check(0x4C1, W), MSR_POLICY_ERR_INDEX);
    lim.full_width_writes = 1;
    msr_policy_configure(&lim);
    CHECK_EQ(msr_policy_check(0x4C1, W), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x4C4, W), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x4C5, W), MSR_POLICY_ERR_INDEX);

    /* Counts above the architectural maximum are clamped to it. */
    lim.num_gp_counters = 200;
    lim.num_fixed_counters = 200;
    msr_policy_configure(&lim);
    CHECK_EQ(msr_policy_check(0xC8, W), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0xC9, W), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check(0x30C, W), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x30D, W), MSR_POLICY_ERR_UNLISTED);
}

static void test_single_registers(void)
{
    struct msr_policy_limits lim = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&lim);

    const uint32_t read_write[] = {0x38D, 0x38F, 0x390, 0x1D9, 0x3F1, 0x3F6,
                                   0x3F7, 0x600, 0x1C8, 0x1C9, 0x1A6, 0x1A7};
    for (size_t i = 0; i < sizeof read_write / sizeof read_write[0]; i++) {
        CHECK_EQ(msr_policy_check(read_write[i], R), MSR_POLICY_OK);
        CHECK_EQ(msr_policy_check(read_write[i], W), MSR_POLICY_OK);
    }
    const uint32_t read_only[] = {0x10, 0x17, 0xCE, 0xE7, 0xE8, 0x1A0, 0x345, 0x38E};
    for (size_t i = 0; i < sizeof read_only / sizeof read_only[0]; i++) {
        CHECK_EQ(msr_policy_check(read_only[i], R), MSR_POLICY_OK);
        CHECK_EQ(msr_policy_check(read_only[i], W), MSR_POLICY_ERR_READ_ONLY);
    }
    /* Registers that must never be reachable from the network. */
    const uint32_t forbidden[] = {0x1B /* APIC base */,
                                  0xC0000080 /* EFER */,
                                  0x3A /* feature control */,
                                  0x1F2 /* SMRR base */,
                                  0x174 /* SYSENTER_CS */,
                                  0x2BE /* the suite's READ_MSR */,
                                  0x0,
                                  0xFFFFFFFF};
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
        CHECK_EQ(msr_policy_check(forbidden[i], R), MSR_POLICY_ERR_UNLISTED);
        CHECK_EQ(msr_policy_check(forbidden[i], W), MSR_POLICY_ERR_UNLISTED);
    }
}

static void test_lbr(void)
{
    struct msr_policy_limits lim = {.num_gp_counters = 4,
                                    .num_fixed_counters = 3,
                                    .lbr_depth = 32,
                                    .lbr_from_base = 0x680,
                                    .lbr_to_base = 0x6C0,
                                    .lbr_info_base = 0xDC0};
    msr_policy_configure(&lim);
    CHECK_EQ(msr_policy_check(0x680, R), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x69F, W), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x6C0, R), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x6DF, R), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0xDC0, R), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0xDDF, R), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x6E0, R), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check(0xDE0, R), MSR_POLICY_ERR_UNLISTED);

    /* An older core: 8 entries at 0x40 / 0x60, no LBR_INFO. */
    struct msr_policy_limits old = {.num_gp_counters = 2,
                                    .num_fixed_counters = 3,
                                    .lbr_depth = 8,
                                    .lbr_from_base = 0x40,
                                    .lbr_to_base = 0x60};
    msr_policy_configure(&old);
    CHECK_EQ(msr_policy_check(0x40, R), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x47, W), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x48, R), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check(0x67, R), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check(0x680, R), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check(0xDC0, R), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check(0xC3, R), MSR_POLICY_ERR_INDEX); /* only two counters */
}

static void test_names_and_strings(void)
{
    struct msr_policy_limits lim = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&lim);
    CHECK(strcmp(msr_policy_name(0xC2), "IA32_PMC") == 0);
    CHECK(strcmp(msr_policy_name(0x30B), "IA32_FIXED_CTR") == 0);
    CHECK(strcmp(msr_policy_name(0x1D9), "IA32_DEBUGCTL") == 0);
    CHECK(msr_policy_name(0x1B) == NULL);
    CHECK(msr_policy_name(0xC8) == NULL); /* beyond this CPU */

    for (int e = MSR_POLICY_OK; e >= MSR_POLICY_ERR_MODE; e--)
        CHECK(strcmp(msr_policy_strerror(e), "unknown MSR policy error") != 0);
    CHECK(strcmp(msr_policy_strerror(-5), "unknown MSR policy error") == 0);
}

/* Intel PT: the host may read the trace unit's MSRs, never write them; acart's own trace
 * code may. Without PT they are no registers at all. */
static void test_pt(void)
{
    struct msr_policy_limits lim = {.num_gp_counters = 4, .num_fixed_counters = 3};
    msr_policy_configure(&lim);
    CHECK_EQ(msr_policy_check(0x570, R), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check_own(0x570), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check_own(0x580), MSR_POLICY_ERR_UNLISTED);

    lim.pt = 1;
    lim.pt_output = 1;
    lim.pt_ranges = 2;
    msr_policy_configure(&lim);
    static const uint32_t listed[] = {0x560, 0x561, 0x570, 0x571, 0x580, 0x581, 0x582, 0x583};
    for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
        CHECK_EQ(msr_policy_check(listed[i], R), MSR_POLICY_OK);
        CHECK_EQ(msr_policy_check(listed[i], W), MSR_POLICY_ERR_READ_ONLY);
        CHECK_EQ(msr_policy_check_own(listed[i]), MSR_POLICY_OK);
    }
    CHECK(strcmp(msr_policy_name(0x570), "IA32_RTIT_CTL") == 0);
    CHECK_EQ(msr_policy_check_own(0x584), MSR_POLICY_ERR_INDEX); /* ADDR2: two ranges */
    CHECK_EQ(msr_policy_check_own(0x588), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check_own(0x572), MSR_POLICY_ERR_UNLISTED); /* CR3_MATCH: unused */
    /* The PMI's acknowledgement of bit 55 goes through a PMU register acart may write. */
    CHECK_EQ(msr_policy_check_own(0x390), MSR_POLICY_OK);
    CHECK_EQ(msr_policy_check_own(0x38E), MSR_POLICY_ERR_READ_ONLY);
    lim.pt_output = 0;
    msr_policy_configure(&lim);
    CHECK_EQ(msr_policy_check_own(0x560), MSR_POLICY_ERR_UNLISTED);
    CHECK_EQ(msr_policy_check_own(0x570), MSR_POLICY_OK);
    lim.pt = 0;
    msr_policy_configure(&lim);
}

/* The core-PMU registers a host may not write while IPROBE owns the counters: every
 * writable one of the list but the uncore's; none read-only, unlisted or beyond the CPU. */
static void test_core_pmu(void)
{
    struct msr_policy_limits lim = {.num_gp_counters = 4,
                                    .num_fixed_counters = 3,
                                    .full_width_writes = 1,
                                    .lbr_depth = 32,
                                    .lbr_from_base = 0x680,
                                    .lbr_to_base = 0x6C0,
                                    .lbr_info_base = 0xDC0,
                                    .pt = 1,
                                    .uncore_client = 1,
                                    .uncore_cbos = 4};
    msr_policy_configure(&lim);
    static const uint32_t core[] = {0xC1,  0xC4,  0x186, 0x189, 0x4C1, 0x309, 0x30B, 0x38D,
                                    0x38F, 0x390, 0x1A6, 0x1A7, 0x3F1, 0x3F6, 0x3F7, 0x600,
                                    0x1C8, 0x1C9, 0x1D9, 0x680, 0x6C0, 0xDC0};
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        CHECK_EQ(msr_policy_core_pmu(core[i]), 1);
    static const uint32_t other[] = {0x10,  0xC5,  0x18A, 0x30C, 0x38E, 0x345, 0x570,
                                     0x394, 0x3B0, 0xE01, 0x700, 0x716, 0x1B,  0x1A0};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        CHECK_EQ(msr_policy_core_pmu(other[i]), 0);
}

/* IA-32e-only MSRs are refused in both modes; a 32-bit build (wire_msr_policy_i686) says it
 * is the mode. */
static void test_long_mode_only(void)
{
    static const uint32_t msrs[] = {0xC0000081, 0xC0000084, 0xC0000100, 0xC0000102};
    const int want = sizeof(void *) == 4 ? MSR_POLICY_ERR_MODE : MSR_POLICY_ERR_UNLISTED;
    for (size_t i = 0; i < sizeof msrs / sizeof msrs[0]; i++) {
        CHECK_EQ(msr_policy_check(msrs[i], 0), want);
        CHECK_EQ(msr_policy_check(msrs[i], 1), want);
    }
    CHECK_EQ(msr_policy_check(0xC0000080, 0), MSR_POLICY_ERR_UNLISTED); /* EFER: both modes */
    /* The refusal names the mode the MSR needs and the one the target runs. */
    CHECK(strstr(msr_policy_strerror(MSR_POLICY_ERR_MODE), "IA-32e (64-bit) mode only") != NULL);
    CHECK(strstr(msr_policy_strerror(MSR_POLICY_ERR_MODE), "runs 32-bit code") != NULL);
}

int main(void)
{
    test_long_mode_only();
    test_unconfigured_fails_closed();
    test_counters();
    test_single_registers();
    test_lbr();
    test_names_and_strings();
    test_pt();
    test_core_pmu();
    return check_report("test_msr_policy");
}
